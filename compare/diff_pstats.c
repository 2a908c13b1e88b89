/* diff_pstats.c: `profdb diff BASE TEST pstats`.
 *
 * Joins the two runs' functions on their (file, line, name) key and lists
 * them by the largest absolute change of tottime or cumtime (or of the one
 * --sort names), with relative changes in percent of the base value.
 * Functions present in one run only are marked in the only_in column. The
 * queries are in compare/queries/diff_pstats.sql. */
#include "compare/diff.h"
#include "compare/queries.h"
#include "common/db.h"
#include "common/error.h"

#include <string.h>

/* Both runs must hold a dump; says which does not. */
static int check_runs(pdb_diff_ctx *ctx, int64_t *calls)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_pstats.totals", NULL, &st) != PDB_OK)
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
    const char *order; /* the query's ?4 */
    if (!ctx->sort || strcmp(ctx->sort, "both") == 0)
        order = "both";
    else if (strcmp(ctx->sort, "tottime") == 0 || strcmp(ctx->sort, "time") == 0)
        order = "tottime";
    else if (strcmp(ctx->sort, "cumtime") == 0 || strcmp(ctx->sort, "cumulative") == 0)
        order = "cumtime";
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
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_pstats.functions", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    sqlite3_bind_int64(st, 3, ctx->top >= 0 ? ctx->top : -1);
    sqlite3_bind_text(st, 4, order, -1, SQLITE_STATIC);
    int rc = pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}
