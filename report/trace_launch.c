/* trace_launch.c: the reports that join the CPU and GPU sides of a trace:
 * launch (runtime call -> kernel delays) and comm (collectives: count, time,
 * bytes, bandwidth). Plain SQL over slices: report/queries/trace_launch.sql. */
#include "report/reports.h"
#include "common/error.h"

#include <stdio.h>

int pdb_report_launch(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "launch");
    if (pdb_report_require(ctx, "launch", "trace_launch.launch_require", "exact",
                           "no GPU events with a correlation id in this run: launch statistics "
                           "do not apply", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    if (pdb_report_query_mode(ctx, "trace_launch.launch", "exact") != PDB_OK)
        return PDB_ERR;
    /* Machine formats carry one table: the summary. */
    if (ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
        return PDB_OK;
    fprintf(ctx->out, "\nlongest launch delays:\n");
    return pdb_report_query_mode(ctx, "trace_launch.longest", "exact");
}

/* NCCL collectives: kind from the Collective name arg or the kernel name. */
int pdb_report_comm(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "comm");
    if (pdb_report_require(ctx, "comm", "trace_launch.comm_require", "exact",
                           "no communication kernels in this run", &ok) != PDB_OK)
        return PDB_ERR;
    return ok ? pdb_report_query_mode(ctx, "trace_launch.comm", "exact") : PDB_OK;
}
