/* diff_steps.c: `profdb diff BASE TEST steps`: per-step distributions.
 *
 * Every per-step time of either run (step-log step_time and phase metrics
 * with point values; else the trace's ProfilerStep durations and step
 * categories) is compared as a distribution: medians, their change, the
 * median ratio with a seeded bootstrap 95% interval, the two-sided
 * Mann-Whitney p-value (the one convention check prints too: exact up to
 * 60 steps, ties included; common/stats.h) and the outliers on each side. The rows are collected in a temp
 * table so they render (and sort) like every other result set. The queries
 * are in compare/queries/diff_steps.sql. */
#include "compare/diff.h"
#include "compare/check.h"
#include "compare/compare.h"
#include "compare/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "render/text.h"

#include <math.h>
#include <string.h>

static int add_metrics(pdb_diff_ctx *ctx, const char *schema, int64_t run_id,
                       sqlite3_stmt *ins)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_steps.metrics", schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = PDB_OK;
    while (rc == PDB_OK && sqlite3_step(st) == SQLITE_ROW) {
        sqlite3_bind_value(ins, 1, sqlite3_column_value(st, 0));
        rc = pdb_db_step_done(ctx->db, ins);
    }
    sqlite3_finalize(st);
    return rc;
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v) || isinf(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

/* One metric's row: samples of both sides compared. */
static int compare_metric(pdb_diff_ctx *ctx, const char *name, sqlite3_stmt *ins)
{
    pdb_metric m;
    if (strcmp(name, "step_time") == 0)
        pdb_metric_parse("step_time", &m);
    else
        m = (pdb_metric){PDB_METRIC_PHASE, name, name, true, "s"};
    pdb_metric_run b = {ctx->db, ctx->base_schema, ctx->base_id};
    pdb_metric_run t = {ctx->db, ctx->test_schema, ctx->test_id};
    pdb_samples sb, st;
    if (pdb_metric_samples(&b, &m, &sb) != PDB_OK)
        return PDB_ERR;
    if (pdb_metric_samples(&t, &m, &st) != PDB_OK) {
        pdb_samples_free(&sb);
        return PDB_ERR;
    }
    pdb_comparison c;
    pdb_compare_samples(&sb, &st, true, &c);
    sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 2, st.n ? st.source : sb.source, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 3, !sb.n ? "test" : !st.n ? "base" : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 4, (int64_t)sb.n);
    sqlite3_bind_int64(ins, 5, (int64_t)st.n);
    bind_real(ins, 6, c.base_median * 1e9);
    bind_real(ins, 7, c.test_median * 1e9);
    bind_real(ins, 8, (c.test_median - c.base_median) * 1e9);
    bind_real(ins, 9, round(c.change_pct * 100) / 100);
    bind_real(ins, 10, c.ratio);
    bind_real(ins, 11, c.ci_lo);
    bind_real(ins, 12, c.ci_hi);
    /* The p-value as check prints it: tables for people get text, since
     * their three decimals would print a small p as 0. */
    if (!isnan(c.mwu.p) &&
        (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD)) {
        char p[32];
        pdb_format_p(c.mwu.p, p, sizeof p);
        sqlite3_bind_text(ins, 13, p, -1, SQLITE_TRANSIENT);
    } else {
        bind_real(ins, 13, c.mwu.p);
    }
    sqlite3_bind_text(ins, 14, isnan(c.mwu.p) ? "" : c.mwu.p < PDB_ALPHA ? "yes" : "no", -1,
                      SQLITE_STATIC);
    sqlite3_bind_int64(ins, 15, (int64_t)c.out_b);
    sqlite3_bind_int64(ins, 16, (int64_t)c.out_t);
    pdb_samples_free(&sb);
    pdb_samples_free(&st);
    return pdb_db_step_done(ctx->db, ins);
}

int pdb_diff_steps_fill(pdb_diff_ctx *ctx)
{
    sqlite3_stmt *names, *ins;
    if (pdb_compare_exec(ctx->db, "diff_steps.create_tables") != PDB_OK ||
        pdb_compare_prepare(ctx->db, "diff_steps.add_name", NULL, &ins) != PDB_OK)
        return PDB_ERR;
    int rc = add_metrics(ctx, ctx->base_schema, ctx->base_id, ins);
    if (rc == PDB_OK)
        rc = add_metrics(ctx, ctx->test_schema, ctx->test_id, ins);
    sqlite3_finalize(ins);
    if (rc != PDB_OK)
        return PDB_ERR;
    if (pdb_compare_prepare(ctx->db, "diff_steps.names", NULL, &names) != PDB_OK)
        return PDB_ERR;
    if (pdb_compare_prepare(ctx->db, "diff_steps.add_row", NULL, &ins) != PDB_OK) {
        sqlite3_finalize(names);
        return PDB_ERR;
    }
    while (rc == PDB_OK && sqlite3_step(names) == SQLITE_ROW)
        rc = compare_metric(ctx, (const char *)sqlite3_column_text(names, 0), ins);
    sqlite3_finalize(names);
    sqlite3_finalize(ins);
    return rc;
}

int pdb_diff_steps(pdb_diff_ctx *ctx)
{
    if (pdb_diff_steps_fill(ctx) != PDB_OK)
        return PDB_ERR;
    int64_t n = 0;
    if (pdb_db_query_int(ctx->db, pdb_query_sql(pdb_compare_queries, "diff_steps.row_count"), 0,
                         &n) != PDB_OK)
        return PDB_ERR;
    if (n == 0)
        return pdb_fail("runs '%s' and '%s' hold no per-step times (step logs or ProfilerSteps)",
                        ctx->base_name, ctx->test_name);
    if (ctx->titles && ctx->render.format == PDB_OUT_TABLE)
        fprintf(ctx->out, "\n== steps ==\n");
    if (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD) {
        bool md = ctx->render.format == PDB_OUT_MD; /* run names as text of the format */
        fputs("steps: ", ctx->out);
        pdb_fput_text(ctx->out, ctx->base_name, md);
        fputs(" -> ", ctx->out);
        pdb_fput_text(ctx->out, ctx->test_name, md);
        fprintf(ctx->out, " (medians; ratio CI: bootstrap 95%%, seed %u; p: %s, as "
                          "'profdb check' prints it, significant below %g)\n\n",
                (unsigned)PDB_BOOTSTRAP_SEED, PDB_CHECK_P_NAME, PDB_ALPHA);
    }
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_steps.rows", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->top >= 0 ? ctx->top : -1);
    int rc = pdb_diff_emit(ctx, st);
    sqlite3_finalize(st);
    return rc;
}
