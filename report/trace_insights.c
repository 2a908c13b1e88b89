/* trace_insights.c: the `insights` report: the slowest components of a
 * traced run and named bottlenecks, each with the number that triggered it
 * (report/queries/trace_insights.sql).
 *
 * Rules (thresholds are the seeds' and HTA's customary ones, in
 * report/thresholds.h). Each measures what adds up: ops by self time, op
 * families by their outermost calls (a call inside another call of its
 * family counts once; analysis_steps.copy_ns and sync_ns):
 *   slowest op / kernel / step phase   the top 3 of each by (self) time;
 *                                      annotations and python frames are
 *                                      not ops
 *   device-to-host sync                outermost aten::item,
 *                                      _local_scalar_dense and synchronize
 *                                      calls, in steps
 *   copy-heavy steps                   outermost aten::to / _to_copy /
 *                                      copy_ calls above PDB_COPY_HEAVY_PCT
 *                                      of step time
 *   dataloader shutdown                DataLoader worker shutdown seen
 *   data loading                       above PDB_DATA_LOADING_PCT of step time
 *   GPU idle                           above PDB_GPU_IDLE_PCT of the GPU's
 *                                      kernel time
 *   critical path                      what bounds the critical path of the
 *                                      first PDB_CP_FIRST_STEPS iterations
 *                                      most: CPU, GPU compute, GPU
 *                                      communication or waiting (computed
 *                                      on demand, as the chart's); waiting
 *                                      in short gaps between shorter
 *                                      kernels is launch-bound, and a
 *                                      CPU-bound path with a millisecond
 *                                      of CPU per launch is CPU work, not
 *                                      launch overhead
 *   peak memory                        profile_memory traces: the peak of
 *                                      allocated memory per device, its
 *                                      step and the op it happened in */
#include "report/reports.h"
#include "common/error.h"
#include "report/queries.h"
#include "report/thresholds.h"
#include "report/trace_sql.h"

int pdb_report_insights(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "insights");
    sqlite3_stmt *st;
    int short_names;
    if (pdb_report_short_names(ctx, &short_names) != PDB_OK ||
        pdb_trace_sql_functions(ctx->db) != PDB_OK ||
        pdb_critical_summary(ctx->db, ctx->run_id) != PDB_OK ||
        pdb_report_prepare(ctx->db, "trace_insights.insights", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_double(st, 2, PDB_DATA_LOADING_PCT);
    sqlite3_bind_double(st, 3, PDB_COPY_HEAVY_PCT);
    sqlite3_bind_double(st, 4, PDB_GPU_IDLE_PCT);
    sqlite3_bind_int(st, 5, short_names);
    sqlite3_bind_int(st, 6, PDB_CP_FIRST_STEPS);
    sqlite3_bind_int64(st, 7, PDB_CP_LAUNCH_GAP_NS);
    sqlite3_bind_int64(st, 8, PDB_CP_LAUNCH_CPU_NS);
    return pdb_report_render(ctx, st);
}
