/* ops_pass.c: CPU operator statistics with self time.
 *
 * Streams a rank's CPU slices (no stream arg; not the profiler's own 'Trace'
 * span nor 'gpu_*' annotations) ordered by thread, start and
 * longest first, keeping a stack of the enclosing slices: an event's direct
 * parent is the innermost open slice on the same thread that contains it.
 * self = duration - sum of direct children, as PyTorch's key_averages()
 * computes it. Memory: the stack depth plus one entry per (name, shape). */
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 100000

typedef struct {
    char *name, *cat, *dims;
    int64_t count, self, total;
} op_stat;

typedef struct {
    int64_t end, dur, children;
    int64_t stat;
} frame;

typedef struct {
    pdb_strmap *index;
    op_stat *v;
    int64_t n, cap;
    frame *stack;
    int depth;
    pdb_buf key, thread;
} ops_state;

static int64_t stat_for(ops_state *o, const char *name, const char *cat, const char *dims)
{
    pdb_buf_reset(&o->key);
    pdb_buf_adds(&o->key, name);
    pdb_buf_addc(&o->key, '\x1f');
    pdb_buf_adds(&o->key, dims);
    int64_t i;
    if (pdb_strmap_get(o->index, o->key.p, o->key.len, &i))
        return i;
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->v = pdb_xrealloc(o->v, (size_t)o->cap * sizeof *o->v);
    }
    i = o->n++;
    o->v[i] = (op_stat){pdb_xstrdup(name), cat ? pdb_xstrdup(cat) : NULL, pdb_xstrdup(dims), 0, 0, 0};
    pdb_strmap_put(o->index, o->key.p, o->key.len, i);
    return i;
}

static void pop(ops_state *o)
{
    frame *f = &o->stack[--o->depth];
    o->v[f->stat].self += f->dur - f->children;
}

/* pid and tid as one comparable key (they may be integers or text). */
static void thread_key(sqlite3_stmt *st, pdb_buf *b)
{
    pdb_buf_reset(b);
    for (int c = 0; c < 2; c++) {
        pdb_buf_addf(b, "%d:", sqlite3_column_type(st, c));
        pdb_buf_add(b, sqlite3_column_text(st, c) ? (const char *)sqlite3_column_text(st, c) : "",
                    (size_t)sqlite3_column_bytes(st, c));
        pdb_buf_addc(b, '\x1f');
    }
}

static void add_event(ops_state *o, int64_t ts, int64_t dur, int64_t stat)
{
    int64_t end = ts + dur;
    while (o->depth > 0 && o->stack[o->depth - 1].end < end)
        pop(o);
    if (o->depth > 0)
        o->stack[o->depth - 1].children += dur;
    o->v[stat].count++;
    o->v[stat].total += dur;
    if (o->depth == MAX_DEPTH) {
        o->v[stat].self += dur; /* absurdly deep: count it as a leaf */
        return;
    }
    o->stack[o->depth++] = (frame){end, dur, 0, stat};
}

static int write_ops(sqlite3 *db, int64_t run_id, int rank, const ops_state *o)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT INTO analysis_ops VALUES (?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int64_t i = 0; i < o->n && rc == PDB_OK; i++) {
        const op_stat *s = &o->v[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, rank);
        sqlite3_bind_text(st, 3, s->name, -1, SQLITE_STATIC);
        if (s->cat)
            sqlite3_bind_text(st, 4, s->cat, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        sqlite3_bind_text(st, 5, s->dims, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, s->count);
        sqlite3_bind_int64(st, 7, s->self);
        sqlite3_bind_int64(st, 8, s->total);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

static void free_ops(ops_state *o)
{
    for (int64_t i = 0; i < o->n; i++) {
        free(o->v[i].name);
        free(o->v[i].cat);
        free(o->v[i].dims);
    }
    free(o->v);
    free(o->stack);
    pdb_strmap_free(o->index);
    pdb_buf_free(&o->key);
    pdb_buf_free(&o->thread);
}

int pdb_analyze_ops(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db,
                       "SELECT s.pid, s.tid, s.ts, s.dur, n.value, c.value, coalesce(s.input_dims, '')"
                       " FROM slices s LEFT JOIN strings n ON n.id = s.name"
                       " LEFT JOIN strings c ON c.id = s.cat"
                       " WHERE s.trace_id = ?1 AND s.stream IS NULL"
                       /* the profiler's own span and GPU-side annotations are not ops */
                       " AND coalesce(c.value, '') <> 'Trace' AND coalesce(c.value, '') NOT LIKE 'gpu\\_%' ESCAPE '\\'"
                       " ORDER BY s.pid, s.tid, s.ts, s.dur DESC, s.id",
                       &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    ops_state o = {.index = pdb_strmap_new(), .stack = pdb_xmalloc(MAX_DEPTH * sizeof(frame))};
    pdb_buf prev = PDB_BUF_INIT;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        thread_key(st, &o.thread);
        if (prev.len != o.thread.len || memcmp(prev.p, o.thread.p, prev.len) != 0) {
            while (o.depth > 0)
                pop(&o);
            pdb_buf_reset(&prev);
            pdb_buf_add(&prev, o.thread.p, o.thread.len);
        }
        const char *name = (const char *)sqlite3_column_text(st, 4);
        int64_t stat = stat_for(&o, name ? name : "", (const char *)sqlite3_column_text(st, 5),
                                (const char *)sqlite3_column_text(st, 6));
        add_event(&o, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3), stat);
    }
    while (o.depth > 0)
        pop(&o);
    sqlite3_finalize(st);
    pdb_buf_free(&prev);
    if (rc != SQLITE_DONE)
        rc = pdb_db_fail(db, "analysis query failed");
    else
        rc = write_ops(db, run_id, rank, &o);
    free_ops(&o);
    return rc;
}
