/* pyspy.c: the `pyspy` report: top functions of a run's sampled stacks
 * (py-spy raw, speedscope, flame-graph SVG) by self and total samples, their
 * share and, where the rate is known, seconds; by frame (name, file, line)
 * or function (name, file), for the whole run or per root (process/thread
 * chain, speedscope profile); --idle counts, leaves out or keeps alone the
 * samples whose leaf is a waiting call (pyspy.sql, idle_leaf). The counting is
 * SQL over temp tables (report/queries/pyspy.sql, top_*) and two ordered
 * sweeps here, in bounded memory whatever the number of frames or nodes. */
#include "report/pyspy.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"

#include <stdint.h>
#include <string.h>

int pdb_pyspy_require(pdb_report_ctx *ctx, const char *report, bool *ok)
{
    return pdb_report_require(ctx, report, "pyspy.count", NULL,
                              "no py-spy profile in this run (profdb ingest a py-spy raw, "
                              "speedscope or flame-graph SVG file)",
                              ok);
}

void pdb_pyspy_inexact_note(pdb_report_ctx *ctx)
{
    int64_t n = 0;
    if (ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
        return;
    if (pdb_report_number(ctx->db, "pyspy.inexact", ctx->run_id, &n) == PDB_OK && n > 0)
        fputs("\nnote: read from a flame-graph SVG, which leaves out boxes below 0.1%: "
              "self and total are lower bounds (a drawn box's self holds its undrawn "
              "children)\n",
              ctx->out);
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "pyspy.weighted", &st) != PDB_OK)
        return;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        const char *unit = (const char *)sqlite3_column_text(st, 0);
        if (strcmp(unit, "nanoseconds") == 0)
            fputs("\nnote: time-weighted (a speedscope evented profile: open/close events): "
                  "a 'sample' is a nanosecond a stack was open; self_s and total_s are "
                  "seconds\n",
                  ctx->out);
        else
            fprintf(ctx->out,
                    "\nnote: time-weighted (a speedscope evented profile: open/close events): "
                    "a 'sample' is one of the file's units ('%s', rounded to whole units) a "
                    "stack was open\n",
                    unit);
    }
    sqlite3_finalize(st);
}

int pdb_pyspy_keying(const pdb_report_ctx *ctx, const char **keying)
{
    *keying = "frame";
    if (!ctx->by || strcmp(ctx->by, "frame") == 0)
        return PDB_OK;
    if (strcmp(ctx->by, "function") != 0)
        return pdb_fail("unknown --by '%s' for py-spy reports (expected frame or function)",
                        ctx->by);
    *keying = "function";
    return PDB_OK;
}

/* --idle: include (the default: every sample), exclude or only. */
static int idle_mode(const pdb_report_ctx *ctx, const char **mode)
{
    *mode = ctx->idle ? ctx->idle : "include";
    if (strcmp(*mode, "include") && strcmp(*mode, "exclude") && strcmp(*mode, "only"))
        return pdb_fail("unknown --idle '%s' for pyspy (expected include, exclude or only)",
                        *mode);
    return PDB_OK;
}

/* Table and Markdown output: how many samples were idle, and on what basis. */
static void idle_note(pdb_report_ctx *ctx, const char *mode)
{
    if (ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
        return;
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "pyspy.idle", &st) != PDB_OK)
        return;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        int64_t idle = sqlite3_column_int64(st, 0), all = sqlite3_column_int64(st, 1);
        if (idle > 0 || strcmp(mode, "include") != 0)
            fprintf(ctx->out,
                    "\nidle: %lld of %lld samples (%.2f%%) end in a waiting call (sleep, poll, "
                    "select, lock and condition waits; py-spy's threading/selectors waits): "
                    "%s (--idle include|exclude|only)\n",
                    (long long)idle, (long long)all, all ? 100.0 * (double)idle / (double)all : 0,
                    strcmp(mode, "include") == 0   ? "counted"
                    : strcmp(mode, "exclude") == 0 ? "left out"
                                                   : "alone counted");
    }
    sqlite3_finalize(st);
}

/* The parameters of the top_* statements of pyspy.sql. */
typedef struct top_args {
    int64_t run_id, top;
    const char *keying, *sort, *idle;
    int by_thread;
} top_args;

static void bind_top(sqlite3_stmt *st, const top_args *a, int64_t depth)
{
    int np = sqlite3_bind_parameter_count(st);
    if (np >= 1)
        sqlite3_bind_int64(st, 1, a->run_id);
    if (np >= 2)
        sqlite3_bind_text(st, 2, a->keying, -1, SQLITE_STATIC);
    if (np >= 3)
        sqlite3_bind_int64(st, 3, a->top);
    if (np >= 4)
        sqlite3_bind_text(st, 4, a->sort, -1, SQLITE_STATIC);
    if (np >= 5)
        sqlite3_bind_int(st, 5, a->by_thread);
    if (np >= 6)
        sqlite3_bind_text(st, 6, a->idle, -1, SQLITE_STATIC);
    if (np >= 7)
        sqlite3_bind_int64(st, 7, depth);
}

/* Runs every statement of the pyspy.sql query called name (no rows). */
static int top_exec(sqlite3 *db, const char *name, const top_args *a)
{
    const char *sql = pdb_report_sql(name);
    if (!sql)
        return pdb_fail("internal: no query %s", name);
    while (*sql) {
        sqlite3_stmt *st;
        const char *tail;
        if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK)
            return pdb_db_fail(db, name);
        if (!st)
            break;
        bind_top(st, a, 0);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return pdb_db_fail(db, name);
        sql = tail;
    }
    return PDB_OK;
}

/* Runs the query called name once per depth, from max_depth down to 1
 * (down) or from 0 up to max_depth. */
static int top_per_depth(sqlite3 *db, const char *name, const top_args *a, int64_t max_depth,
                         bool down)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, name, &st) != PDB_OK)
        return PDB_ERR;
    int rc = SQLITE_DONE;
    for (int64_t d = down ? max_depth : 0; (down ? d >= 1 : d <= max_depth) && rc == SQLITE_DONE;
         d += down ? -1 : 1) {
        bind_top(st, a, d);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, name);
}

/* Each node's left edge relative to its parent's: the totals of its
 * siblings before it (a running sum, one row at a time). */
static int top_offsets(sqlite3 *db)
{
    sqlite3_stmt *rows, *add;
    if (pdb_report_prepare(db, "pyspy.top_offset_rows", &rows) != PDB_OK)
        return PDB_ERR;
    if (pdb_report_prepare(db, "pyspy.top_offset_add", &add) != PDB_OK) {
        sqlite3_finalize(rows);
        return PDB_ERR;
    }
    int64_t g = -1, parent = -1, off = 0;
    int rc;
    while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
        int64_t rg = sqlite3_column_int64(rows, 1), p = sqlite3_column_int64(rows, 2);
        if (rg != g || p != parent) {
            g = rg;
            parent = p;
            off = 0;
        }
        sqlite3_bind_int64(add, 1, sqlite3_column_int64(rows, 0));
        sqlite3_bind_int64(add, 2, off);
        off += sqlite3_column_int64(rows, 3);
        if (sqlite3_step(add) != SQLITE_DONE)
            break;
        sqlite3_reset(add);
    }
    sqlite3_finalize(rows);
    sqlite3_finalize(add);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "pyspy: placing the nodes");
}

/* A key's self and total in one root. */
typedef struct top_sum {
    int64_t root_id, key_id, self, total;
    double self_s, total_s;
} top_sum;

static int top_flush(sqlite3_stmt *add, const top_sum *t)
{
    sqlite3_bind_int64(add, 1, t->root_id);
    sqlite3_bind_int64(add, 2, t->key_id);
    sqlite3_bind_int64(add, 3, t->self);
    sqlite3_bind_int64(add, 4, t->total);
    sqlite3_bind_double(add, 5, t->self_s);
    sqlite3_bind_double(add, 6, t->total_s);
    int rc = sqlite3_step(add);
    sqlite3_reset(add);
    return rc == SQLITE_DONE ? PDB_OK : PDB_ERR;
}

/* Self and total per key and root (pyspy.sql, top_sweep_rows): a key's
 * total is the length of the union of its nodes' intervals, and nested
 * intervals come right after the one that holds them. */
static int top_sweep(sqlite3 *db, const top_args *a)
{
    sqlite3_stmt *rows, *add;
    if (pdb_report_prepare(db, "pyspy.top_sweep_rows", &rows) != PDB_OK)
        return PDB_ERR;
    if (pdb_report_prepare(db, "pyspy.top_agg_add", &add) != PDB_OK) {
        sqlite3_finalize(rows);
        return PDB_ERR;
    }
    bind_top(rows, a, 0);
    top_sum t = {-1, -1, 0, 0, 0, 0};
    int64_t g = -1, reach = INT64_MIN;
    int rc, ok = PDB_OK;
    while (ok == PDB_OK && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
        int64_t root = sqlite3_column_int64(rows, 0), key = sqlite3_column_int64(rows, 1);
        int64_t rg = sqlite3_column_int64(rows, 2), x = sqlite3_column_int64(rows, 3);
        int64_t total = sqlite3_column_int64(rows, 4);
        if (root != t.root_id || key != t.key_id) {
            if (t.key_id >= 0)
                ok = top_flush(add, &t);
            t = (top_sum){root, key, 0, 0, 0, 0};
            g = -1;
        }
        if (rg != g) {
            g = rg;
            reach = INT64_MIN;
        }
        if (x >= reach) { /* not inside the last interval counted */
            t.total += total;
            t.total_s += sqlite3_column_double(rows, 5);
            reach = x + total;
        }
        t.self += sqlite3_column_int64(rows, 6);
        t.self_s += sqlite3_column_double(rows, 7);
    }
    if (ok == PDB_OK && rc == SQLITE_DONE && t.key_id >= 0)
        ok = top_flush(add, &t);
    sqlite3_finalize(rows);
    sqlite3_finalize(add);
    return ok == PDB_OK && rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "pyspy: summing keys");
}

/* The first --top N keys of each root, ranked, into temp.pyspy_top. */
static int top_keep(sqlite3 *db, const top_args *a)
{
    sqlite3_stmt *rows, *keep;
    if (pdb_report_prepare(db, "pyspy.top_order", &rows) != PDB_OK)
        return PDB_ERR;
    if (pdb_report_prepare(db, "pyspy.top_keep", &keep) != PDB_OK) {
        sqlite3_finalize(rows);
        return PDB_ERR;
    }
    bind_top(rows, a, 0);
    int64_t root = -1, rank = 0;
    int rc;
    while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
        int64_t r = sqlite3_column_int64(rows, 1);
        if (r != root) {
            root = r;
            rank = 0;
        }
        if (a->top >= 0 && rank >= a->top)
            continue;
        sqlite3_bind_int64(keep, 1, sqlite3_column_int64(rows, 0));
        sqlite3_bind_int64(keep, 2, ++rank);
        if (sqlite3_step(keep) != SQLITE_DONE)
            break;
        sqlite3_reset(keep);
    }
    sqlite3_finalize(rows);
    sqlite3_finalize(keep);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "pyspy: ranking");
}

/* Fills temp.pyspy_top (see pyspy.sql, create_top). */
static int top_fill(sqlite3 *db, const top_args *a)
{
    int64_t max_depth;
    if (top_exec(db, "pyspy.create_top", a) != PDB_OK ||
        top_exec(db, "pyspy.top_keys", a) != PDB_OK ||
        top_exec(db, "pyspy.top_ends", a) != PDB_OK ||
        pdb_report_number(db, "pyspy.top_max_depth", a->run_id, &max_depth) != PDB_OK ||
        top_per_depth(db, "pyspy.top_up", a, max_depth, true) != PDB_OK ||
        top_offsets(db) != PDB_OK ||
        top_per_depth(db, "pyspy.top_down", a, max_depth, false) != PDB_OK ||
        top_exec(db, "pyspy.top_roots", a) != PDB_OK || top_sweep(db, a) != PDB_OK)
        return PDB_ERR;
    return top_keep(db, a);
}

int pdb_pyspy_with_top(pdb_report_ctx *ctx, const char *keying, const char *sort,
                       const char *idle, bool by_thread, int64_t top,
                       int (*then)(pdb_report_ctx *ctx, void *arg), void *arg)
{
    top_args a = {ctx->run_id, top, keying, sort, idle, by_thread};
    /* one transaction: one per statement would cost a journal per depth */
    bool began = sqlite3_get_autocommit(ctx->db);
    if (began && pdb_db_begin(ctx->db) != PDB_OK)
        return PDB_ERR;
    int rc = top_exec(ctx->db, "pyspy.top_drop", &a); /* a report that failed may have left them */
    if (rc == PDB_OK)
        rc = top_fill(ctx->db, &a);
    if (rc == PDB_OK)
        rc = then(ctx, arg);
    int dropped = top_exec(ctx->db, "pyspy.top_drop", &a);
    if (began) {
        if (rc == PDB_OK && dropped == PDB_OK)
            dropped = pdb_db_commit(ctx->db);
        else
            pdb_db_rollback(ctx->db);
    }
    return rc == PDB_OK ? dropped : rc;
}

static int render_top(pdb_report_ctx *ctx, void *arg)
{
    (void)arg;
    return pdb_report_query(ctx, ctx->by_thread ? "pyspy.top_by_root" : "pyspy.top");
}

int pdb_report_pyspy(pdb_report_ctx *ctx)
{
    const char *keying, *idle, *sort = ctx->sort ? ctx->sort : "total";
    if (pdb_pyspy_keying(ctx, &keying) != PDB_OK || idle_mode(ctx, &idle) != PDB_OK)
        return PDB_ERR;
    if (strcmp(sort, "total") != 0 && strcmp(sort, "self") != 0)
        return pdb_fail("unknown --sort '%s' for pyspy (expected total or self)", sort);
    pdb_report_title(ctx, "pyspy");
    bool ok;
    if (pdb_pyspy_require(ctx, "pyspy", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    int rc = pdb_pyspy_with_top(ctx, keying, sort, idle, ctx->by_thread, ctx->top, render_top,
                                NULL);
    if (rc == PDB_OK) {
        pdb_pyspy_inexact_note(ctx);
        idle_note(ctx, idle);
    }
    return rc;
}

int pdb_report_pyspy_callers(pdb_report_ctx *ctx)
{
    const char *keying;
    if (pdb_pyspy_keying(ctx, &keying) != PDB_OK)
        return PDB_ERR;
    if (!ctx->function)
        return pdb_fail("pyspy-callers: give --function NAME (a function's name, or "
                        "'name (file)')");
    pdb_report_title(ctx, "pyspy-callers");
    bool ok;
    if (pdb_pyspy_require(ctx, "pyspy-callers", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "pyspy.callers", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, ctx->function, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, keying, -1, SQLITE_STATIC);
    int rc = pdb_report_render(ctx, st);
    if (rc == PDB_OK)
        pdb_pyspy_inexact_note(ctx);
    return rc;
}

int pdb_report_pyspy_leaves(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "pyspy-leaves");
    bool ok;
    if (pdb_pyspy_require(ctx, "pyspy-leaves", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "pyspy.leaves", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, ctx->library ? ctx->library : "itwinai", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, ctx->keep_module);
    sqlite3_bind_int(st, 4, ctx->aggregate_leaf_paths);
    sqlite3_bind_int64(st, 5, ctx->top);
    int rc = pdb_report_render(ctx, st);
    if (rc == PDB_OK)
        pdb_pyspy_inexact_note(ctx);
    return rc;
}
