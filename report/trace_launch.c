/* trace_launch.c: the reports that join the CPU and GPU sides of a trace:
 * launch (runtime call -> kernel delays) and comm (collectives: count, time,
 * bytes, bandwidth). Plain SQL over slices. */
#include "report/reports.h"
#include "analyze/analyze.h"
#include "common/error.h"

#include <stdio.h>

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
