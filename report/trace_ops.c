/* trace_ops.c: the `ops` report (CPU operators with CPU and GPU self and
 * total time, per rank, per input shape with --by-shape) and the
 * `annotations` report (record_function ranges: CPU time, share of the
 * steps, GPU time inside; --compat hta: HTA's user annotation breakdown);
 * report/queries/trace_ops.sql. */
#include "report/reports.h"
#include "common/error.h"
#include "report/trace_sql.h"

#include <string.h>

int pdb_report_ops(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "ops");
    return pdb_trace_query(ctx, ctx->by_shape ? "trace_ops.ops_by_shape" : "trace_ops.ops",
                           "exact", NULL);
}

int pdb_report_annotations(pdb_report_ctx *ctx)
{
    const char *mode;
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, "annotations");
    if (pdb_report_require(ctx, "annotations", "trace_ops.annotations_require", mode,
                           "no user_annotation or gpu_user_annotation ranges in this run "
                           "(record_function)",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return pdb_trace_query(ctx,
                           strcmp(mode, "hta") == 0 ? "trace_ops.annotations_hta"
                                                    : "trace_ops.annotations",
                           mode, NULL);
}
