/* diff_pstats.c: `profdb diff BASE TEST pstats`.
 *
 * Joins the two runs' functions on their (file, line, name) key and lists
 * them by the largest absolute change of tottime or cumtime (or of the one
 * --sort names), with relative changes in percent of the base value.
 * Functions present in one run only are marked in the only_in column. */
#include "compare/diff.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"

#include <string.h>

static const char diff_sql[] =
    "WITH b AS (SELECT * FROM pstats_functions WHERE run_id = ?1 AND in_stats),"
    " t AS (SELECT * FROM pstats_functions WHERE run_id = ?2 AND in_stats),"
    " k AS (SELECT file, line, name, std_name FROM b UNION"
    "       SELECT file, line, name, std_name FROM t),"
    " d AS (SELECT k.std_name AS function,"
    "  CASE WHEN b.func_id IS NULL THEN 'test' WHEN t.func_id IS NULL THEN 'base' ELSE '' END"
    "   AS only_in,"
    "  b.nc AS base_ncalls, t.nc AS test_ncalls,"
    "  b.tt AS base_tottime, t.tt AS test_tottime,"
    "  coalesce(t.tt, 0) - coalesce(b.tt, 0) AS tottime_change,"
    "  CASE WHEN b.tt > 0 THEN 100.0 * (coalesce(t.tt, 0) - b.tt) / b.tt END AS tottime_change_pct,"
    "  b.ct AS base_cumtime, t.ct AS test_cumtime,"
    "  coalesce(t.ct, 0) - coalesce(b.ct, 0) AS cumtime_change,"
    "  CASE WHEN b.ct > 0 THEN 100.0 * (coalesce(t.ct, 0) - b.ct) / b.ct END AS cumtime_change_pct"
    "  FROM k LEFT JOIN b ON b.file = k.file AND b.line = k.line AND b.name = k.name"
    "  LEFT JOIN t ON t.file = k.file AND t.line = k.line AND t.name = k.name)"
    " SELECT * FROM d ORDER BY %s DESC, function LIMIT ?3";

static const char totals_sql[] =
    "SELECT (SELECT sum(total_calls) FROM pstats_dumps WHERE run_id = ?1),"
    " (SELECT sum(total_calls) FROM pstats_dumps WHERE run_id = ?2),"
    " (SELECT count(*) FROM pstats_dumps WHERE run_id = ?1),"
    " (SELECT count(*) FROM pstats_dumps WHERE run_id = ?2)";

/* Both runs must hold a dump; says which does not. */
static int check_runs(pdb_diff_ctx *ctx, int64_t *calls)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(ctx->db, totals_sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    int rc = sqlite3_step(st);
    int64_t nb = rc == SQLITE_ROW ? sqlite3_column_int64(st, 2) : 0;
    int64_t nt = rc == SQLITE_ROW ? sqlite3_column_int64(st, 3) : 0;
    calls[0] = sqlite3_column_int64(st, 0);
    calls[1] = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return pdb_db_fail(ctx->db, "database error");
    if (!nb || !nt)
        return pdb_fail("run '%s' holds no pstats dump", !nb ? ctx->base_name : ctx->test_name);
    return PDB_OK;
}

int pdb_diff_pstats(pdb_diff_ctx *ctx)
{
    const char *order;
    if (!ctx->sort || strcmp(ctx->sort, "both") == 0)
        order = "max(abs(tottime_change), abs(cumtime_change))";
    else if (strcmp(ctx->sort, "tottime") == 0 || strcmp(ctx->sort, "time") == 0)
        order = "abs(tottime_change)";
    else if (strcmp(ctx->sort, "cumtime") == 0 || strcmp(ctx->sort, "cumulative") == 0)
        order = "abs(cumtime_change)";
    else
        return pdb_fail("--sort: expected tottime, cumtime or both for a pstats diff, got '%s'",
                        ctx->sort);
    int64_t calls[2];
    if (check_runs(ctx, calls) != PDB_OK)
        return PDB_ERR;
    if (ctx->titles && ctx->render.format == PDB_OUT_TABLE)
        fprintf(ctx->out, "\n== pstats ==\n");
    if (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD)
        fprintf(ctx->out, "pstats: %s (%lld calls) -> %s (%lld calls)\n\n", ctx->base_name,
                (long long)calls[0], ctx->test_name, (long long)calls[1]);
    pdb_buf sql = PDB_BUF_INIT;
    pdb_buf_addf(&sql, diff_sql, order);
    sqlite3_stmt *st;
    int rc = pdb_db_prepare(ctx->db, sql.p, &st);
    if (rc == PDB_OK) {
        sqlite3_bind_int64(st, 1, ctx->base_id);
        sqlite3_bind_int64(st, 2, ctx->test_id);
        sqlite3_bind_int64(st, 3, ctx->top >= 0 ? ctx->top : -1);
        rc = pdb_render_stmt(st, &ctx->render, ctx->out);
        sqlite3_finalize(st);
    }
    pdb_buf_free(&sql);
    return rc;
}
