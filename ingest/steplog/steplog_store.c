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
 * read like the first).
 *
 * Rows are inserted through a row queue (common/rowq.h): while the file is
 * read, a writer thread executes the inserts, so parsing and SQLite run
 * side by side. Rows are numbered here, ahead of their insert (series,
 * contexts and chunks continue from the largest id stored), so nothing
 * waits for a rowid. pdb_sl_end_reading() stops the thread before the
 * passes after the file, which query the connection themselves. */
#include "ingest/steplog/steplog_store.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/rowq.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "common/query.h"

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
    pdb_rowq *q;        /* every insert goes through it */
    int64_t next_series, next_chunk; /* the ids of the next rows */
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
    pdb_buf ctx_batch = PDB_BUF_INIT;
    pdb_query_rows(pdb_ingest_sql("steplog_store.add_context"), CTX_BATCH, &ctx_batch);
    pdb_sl_store *st = pdb_xcalloc(1, sizeof *st);
    st->src = src;
    sqlite3 *db = src->db;
    int rc = pdb_ingest_prepare(db, "steplog_store.add_chunk", &st->ins_chunk);
    if (rc == PDB_OK)
        rc = pdb_ingest_prepare(db, "steplog_store.add_context", &st->ins_ctx);
    if (rc == PDB_OK)
        rc = pdb_db_prepare(db, pdb_buf_str(&ctx_batch), &st->ins_ctx_batch);
    pdb_buf_free(&ctx_batch);
    if (rc != PDB_OK ||
        pdb_ingest_prepare(db, "steplog_store.add_series", &st->ins_series) != PDB_OK ||
        pdb_ingest_int(db, "steplog_store.max_context", 0, &st->ctx_base) != PDB_OK ||
        pdb_ingest_int(db, "steplog_store.max_series", 0, &st->next_series) != PDB_OK ||
        pdb_ingest_int(db, "steplog_store.max_chunk", 0, &st->next_chunk) != PDB_OK ||
        pdb_ingest_exec(db, "steplog_store.create_summary") != PDB_OK ||
        pdb_ingest_prepare(db, "steplog_store.put_summary", &st->ins_sum) != PDB_OK) {
        pdb_sl_close(st);
        return NULL;
    }
    st->next_ctx = st->ctx_base + 1;
    st->next_series++;
    st->next_chunk++;
    st->keys = pdb_strmap_new();
    st->q = pdb_rowq_new(db, pdb_rowq_threads_wanted());
    return st;
}

void pdb_sl_close(pdb_sl_store *st)
{
    if (!st)
        return;
    pdb_rowq_free(st->q); /* before the statements it may still execute */
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

static void row_text_or_null(pdb_rowq *q, const char *s)
{
    if (s)
        pdb_rowq_text(q, s, strlen(s));
    else
        pdb_rowq_null(q);
}

/* Context c (as stored) with id as the row's next 6 parameters. */
static void row_ctx(const pdb_sl_store *st, const pdb_sl_ctx *c, int64_t id)
{
    pdb_rowq *q = st->q;
    /* record and line as offsets: 0 (no bytes) in the common case */
    pdb_rowq_int(q, id);
    pdb_rowq_int(q, (id - st->ctx_base) - c->record);
    pdb_rowq_int(q, c->line - c->record);
    pdb_rowq_int_or_null(q, c->has_step, c->step);
    pdb_rowq_double_or_null(q, c->has_epoch, c->epoch);
    pdb_rowq_double_or_null(q, c->has_wall, c->wall);
}

/* Inserts the held contexts: a full batch in one statement, else one by one. */
static int write_contexts(pdb_sl_store *st)
{
    int rc = PDB_OK;
    if (st->nheld == CTX_BATCH) {
        pdb_rowq_begin(st->q, st->ins_ctx_batch, 0);
        for (int i = 0; i < CTX_BATCH; i++)
            row_ctx(st, &st->held[i], st->held_id[i]);
        rc = pdb_rowq_end(st->q);
    } else {
        for (int i = 0; i < st->nheld && rc == PDB_OK; i++) {
            pdb_rowq_begin(st->q, st->ins_ctx, 0);
            row_ctx(st, &st->held[i], st->held_id[i]);
            rc = pdb_rowq_end(st->q);
        }
    }
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

static int insert_series(pdb_sl_store *st, const pdb_sl_key *k, int64_t *id)
{
    pdb_rowq *q = st->q;
    *id = st->next_series++;
    pdb_rowq_begin(q, st->ins_series, *id);
    pdb_rowq_int(q, *id);
    pdb_rowq_int(q, st->src->run_id);
    pdb_rowq_int(q, st->src->source_id);
    pdb_rowq_text(q, k->kind, strlen(k->kind));
    pdb_rowq_int_or_null(q, k->has_rank, k->rank);
    row_text_or_null(q, k->loader && k->loader[0] ? k->loader : NULL);
    row_text_or_null(q, k->split);
    pdb_rowq_text(q, k->metric, strlen(k->metric));
    pdb_rowq_text(q, k->unit, strlen(k->unit));
    pdb_rowq_text(q, k->agg, strlen(k->agg));
    pdb_rowq_text(q, k->raw, k->rawlen);
    pdb_rowq_int(q, st->ctx_base);
    return pdb_rowq_end(q);
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

/* Writes one chunk row of n slots v (NaN: NULL), those in gaps empty;
 * *chunk_id is its id. */
static int write_chunk(pdb_sl_store *st, int64_t series_id, int64_t ctx, int64_t stride,
                       int64_t pos, int64_t window, int n, uint32_t gaps, const double *v,
                       int64_t *chunk_id)
{
    assert(n >= 1 && n <= PDB_SL_CHUNK && !(gaps & 1) && !(gaps >> (n - 1)));
    pdb_rowq *q = st->q;
    *chunk_id = st->next_chunk++;
    pdb_rowq_begin(q, st->ins_chunk, *chunk_id);
    pdb_rowq_int(q, *chunk_id);
    pdb_rowq_int(q, st->src->run_id);
    pdb_rowq_int(q, series_id);
    pdb_rowq_int(q, ctx);
    pdb_rowq_int(q, n > 1 ? stride : 0);
    pdb_rowq_int(q, pos);
    pdb_rowq_int_or_null(q, window > 0, window);
    pdb_rowq_int(q, n);
    pdb_rowq_int_or_null(q, gaps != 0, gaps);
    for (int i = 0; i < PDB_SL_CHUNK; i++) {
        if (i < n && !(gaps >> i & 1) && isfinite(v[i]))
            pdb_rowq_double(q, v[i]);
        else
            pdb_rowq_null(q);
    }
    return pdb_rowq_end(q);
}

static int flush_series(pdb_sl_store *st, series *s)
{
    if (s->n == 0)
        return PDB_OK;
    int64_t chunk_id;
    int rc = write_chunk(st, s->id, s->ctx, s->stride, s->pos, s->window, s->n, s->gaps, s->v,
                         &chunk_id);
    if (s->sum.f_open) {
        s->sum.f_open = false;
        s->sum.f_chunk = chunk_id;
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

/* Writes the open chunks, then waits for every row to be inserted: the
 * connection is the caller's again. */
int pdb_sl_flush(pdb_sl_store *st)
{
    if (write_contexts(st) != PDB_OK)
        return PDB_ERR;
    for (int i = 0; i < st->ns; i++)
        if (flush_series(st, &st->s[i]) != PDB_OK)
            return PDB_ERR;
    return pdb_rowq_sync(st->q);
}

int pdb_sl_end_reading(pdb_sl_store *st)
{
    int rc = pdb_sl_flush(st);
    int stopped = pdb_rowq_free(st->q);
    st->q = pdb_rowq_new(st->src->db, false);
    return rc == PDB_OK ? stopped : rc;
}

pdb_rowq *pdb_sl_rowq(pdb_sl_store *st)
{
    return st->q;
}

/* Writes a series' summary (after its chunk was flushed). */
static int write_summary(pdb_sl_store *st, const series *s)
{
    const summary *m = &s->sum;
    assert(!m->f_open);
    pdb_rowq *q = st->q;
    pdb_rowq_begin(q, st->ins_sum, 0);
    pdb_rowq_int(q, s->id);
    for (int i = 0; i < 2; i++) {
        bool has = m->nstep > i;
        if (i == 1) { /* columns 6 and 7, then the second value's */
            pdb_rowq_int_or_null(q, m->nstep > 0, m->f_chunk);
            pdb_rowq_int_or_null(q, m->nstep > 0, m->f_slot);
        }
        pdb_rowq_int_or_null(q, has, m->s_record[i]);
        pdb_rowq_int_or_null(q, has, m->s_pos[i]);
        pdb_rowq_int_or_null(q, has, m->s_step[i]);
        pdb_rowq_int_or_null(q, has && m->s_window[i] > 0, m->s_window[i]);
    }
    pdb_rowq_int(q, m->n);
    pdb_rowq_int(q, m->ndec);
    pdb_rowq_double(q, m->x1);
    pdb_rowq_double(q, m->c1);
    pdb_rowq_double(q, m->xn);
    pdb_rowq_double(q, m->cn);
    pdb_rowq_int(q, m->r1);
    pdb_rowq_int(q, m->p1);
    return pdb_rowq_end(q);
}

int pdb_sl_summarise(pdb_sl_store *st)
{
    if (pdb_sl_flush(st) != PDB_OK)
        return PDB_ERR;
    for (int i = 0; i < st->ns; i++)
        if (write_summary(st, &st->s[i]) != PDB_OK)
            return PDB_ERR;
    return pdb_rowq_sync(st->q);
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
    if (pdb_rowq_sync(st->q) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *q;
    if (pdb_ingest_prepare(db, "steplog_store.chunk", &q) != PDB_OK)
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
    if (pdb_ingest_prepare(db, "steplog_store.delete_chunk", &q) != PDB_OK)
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
        int64_t part_id;
        if (a < b)
            rc = write_chunk(st, sid, ctx + a * stride, stride, pos, m ? window_new : window,
                             b - a, (uint32_t)(((uint64_t)gaps >> a) & ((1ull << (b - a)) - 1)),
                             v + a, &part_id);
        i = j;
    }
    return rc;
}
