/* trace_series.c: the reports over quantities followed in time, from the
 * tables the scan's series passes write (analyze/series.h):
 *   queue-length  the CUDA launch queue per stream: its distribution, the
 *                 time-weighted mean and the time at or above a limit
 *                 (--queue-limit N, default CUDA's 1024), where the CPU
 *                 blocks on launching;
 *   memory-bw     memcpy/memset bandwidth per kind: distribution and busy
 *                 time; --by point prints the series;
 *   memory        profile_memory=True traces: memory per op (with children
 *                 and self, as key_averages()), the peak of allocated memory
 *                 per device and step (--by step) and the allocations alive
 *                 at the peak (--by alloc).
 * --compat hta gives HTA's get_queue_length_summary, get_time_spent_blocked_
 * on_full_queue (--by rank: one row per rank, as HTA) and get_memory_bw_
 * summary / _time_series. Queries: report/queries/trace_series.sql. */
#include "report/reports.h"
#include "common/error.h"
#include "analyze/ondemand/bw_pass.h"
#include "common/db.h"
#include "report/queries.h"
#include "report/trace_sql.h"

#include <stdio.h>
#include <string.h>

#define CUDA_QUEUE_LIMIT 1024 /* launches a stream takes before cudaLaunchKernel blocks */

/* Runs a series query with ?1 run, ?2 mode, ?3 top, ?5 the queue limit. */
static int series_query(pdb_report_ctx *ctx, const char *query, const char *mode)
{
    sqlite3_stmt *st;
    if (pdb_trace_sql_functions(ctx->db) != PDB_OK ||
        pdb_report_prepare(ctx->db, query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, ctx->top);
    if (sqlite3_bind_parameter_count(st) >= 5)
        sqlite3_bind_int64(st, 5, ctx->queue_limit > 0 ? ctx->queue_limit : CUDA_QUEUE_LIMIT);
    return pdb_report_render(ctx, st);
}

static bool text_format(const pdb_report_ctx *ctx)
{
    return ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD;
}

int pdb_report_queue_length(pdb_report_ctx *ctx)
{
    const char *mode;
    bool ok, hta;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    hta = strcmp(mode, "hta") == 0;
    if (ctx->by && !(hta && strcmp(ctx->by, "rank") == 0))
        return pdb_fail("queue-length --by takes only 'rank', with --compat hta (HTA's one "
                        "row per rank of get_time_spent_blocked_on_full_queue)");
    pdb_report_title(ctx, "queue-length");
    if (pdb_report_require(ctx, "queue-length", "trace_series.queue_require", mode,
                           "no GPU events with a launch in this run: the launch queue does "
                           "not apply",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    if (ctx->by)
        return series_query(ctx, "trace_series.queue_blocked_hta", mode);
    if (series_query(ctx, hta ? "trace_series.queue_length_hta" : "trace_series.queue_length",
                     mode) != PDB_OK)
        return PDB_ERR;
    if (!hta || !text_format(ctx))
        return PDB_OK;
    fprintf(ctx->out, "\nblocked on a full queue (HTA: one stream per rank):\n");
    return series_query(ctx, "trace_series.queue_blocked_hta", mode);
}

/* The bandwidth series of every rank into temp.memory_bw (on demand). */
typedef struct {
    sqlite3_stmt *ins;
    int64_t seq;
} bw_sink;

static int on_point(void *arg, int rank, const char *kind, int64_t ts, double gbps)
{
    bw_sink *b = arg;
    sqlite3_bind_int(b->ins, 1, rank);
    sqlite3_bind_text(b->ins, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(b->ins, 3, b->seq++);
    sqlite3_bind_int64(b->ins, 4, ts);
    sqlite3_bind_double(b->ins, 5, gbps);
    return pdb_db_step_done(sqlite3_db_handle(b->ins), b->ins);
}

/* Whether temp.memory_bw holds run_id's series in this mode already. */
static int bw_filled(sqlite3 *db, int64_t run_id, bool hta, bool *filled)
{
    sqlite3_stmt *st;
    if (pdb_db_exec(db, pdb_report_sql("trace_series.create_memory_bw_filled")) != PDB_OK ||
        pdb_report_prepare(db, "trace_series.memory_bw_filled", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, hta);
    int rc = sqlite3_step(st);
    *filled = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "memory-bw: fill state");
}

int pdb_memory_bw_fill(sqlite3 *db, int64_t run_id, bool hta)
{
    bw_sink b = {0};
    sqlite3_stmt *traces;
    bool filled;
    if (bw_filled(db, run_id, hta, &filled) != PDB_OK)
        return PDB_ERR;
    if (filled)
        return PDB_OK;
    if (pdb_db_exec(db, pdb_report_sql("trace_series.create_memory_bw")) != PDB_OK ||
        pdb_report_prepare(db, "trace_series.insert_memory_bw", &b.ins) != PDB_OK)
        return PDB_ERR;
    int rc = pdb_report_prepare(db, "traces.of_run", &traces);
    if (rc == PDB_OK) {
        sqlite3_bind_int64(traces, 1, run_id);
        while (rc == PDB_OK && sqlite3_step(traces) == SQLITE_ROW)
            rc = pdb_memory_bw(db, run_id, sqlite3_column_int64(traces, 0),
                               sqlite3_column_int(traces, 1), hta, on_point, &b);
        sqlite3_finalize(traces);
    }
    sqlite3_finalize(b.ins);
    if (rc == PDB_OK && pdb_report_prepare(db, "trace_series.insert_memory_bw_filled",
                                           &traces) == PDB_OK) {
        sqlite3_bind_int64(traces, 1, run_id);
        sqlite3_bind_int(traces, 2, hta);
        rc = pdb_db_step_done(db, traces);
        sqlite3_finalize(traces);
    } else if (rc == PDB_OK) {
        rc = PDB_ERR;
    }
    return rc;
}

int pdb_report_memory_bw(pdb_report_ctx *ctx)
{
    const char *mode;
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    if (ctx->by && strcmp(ctx->by, "point") != 0)
        return pdb_fail("memory-bw --by takes only 'point' (the series itself)");
    if (pdb_memory_bw_fill(ctx->db, ctx->run_id, strcmp(mode, "hta") == 0) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, "memory-bw");
    if (pdb_report_require(ctx, "memory-bw", "trace_series.bw_require", mode,
                           "no memcpy or memset GPU events with a size or bandwidth in this "
                           "run: memory bandwidth does not apply",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return series_query(ctx, ctx->by ? "trace_series.memory_bw_points" : "trace_series.memory_bw",
                        mode);
}

int pdb_report_memory(pdb_report_ctx *ctx)
{
    bool ok;
    const char *mode;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    if (strcmp(mode, "exact") != 0)
        return pdb_fail("memory follows torch's key_averages() and has no --compat hta form "
                        "(HTA has no memory analysis)");
    if (ctx->by && strcmp(ctx->by, "step") != 0 && strcmp(ctx->by, "alloc") != 0)
        return pdb_fail("memory --by takes 'step' (peaks per step) or 'alloc' (allocations "
                        "alive at the peak)");
    pdb_report_title(ctx, "memory");
    if (pdb_report_require(ctx, "memory", "trace_series.memory_require", mode,
                           "no [memory] events in this run (record with "
                           "profile_memory=True): memory does not apply",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    if (ctx->by)
        return series_query(ctx, strcmp(ctx->by, "step") == 0 ? "trace_series.memory_peaks"
                                                               : "trace_series.memory_alive",
                            mode);
    if (series_query(ctx, "trace_series.memory_ops", mode) != PDB_OK)
        return PDB_ERR;
    if (!text_format(ctx))
        return PDB_OK;
    fprintf(ctx->out, "\npeak allocated memory (per device; per step):\n");
    if (series_query(ctx, "trace_series.memory_peaks", mode) != PDB_OK)
        return PDB_ERR;
    fprintf(ctx->out, "\nallocations alive at the peak (largest first):\n");
    long top = ctx->top;
    if (top < 0)
        ctx->top = 10;
    int rc = series_query(ctx, "trace_series.memory_alive", mode);
    ctx->top = top;
    return rc;
}
