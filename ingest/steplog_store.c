/* steplog_store.c: how step-log values are kept: series, contexts and
 * chunks (schemas/40_steplog.sql).
 *
 * A log repeats the same names on every line, so a value is stored as
 * little more than its 8 bytes: its series (raw name, kind, rank, loader,
 * split, metric, unit, agg) is a row written once, what its record shares
 * (line, step, epoch, timestamp) is a row written once per record, and the
 * value goes into the open chunk of its series: up to PDB_SL_CHUNK slots
 * whose contexts are the same distance apart, holding values with the same
 * position in their records and the same window. A record without the
 * series leaves an empty slot (a gap: one bit, one byte); a value that does
 * not continue the pattern, or a full chunk, writes the chunk and starts
 * the next one.
 *
 * Memory is bounded: one open chunk per cached series, and at most
 * MAX_SERIES series are cached; past that every chunk is written and the
 * cache starts again (a series met again gets a second row, which the views
 * read like the first). */
#include "ingest/steplog_store.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES 16384
#define CTX_BATCH 8 /* contexts per INSERT: one statement a row cost a third more */

/* What the passes after the file need of a series' values as read (written
 * to temp.steplog_summary): its first two values whose context has a step,
 * and over its non-NULL values their count, how often one was below the one
 * before, the first and the last with their counter (step, else epoch, else
 * record). */
typedef struct {
    int nstep;
    int64_t s_record[2], s_pos[2], s_step[2], s_window[2];
    int64_t f_chunk;  /* where the first stepped value went: chunk and slot */
    int f_slot;
    bool f_open;      /* ... in the open chunk, not written yet */
    int64_t n, ndec, r1, p1;
    double x1, c1, xn, cn;
} summary;

/* A series and its open chunk: n slots from context ctx, stride apart,
 * the empty ones marked in gaps. */
typedef struct {
    int64_t id;
    int64_t ctx, last_ctx, stride, pos, window;
    int n;
    uint32_t gaps;
    summary sum;
    double v[PDB_SL_CHUNK];
} series;

struct pdb_sl_store {
    pdb_source *src;
    sqlite3_stmt *ins_ctx, *ins_ctx_batch, *ins_series, *ins_chunk, *ins_sum;
    pdb_strmap *keys; /* series key bytes -> index in s */
    series *s;
    int ns, cap;
    pdb_buf key;
    int64_t ctx_base;   /* this source's contexts are the ids above */
    int64_t next_ctx;   /* the id of the next context row */
    bool has_last;
    pdb_sl_ctx last;    /* the last context written, as stored */
    int64_t last_id;
    /* contexts not inserted yet: CTX_BATCH go in one statement */
    pdb_sl_ctx held[CTX_BATCH];
    int64_t held_id[CTX_BATCH];
    int nheld;
};

/* ---- opening ------------------------------------------------------------ */

pdb_sl_store *pdb_sl_open(pdb_source *src)
{
    char sql[1024];
    int n = snprintf(sql, sizeof sql, "INSERT INTO steplog_chunks VALUES (NULL,?,?,?,?,?,?,?,?");
    for (int i = 0; i < PDB_SL_CHUNK; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ",?");
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    char ctx_batch_sql[512];
    n = snprintf(ctx_batch_sql, sizeof ctx_batch_sql, "INSERT INTO steplog_contexts VALUES ");
    for (int i = 0; i < CTX_BATCH; i++)
        n += snprintf(ctx_batch_sql + n, sizeof ctx_batch_sql - (size_t)n, "%s(?,?,?,?,?,?)",
                      i ? "," : "");
    pdb_sl_store *st = pdb_xcalloc(1, sizeof *st);
    st->src = src;
    sqlite3 *db = src->db;
    if (pdb_db_prepare(db, sql, &st->ins_chunk) != PDB_OK ||
        pdb_db_prepare(db, "INSERT INTO steplog_contexts VALUES (?,?,?,?,?,?)", &st->ins_ctx) !=
            PDB_OK ||
        pdb_db_prepare(db, ctx_batch_sql, &st->ins_ctx_batch) != PDB_OK ||
        pdb_db_prepare(db, "INSERT INTO steplog_series (run_id, source_id, kind, rank, loader,"
                           " split, metric, unit, agg, raw_name, ctx_base)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?)", &st->ins_series) != PDB_OK ||
        pdb_db_query_int(db, "SELECT coalesce(max(ctx_id), 0) FROM steplog_contexts", 0,
                         &st->ctx_base) != PDB_OK ||
        pdb_db_exec(db, "CREATE TEMP TABLE IF NOT EXISTS steplog_summary (series_id INTEGER"
                        " PRIMARY KEY, f_record, f_pos, f_step, f_window, f_chunk, f_slot,"
                        " s_record, s_pos, s_step, s_window, n, ndec, x1, c1, xn, cn, r1, p1);"
                        " DELETE FROM temp.steplog_summary") != PDB_OK ||
        pdb_db_prepare(db, "INSERT OR REPLACE INTO temp.steplog_summary VALUES"
                           " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st->ins_sum) != PDB_OK) {
        pdb_sl_close(st);
        return NULL;
    }
    st->next_ctx = st->ctx_base + 1;
    st->keys = pdb_strmap_new();
    return st;
}

void pdb_sl_close(pdb_sl_store *st)
{
    if (!st)
        return;
    pdb_db_release(st->ins_chunk);
    pdb_db_release(st->ins_ctx);
    pdb_db_release(st->ins_ctx_batch);
    pdb_db_release(st->ins_series);
    pdb_db_release(st->ins_sum);
    if (st->keys)
        pdb_strmap_free(st->keys);
    free(st->s);
    pdb_buf_free(&st->key);
    free(st);
}

/* ---- contexts ----------------------------------------------------------- */

/* c as it is stored: flags cleared for values stored as NULL. */
static pdb_sl_ctx as_stored(const pdb_sl_ctx *c)
{
    pdb_sl_ctx s = *c;
    s.has_epoch = c->has_epoch && isfinite(c->epoch);
    s.has_wall = c->has_wall && isfinite(c->wall);
    if (!s.has_step)
        s.step = 0;
    if (!s.has_epoch)
        s.epoch = 0;
    if (!s.has_wall)
        s.wall = 0;
    return s;
}

static bool same_ctx(const pdb_sl_ctx *a, const pdb_sl_ctx *b)
{
    return a->record == b->record && a->line == b->line && a->has_step == b->has_step &&
           a->step == b->step && a->has_epoch == b->has_epoch && a->epoch == b->epoch &&
           a->has_wall == b->has_wall && a->wall == b->wall;
}

/* Binds context c (as stored) with id as the 6 parameters from `first`. */
static void bind_ctx(const pdb_sl_store *st, sqlite3_stmt *q, int first, const pdb_sl_ctx *c,
                     int64_t id)
{
    /* record and line as offsets: 0 (no bytes) in the common case */
    sqlite3_bind_null(q, first); /* SQLite numbers it: ctx_base + k, checked below */
    sqlite3_bind_int64(q, first + 1, (id - st->ctx_base) - c->record);
    sqlite3_bind_int64(q, first + 2, c->line - c->record);
    if (c->has_step)
        sqlite3_bind_int64(q, first + 3, c->step);
    else
        sqlite3_bind_null(q, first + 3);
    if (c->has_epoch)
        sqlite3_bind_double(q, first + 4, c->epoch);
    else
        sqlite3_bind_null(q, first + 4);
    if (c->has_wall)
        sqlite3_bind_double(q, first + 5, c->wall);
    else
        sqlite3_bind_null(q, first + 5);
}

/* Inserts the held contexts: a full batch in one statement, else one by one. */
static int write_contexts(pdb_sl_store *st)
{
    int rc = PDB_OK;
    if (st->nheld == CTX_BATCH) {
        for (int i = 0; i < CTX_BATCH; i++)
            bind_ctx(st, st->ins_ctx_batch, 1 + 6 * i, &st->held[i], st->held_id[i]);
        rc = pdb_db_step_done(st->src->db, st->ins_ctx_batch);
    } else {
        for (int i = 0; i < st->nheld && rc == PDB_OK; i++) {
            bind_ctx(st, st->ins_ctx, 1, &st->held[i], st->held_id[i]);
            rc = pdb_db_step_done(st->src->db, st->ins_ctx);
        }
    }
    if (rc == PDB_OK && st->nheld > 0 &&
        sqlite3_last_insert_rowid(st->src->db) != st->held_id[st->nheld - 1])
        rc = pdb_fail("step log: context %lld stored as %lld", (long long)st->held_id[st->nheld - 1],
                      (long long)sqlite3_last_insert_rowid(st->src->db));
    st->nheld = 0;
    return rc;
}

int pdb_sl_context(pdb_sl_store *st, const pdb_sl_ctx *c, int64_t *ctx_id)
{
    pdb_sl_ctx s = as_stored(c);
    if (st->has_last && same_ctx(&s, &st->last)) {
        *ctx_id = st->last_id;
        return PDB_OK;
    }
    if (st->nheld == CTX_BATCH && write_contexts(st) != PDB_OK)
        return PDB_ERR;
    int64_t id = st->next_ctx++;
    st->held[st->nheld] = s;
    st->held_id[st->nheld++] = id;
    st->last = s;
    st->last_id = id;
    st->has_last = true;
    *ctx_id = id;
    return PDB_OK;
}

/* ---- series ------------------------------------------------------------- */

/* The map key: every field, NUL-separated; NULL is "\1", never a value. */
static void key_bytes(pdb_buf *b, const pdb_sl_key *k)
{
    pdb_buf_reset(b);
    pdb_buf_adds(b, k->kind);
    pdb_buf_addc(b, '\0');
    if (k->has_rank)
        pdb_buf_addf(b, "%lld", (long long)k->rank);
    else
        pdb_buf_addc(b, '\1');
    pdb_buf_addc(b, '\0');
    pdb_buf_adds(b, k->loader && k->loader[0] ? k->loader : "\1");
    pdb_buf_addc(b, '\0');
    pdb_buf_adds(b, k->split ? k->split : "\1");
    pdb_buf_addc(b, '\0');
    pdb_buf_adds(b, k->metric);
    pdb_buf_addc(b, '\0');
    pdb_buf_adds(b, k->unit);
    pdb_buf_addc(b, '\0');
    pdb_buf_adds(b, k->agg);
    pdb_buf_addc(b, '\0');
    pdb_buf_add(b, k->raw, k->rawlen);
}

static void bind_text_or_null(sqlite3_stmt *q, int i, const char *s)
{
    if (s && s[0])
        sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(q, i);
}

static int insert_series(pdb_sl_store *st, const pdb_sl_key *k, int64_t *id)
{
    sqlite3_stmt *q = st->ins_series;
    sqlite3_bind_int64(q, 1, st->src->run_id);
    sqlite3_bind_int64(q, 2, st->src->source_id);
    sqlite3_bind_text(q, 3, k->kind, -1, SQLITE_STATIC);
    if (k->has_rank)
        sqlite3_bind_int64(q, 4, k->rank);
    else
        sqlite3_bind_null(q, 4);
    bind_text_or_null(q, 5, k->loader);
    if (k->split)
        sqlite3_bind_text(q, 6, k->split, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(q, 6);
    sqlite3_bind_text(q, 7, k->metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 8, k->unit, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 9, k->agg, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 10, k->raw, (int)k->rawlen, SQLITE_STATIC);
    sqlite3_bind_int64(q, 11, st->ctx_base);
    if (pdb_db_step_done(st->src->db, q) != PDB_OK)
        return PDB_ERR;
    *id = sqlite3_last_insert_rowid(st->src->db);
    return PDB_OK;
}

int pdb_sl_series(pdb_sl_store *st, const pdb_sl_key *k, int *index)
{
    key_bytes(&st->key, k);
    int64_t idx;
    if (pdb_strmap_get(st->keys, st->key.p, st->key.len, &idx)) {
        *index = (int)idx;
        return PDB_OK;
    }
    int64_t id;
    if (insert_series(st, k, &id) != PDB_OK)
        return PDB_ERR;
    if (st->ns == st->cap) {
        st->cap = st->cap ? st->cap * 2 : 64;
        st->s = pdb_xrealloc(st->s, (size_t)st->cap * sizeof *st->s);
    }
    series *s = &st->s[st->ns];
    memset(s, 0, offsetof(series, v));
    s->sum.f_slot = -1;
    s->id = id;
    pdb_strmap_put(st->keys, st->key.p, st->key.len, st->ns);
    *index = st->ns++;
    return PDB_OK;
}

int64_t pdb_sl_series_id(const pdb_sl_store *st, int index)
{
    assert(index >= 0 && index < st->ns);
    return st->s[index].id;
}

bool pdb_sl_full(const pdb_sl_store *st)
{
    return st->ns >= MAX_SERIES;
}

/* ---- chunks ------------------------------------------------------------- */

/* Writes one chunk row of n slots v (NaN: NULL), those in gaps empty. */
static int write_chunk(pdb_sl_store *st, int64_t series_id, int64_t ctx, int64_t stride,
                       int64_t pos, int64_t window, int n, uint32_t gaps, const double *v)
{
    assert(n >= 1 && n <= PDB_SL_CHUNK && !(gaps & 1) && !(gaps >> (n - 1)));
    sqlite3_stmt *q = st->ins_chunk;
    sqlite3_bind_int64(q, 1, st->src->run_id);
    sqlite3_bind_int64(q, 2, series_id);
    sqlite3_bind_int64(q, 3, ctx);
    sqlite3_bind_int64(q, 4, n > 1 ? stride : 0);
    sqlite3_bind_int64(q, 5, pos);
    if (window > 0)
        sqlite3_bind_int64(q, 6, window);
    else
        sqlite3_bind_null(q, 6);
    sqlite3_bind_int64(q, 7, n);
    if (gaps)
        sqlite3_bind_int64(q, 8, gaps);
    else
        sqlite3_bind_null(q, 8);
    for (int i = 0; i < PDB_SL_CHUNK; i++) {
        if (i < n && !(gaps >> i & 1) && isfinite(v[i]))
            sqlite3_bind_double(q, 9 + i, v[i]);
        else
            sqlite3_bind_null(q, 9 + i);
    }
    return pdb_db_step_done(st->src->db, q);
}

static int flush_series(pdb_sl_store *st, series *s)
{
    if (s->n == 0)
        return PDB_OK;
    int rc = write_chunk(st, s->id, s->ctx, s->stride, s->pos, s->window, s->n, s->gaps, s->v);
    if (s->sum.f_open) {
        s->sum.f_open = false;
        s->sum.f_chunk = sqlite3_last_insert_rowid(st->src->db);
    }
    s->n = 0;
    return rc;
}

/* Adds value v, the pos-th of its record, in the last context written, to
 * the summary of its series; it sits in slot `slot` of the open chunk. */
static void summarise(pdb_sl_store *st, summary *m, int64_t pos, int64_t window, double v,
                      int slot)
{
    const pdb_sl_ctx *x = &st->last;
    if (x->has_step && m->nstep < 2) {
        int i = m->nstep++;
        m->s_record[i] = x->record;
        m->s_pos[i] = pos;
        m->s_step[i] = x->step;
        m->s_window[i] = window;
        if (i == 0) {
            m->f_open = true;
            m->f_slot = slot;
        }
    }
    if (!isfinite(v))
        return; /* stored NULL */
    double c = x->has_step ? (double)x->step : x->has_epoch ? x->epoch : (double)x->record;
    if (m->n == 0) {
        m->x1 = v;
        m->c1 = c;
        m->r1 = x->record;
        m->p1 = pos;
    } else if (v < m->xn) {
        m->ndec++;
    }
    m->xn = v;
    m->cn = c;
    m->n++;
}

int pdb_sl_add(pdb_sl_store *st, int index, int64_t ctx, int64_t pos, int64_t window,
               double value, bool as_read)
{
    assert(index >= 0 && index < st->ns);
    series *s = &st->s[index];
    if (window < 0)
        window = 0;
    /* slots skipped since the last value: they become gaps */
    int64_t skip = 0;
    if (s->n > 0) {
        bool continues = pos == s->pos && window == s->window && ctx > s->last_ctx;
        if (continues && s->n > 1) {
            int64_t d = ctx - s->last_ctx;
            skip = d / s->stride - 1;
            continues = d % s->stride == 0 && skip < PDB_SL_CHUNK - s->n;
        }
        continues = continues && s->n < PDB_SL_CHUNK;
        if (!continues) {
            skip = 0;
            if (flush_series(st, s) != PDB_OK)
                return PDB_ERR;
        }
    }
    if (s->n == 0) {
        s->ctx = ctx;
        s->pos = pos;
        s->window = window;
        s->stride = 0;
        s->gaps = 0;
    } else if (s->n == 1) {
        s->stride = ctx - s->ctx;
    }
    for (; skip > 0; skip--)
        s->gaps |= 1u << s->n++;
    s->v[s->n++] = value;
    s->last_ctx = ctx;
    if (as_read) {
        assert(st->has_last && ctx == st->last_id);
        summarise(st, &s->sum, pos, window, value, s->n);
    }
    return PDB_OK;
}

int pdb_sl_flush(pdb_sl_store *st)
{
    if (write_contexts(st) != PDB_OK)
        return PDB_ERR;
    for (int i = 0; i < st->ns; i++)
        if (flush_series(st, &st->s[i]) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

static void bind_int_or_null(sqlite3_stmt *q, int i, bool has, int64_t v)
{
    if (has)
        sqlite3_bind_int64(q, i, v);
    else
        sqlite3_bind_null(q, i);
}

/* Writes a series' summary (after its chunk was flushed). */
static int write_summary(pdb_sl_store *st, const series *s)
{
    const summary *m = &s->sum;
    assert(!m->f_open);
    sqlite3_stmt *q = st->ins_sum;
    sqlite3_bind_int64(q, 1, s->id);
    for (int i = 0; i < 2; i++) {
        bool has = m->nstep > i;
        int col = i ? 8 : 2;
        bind_int_or_null(q, col, has, m->s_record[i]);
        bind_int_or_null(q, col + 1, has, m->s_pos[i]);
        bind_int_or_null(q, col + 2, has, m->s_step[i]);
        bind_int_or_null(q, col + 3, has && m->s_window[i] > 0, m->s_window[i]);
    }
    bind_int_or_null(q, 6, m->nstep > 0, m->f_chunk);
    bind_int_or_null(q, 7, m->nstep > 0, m->f_slot);
    sqlite3_bind_int64(q, 12, m->n);
    sqlite3_bind_int64(q, 13, m->ndec);
    sqlite3_bind_double(q, 14, m->x1);
    sqlite3_bind_double(q, 15, m->c1);
    sqlite3_bind_double(q, 16, m->xn);
    sqlite3_bind_double(q, 17, m->cn);
    sqlite3_bind_int64(q, 18, m->r1);
    sqlite3_bind_int64(q, 19, m->p1);
    return pdb_db_step_done(st->src->db, q);
}

int pdb_sl_summarise(pdb_sl_store *st)
{
    if (pdb_sl_flush(st) != PDB_OK)
        return PDB_ERR;
    for (int i = 0; i < st->ns; i++)
        if (write_summary(st, &st->s[i]) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

int pdb_sl_forget(pdb_sl_store *st)
{
    if (pdb_sl_summarise(st) != PDB_OK)
        return PDB_ERR;
    pdb_strmap_free(st->keys);
    st->keys = pdb_strmap_new();
    st->ns = 0;
    return PDB_OK;
}

/* ---- rewriting stored chunks --------------------------------------------- */

int pdb_sl_set_window(pdb_sl_store *st, int64_t chunk_id, int slot, int64_t window_new)
{
    assert(slot >= 1 && slot <= PDB_SL_CHUNK);
    sqlite3 *db = st->src->db;
    sqlite3_stmt *q;
    if (pdb_db_prepare(db, "SELECT * FROM steplog_chunks WHERE chunk_id = ?", &q) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(q, 1, chunk_id);
    int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
        pdb_db_release(q);
        return rc == SQLITE_DONE ? pdb_fail("step log: chunk %lld vanished", (long long)chunk_id)
                                 : pdb_db_fail(db, "database error");
    }
    /* columns: chunk_id, run_id, series_id, ctx, stride, pos, window, n, gaps, v1.. */
    int64_t sid = sqlite3_column_int64(q, 2), ctx = sqlite3_column_int64(q, 3),
            stride = sqlite3_column_int64(q, 4), pos = sqlite3_column_int64(q, 5),
            window = sqlite3_column_int64(q, 6);
    int n = sqlite3_column_int(q, 7);
    uint32_t gaps = (uint32_t)sqlite3_column_int64(q, 8);
    assert(n >= 1 && n <= PDB_SL_CHUNK && slot <= n && !(gaps >> (slot - 1) & 1));
    double v[PDB_SL_CHUNK];
    for (int i = 0; i < n; i++)
        v[i] = sqlite3_column_type(q, 9 + i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 9 + i);
    pdb_db_release(q);
    if (pdb_db_prepare(db, "DELETE FROM steplog_chunks WHERE chunk_id = ?", &q) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(q, 1, chunk_id);
    rc = pdb_db_step_done(db, q);
    pdb_db_release(q);
    /* The slots before the value, the value, the slots after it: a chunk
     * each, without the gaps at their ends. */
    for (int i = 0; i < n && rc == PDB_OK;) {
        bool m = i == slot - 1;
        int j = m ? i + 1 : i < slot - 1 ? slot - 1 : n;
        int a = i, b = j;
        while (a < b && gaps >> a & 1)
            a++;
        while (b > a && gaps >> (b - 1) & 1)
            b--;
        if (a < b)
            rc = write_chunk(st, sid, ctx + a * stride, stride, pos, m ? window_new : window,
                             b - a, (uint32_t)(((uint64_t)gaps >> a) & ((1ull << (b - a)) - 1)),
                             v + a);
        i = j;
    }
    return rc;
}
