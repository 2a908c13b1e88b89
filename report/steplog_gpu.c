/* steplog_gpu.c: the `gpu-util` report: GPU utilisation and energy per GPU
 * from `nvidia-smi --query-gpu=... --format=csv -l N` logs (or any CSV
 * with a timestamp, a GPU index and utilisation/power columns).
 *
 * Energy is the integral of power.draw over time, each sample's power held
 * until the next sample of the same GPU (sample-and-hold), in W*s and kWh;
 * it is NULL when the query did not include power.draw. */
#include "report/steplog_reports.h"

int pdb_report_steplog_gpu(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "gpu-util");
    return pdb_report_query(ctx,
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
        " FROM s LEFT JOIN e USING (gpu) GROUP BY s.gpu ORDER BY s.gpu");
}
