/* trace_steps.c: the per-step and per-rank reports over traces: steps (each
 * ProfilerStep split into categories), idle (GPU idle time per stream) and
 * ranks (step and GPU time per rank, the straggler);
 * report/queries/trace_steps.sql. */
#include "report/reports.h"
#include "common/error.h"

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
    return ok ? pdb_report_query_mode(ctx, "trace_steps.ranks", "exact") : PDB_OK;
}
