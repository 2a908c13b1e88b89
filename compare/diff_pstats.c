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
#include "render/text.h"

#include <string.h>

/* Both runs must hold a dump; says which does not. Each run's calls are
 * the sum of its dumps' (never wrapped: ingest and merge refuse a run whose
 * sum leaves 64-bit integers, but a database written before may hold one). */
static int check_runs(pdb_diff_ctx *ctx, int64_t *calls)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_pstats.totals", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    const int64_t id[2] = {ctx->base_id, ctx->test_id};
    const char *name[2] = {ctx->base_name, ctx->test_name};
    int64_t dumps[2] = {0, 0};
    calls[0] = calls[1] = 0;
    int wrapped = -1, rc;
    while (wrapped < 0 && (rc = sqlite3_step(st)) == SQLITE_ROW)
        for (int i = 0; i < 2; i++)
            if (sqlite3_column_int64(st, 0) == id[i]) {
                dumps[i]++;
                if (__builtin_add_overflow(calls[i], sqlite3_column_int64(st, 1), &calls[i]))
                    wrapped = i;
            }
    sqlite3_finalize(st);
    if (wrapped >= 0)
        return pdb_fail("run '%s': the call counts of its pstats dumps add up beyond 64-bit "
                        "integers (ingested before profdb refused that): ingest its dumps into "
                        "runs of their own", name[wrapped]);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(ctx->db, "database error");
    if (!dumps[0] || !dumps[1])
        return pdb_fail("run '%s' holds no pstats dump", !dumps[0] ? name[0] : name[1]);
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
    if (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD) {
        bool md = ctx->render.format == PDB_OUT_MD; /* run names as text of the format */
        fputs("pstats: ", ctx->out);
        pdb_fput_text(ctx->out, ctx->base_name, md);
        fprintf(ctx->out, " (%lld calls) -> ", (long long)calls[0]);
        pdb_fput_text(ctx->out, ctx->test_name, md);
        fprintf(ctx->out, " (%lld calls)\n\n", (long long)calls[1]);
    }
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_pstats.functions", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    sqlite3_bind_int64(st, 3, ctx->top >= 0 ? ctx->top : -1);
    sqlite3_bind_text(st, 4, order, -1, SQLITE_STATIC);
    int rc = pdb_diff_emit(ctx, st);
    sqlite3_finalize(st);
    return rc;
}
