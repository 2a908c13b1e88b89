/* strmap.c: open-addressing hash map, linear probing. */
#include "common/strmap.h"
#include "common/hash.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *key; /* NULL marks an empty slot */
    size_t len;
    uint64_t hash;
    int64_t val;
} slot;

struct pdb_strmap {
    slot *slots;
    size_t cap; /* a power of two */
    size_t count;
};

pdb_strmap *pdb_strmap_new(void)
{
    pdb_strmap *m = pdb_xcalloc(1, sizeof *m);
    m->cap = 64;
    m->slots = pdb_xcalloc(m->cap, sizeof(slot));
    return m;
}

void pdb_strmap_free(pdb_strmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    free(m);
}

/* Linear probing over a power-of-two table kept under 3/4 full: a free
 * slot always exists, so the loop ends. */
static slot *find(const pdb_strmap *m, const char *key, size_t len, uint64_t h)
{
    assert(m->cap && (m->cap & (m->cap - 1)) == 0 && m->count < m->cap);
    size_t i = h & (m->cap - 1);
    for (;;) {
        slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0))
            return s;
        i = (i + 1) & (m->cap - 1);
    }
}

static void grow(pdb_strmap *m)
{
    slot *old = m->slots;
    size_t oldcap = m->cap;
    m->cap *= 2;
    m->slots = pdb_xcalloc(m->cap, sizeof(slot));
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key)
            *find(m, old[i].key, old[i].len, old[i].hash) = old[i];
    free(old);
}

bool pdb_strmap_get(const pdb_strmap *m, const char *key, size_t len, int64_t *val)
{
    slot *s = find(m, key, len, pdb_hash_bytes(key, len));
    if (!s->key)
        return false;
    if (val)
        *val = s->val;
    return true;
}

void pdb_strmap_put(pdb_strmap *m, const char *key, size_t len, int64_t val)
{
    if ((m->count + 1) * 4 > m->cap * 3)
        grow(m);
    uint64_t h = pdb_hash_bytes(key, len);
    slot *s = find(m, key, len, h);
    if (!s->key) {
        s->key = pdb_xstrndup(key, len);
        s->len = len;
        s->hash = h;
        m->count++;
    }
    s->val = val;
}

size_t pdb_strmap_count(const pdb_strmap *m)
{
    return m->count;
}

static int by_key(const void *a, const void *b)
{
    const slot *x = *(const slot *const *)a, *y = *(const slot *const *)b;
    int c = memcmp(x->key, y->key, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

void pdb_strmap_each(const pdb_strmap *m,
                     void (*fn)(const char *key, size_t len, int64_t val, void *arg),
                     void *arg)
{
    const slot **v = pdb_xmalloc((m->count ? m->count : 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key)
            v[n++] = &m->slots[i];
    qsort(v, n, sizeof *v, by_key);
    for (size_t i = 0; i < n; i++)
        fn(v[i]->key, v[i]->len, v[i]->val, arg);
    free(v);
}
