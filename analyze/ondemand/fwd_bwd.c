/* fwd_bwd.c: backward ops linked to their forward ops, and the launches
 * inside them (see fwd_bwd.h).
 *
 * Backward kernels are launched from the autograd engine's threads, inside
 * ops such as "ConvolutionBackward0", so the attribution
 * (analysis_gpu_attribution) finds no record_function range or nn.Module
 * around them: those are on the thread that ran the forward pass. PyTorch
 * writes the link itself: a fwdbwd flow from the forward op to the
 * backward op, and on both the op's sequence number. The links are made in
 * SQL, each flow end or sequence number looked up in an index. Then one
 * sweep reads the slices of the threads that hold a linked op, thread by
 * thread in start order (SQLite sorts), with a stack of the open ops,
 * annotations and nn.Module frames: at a linked forward op the stack gives
 * its context (outermost op, innermost annotation, module path), at a
 * launch the innermost open linked backward op. Memory is one thread's
 * stack. */
#include "analyze/ondemand/fwd_bwd.h"
#include "analyze/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Open slices kept per thread; deeper ones are left out and counted. */
#define STACK_MAX 4096

enum { KIND_OP, KIND_ANNOTATION, KIND_MODULE, KIND_LAUNCH };

typedef struct {
    int64_t id, end, name;
    int kind;
    bool bwd;
    char *module; /* KIND_MODULE: the name without "nn.Module: " */
} frame;

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *add_fwd, *add_launch;
    frame *v;
    size_t n, cap;
    pdb_fwd_bwd_stats *stats;
} sweep;

static void pop(sweep *s)
{
    free(s->v[--s->n].module);
}

static int run_bound(sqlite3 *db, const char *name, int64_t run_id, int64_t *changes)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, name, &st) != PDB_OK)
        return PDB_ERR;
    if (sqlite3_bind_parameter_count(st) >= 1)
        sqlite3_bind_int64(st, 1, run_id);
    int rc = pdb_db_step_done(db, st);
    if (changes)
        *changes = sqlite3_changes(db);
    sqlite3_finalize(st);
    return rc;
}

/* A linked forward op: its context from the stack of what encloses it
 * (the op itself is not pushed yet). */
static int at_forward(sweep *s, int64_t id, int64_t name, int kind)
{
    int64_t top = kind == KIND_OP ? name : -1, annotation = -1;
    bool outer_op = false;
    pdb_buf path = PDB_BUF_INIT;
    for (size_t i = 0; i < s->n; i++) {
        const frame *f = &s->v[i];
        if (f->kind == KIND_OP && !outer_op) {
            top = f->name; /* the outermost op: the first from the bottom */
            outer_op = true;
        }
        if (f->kind == KIND_ANNOTATION)
            annotation = f->name;
        if (f->kind == KIND_MODULE) {
            if (path.len)
                pdb_buf_addc(&path, '/');
            pdb_buf_adds(&path, f->module ? f->module : "");
        }
    }
    sqlite3_stmt *st = s->add_fwd;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int64(st, 2, name);
    if (top >= 0)
        sqlite3_bind_int64(st, 3, top);
    else
        sqlite3_bind_null(st, 3);
    if (annotation >= 0)
        sqlite3_bind_int64(st, 4, annotation);
    else
        sqlite3_bind_null(st, 4);
    if (path.len)
        sqlite3_bind_text(st, 5, path.p, (int)path.len, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 5);
    pdb_buf_free(&path);
    return pdb_db_step_done(s->db, st);
}

/* A launch: the innermost open linked backward op, if any. */
static int at_launch(sweep *s, int64_t id)
{
    for (size_t i = s->n; i-- > 0;)
        if (s->v[i].bwd) {
            sqlite3_bind_int64(s->add_launch, 1, id);
            sqlite3_bind_int64(s->add_launch, 2, s->v[i].id);
            s->stats->launches++;
            return pdb_db_step_done(s->db, s->add_launch);
        }
    return PDB_OK;
}

/* Whether a and b (pid or tid values) differ. */
static bool differ(sqlite3_stmt *st, int col, sqlite3_value *prev)
{
    if (!prev)
        return true;
    sqlite3_value *v = sqlite3_column_value(st, col);
    int t = sqlite3_value_type(v);
    if (t != sqlite3_value_type(prev))
        return true;
    if (t == SQLITE_INTEGER)
        return sqlite3_value_int64(v) != sqlite3_value_int64(prev);
    if (t == SQLITE_NULL)
        return false;
    int n = sqlite3_value_bytes(v);
    return n != sqlite3_value_bytes(prev) ||
           memcmp(sqlite3_value_blob(v), sqlite3_value_blob(prev), (size_t)n) != 0;
}

static int run_sweep(sweep *s, int64_t run_id)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(s->db, "fwd_bwd.sweep", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_value *pid = NULL, *tid = NULL;
    int64_t trace = -1;
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(st, 0);
        if (t != trace || differ(st, 1, pid) || differ(st, 2, tid)) {
            while (s->n)
                pop(s);
            sqlite3_value_free(pid);
            sqlite3_value_free(tid);
            pid = sqlite3_value_dup(sqlite3_column_value(st, 1));
            tid = sqlite3_value_dup(sqlite3_column_value(st, 2));
            if (!pid || !tid) {
                rc = pdb_fail("out of memory");
                break;
            }
            trace = t;
        }
        int64_t id = sqlite3_column_int64(st, 3), ts = sqlite3_column_int64(st, 4),
                dur = sqlite3_column_int64(st, 5), name = sqlite3_column_int64(st, 6);
        int kind = sqlite3_column_int(st, 7);
        bool bwd = sqlite3_column_int(st, 8), fwd = sqlite3_column_int(st, 9),
             launch = sqlite3_column_int(st, 10);
        /* ops_pass.c's rule: a slice encloses what ends by its end */
        while (s->n && s->v[s->n - 1].end < ts + dur)
            pop(s);
        if (launch)
            rc = at_launch(s, id);
        if (rc == PDB_OK && fwd)
            rc = at_forward(s, id, name, kind);
        if (kind == KIND_LAUNCH)
            continue;
        if (s->n == STACK_MAX) {
            s->stats->deep++;
            continue;
        }
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->v = pdb_xrealloc(s->v, s->cap * sizeof *s->v);
        }
        const unsigned char *m = sqlite3_column_text(st, 11);
        s->v[s->n++] = (frame){id, ts + dur, name, kind, bwd,
                               kind == KIND_MODULE && m ? pdb_xstrdup((const char *)m) : NULL};
    }
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(s->db, "reading the slices of linked threads");
    while (s->n)
        pop(s);
    sqlite3_value_free(pid);
    sqlite3_value_free(tid);
    sqlite3_finalize(st);
    return rc;
}

int pdb_fwd_bwd(sqlite3 *db, int64_t run_id, pdb_fwd_bwd_stats *stats)
{
    *stats = (pdb_fwd_bwd_stats){0};
    int64_t seq_links = 0;
    if (pdb_analyze_exec(db, "fwd_bwd.create_tables") != PDB_OK ||
        run_bound(db, "fwd_bwd.flow_ends", run_id, NULL) != PDB_OK ||
        run_bound(db, "fwd_bwd.flow_links", run_id, &stats->flow_links) != PDB_OK ||
        run_bound(db, "fwd_bwd.seq_ops", run_id, NULL) != PDB_OK ||
        run_bound(db, "fwd_bwd.seq_links", run_id, &seq_links) != PDB_OK)
        return PDB_ERR;
    stats->seq_links = seq_links;
    if (stats->flow_links + stats->seq_links == 0)
        return PDB_OK;
    if (run_bound(db, "fwd_bwd.threads", run_id, NULL) != PDB_OK ||
        run_bound(db, "fwd_bwd.launchers", run_id, NULL) != PDB_OK)
        return PDB_ERR;
    sweep s = {.db = db, .stats = stats};
    int rc = PDB_ERR;
    if (pdb_analyze_prepare(db, "fwd_bwd.add_fwd", &s.add_fwd) == PDB_OK &&
        pdb_analyze_prepare(db, "fwd_bwd.add_launch", &s.add_launch) == PDB_OK)
        rc = run_sweep(&s, run_id);
    sqlite3_finalize(s.add_fwd);
    sqlite3_finalize(s.add_launch);
    free(s.v);
    return rc;
}
