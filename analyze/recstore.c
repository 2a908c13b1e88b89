/* recstore.c: fixed-size records under byte keys, in memory up to a bound
 * and in a temporary table past it (see recstore.h).
 *
 * Memory part: records in one array, keys in one arena, and an
 * open-addressing index of record numbers by key hash. Table part: record
 * h is row h of temp.pdb_rs_NAME (k the key, r the record bytes), read and
 * written through a direct-mapped cache of CACHE slots (slot h % CACHE); a
 * slot written since it was loaded goes back to the table when another
 * record needs it. A key is looked up in the table only when the Bloom
 * filter says it may be there and its entry of the key cache does not
 * guess it (a record not yet written keeps its guess), so creating a new
 * record costs one INSERT, when it leaves the cache.
 *
 * Statements, not rows, are what a spill pays for (a one-row statement
 * costs SQLite as much again as the row's b-tree work): records leaving
 * the cache wait in a pending list (new ones and changed ones apart) and
 * go to the table PENDING at a time, by one multi-row INSERT or UPDATE;
 * any read of the table writes the lists first. A miss a little after the
 * previous miss (a pass walking the records in about their order, as the
 * ops pass does at its end) loads the READ_AHEAD records after that miss
 * with one query. */
#include "analyze/recstore.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "common/query.h"
#include "common/query_db.h"
#include "analyze/queries.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE 512            /* table records held in memory */
#define KEY_CACHE 4096       /* recent table keys: hash -> record number */
#define BLOOM_BITS (1u << 23) /* 1 MiB: about 3% false hits at a million keys */
#define PENDING 32           /* records written to the table by one statement */
#define READ_AHEAD 32        /* records loaded by one query on an in-order miss */

typedef struct {
    int64_t h;               /* -1: empty */
    bool dirty, in_table;    /* in_table: in the table or on its way there (pending) */
    uint64_t hash;
    pdb_buf key;
    char *rec;
} slot;

/* Records on their way to the table, written max at a time by one
 * statement: new ones (with their keys) or changed ones (keys: NULL). */
typedef struct {
    int64_t *h;
    char *rec;
    pdb_buf keys;
    size_t *koff, *klen;
    int n, max;
    sqlite3_stmt *many, *one;
} pending;

/* A recent table key: its hash and record number (-1: none). The hash
 * keeps a guess for another key from loading a record to compare keys. */
typedef struct {
    uint64_t hash;
    int64_t h;
} key_guess;

struct pdb_recstore {
    sqlite3 *db;
    char *table;
    size_t rsize;
    int64_t mem_max;
    size_t key_budget;
    /* memory part: records 0 .. nmem-1 */
    char *mem;
    int64_t nmem, mem_cap;
    pdb_buf keys;            /* key bytes, back to back */
    size_t *koff, *klen;
    int64_t *index;          /* open addressing: record number or -1 */
    uint64_t *index_hash;
    size_t index_cap;
    /* table part: records nmem .. count-1 */
    int64_t count;
    bool spilling;
    slot *cache;             /* ncache slots (CACHE; 2 under PROFDB_SPILL_TEST) */
    key_guess *key_cache;    /* nkey_cache entries (KEY_CACHE; 2 likewise) */
    int64_t ncache, nkey_cache;
    uint8_t *bloom;
    pending added, changed;  /* records leaving the cache: new, or loaded and changed */
    int64_t last_miss;       /* the last record load() read from the table */
    int64_t read_ahead;      /* READ_AHEAD (2 under PROFDB_SPILL_TEST) */
    sqlite3_stmt *get, *get_range, *find;
    char *scratch;
    int err;
};

static int fail_db(pdb_recstore *s)
{
    if (s->err == PDB_OK)
        s->err = pdb_db_fail(s->db, "analysis spill table");
    return PDB_ERR;
}

int pdb_rs_new(sqlite3 *db, const char *name, size_t rsize, int64_t mem_max, size_t key_budget,
               pdb_recstore **out)
{
    pdb_recstore *s = pdb_xcalloc(1, sizeof *s);
    *out = s;
    s->db = db;
    s->rsize = rsize;
    s->mem_max = mem_max;
    s->key_budget = key_budget;
    s->mem_max = pdb_bound(mem_max, 3);
    s->scratch = pdb_xcalloc(1, rsize);
    s->index_cap = 64;
    s->index = pdb_xmalloc(s->index_cap * sizeof *s->index);
    s->index_hash = pdb_xmalloc(s->index_cap * sizeof *s->index_hash);
    memset(s->index, -1, s->index_cap * sizeof *s->index);
    pdb_buf t = PDB_BUF_INIT;
    pdb_buf_addf(&t, "pdb_rs_%s", name);
    s->table = pdb_xstrdup(t.p);
    pdb_buf_free(&t);
    assert(pdb_query_identifier(s->table));
    int rc = pdb_query_exec(db, pdb_analyze_queries, "recstore.create_store",
                            (const char *const[]){"table", s->table, NULL});
    if (rc != PDB_OK)
        s->err = PDB_ERR;
    return rc;
}

/* ---- memory part ------------------------------------------------------ */

static int64_t *index_find(pdb_recstore *s, const void *key, size_t klen, uint64_t h)
{
    for (size_t i = h & (s->index_cap - 1);; i = (i + 1) & (s->index_cap - 1)) {
        int64_t r = s->index[i];
        if (r < 0 || (s->index_hash[i] == h && s->klen[r] == klen &&
                      memcmp(s->keys.p + s->koff[r], key, klen) == 0))
            return &s->index[i];
    }
}

static int64_t *index_empty(pdb_recstore *s, uint64_t h)
{
    size_t i = h & (s->index_cap - 1);
    while (s->index[i] >= 0)
        i = (i + 1) & (s->index_cap - 1);
    return &s->index[i];
}

static void index_put(pdb_recstore *s, int64_t r, uint64_t h)
{
    if ((size_t)(s->nmem + 1) * 4 > s->index_cap * 3) {
        size_t old_cap = s->index_cap;
        int64_t *old = s->index;
        uint64_t *old_hash = s->index_hash;
        s->index_cap *= 2;
        s->index = pdb_xmalloc(s->index_cap * sizeof *s->index);
        s->index_hash = pdb_xmalloc(s->index_cap * sizeof *s->index_hash);
        memset(s->index, -1, s->index_cap * sizeof *s->index);
        for (size_t i = 0; i < old_cap; i++)
            if (old[i] >= 0) {
                int64_t *p = index_empty(s, old_hash[i]);
                s->index_hash[p - s->index] = old_hash[i];
                *p = old[i];
            }
        free(old);
        free(old_hash);
    }
    int64_t *p = index_empty(s, h);
    s->index_hash[p - s->index] = h;
    *p = r;
}

static int64_t mem_add(pdb_recstore *s, const void *key, size_t klen, uint64_t h, const void *init)
{
    if (s->nmem == s->mem_cap) {
        s->mem_cap = s->mem_cap ? s->mem_cap * 2 : 64;
        if (s->mem_cap > s->mem_max)
            s->mem_cap = s->mem_max;
        s->mem = pdb_xrealloc(s->mem, (size_t)s->mem_cap * s->rsize);
        s->koff = pdb_xrealloc(s->koff, (size_t)s->mem_cap * sizeof *s->koff);
        s->klen = pdb_xrealloc(s->klen, (size_t)s->mem_cap * sizeof *s->klen);
    }
    int64_t r = s->nmem;
    s->koff[r] = s->keys.len;
    s->klen[r] = klen;
    pdb_buf_add(&s->keys, key, klen);
    memcpy(s->mem + (size_t)r * s->rsize, init, s->rsize);
    s->nmem++;
    s->count++;
    index_put(s, r, h);
    return r;
}

static void pending_init(pending *p, size_t rsize, bool with_keys)
{
    p->max = (int)pdb_bound(PENDING, 2);
    p->h = pdb_xmalloc((size_t)p->max * sizeof *p->h);
    if (with_keys) {
        p->koff = pdb_xmalloc((size_t)p->max * sizeof *p->koff);
        p->klen = pdb_xmalloc((size_t)p->max * sizeof *p->klen);
    }
    p->rec = pdb_xmalloc((size_t)p->max * rsize);
}

static void pending_free(pending *p)
{
    sqlite3_finalize(p->many);
    sqlite3_finalize(p->one);
    free(p->h);
    free(p->koff);
    free(p->klen);
    free(p->rec);
    pdb_buf_free(&p->keys);
}

/* ---- table part ------------------------------------------------------- */

static void bloom_bits(uint64_t h, uint32_t bit[3])
{
    uint64_t h2 = (h >> 32) | 1;
    for (int i = 0; i < 3; i++)
        bit[i] = (uint32_t)((h + (uint64_t)i * h2) & (BLOOM_BITS - 1));
}

static void bloom_add(pdb_recstore *s, uint64_t h)
{
    uint32_t b[3];
    bloom_bits(h, b);
    for (int i = 0; i < 3; i++)
        s->bloom[b[i] >> 3] |= (uint8_t)(1u << (b[i] & 7));
}

static bool bloom_may_have(const pdb_recstore *s, uint64_t h)
{
    uint32_t b[3];
    bloom_bits(h, b);
    for (int i = 0; i < 3; i++)
        if (!(s->bloom[b[i] >> 3] & (1u << (b[i] & 7))))
            return false;
    return true;
}

/* Prepares recstore.sql's query name for this store's table. */
static int prepare(pdb_recstore *s, sqlite3_stmt **st, const char *name)
{
    if (*st)
        return PDB_OK;
    return pdb_query_prepare(s->db, pdb_analyze_queries, name,
                             (const char *const[]){"table", s->table, NULL},
                             st) == PDB_OK
               ? PDB_OK
               : fail_db(s);
}

/* A bigger cache for temporary tables while records spill (recstore.sql
 * says how much and why). */
static void start_spilling(pdb_recstore *s)
{
    if (pdb_analyze_exec(s->db, "recstore.cache_size") != PDB_OK)
        s->err = PDB_ERR;
    s->spilling = true;
    pdb_bound_passed(s->table);
    s->ncache = pdb_bound(CACHE, 2);
    s->nkey_cache = pdb_bound(KEY_CACHE, 2);
    s->cache = pdb_xcalloc((size_t)s->ncache, sizeof *s->cache);
    for (int64_t i = 0; i < s->ncache; i++) {
        s->cache[i].h = -1;
        s->cache[i].rec = pdb_xmalloc(s->rsize);
    }
    s->key_cache = pdb_xmalloc((size_t)s->nkey_cache * sizeof *s->key_cache);
    for (int64_t i = 0; i < s->nkey_cache; i++)
        s->key_cache[i].h = -1;
    s->bloom = pdb_xcalloc(BLOOM_BITS / 8, 1);
    pending_init(&s->added, s->rsize, true);
    pending_init(&s->changed, s->rsize, false);
    s->read_ahead = pdb_bound(READ_AHEAD, 2);
    s->last_miss = -2;
}

/* The statement writing `rows` records of a pending list: recstore.sql's
 * add (new records) with its row of values repeated, or change (changed
 * ones) with a case and a key per record. */
static int prepare_write(pdb_recstore *s, pending *p, sqlite3_stmt **st, int rows)
{
    if (*st)
        return PDB_OK;
    pdb_buf sql = PDB_BUF_INIT, filled = PDB_BUF_INIT;
    const char *name = p == &s->added ? "recstore.add" : "recstore.change";
    pdb_buf cases = PDB_BUF_INIT, keys = PDB_BUF_INIT;
    for (int i = 0; p != &s->added && i < rows; i++) {
        pdb_buf_addf(&cases, " WHEN ?%d THEN ?%d", 2 * i + 1, 2 * i + 2);
        pdb_buf_addf(&keys, "%s?%d", i ? "," : "", 2 * i + 1);
    }
    pdb_query_fill(pdb_analyze_sql(name),
                   (const char *const[]){"table", s->table, "cases", pdb_buf_str(&cases), "keys",
                                         pdb_buf_str(&keys), NULL},
                   &filled);
    if (p == &s->added)
        pdb_query_rows(pdb_buf_str(&filled), rows, &sql);
    else
        pdb_buf_adds(&sql, pdb_buf_str(&filled));
    int rc = pdb_db_prepare(s->db, pdb_buf_str(&sql), st);
    pdb_buf_free(&sql);
    pdb_buf_free(&filled);
    pdb_buf_free(&cases);
    pdb_buf_free(&keys);
    return rc == PDB_OK ? PDB_OK : fail_db(s);
}

/* Binds pending record i as the row numbered row of a statement. */
static void bind_pending(pdb_recstore *s, pending *p, sqlite3_stmt *st, int row, int i)
{
    const void *rec = p->rec + (size_t)i * s->rsize;
    if (p == &s->added) {
        const char *k = p->keys.p ? p->keys.p + p->koff[i] : "";
        sqlite3_bind_int64(st, 3 * row + 1, p->h[i]);
        sqlite3_bind_blob(st, 3 * row + 2, k, (int)p->klen[i], SQLITE_STATIC);
        sqlite3_bind_blob(st, 3 * row + 3, rec, (int)s->rsize, SQLITE_STATIC);
    } else {
        sqlite3_bind_int64(st, 2 * row + 1, p->h[i]);
        sqlite3_bind_blob(st, 2 * row + 2, rec, (int)s->rsize, SQLITE_STATIC);
    }
}

/* Writes a pending list to the table. */
static int flush_list(pdb_recstore *s, pending *p)
{
    int done = 0;
    if (s->err != PDB_OK)
        return PDB_ERR;
    if (p->n == p->max) {
        if (prepare_write(s, p, &p->many, p->max) != PDB_OK)
            return PDB_ERR;
        for (int i = 0; i < p->n; i++)
            bind_pending(s, p, p->many, i, i);
        if (pdb_db_step_done(s->db, p->many) != PDB_OK)
            return fail_db(s);
        done = p->n;
    }
    for (; done < p->n; done++) {
        if (prepare_write(s, p, &p->one, 1) != PDB_OK)
            return PDB_ERR;
        bind_pending(s, p, p->one, 0, done);
        if (pdb_db_step_done(s->db, p->one) != PDB_OK)
            return fail_db(s);
    }
    p->n = 0;
    pdb_buf_reset(&p->keys);
    return PDB_OK;
}

/* Writes both lists: done before any read of the table. */
static int flush_pending(pdb_recstore *s)
{
    return flush_list(s, &s->added) == PDB_OK ? flush_list(s, &s->changed) : PDB_ERR;
}

/* Puts a slot's record on its way to the table if it changed since it
 * was loaded. */
static int write_back(pdb_recstore *s, slot *c)
{
    if (c->h < 0 || !c->dirty)
        return PDB_OK;
    pending *p = c->in_table ? &s->changed : &s->added;
    int i = p->n++;
    p->h[i] = c->h;
    if (p == &s->added) {
        p->koff[i] = p->keys.len;
        p->klen[i] = c->key.len;
        pdb_buf_add(&p->keys, c->key.p ? c->key.p : "", c->key.len);
    }
    memcpy(p->rec + (size_t)i * s->rsize, c->rec, s->rsize);
    c->dirty = false;
    c->in_table = true;
    if (p->n < p->max)
        return PDB_OK;
    /* A changed record may still be in the list of new ones (written back
     * once, then changed again in its slot): those go first. */
    return p == &s->changed ? flush_pending(s) : flush_list(s, p);
}

/* Fills slot c with the row of the query st has just stepped to. */
static int fill_slot(pdb_recstore *s, slot *c, sqlite3_stmt *st, int64_t h)
{
    if ((size_t)sqlite3_column_bytes(st, 2) != s->rsize) {
        s->err = pdb_fail("analysis spill table: record %lld has the wrong size", (long long)h);
        return PDB_ERR;
    }
    c->h = h;
    c->dirty = false;
    c->in_table = true;
    pdb_buf_reset(&c->key);
    pdb_buf_add(&c->key, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1));
    c->hash = pdb_hash_bytes(c->key.p ? c->key.p : "", c->key.len);
    memcpy(c->rec, sqlite3_column_blob(st, 2), s->rsize);
    return PDB_OK;
}

/* Loads table records h .. h+n-1 into their slots, except slots that hold
 * their record already (it may be newer than the table's, or not in it
 * yet); record need, one of them, must be in the table. */
static int load_range(pdb_recstore *s, int64_t h, int64_t n, int64_t need)
{
    for (int64_t j = 0; j < n; j++) {
        slot *c = &s->cache[(h + j) % s->ncache];
        if (c->h != h + j && write_back(s, c) != PDB_OK)
            return PDB_ERR;
    }
    if (flush_pending(s) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt **st = n == 1 ? &s->get : &s->get_range;
    if (prepare(s, st, n == 1 ? "recstore.get" : "recstore.get_range") != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(*st, 1, h);
    if (n > 1)
        sqlite3_bind_int64(*st, 2, h + n);
    int rc, filled = 0;
    while ((rc = sqlite3_step(*st)) == SQLITE_ROW) {
        int64_t at = sqlite3_column_int64(*st, 0);
        slot *c = &s->cache[at % s->ncache];
        if (c->h != at && fill_slot(s, c, *st, at) != PDB_OK)
            break;
        filled += at == need;
    }
    sqlite3_reset(*st);
    if (s->err != PDB_OK)
        return PDB_ERR;
    if (rc != SQLITE_DONE)
        return fail_db(s);
    if (!filled) {
        s->err = pdb_fail("analysis spill table: record %lld is missing", (long long)need);
        return PDB_ERR;
    }
    return PDB_OK;
}

/* The slot holding table record h, loading it (and writing back the slot's
 * previous record) if needed; NULL after a database error. */
static slot *load(pdb_recstore *s, int64_t h)
{
    slot *c = &s->cache[h % s->ncache];
    if (c->h == h)
        return c;
    if (s->err != PDB_OK)
        return NULL;
    /* A walk in roughly ascending order (the ops pass's end follows each
     * node to its ops, made about when the node was: misses go 2, 1, 4,
     * 3, ...) reads the records after the last miss in one query; a step
     * back into such a walk loads one record and keeps the walk's place;
     * any other miss loads one record and starts afresh. */
    int64_t start = h, n = 1, last = s->last_miss;
    if (h > last && h <= last + s->read_ahead) {
        start = last + 1 > s->nmem ? last + 1 : s->nmem; /* table records only */
        n = s->read_ahead;
        if (n > s->count - start)
            n = s->count - start;
        if (n > s->ncache)
            n = s->ncache;
        s->last_miss = start + n - 1;
    } else if (!(h < last && h >= last - s->read_ahead)) {
        s->last_miss = h;
    }
    return load_range(s, start, n, h) == PDB_OK ? c : NULL;
}

static bool slot_has(const slot *c, const void *key, size_t klen, uint64_t h)
{
    return c->h >= 0 && c->hash == h && c->key.len == klen &&
           (klen == 0 || memcmp(c->key.p, key, klen) == 0);
}

/* The table record with this key, or -1. */
static int64_t table_find(pdb_recstore *s, const void *key, size_t klen, uint64_t h)
{
    const key_guess *g = &s->key_cache[h % (uint64_t)s->nkey_cache];
    int64_t guess = g->h;
    if (guess >= 0 && g->hash == h) {
        slot *c = load(s, guess);
        if (c && slot_has(c, key, klen, h))
            return guess;
    }
    /* A record not yet written to the table keeps its key guess (remember),
     * so a key that missed its guess is in the table or nowhere. */
    if (!bloom_may_have(s, h))
        return -1;
    if (flush_pending(s) != PDB_OK ||
        prepare(s, &s->find, "recstore.find") != PDB_OK)
        return -1;
    sqlite3_bind_blob(s->find, 1, klen ? key : "", (int)klen, SQLITE_STATIC);
    int rc = sqlite3_step(s->find);
    int64_t found = rc == SQLITE_ROW ? sqlite3_column_int64(s->find, 0) : -1;
    sqlite3_reset(s->find);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail_db(s);
    return found;
}

static int64_t table_add(pdb_recstore *s, const void *key, size_t klen, uint64_t h,
                         const void *init)
{
    int64_t r = s->count;
    slot *c = &s->cache[r % s->ncache];
    if (write_back(s, c) != PDB_OK)
        return -1;
    s->count++;
    c->h = r;
    c->dirty = true;
    c->in_table = false;
    c->hash = h;
    pdb_buf_reset(&c->key);
    pdb_buf_add(&c->key, key, klen);
    memcpy(c->rec, init, s->rsize);
    bloom_add(s, h);
    return r;
}

/* Makes (h, r) the key guess of its entry. A record the entry guessed
 * before that is still only in a slot goes to the table first: the guess
 * is how table_find finds a record created since the last write back. */
static void remember(pdb_recstore *s, uint64_t h, int64_t r)
{
    key_guess *g = &s->key_cache[h % (uint64_t)s->nkey_cache];
    if (g->h >= 0 && g->h != r) {
        slot *c = &s->cache[g->h % s->ncache];
        if (c->h == g->h && !c->in_table)
            write_back(s, c); /* an error is sticky: s->err */
    }
    *g = (key_guess){h, r};
}

/* ---- the interface ---------------------------------------------------- */

int64_t pdb_rs_find(pdb_recstore *s, const void *key, size_t klen, const void *init,
                    bool *created)
{
    uint64_t h = pdb_hash_bytes(key, klen);
    *created = false;
    int64_t *m = index_find(s, key, klen, h);
    if (*m >= 0)
        return *m;
    if (s->err != PDB_OK)
        return -1;
    if (!s->spilling && s->nmem < s->mem_max && s->keys.len + klen <= s->key_budget) {
        *created = true;
        return mem_add(s, key, klen, h, init);
    }
    if (!s->spilling)
        start_spilling(s);
    int64_t r = table_find(s, key, klen, h);
    if (r < 0 && s->err == PDB_OK) {
        r = table_add(s, key, klen, h, init);
        *created = r >= 0;
    }
    if (r >= 0)
        remember(s, h, r);
    return r;
}

static void *get(pdb_recstore *s, int64_t h, bool write)
{
    assert(h >= 0 && h < s->count);
    if (h < s->nmem)
        return s->mem + (size_t)h * s->rsize;
    slot *c = load(s, h);
    if (!c) {
        memset(s->scratch, 0, s->rsize);
        return s->scratch;
    }
    c->dirty |= write;
    return c->rec;
}

void *pdb_rs_get(pdb_recstore *s, int64_t h)
{
    return get(s, h, true);
}

const void *pdb_rs_read(pdb_recstore *s, int64_t h)
{
    return get(s, h, false);
}

const void *pdb_rs_key(pdb_recstore *s, int64_t h, size_t *klen)
{
    assert(h >= 0 && h < s->count);
    if (h < s->nmem) {
        *klen = s->klen[h];
        return s->keys.p + s->koff[h];
    }
    slot *c = load(s, h);
    *klen = c ? c->key.len : 0;
    return c && c->key.p ? c->key.p : "";
}

int64_t pdb_rs_count(const pdb_recstore *s)
{
    return s->count;
}

bool pdb_rs_in_memory(const pdb_recstore *s, int64_t h)
{
    assert(h >= 0 && h < s->count);
    return h < s->nmem;
}

int64_t pdb_rs_spilled(const pdb_recstore *s)
{
    return s->count - s->nmem;
}

int pdb_rs_error(const pdb_recstore *s)
{
    return s->err;
}

int pdb_rs_each(pdb_recstore *s,
                int (*fn)(int64_t h, const void *key, size_t klen, const void *rec, void *arg),
                void *arg)
{
    for (int64_t h = 0; h < s->nmem; h++)
        if (fn(h, s->keys.p + s->koff[h], s->klen[h], s->mem + (size_t)h * s->rsize, arg) != 0)
            return PDB_ERR;
    if (!s->spilling || s->err != PDB_OK)
        return s->err;
    for (int64_t i = 0; i < s->ncache; i++)
        if (write_back(s, &s->cache[i]) != PDB_OK)
            return PDB_ERR;
    if (flush_pending(s) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *st = NULL;
    if (prepare(s, &st, "recstore.all") != PDB_OK)
        return fail_db(s);
    int rc = PDB_OK, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if ((size_t)sqlite3_column_bytes(st, 2) != s->rsize) {
            rc = s->err = pdb_fail("analysis spill table: a record has the wrong size");
            break;
        }
        memcpy(s->scratch, sqlite3_column_blob(st, 2), s->rsize);
        const void *k = sqlite3_column_blob(st, 1);
        if (fn(sqlite3_column_int64(st, 0), k ? k : "", (size_t)sqlite3_column_bytes(st, 1),
               s->scratch, arg) != 0) {
            rc = PDB_ERR;
            break;
        }
    }
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = fail_db(s);
    sqlite3_finalize(st);
    return rc;
}

void pdb_rs_free(pdb_recstore *s)
{
    if (!s)
        return;
    if (s->cache)
        for (int64_t i = 0; i < s->ncache; i++) {
            pdb_buf_free(&s->cache[i].key);
            free(s->cache[i].rec);
        }
    pending_free(&s->added);
    pending_free(&s->changed);
    sqlite3_finalize(s->get);
    sqlite3_finalize(s->get_range);
    sqlite3_finalize(s->find);
    free(s->cache);
    free(s->key_cache);
    free(s->bloom);
    free(s->mem);
    free(s->koff);
    free(s->klen);
    free(s->index);
    free(s->index_hash);
    pdb_buf_free(&s->keys);
    free(s->scratch);
    free(s->table);
    free(s);
}
