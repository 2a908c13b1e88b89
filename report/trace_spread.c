/* trace_spread.c: `profdb report rank-spread`: a run's ranks as
 * distributions with the outlying ranks named (report/queries/trace_spread.sql).
 *
 * At 1,024 ranks the per-rank table of `ranks` is 1,024 rows; this is one
 * row per measure (step time and its parts, GPU busy, computation,
 * communication, idle) however many ranks there are, read from the
 * per-rank analysis tables alone, so it answers for a run whose events
 * stay in shard files (issue 35). A rank is named when it is far above the
 * others on a measure: the step row names the stragglers, the rows of the
 * parts say where their time went. */
#include "report/reports.h"
#include "report/queries.h"
#include "report/thresholds.h"
#include "report/trace_sql.h"
#include "common/db.h"

int pdb_report_rank_spread(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "rank-spread");
    if (pdb_report_require(ctx, "rank-spread", "trace_spread.require", "exact",
                           "no analysed traces in this run", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "trace_spread.spread", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_double(st, 2, PDB_SPREAD_MADS);
    sqlite3_bind_double(st, 3, PDB_SPREAD_MIN_PCT);
    return pdb_report_render(ctx, st);
}

/* `profdb report collectives`: the same collective's spread across ranks,
 * per kind and process group, from analysis_collectives alone (so it
 * answers for a run whose events stay in shard files too); the latest
 * ranks named. trace_spread.sql, "collectives", says how instances are
 * matched and why arrivals are measured back from the collective's end. */
int pdb_report_collectives(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "collectives");
    if (pdb_report_require(ctx, "collectives", "trace_spread.coll_require", "exact",
                           "no collective kernels (NCCL, HCCL) on two or more ranks of this run",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "trace_spread.collectives", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    return pdb_report_render(ctx, st);
}

/* `profdb report rank-kernels`: the top kernels of the ranks rank-spread
 * names (its step row; GPU busy without steps) against the median rank's,
 * from the per-rank kernel table alone (trace_spread.sql, "rank_kernels"). */
int pdb_report_rank_kernels(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "rank-kernels");
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "trace_spread.rank_kernels_require", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_double(st, 2, PDB_SPREAD_MADS);
    sqlite3_bind_double(st, 3, PDB_SPREAD_MIN_PCT);
    if (pdb_report_require_stmt(ctx, "rank-kernels", st,
                                "no rank stands out (rank-spread names none on its step row, "
                                "or on GPU busy without ProfilerSteps)",
                                &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    int short_names = 0;
    if (pdb_report_short_names(ctx, &short_names) != PDB_OK ||
        pdb_trace_sql_functions(ctx->db) != PDB_OK ||
        pdb_report_prepare(ctx->db, "trace_spread.rank_kernels", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_double(st, 2, PDB_SPREAD_MADS);
    sqlite3_bind_double(st, 3, PDB_SPREAD_MIN_PCT);
    sqlite3_bind_int(st, 4, short_names);
    sqlite3_bind_int64(st, 5, ctx->top);
    return pdb_report_render(ctx, st);
}
