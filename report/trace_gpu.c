/* trace_gpu.c: the GPU reports over the trace analysis tables: gpu,
 * kernel-types and kernels (report/queries/trace_gpu.sql). --compat hta
 * selects HTA's conventions. */
#include "report/reports.h"
#include "common/error.h"

/* A GPU report: says so and prints nothing when the run has no GPU events. */
static int gpu_report(pdb_report_ctx *ctx, const char *name, const char *query)
{
    const char *mode;
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, name);
    if (pdb_report_require(ctx, name, "trace_gpu.require", mode,
                           "no GPU events in this run (no trace events with a stream arg): the GPU "
                           "reports do not apply; 'ops' covers the CPU side",
                           &ok) != PDB_OK)
        return PDB_ERR;
    return ok ? pdb_report_query_mode(ctx, query, mode) : PDB_OK;
}

int pdb_report_gpu(pdb_report_ctx *ctx)
{
    return gpu_report(ctx, "gpu", "trace_gpu.gpu");
}

int pdb_report_kernel_types(pdb_report_ctx *ctx)
{
    return gpu_report(ctx, "kernel-types", "trace_gpu.kernel_types");
}

int pdb_report_kernels(pdb_report_ctx *ctx)
{
    return gpu_report(ctx, "kernels", "trace_gpu.kernels");
}
