/* steplog_phases.c: the `metrics`, `metric-rules`, `phases` and `loaders`
 * reports over per-step training logs (see steplog_reports.h; the queries
 * are in report/queries/steplog_phases.sql). */
#include "report/steplog_reports.h"
#include "report/steplog_stats.h"
#include "common/error.h"
#include "report/queries.h"

#include <stdbool.h>

int pdb_report_steplog_metrics(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "metrics");
    /* Values span units (seconds, bytes, learning rates): for people, small
     * values get four significant digits (see the query). */
    bool people = ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD;
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "steplog_phases.metrics", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    if (ctx->metric)
        sqlite3_bind_text(st, 2, ctx->metric, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, people);
    return pdb_report_render(ctx, st);
}

int pdb_report_steplog_rules(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "metric-rules");
    return pdb_report_query(ctx, "steplog_phases.rules");
}

int pdb_report_steplog_phases(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "phases");
    if (pdb_steplog_phase_stats(ctx->db, ctx->run_id, ctx->skip_first) != PDB_OK)
        return PDB_ERR;
    return pdb_report_query(ctx, "steplog_phases.phases");
}

int pdb_report_steplog_loaders(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "loaders");
    if (pdb_steplog_phase_stats(ctx->db, ctx->run_id, ctx->skip_first) != PDB_OK)
        return PDB_ERR;
    return pdb_report_query(ctx, "steplog_phases.loaders");
}
