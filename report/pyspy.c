/* pyspy.c: the `pyspy` report: top functions of a run's sampled stacks
 * (py-spy raw, speedscope, flame-graph SVG) by self and total samples, their
 * share and, where the rate is known, seconds; by frame (name, file, line)
 * or function (name, file), for the whole run or per root (process/thread
 * chain, speedscope profile); --idle counts, leaves out or keeps alone the
 * samples whose leaf is a waiting call (pyspy.sql, idle_leaf). The counting is SQL (report/queries/pyspy.sql,
 * create_top); this file checks the options and picks the table. */
#include "report/pyspy.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"

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

/* Runs a statement of pyspy.sql that returns no rows. */
static int exec_query(pdb_report_ctx *ctx, const char *name, const char *keying,
                      const char *sort, const char *idle)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, name, &st) != PDB_OK)
        return PDB_ERR;
    int np = sqlite3_bind_parameter_count(st);
    if (np >= 1)
        sqlite3_bind_int64(st, 1, ctx->run_id);
    if (np >= 5) {
        sqlite3_bind_text(st, 2, keying, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, ctx->top);
        sqlite3_bind_text(st, 4, sort, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 5, ctx->by_thread);
        sqlite3_bind_text(st, 6, idle, -1, SQLITE_STATIC);
    }
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(ctx->db, name);
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
    int rc = exec_query(ctx, "pyspy.top_drop", keying, sort, idle);
    if (rc == PDB_OK)
        rc = exec_query(ctx, "pyspy.create_top", keying, sort, idle);
    if (rc == PDB_OK)
        rc = pdb_report_query(ctx, ctx->by_thread ? "pyspy.top_by_root" : "pyspy.top");
    int dropped = exec_query(ctx, "pyspy.top_drop", keying, sort, idle);
    if (rc == PDB_OK) {
        pdb_pyspy_inexact_note(ctx);
        idle_note(ctx, idle);
    }
    return rc == PDB_OK ? dropped : rc;
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
