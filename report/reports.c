/* reports.c: the report table and helpers shared by reports: they run a
 * report query (queries.h) bound to the report context and render it. */
#include "report/reports.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "report/analysis_state.h"
#include "report/queries.h"
#include "report/steplog_reports.h"

#include <string.h>

const pdb_report pdb_reports[] = {
    {"summary", pdb_report_summary, "what the run contains: sources, ranks, records, skips"},
    {"gpu", pdb_report_gpu, "GPU temporal breakdown per rank: idle, compute, non-compute, overlap"},
    {"kernel-types", pdb_report_kernel_types, "GPU time per kernel type and overlapping combination"},
    {"kernels", pdb_report_kernels, "GPU kernels per rank: count, total, mean, min, max, std (--top N); --by KEY: by what launched them"},
    {"ops", pdb_report_ops, "CPU operators: count, CPU and GPU self and total time (--by-shape, --top N)"},
    {"annotations", pdb_report_annotations, "record_function ranges: count, CPU time, share of steps, GPU time inside"},
    {"steps", pdb_report_steps, "per ProfilerStep: duration split into kernel, memcpy, ... other"},
    {"idle", pdb_report_idle, "GPU idle time per stream: host wait, kernel wait, other"},
    {"launch", pdb_report_launch, "CUDA launch delays (runtime call -> kernel) and the longest"},
    {"kernel-sequences", pdb_report_kernel_sequences, "frequent kernel sequences below an op (--op NAME, --min-len L): fusion candidates"},
    {"comm", pdb_report_comm, "collectives: count, time, bytes and bandwidth per kind"},
    {"critical-path", pdb_report_critical_path, "critical path per iteration: length, share CPU/GPU/launch/gaps (--by bound|edge-type|node)"},
    {"queue-length", pdb_report_queue_length, "CUDA launch queue per stream: distribution, time at --queue-limit N (1024)"},
    {"memory", pdb_report_memory, "profile_memory traces: memory per op (self, total), peaks per device and step, allocations alive at the peak"},
    {"memory-bw", pdb_report_memory_bw, "memcpy/memset bandwidth per kind: distribution, busy time (--by point: the series)"},
    {"ranks", pdb_report_ranks, "per-rank step and GPU time, the straggler and the skew"},
    {"insights", pdb_report_insights, "slowest components and named bottlenecks, with evidence"},
    {"pstats", pdb_report_pstats, "pstats print_stats(): --sort KEY, --limit N|FRACTION, --match REGEX"},
    {"callers", pdb_report_callers, "pstats print_callers(): who calls the selected functions"},
    {"callees", pdb_report_callees, "pstats print_callees(): what the selected functions call"},
    {"pstats-dot", pdb_report_pstats_dot, "pstats call graph as Graphviz DOT (gprof2dot style)"},
    {"pstats-chart", pdb_report_pstats_chart, "gnuplot script: bar chart of the top functions (--top N)"},
    {"metrics", pdb_report_steplog_metrics, "step logs: the long metric table (--metric NAME)"},
    {"metric-rules", pdb_report_steplog_rules, "step logs: raw names -> canonical metrics used by this run"},
    {"phases", pdb_report_steplog_phases, "step logs: per-phase distribution and share of step time (--skip-first N)"},
    {"loaders", pdb_report_steplog_loaders, "step logs: per-dataloader phase times and imbalance"},
    {"throughput", pdb_report_steplog_throughput, "step logs: steps/s, samples/s, tokens/s overall and per epoch"},
    {"scaling", pdb_report_steplog_scaling, "step logs: runs labelled gpus=N: speedup and scaling efficiency"},
    {"step-insights", pdb_report_steplog_insights, "step logs: bottleneck rules with the numbers that fired"},
    {"rf-report", pdb_report_steplog_rf, "step logs: rectified-flow profiler blocks, recomputed"},
    {"gpu-util", pdb_report_steplog_gpu, "nvidia-smi logs: utilisation, memory and energy per GPU"},
    {NULL, NULL, NULL},
};

const pdb_report *pdb_report_find(const char *name)
{
    for (const pdb_report *r = pdb_reports; r->name; r++)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

void pdb_report_title(pdb_report_ctx *ctx, const char *title)
{
    if (!ctx->titles)
        return;
    if (ctx->render.format == PDB_OUT_MD)
        fprintf(ctx->out, "\n### %s\n\n", title);
    else if (ctx->render.format == PDB_OUT_TABLE)
        fprintf(ctx->out, "\n== %s ==\n", title);
}

int pdb_report_render(pdb_report_ctx *ctx, sqlite3_stmt *st)
{
    int rc = pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}

int pdb_report_query(pdb_report_ctx *ctx, const char *query)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    return pdb_report_render(ctx, st);
}

int pdb_report_mode(const pdb_report_ctx *ctx, const char **mode)
{
    *mode = "exact";
    if (!ctx->compat)
        return PDB_OK;
    if (strcmp(ctx->compat, "hta") != 0)
        return pdb_fail("unknown --compat '%s' (expected hta)", ctx->compat);
    *mode = "hta";
    return PDB_OK;
}

int pdb_report_query_mode(pdb_report_ctx *ctx, const char *query, const char *mode)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, ctx->top);
    return pdb_report_render(ctx, st);
}

int pdb_report_require(pdb_report_ctx *ctx, const char *report, const char *count_query,
                       const char *mode, const char *why, bool *ok)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, count_query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    *ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    if (*ok)
        return PDB_OK;
    /* Nothing because the analysis is missing or older than the passes
     * (--no-analyze, a migrated database) is not "nothing in the run". */
    pdb_analysis_state as;
    char missing[768];
    if (pdb_analysis_state_get(ctx->db, ctx->run_id, &as) != PDB_OK)
        return PDB_ERR;
    if (as.missing) {
        pdb_buf run = PDB_BUF_INIT;
        const char *name = ctx->run_name ? ctx->run_name : "";
        pdb_utf8_clean(&run, name, strlen(name), PDB_UTF8_CONTROLS);
        pdb_analysis_state_message(&as, pdb_buf_str(&run), missing, sizeof missing);
        pdb_buf_free(&run);
        why = missing;
    }
    bool text = ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD;
    fprintf(text ? ctx->out : stderr, "%s%s: %s\n", text ? "" : "profdb: ", report, why);
    if (ctx->render.format == PDB_OUT_JSON)
        fputs("[]\n", ctx->out); /* still a JSON document */
    return PDB_OK;
}
