/* steplog_insights.c: the `throughput` and `step-insights` reports over
 * per-step training logs (see steplog_reports.h; the queries are in
 * report/queries/steplog_insights.sql).
 *
 * Insight rules come from the profilers' own guides: the slowest phase;
 * data loading, data generation and host-to-device transfer shares, RAM and
 * GPU memory, each above its limit in report/thresholds.h. Every rule that
 * has data is listed with the number it was decided on, fired or not, so a
 * reader can see why. */
#include "report/steplog_reports.h"
#include "report/steplog_stats.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"
#include "report/thresholds.h"

int pdb_report_steplog_throughput(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "throughput");
    return pdb_report_query(ctx, "steplog_insights.throughput");
}

/* Scaling across runs labelled gpus=N (see the query). Ignores --run: it
 * is about all labelled runs. */
int pdb_report_steplog_scaling(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "scaling");
    return pdb_report_query(ctx, "steplog_insights.scaling");
}

/* One rule: a query returning (value, detail) for the run, the threshold
 * it is compared with, and what firing means. */
typedef struct {
    const char *rule;
    const char *query;        /* ?1 = run_id; one row (value, detail) or none */
    const char *phase, *pct;  /* rule_share: ?2 the phase, ?3 its logged percentage */
    double threshold;         /* fires when value > threshold (< 0: informational) */
    const char *unit;
    const char *advice;
} insight_rule;

static const insight_rule rules[] = {
    {"slowest phase", "steplog_insights.rule_slowest_phase", NULL, NULL, -1, "s",
     "optimise this phase first"},
    {"data loading share", "steplog_insights.rule_share", "data", "data_pct",
     PDB_DATA_LOADING_PCT, "%",
     "more DataLoader workers, pinned memory, faster storage or preprocessing"},
    {"data generation share", "steplog_insights.rule_share", "data_generation",
     "data_generation_pct", PDB_DATA_GENERATION_PCT, "%", "more num_workers or pre-computed data"},
    {"transfer share", "steplog_insights.rule_share", "transfer", "transfer_pct",
     PDB_TRANSFER_PCT, "%", "pin_memory=True and non_blocking copies"},
    {"RAM usage", "steplog_insights.rule_ram", NULL, NULL, PDB_RAM_PCT, "%",
     "smaller batches or gradient accumulation"},
    {"GPU memory usage", "steplog_insights.rule_gpu_memory", NULL, NULL, PDB_GPU_MEMORY_PCT, "%",
     "smaller batches, activation checkpointing or mixed precision"},
};

/* Adds the rule's row to temp.steplog_insights: its value and status. */
static int add_finding(pdb_report_ctx *ctx, const insight_rule *r, sqlite3_stmt *st,
                       sqlite3_stmt *ins)
{
    double v = sqlite3_column_double(st, 0);
    bool info = r->threshold < 0;
    sqlite3_bind_text(ins, 1, r->rule, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 2, info ? "info" : v > r->threshold ? "FIRED" : "ok", -1,
                      SQLITE_STATIC);
    sqlite3_bind_double(ins, 3, v);
    if (info)
        sqlite3_bind_null(ins, 4);
    else
        sqlite3_bind_double(ins, 4, r->threshold);
    sqlite3_bind_text(ins, 5, r->unit, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 6, (const char *)sqlite3_column_text(st, 1), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 7, info || v > r->threshold ? r->advice : "", -1, SQLITE_STATIC);
    return pdb_db_step_done(ctx->db, ins);
}

static int eval_rule(pdb_report_ctx *ctx, const insight_rule *r, sqlite3_stmt *ins)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, r->query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    if (r->phase) {
        sqlite3_bind_text(st, 2, r->phase, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, r->pct, -1, SQLITE_STATIC);
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        rc = add_finding(ctx, r, st, ins) == PDB_OK ? SQLITE_DONE : SQLITE_ERROR;
    else if (rc == SQLITE_ROW)
        rc = SQLITE_DONE;
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(ctx->db, "insight rule");
}

int pdb_report_steplog_insights(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "step-insights");
    if (pdb_steplog_phase_stats(ctx->db, ctx->run_id, ctx->skip_first) != PDB_OK ||
        pdb_db_exec(ctx->db, pdb_report_sql("steplog_insights.create_insights")) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *ins;
    if (pdb_report_prepare(ctx->db, "steplog_insights.insert_insight", &ins) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (size_t i = 0; rc == PDB_OK && i < sizeof rules / sizeof rules[0]; i++)
        rc = eval_rule(ctx, &rules[i], ins);
    sqlite3_finalize(ins);
    if (rc != PDB_OK)
        return rc;
    return pdb_report_query(ctx, "steplog_insights.insights");
}
