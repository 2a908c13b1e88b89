/* trace_ops.c: the `ops` report: CPU operators with self and total time,
 * per rank (and per input shape with --by-shape). */
#include "report/reports.h"
#include "common/strbuf.h"

int pdb_report_ops(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "ops");
    const char *group = ctx->by_shape ? "rank, name, cat, input_dims" : "rank, name, cat";
    const char *shape_col = ctx->by_shape ? "input_dims, " : "";
    pdb_buf sql = PDB_BUF_INIT;
    pdb_buf_addf(&sql,
        "WITH o AS (SELECT rank, name, cat, %s sum(count) AS count, sum(self_ns) AS self_ns,"
        "   sum(total_ns) AS total_ns FROM analysis_ops WHERE run_id = ?1 GROUP BY %s),"
        " r AS (SELECT *, row_number() OVER (PARTITION BY rank ORDER BY self_ns DESC, name) AS n,"
        "   100.0 * self_ns / sum(self_ns) OVER (PARTITION BY rank) AS self_share_pct FROM o)"
        " SELECT rank, name, cat, %s count, self_ns, total_ns, self_share_pct FROM ("
        "   SELECT *, 0 AS others FROM r WHERE ?3 < 0 OR n <= ?3"
        "   UNION ALL"
        "   SELECT rank, 'others', NULL, %s sum(count), sum(self_ns), sum(total_ns), NULL,"
        "     sum(self_share_pct), 1 FROM r WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)"
        " ORDER BY rank, others, self_ns DESC, name",
        shape_col, group, shape_col, ctx->by_shape ? "NULL," : "");
    int rc = pdb_report_query_mode(ctx, sql.p, "exact");
    pdb_buf_free(&sql);
    return rc;
}
