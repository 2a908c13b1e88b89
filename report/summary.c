/* summary.c: the `summary` report: what one run holds, file by file
 * (report/queries/summary.sql). */
#include "report/reports.h"

int pdb_report_summary(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "summary");
    return pdb_report_query(ctx, "summary.sources");
}
