/* idmap.c: open addressing with linear probing over a power-of-two table
 * (see idmap.h). Keys are mixed (common/hash.h): string ids and
 * correlations are mostly consecutive integers. */
#include "analyze/idmap.h"
#include "common/hash.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>

/* Every bit of the key moves the slot (MurmurHash3's finaliser). The
 * product's bits 20 and up, used before, ignored the high half of a
 * pdb_idmap_pair key while the map had at most 4,096 slots: the ops of one
 * step, keyed (name, category), made one probe chain per category, and
 * filling a bucket was quadratic in its distinct names. */
static size_t slot_of(const pdb_idmap *m, int64_t key)
{
    return (size_t)pdb_hash_mix((uint64_t)key) & (m->cap - 1);
}

bool pdb_idmap_get(const pdb_idmap *m, int64_t key, int64_t *val)
{
    if (!m->cap)
        return false;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return false;
        if (m->keys[i] == key) {
            *val = m->vals[i];
            return true;
        }
    }
}

static void grow(pdb_idmap *m)
{
    pdb_idmap g = {0};
    g.cap = m->cap ? m->cap * 2 : 64;
    g.keys = pdb_xmalloc(g.cap * sizeof *g.keys);
    g.vals = pdb_xmalloc(g.cap * sizeof *g.vals);
    g.used = pdb_xcalloc(g.cap, sizeof *g.used);
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            pdb_idmap_put(&g, m->keys[i], m->vals[i]);
    pdb_idmap_free(m);
    *m = g;
}

void pdb_idmap_put(pdb_idmap *m, int64_t key, int64_t val)
{
    if ((m->count + 1) * 4 > m->cap * 3)
        grow(m);
    size_t i = slot_of(m, key);
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->used[i]) {
        m->used[i] = true;
        m->keys[i] = key;
        m->count++;
    }
    m->vals[i] = val;
    assert(m->count < m->cap);
}

/* Linear-probing deletion: later members of the cluster move back into the
 * hole unless their home slot lies cyclically after it. */
void pdb_idmap_del(pdb_idmap *m, int64_t key)
{
    if (!m->cap)
        return;
    size_t i = slot_of(m, key);
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->used[i])
        return;
    m->used[i] = false;
    m->count--;
    for (size_t j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
        size_t home = slot_of(m, m->keys[j]);
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            m->used[i] = true;
            m->used[j] = false;
            i = j;
        }
    }
}

void pdb_idmap_free(pdb_idmap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    *m = (pdb_idmap){0};
}
