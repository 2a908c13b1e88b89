/* trace_steps.c: the per-step and per-rank reports over traces: steps (each
 * ProfilerStep split into categories), idle (GPU idle time per stream) and
 * ranks (step and GPU time per rank, and a straggler when a test on the
 * ranks' step times says so: see the ranks query);
 * report/queries/trace_steps.sql. */
#include "report/reports.h"
#include "common/error.h"
#include "report/queries.h"
#include "report/thresholds.h"
#include "report/trace_sql.h"

int pdb_report_steps(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "steps");
    if (pdb_report_require(ctx, "steps", "trace_steps.steps_require", "exact",
                           "no ProfilerStep annotations in this run", &ok) != PDB_OK)
        return PDB_ERR;
    return ok ? pdb_report_query_mode(ctx, "trace_steps.steps", "exact") : PDB_OK;
}

int pdb_report_idle(pdb_report_ctx *ctx)
{
    const char *mode;
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, "idle");
    if (pdb_report_require(ctx, "idle", "trace_steps.idle_require", "exact",
                           "no GPU events in this run: GPU idle time does not apply", &ok) != PDB_OK)
        return PDB_ERR;
    return ok ? pdb_report_query_mode(ctx, "trace_steps.idle", mode) : PDB_OK;
}

int pdb_report_ranks(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "ranks");
    if (pdb_report_require(ctx, "ranks", "trace_steps.ranks_require", "exact",
                           "no traces in this run", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    sqlite3_stmt *st;
    if (pdb_trace_sql_functions(ctx->db) != PDB_OK ||
        pdb_report_prepare(ctx->db, "trace_steps.ranks", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_double(st, 6, PDB_STRAGGLER_ALPHA);
    sqlite3_bind_double(st, 7, PDB_STRAGGLER_MIN_PCT);
    return pdb_report_render(ctx, st);
}
