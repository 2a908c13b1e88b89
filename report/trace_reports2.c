/* trace_reports2.c: step, idle, launch, collective, rank and insight
 * reports over traces. Step and idle numbers come from the analysis tables;
 * launch and collective statistics are plain SQL over slices. */
#include "report/reports.h"
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"

#include <string.h>

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

/* Runtime calls and the GPU events they launched (same correlation). The
 * launching call is found with a correlated lookup (the correlation index);
 * "+ 0" keeps SQLite from preferring a scan of the (trace, ts) index. */
#define LAUNCHES \
    "WITH p AS (SELECT t.rank, g.name AS gname, g.ts AS gts, g.dur AS gdur," \
    "   (SELECT r.id FROM slices r WHERE r.trace_id = g.trace_id" \
    "     AND r.correlation = g.correlation AND NOT " PDB_IS_GPU("r") " AND r.ph = 'X'" \
    "     ORDER BY r.ts + 0 LIMIT 1) AS rid" \
    " FROM traces t JOIN slices g ON g.trace_id = t.trace_id AND " PDB_IS_GPU("g") \
    " WHERE t.run_id = ?1 AND g.correlation IS NOT NULL AND g.correlation <> 0)," \
    " l AS (SELECT p.rank, (SELECT value FROM strings WHERE id = p.gname) AS kernel," \
    "   (SELECT value FROM strings WHERE id = r.name) AS runtime, p.gts - r.ts AS delay_ns," \
    "   p.gdur AS kernel_ns, r.dur AS runtime_ns FROM p JOIN slices r ON r.id = p.rid)"

int pdb_report_launch(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "launch");
    if (pdb_report_require(ctx, "launch", "SELECT count(*) FROM slices g JOIN traces t USING (trace_id)"
                " WHERE t.run_id = ?1 AND " PDB_IS_GPU("g") " AND g.correlation IS NOT NULL",
                "exact", "no GPU events with a correlation id in this run: launch statistics do not apply",
                &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    /* Percentiles by nearest rank over the sorted delays. */
    int rc = pdb_report_query_mode(ctx, LAUNCHES ","
        " o AS (SELECT rank, delay_ns, kernel_ns, runtime_ns,"
        "   row_number() OVER (PARTITION BY rank ORDER BY delay_ns) AS i,"
        "   count(*) OVER (PARTITION BY rank) AS n FROM l)"
        " SELECT rank, count(*) AS launches, avg(delay_ns) AS mean_delay_ns,"
        " min(delay_ns) AS min_delay_ns,"
        " max(CASE WHEN i = max(1, (n * 50 + 99) / 100) THEN delay_ns END) AS p50_delay_ns,"
        " max(CASE WHEN i = max(1, (n * 90 + 99) / 100) THEN delay_ns END) AS p90_delay_ns,"
        " max(CASE WHEN i = max(1, (n * 99 + 99) / 100) THEN delay_ns END) AS p99_delay_ns,"
        " max(delay_ns) AS max_delay_ns,"
        " sum(kernel_ns < runtime_ns) AS shorter_than_launch,"
        " 100.0 * sum(kernel_ns < runtime_ns) / count(*) AS shorter_than_launch_pct"
        " FROM o GROUP BY rank ORDER BY rank", "exact");
    if (rc != PDB_OK)
        return rc;
    /* Machine formats carry one table: the summary. */
    if (ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
        return PDB_OK;
    fprintf(ctx->out, "\nlongest launch delays:\n");
    return pdb_report_query_mode(ctx, LAUNCHES
        " SELECT rank, kernel, runtime, delay_ns, kernel_ns, runtime_ns FROM l"
        " ORDER BY delay_ns DESC LIMIT (CASE WHEN ?3 < 0 THEN 10 ELSE ?3 END)", "exact");
}

/* NCCL collectives: kind from the Collective name arg or the kernel name. */
int pdb_report_comm(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "comm");
    if (pdb_report_require(ctx, "comm", "SELECT count(*) FROM gpu_events WHERE run_id = ?1 AND (name LIKE 'nccl%'"
                " OR name LIKE '%ncclKernel%' OR name LIKE 'hccl%')",
                "exact", "no communication kernels in this run", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return pdb_report_query_mode(ctx,
        "WITH c AS (SELECT rank, dur, coalesce(coll_name, CASE"
        "   WHEN name LIKE '%AllReduce%' THEN 'allreduce' WHEN name LIKE '%AllGather%' THEN 'allgather'"
        "   WHEN name LIKE '%ReduceScatter%' THEN 'reduce_scatter' WHEN name LIKE '%Broadcast%'"
        "   THEN 'broadcast' WHEN name LIKE '%SendRecv%' THEN 'send_recv' WHEN name LIKE '%AllToAll%'"
        "   THEN 'all_to_all' WHEN name LIKE '%Reduce%' THEN 'reduce' ELSE 'other' END) AS kind,"
        "   in_nelems * CASE lower(dtype) WHEN 'float' THEN 4 WHEN 'float32' THEN 4"
        "     WHEN 'int' THEN 4 WHEN 'int32' THEN 4 WHEN 'half' THEN 2 WHEN 'float16' THEN 2"
        "     WHEN 'bfloat16' THEN 2 WHEN 'double' THEN 8 WHEN 'long' THEN 8 WHEN 'int64' THEN 8"
        "     WHEN 'byte' THEN 1 WHEN 'char' THEN 1 WHEN 'bool' THEN 1 WHEN 'uint8' THEN 1"
        "     WHEN 'int8' THEN 1 END AS bytes, group_size"
        "   FROM gpu_events WHERE run_id = ?1 AND (name LIKE 'nccl%' OR name LIKE '%ncclKernel%'"
        "   OR name LIKE 'hccl%'))"
        " SELECT rank, kind, count(*) AS count, sum(dur) AS time_ns, avg(dur) AS mean_ns,"
        " sum(bytes) AS bytes, count(bytes) AS with_size,"
        " sum(bytes) / (sum(CASE WHEN bytes IS NOT NULL THEN dur END) / 1e9) / 1e9 AS algbw_gbps"
        " FROM c GROUP BY rank, kind ORDER BY rank, time_ns DESC", "exact");
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
