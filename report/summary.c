/* summary.c: the `summary` report: what one run holds, file by file. */
#include "report/reports.h"

int pdb_report_summary(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "summary");
    return pdb_report_query(ctx,
        "SELECT s.path AS source, s.format, t.rank, s.records,"
        " (SELECT coalesce(sum(count), 0) FROM skips k WHERE k.source_id = s.source_id) AS skipped,"
        " (SELECT group_concat(reason || ': ' || count, '; ') FROM skips k"
        "   WHERE k.source_id = s.source_id) AS skip_reasons"
        " FROM sources s LEFT JOIN traces t USING (source_id)"
        " WHERE s.run_id = ?1 ORDER BY s.source_id");
}
