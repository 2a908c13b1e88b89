/* diff_pyspy.c: `profdb diff BASE TEST pyspy`.
 *
 * Joins the two runs' sampled functions on (name, file) and lists them by
 * the largest change of their total share (the part of the run's samples
 * whose stack holds the function), with self shares, sample counts, and a
 * p-value that says whether the change exceeds sampling noise. Functions
 * sampled in one run only are marked in only_in. The queries are in
 * compare/queries/diff_pyspy.sql.
 *
 * The p-value keeps the one convention of diff and check (two-sided
 * Mann-Whitney): each sample is 1 when its stack holds the function, else
 * 0, so U comes from four counts and the test is that of two proportions.
 * It treats samples as independent draws, which a sampler's consecutive
 * samples are not quite: it measures sampling noise within the two
 * profiles, not run-to-run variation. */
#include "compare/diff.h"
#include "compare/check.h"
#include "compare/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/stats.h"
#include "render/text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Two-sided p of TEST's 0/1 samples (kt ones of nt) against BASE's (kb of
 * nb): U of TEST counts pairs with TEST's sample larger, ties halved.
 * Counts may be fractional: check tests against a base share moved by its
 * limit (check_share.c). */
double pdb_share_p(double kb, double nb, double kt, double nt)
{
    if (!(nb >= 1 && nt >= 1 && kb >= 0 && kt >= 0 && kb <= nb && kt <= nt))
        return NAN;
    double b1 = kb, b0 = nb - kb, t1 = kt, t0 = nt - kt;
    double u = t1 * b0 + 0.5 * (t1 * b1 + t0 * b0);
    double ones = b1 + t1, zeros = b0 + t0;
    double ties = ones * ones * ones - ones + zeros * zeros * zeros - zeros;
    double n1n2 = nt * nb;
    double ge = pdb_mwu_p_greater_u(u, (long)nt, (long)nb, ties);
    double le = pdb_mwu_p_greater_u(n1n2 - u, (long)nt, (long)nb, ties);
    double p = 2 * fmin(ge, le);
    return p > 1 ? 1 : p;
}

/* SQL function pdb_share_p(k_base, n_base, k_test, n_test). */
static void share_p_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    double p = pdb_share_p(sqlite3_value_double(argv[0]), sqlite3_value_double(argv[1]),
                           sqlite3_value_double(argv[2]), sqlite3_value_double(argv[3]));
    if (isnan(p))
        sqlite3_result_null(cx);
    else
        sqlite3_result_double(cx, p);
}

int pdb_diff_pyspy_sql_functions(sqlite3 *db)
{
    if (sqlite3_create_function(db, "pdb_share_p", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                share_p_fn, NULL, NULL) != SQLITE_OK)
        return pdb_db_fail(db, "cannot register pdb_share_p");
    return PDB_OK;
}

/* A run's samples, profiles and whether every stack is present. */
static int run_totals(pdb_diff_ctx *ctx, const char *schema, int64_t run, int64_t out[4])
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_pyspy.totals", schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run);
    int rc = sqlite3_step(st);
    for (int i = 0; i < 4 && rc == SQLITE_ROW; i++)
        out[i] = sqlite3_column_int64(st, i);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(ctx->db, "database error");
}

static void print_header(pdb_diff_ctx *ctx, const int64_t b[4], const int64_t t[4])
{
    bool md = ctx->render.format == PDB_OUT_MD; /* run names as text of the format */
    fputs("pyspy: ", ctx->out);
    pdb_fput_text(ctx->out, ctx->base_name, md);
    fprintf(ctx->out, " (%lld samples) -> ", (long long)b[0]);
    pdb_fput_text(ctx->out, ctx->test_name, md);
    fprintf(ctx->out, " (%lld samples); shares in %% of each run's samples, "
                      "change in percentage points, p: " PDB_CHECK_P_NAME
                      " on samples holding the function (sampling noise only)\n",
            (long long)t[0]);
    if (!b[2] || !t[2])
        fputs("note: a flame-graph SVG leaves out boxes below 0.1%: its functions' shares "
              "are lower bounds\n", ctx->out);
    if (b[3])
        fputs("note: time-weighted profiles (speedscope evented: open/close events): "
              "'samples' are units of time, shares are of time, and p is not computed (no "
              "sampling noise)\n", ctx->out);
    fputc('\n', ctx->out);
}

int pdb_diff_pyspy(pdb_diff_ctx *ctx)
{
    int64_t b[4], t[4];
    if (run_totals(ctx, ctx->base_schema, ctx->base_id, b) != PDB_OK ||
        run_totals(ctx, ctx->test_schema, ctx->test_id, t) != PDB_OK)
        return PDB_ERR;
    if (b[0] == 0 || t[0] == 0)
        return pdb_fail("run '%s' holds no py-spy samples",
                        b[0] == 0 ? ctx->base_name : ctx->test_name);
    if (b[3] != t[3])
        return pdb_fail("run '%s' holds %s and run '%s' %s: their shares are of different things",
                        ctx->base_name, b[3] ? "time-weighted (evented) profiles" : "sample counts",
                        ctx->test_name, t[3] ? "time-weighted (evented) profiles" : "sample counts");
    if (pdb_diff_pyspy_sql_functions(ctx->db) != PDB_OK)
        return PDB_ERR;
    if (ctx->titles && ctx->render.format == PDB_OUT_TABLE)
        fprintf(ctx->out, "\n== pyspy ==\n");
    if (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD)
        print_header(ctx, b, t);
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_pyspy.functions", ctx->test_schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    sqlite3_bind_int64(st, 3, ctx->top >= 0 ? ctx->top : -1);
    sqlite3_bind_int(st, 4, b[3] != 0);
    int rc = pdb_diff_emit(ctx, st);
    sqlite3_finalize(st);
    return rc;
}
