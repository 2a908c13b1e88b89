/* trace_steps.c: the per-step and per-rank reports over traces: steps (each
 * ProfilerStep split into categories), idle (GPU idle time per stream) and
 * ranks (step and GPU time per rank, the straggler). */
#include "report/reports.h"
#include "common/error.h"

int pdb_report_steps(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "steps");
    if (pdb_report_require(ctx, "steps", "SELECT count(*) FROM analysis_steps WHERE run_id = ?1",
                "exact", "no ProfilerStep annotations in this run", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return pdb_report_query_mode(ctx,
        "SELECT rank, step, ts - (SELECT min(ts) FROM analysis_steps a WHERE a.run_id = ?1"
        "   AND a.rank = s.rank) AS start_ns, dur_ns, kernel_ns, memcpy_ns, memset_ns,"
        " runtime_ns, dataloader_ns, cpu_exec_ns, other_ns"
        " FROM analysis_steps s WHERE run_id = ?1 ORDER BY rank, ts", "exact");
}

int pdb_report_idle(pdb_report_ctx *ctx)
{
    const char *mode;
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, "idle");
    if (pdb_report_require(ctx, "idle", "SELECT count(*) FROM analysis_idle WHERE run_id = ?1",
                "exact", "no GPU events in this run: GPU idle time does not apply", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return pdb_report_query_mode(ctx,
        "SELECT rank, stream, events, host_wait_ns + kernel_wait_ns + other_ns AS idle_ns,"
        " host_wait_ns, kernel_wait_ns, other_ns,"
        " 100.0 * host_wait_ns / nullif(host_wait_ns + kernel_wait_ns + other_ns, 0)"
        "   AS host_wait_pct"
        " FROM analysis_idle WHERE run_id = ?1 AND mode = ?2 ORDER BY rank, stream", mode);
}

int pdb_report_ranks(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "ranks");
    if (pdb_report_require(ctx, "ranks", "SELECT count(*) FROM traces WHERE run_id = ?1",
                "exact", "no traces in this run", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return pdb_report_query_mode(ctx,
        "WITH r AS (SELECT t.rank,"
        "   (SELECT count(*) FROM analysis_steps s WHERE s.run_id = ?1 AND s.rank = t.rank) AS steps,"
        "   (SELECT avg(dur_ns) FROM analysis_steps s WHERE s.run_id = ?1 AND s.rank = t.rank)"
        "     AS mean_step_ns,"
        "   (SELECT busy_ns FROM analysis_gpu g WHERE g.run_id = ?1 AND g.rank = t.rank"
        "     AND g.mode = 'exact') AS gpu_busy_ns,"
        "   (SELECT idle_ns FROM analysis_gpu g WHERE g.run_id = ?1 AND g.rank = t.rank"
        "     AND g.mode = 'exact') AS gpu_idle_ns"
        "   FROM traces t WHERE t.run_id = ?1)"
        " SELECT rank, steps, mean_step_ns, gpu_busy_ns, gpu_idle_ns,"
        " 100.0 * (mean_step_ns - min(mean_step_ns) OVER ()) / min(mean_step_ns) OVER ()"
        "   AS vs_fastest_pct,"
        " CASE WHEN count(*) OVER () > 1 AND mean_step_ns = max(mean_step_ns) OVER ()"
        "   THEN 'straggler' ELSE '' END AS note"
        " FROM r ORDER BY rank", "exact");
}
