/* steplog_gpu.c: the `gpu-util` report: GPU utilisation and energy per GPU
 * from `nvidia-smi --query-gpu=... --format=csv -l N` logs (or any CSV
 * with a timestamp, a GPU index and utilisation/power columns).
 *
 * Energy is the integral of power.draw over time, each sample's power held
 * until the next sample of the same GPU (sample-and-hold), in W*s and kWh;
 * it is NULL when the query did not include power.draw.
 *
 * nvidia-smi logs carry no step number: when the same run also holds step
 * records with timestamps (Megatron/DeepSpeed/torchtitan lines ingested with
 * --run NAME), a second table joins them by wall-clock time: the samples
 * taken in (previous step's time, this step's time] belong to this step. */
#include "report/steplog_reports.h"
#include "common/db.h"
#include "common/error.h"

#include <stdio.h>

static const char *const per_gpu_sql =
    "WITH s AS (SELECT coalesce(rank, 0) AS gpu, wall_time AS t, metric, value"
    "   FROM steplog_values WHERE run_id = ?1 AND wall_time IS NOT NULL"
    "   AND metric IN ('gpu_util', 'gpu_mem_util', 'gpu_mem_used', 'power')),"
    " p AS (SELECT gpu, t, value AS w,"
    "   lead(t) OVER (PARTITION BY gpu ORDER BY t) AS t_next FROM s"
    "   WHERE metric = 'power' AND value IS NOT NULL),"
    " e AS (SELECT gpu, sum(w * (t_next - t)) AS ws FROM p WHERE t_next IS NOT NULL"
    "   GROUP BY gpu)"
    " SELECT s.gpu, count(DISTINCT s.t) AS samples,"
    "  (max(s.t) - min(s.t)) * 1e9 AS duration_ns,"
    "  avg(CASE WHEN s.metric = 'gpu_util' THEN s.value END) AS util_mean_pct,"
    "  max(CASE WHEN s.metric = 'gpu_util' THEN s.value END) AS util_max_pct,"
    "  avg(CASE WHEN s.metric = 'gpu_util' THEN (s.value = 0) END) * 100 AS idle_samples_pct,"
    "  avg(CASE WHEN s.metric = 'gpu_mem_util' THEN s.value END) AS mem_util_mean_pct,"
    "  max(CASE WHEN s.metric = 'gpu_mem_used' THEN s.value END) / 1048576.0"
    "   AS mem_used_max_mib,"
    "  avg(CASE WHEN s.metric = 'power' THEN s.value END) AS power_mean_w,"
    "  e.ws AS energy_ws, e.ws / 3.6e6 AS energy_kwh"
    " FROM s LEFT JOIN e USING (gpu) GROUP BY s.gpu ORDER BY s.gpu";

/* Steps and samples merged in time order; a running count of steps puts
 * each sample in the interval that ends at the next step (a sort, no
 * quadratic join). */
static const char *const per_step_sql =
    "WITH steps AS (SELECT step, min(wall_time) AS t FROM steplog_values"
    "   WHERE run_id = ?1 AND step IS NOT NULL AND wall_time IS NOT NULL"
    "   AND metric NOT IN ('gpu_util', 'gpu_mem_util', 'gpu_mem_used', 'power') GROUP BY step),"
    " g AS (SELECT wall_time AS t, value FROM steplog_values WHERE run_id = ?1"
    "   AND metric = 'gpu_util' AND wall_time IS NOT NULL AND value IS NOT NULL),"
    " merged AS (SELECT t, 1 AS is_step, NULL AS u FROM steps"
    "   UNION ALL SELECT t, 0, value FROM g),"
    " counted AS (SELECT u, is_step, sum(is_step) OVER (ORDER BY t, is_step"
    "   ROWS UNBOUNDED PRECEDING) AS k FROM merged),"
    " numbered AS (SELECT step, t, row_number() OVER (ORDER BY t) AS k FROM steps)"
    " SELECT cur.step, (cur.t - prev.t) * 1e9 AS duration_ns, count(*) AS samples,"
    "  avg(c.u) AS util_mean_pct, min(c.u) AS util_min_pct"
    " FROM counted c JOIN numbered cur ON cur.k = c.k + 1 JOIN numbered prev ON prev.k = c.k"
    " WHERE c.is_step = 0 GROUP BY cur.step ORDER BY cur.t";

int pdb_report_steplog_gpu(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "gpu-util");
    if (pdb_report_query(ctx, per_gpu_sql) != PDB_OK)
        return PDB_ERR;
    int64_t both = 0;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT EXISTS (SELECT 1 FROM steplog_values WHERE run_id = %lld"
             " AND metric = 'gpu_util' AND wall_time IS NOT NULL)"
             " AND EXISTS (SELECT 1 FROM steplog_values WHERE run_id = %lld"
             " AND step IS NOT NULL AND wall_time IS NOT NULL AND metric <> 'gpu_util')",
             (long long)ctx->run_id, (long long)ctx->run_id);
    if (pdb_db_query_int(ctx->db, sql, 0, &both) != PDB_OK)
        return PDB_ERR;
    if (!both)
        return PDB_OK;
    bool titles = ctx->titles;
    ctx->titles = true;
    pdb_report_title(ctx, "gpu-util by step (samples joined by wall-clock time)");
    ctx->titles = titles;
    return pdb_report_query(ctx, per_step_sql);
}
