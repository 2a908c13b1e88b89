/* trace_ops.c: the `ops` report: CPU operators with self and total time,
 * per rank (and per input shape with --by-shape);
 * report/queries/trace_ops.sql. */
#include "report/reports.h"

int pdb_report_ops(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "ops");
    return pdb_report_query_mode(ctx, ctx->by_shape ? "trace_ops.ops_by_shape" : "trace_ops.ops",
                                 "exact");
}
