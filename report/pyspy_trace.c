/* pyspy_trace.c: `report pyspy-trace`: where a run holds a py-spy profile
 * and a PyTorch trace recorded with with_stack=True, the top py-spy
 * functions (--by function: name and file) beside their python_function
 * events in the trace (calls, time) and the GPU time they launched, in all
 * and per op (report/queries/pyspy_trace.sql says how they are joined).
 * Everything is in temp tables and read a row at a time; the one pass here
 * keeps a function's outermost events per thread (an event inside the
 * last one kept is a recursive call: left out). */
#include "report/pyspy.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"

#include <stdint.h>
#include <string.h>

#define OPS_PER_FUNCTION 5

static int exec_run(sqlite3 *db, const char *name, int64_t run_id)
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
        if (sqlite3_bind_parameter_count(st) >= 1)
            sqlite3_bind_int64(st, 1, run_id);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            return pdb_db_fail(db, name);
        sql = tail;
    }
    return PDB_OK;
}

/* The outermost events of each function on each thread. */
static int keep_outer(sqlite3 *db)
{
    sqlite3_stmt *rows, *add;
    if (pdb_report_prepare(db, "pyspy_trace.events", &rows) != PDB_OK)
        return PDB_ERR;
    if (pdb_report_prepare(db, "pyspy_trace.outer_add", &add) != PDB_OK) {
        sqlite3_finalize(rows);
        return PDB_ERR;
    }
    int64_t fn = -1, trace = -1, reach = INT64_MIN;
    char lane[256] = "";
    int rc, ok = SQLITE_DONE;
    while (ok == SQLITE_DONE && (rc = sqlite3_step(rows)) == SQLITE_ROW) {
        int64_t f = sqlite3_column_int64(rows, 0), t = sqlite3_column_int64(rows, 1);
        const char *l = (const char *)sqlite3_column_text(rows, 2);
        int64_t ts = sqlite3_column_int64(rows, 3), end = sqlite3_column_int64(rows, 4);
        if (f != fn || t != trace || strncmp(l ? l : "", lane, sizeof lane) != 0) {
            fn = f;
            trace = t;
            snprintf(lane, sizeof lane, "%s", l ? l : "");
            reach = INT64_MIN;
        }
        if (ts < reach) /* inside the last one kept */
            continue;
        reach = end;
        for (int i = 0; i < 5; i++)
            sqlite3_bind_value(add, i + 1, sqlite3_column_value(rows, i));
        ok = sqlite3_step(add);
        sqlite3_reset(add);
    }
    sqlite3_finalize(rows);
    sqlite3_finalize(add);
    return rc == SQLITE_DONE && ok == SQLITE_DONE ? PDB_OK
                                                   : pdb_db_fail(db, "pyspy-trace: the calls");
}

static int joined(pdb_report_ctx *ctx, void *arg)
{
    (void)arg;
    sqlite3 *db = ctx->db;
    int rc = exec_run(db, "pyspy_trace.drop", ctx->run_id);
    if (rc == PDB_OK)
        rc = exec_run(db, "pyspy_trace.create_tables", ctx->run_id);
    if (rc == PDB_OK)
        rc = exec_run(db, "pyspy_trace.fill", ctx->run_id);
    if (rc == PDB_OK)
        rc = keep_outer(db);
    if (rc == PDB_OK)
        rc = exec_run(db, "pyspy_trace.sum_ops", ctx->run_id);
    if (rc == PDB_OK) {
        sqlite3_stmt *st;
        rc = pdb_report_prepare(db, "pyspy_trace.report", &st);
        if (rc == PDB_OK) {
            sqlite3_bind_int64(st, 1, ctx->run_id);
            sqlite3_bind_int(st, 2, OPS_PER_FUNCTION);
            rc = pdb_report_render(ctx, st);
        }
    }
    int dropped = exec_run(db, "pyspy_trace.drop", ctx->run_id);
    return rc == PDB_OK ? dropped : rc;
}

int pdb_report_pyspy_trace(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "pyspy-trace");
    bool ok;
    if (pdb_pyspy_require(ctx, "pyspy-trace", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    if (pdb_report_require(ctx, "pyspy-trace", "pyspy_trace.count", NULL,
                           "no python_function events in this run's traces (a PyTorch trace "
                           "recorded with with_stack=True names each Python call "
                           "'FILE(LINE): FUNC')",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    int rc = pdb_pyspy_with_top(ctx, "function", "total", "include", false,
                                ctx->top >= 0 ? ctx->top : 20, joined, NULL);
    if (rc == PDB_OK && (ctx->render.format == PDB_OUT_TABLE ||
                         ctx->render.format == PDB_OUT_MD))
        fputs("\njoined by function name and file (py-spy's name and file, the trace's "
              "python_function 'FILE(LINE): FUNC'); trace_ms: the outermost calls' time; gpu: "
              "GPU events launched inside them, in all and per innermost op (the 5 largest)\n",
              ctx->out);
    if (rc == PDB_OK)
        pdb_pyspy_inexact_note(ctx);
    return rc;
}
