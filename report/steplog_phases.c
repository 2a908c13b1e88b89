/* steplog_phases.c: the `metrics`, `metric-rules`, `phases` and `loaders`
 * reports over per-step training logs (see steplog_reports.h). */
#include "report/steplog_reports.h"
#include "report/steplog_stats.h"
#include "common/db.h"
#include "common/error.h"

#include <stdbool.h>

int pdb_report_steplog_metrics(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "metrics");
    /* Values span units (seconds, bytes, learning rates): tables round reals
     * to three decimals for people, which would print 5e-05 as 0; small
     * values get four significant digits instead. */
    bool people = ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD;
    sqlite3_stmt *st;
    if (pdb_db_prepare(ctx->db,
                       people ? "SELECT step, epoch, rank, split, metric,"
                                " CASE WHEN value <> 0 AND abs(value) < 0.1"
                                " THEN printf('%.4g', value) ELSE value END AS value,"
                                " unit, agg, window,"
                                " raw_name FROM steplog_values WHERE run_id = ?1"
                                " AND (?2 IS NULL OR metric = ?2 OR raw_name = ?2)"
                                " ORDER BY source_id, record, rowid"
                              : "SELECT step, epoch, rank, split, metric, value, unit, agg,"
                                " window, raw_name FROM steplog_values WHERE run_id = ?1"
                                " AND (?2 IS NULL OR metric = ?2 OR raw_name = ?2)"
                                " ORDER BY source_id, record, rowid",
                       &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    if (ctx->metric)
        sqlite3_bind_text(st, 2, ctx->metric, -1, SQLITE_STATIC);
    int rc = pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}

int pdb_report_steplog_rules(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "metric-rules");
    /* The names this run used, with the metric each became. */
    return pdb_report_query(ctx,
        "SELECT raw_name, metric, unit, agg,"
        " (SELECT is_phase FROM steplog_metric_rules r WHERE r.metric = v.metric LIMIT 1)"
        "   AS is_phase, count(*) AS n_values"
        " FROM steplog_values v WHERE run_id = ?1 GROUP BY raw_name, metric, unit, agg"
        " ORDER BY metric, raw_name");
}

int pdb_report_steplog_phases(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "phases");
    if (pdb_steplog_phase_stats(ctx->db, ctx->run_id, ctx->skip_first) != PDB_OK)
        return PDB_ERR;
    return pdb_report_query(ctx,
        "SELECT nullif(split, '') AS split, nullif(loader, '') AS loader, metric AS phase, agg,"
        " window, count, round(total_s * 1e9) AS total_ns, round(mean_s * 1e9) AS mean_ns,"
        " round(std_s * 1e9) AS std_ns, round(min_s * 1e9) AS min_ns, round(p50_s * 1e9) AS p50_ns,"
        " round(p90_s * 1e9) AS p90_ns, round(p99_s * 1e9) AS p99_ns, round(max_s * 1e9) AS max_ns,"
        " share_pct FROM temp.steplog_phase_stats WHERE ?1 IS NOT NULL"
        " ORDER BY split, loader, agg, metric = 'other/overhead', metric <> 'step_time',"
        " total_s DESC");
}

int pdb_report_steplog_loaders(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "loaders");
    if (pdb_steplog_phase_stats(ctx->db, ctx->run_id, ctx->skip_first) != PDB_OK)
        return PDB_ERR;
    /* imbalance: this loader's mean over the fastest loader's mean, per phase */
    return pdb_report_query(ctx,
        "SELECT nullif(s.split, '') AS split, s.loader, s.metric AS phase, s.agg, s.count,"
        " round(s.mean_s * 1e9) AS mean_ns, round(s.p50_s * 1e9) AS p50_ns, round(s.max_s * 1e9) AS max_ns,"
        " round(s.mean_s / (SELECT min(o.mean_s) FROM temp.steplog_phase_stats o"
        "   WHERE o.split = s.split AND o.metric = s.metric AND o.agg = s.agg"
        "   AND o.loader <> '' AND o.mean_s > 0), 3) AS imbalance"
        " FROM temp.steplog_phase_stats s WHERE s.loader <> '' AND ?1 IS NOT NULL"
        " ORDER BY s.split, s.metric, s.agg, s.mean_s DESC");
}
