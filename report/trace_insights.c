/* trace_insights.c: the `insights` report: the slowest components of a
 * traced run and named bottlenecks, each with the number that triggered it
 * (report/queries/trace_insights.sql).
 *
 * Rules (thresholds are the seeds' and HTA's customary ones, in
 * report/thresholds.h):
 *   slowest op / kernel / step phase   the top 3 of each by time
 *   device-to-host sync                aten::_local_scalar_dense, aten::item,
 *                                      cudaStreamSynchronize, cudaDeviceSynchronize
 *   copy-heavy steps                   aten::copy_ + aten::to above
 *                                      PDB_COPY_HEAVY_PCT of step time
 *   dataloader shutdown                DataLoader worker shutdown seen
 *   data loading                       above PDB_DATA_LOADING_PCT of step time
 *   GPU idle                           above PDB_GPU_IDLE_PCT of the GPU's
 *                                      kernel time */
#include "report/reports.h"
#include "common/error.h"
#include "report/queries.h"
#include "report/thresholds.h"

int pdb_report_insights(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "insights");
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "trace_insights.insights", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_double(st, 2, PDB_DATA_LOADING_PCT);
    sqlite3_bind_double(st, 3, PDB_COPY_HEAVY_PCT);
    sqlite3_bind_double(st, 4, PDB_GPU_IDLE_PCT);
    return pdb_report_render(ctx, st);
}
