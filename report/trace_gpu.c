/* trace_gpu.c: the GPU reports over the trace analysis tables: gpu,
 * kernel-types, kernels, and kernels --by KEY (GPU time by what launched
 * it), attribution (the same with backward kernels carried to their
 * forward op: analyze/ondemand/fwd_bwd.c); report/queries/trace_gpu.sql. --compat hta selects HTA's
 * conventions, for gpu HTA's column names and for kernel-types HTA's one
 * total over the ranks. */
#include "report/reports.h"
#include "common/error.h"
#include "report/queries.h"
#include "report/trace_sql.h"
#include "analyze/ondemand/fwd_bwd.h"

#include <string.h>

/* A GPU report: says so and prints nothing when the run has no GPU events. */
static int gpu_report(pdb_report_ctx *ctx, const char *name, const char *query,
                      const char *hta_query)
{
    const char *mode;
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, name);
    if (pdb_report_require(ctx, name, "trace_gpu.require", mode,
                           "no GPU events in this run (no trace events with a stream arg): the GPU "
                           "reports do not apply; 'ops' covers the CPU side",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    /* HTA's rounding to whole microseconds can leave GPU events no length:
     * kernel-types then has no row, in HTA too (an empty table); one line
     * says so. */
    if (strcmp(name, "kernel-types") == 0 && strcmp(mode, "hta") == 0) {
        if (pdb_report_require(ctx, name, "trace_gpu.kernel_types_require", mode,
                               "no kernel type has GPU time under HTA's conventions (events "
                               "rounded to whole microseconds); HTA's breakdown is empty too, "
                               "and kernel-types without --compat measures them in ns",
                               &ok) != PDB_OK)
            return PDB_ERR;
        if (!ok)
            return PDB_OK;
    }
    return pdb_trace_query(ctx, strcmp(mode, "hta") == 0 ? hta_query : query, mode, NULL);
}

/* HTA asserts idle <= kernel time, compute <= kernel time and non-compute
 * >= 0 per rank and raises instead of answering. Its rounding inward to
 * whole microseconds can break them (sub-microsecond events end before they
 * start); --compat hta then has no answer either, and says why. */
static int hta_defined(pdb_report_ctx *ctx)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "trace_gpu.gpu_hta_undefined", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, "hta", -1, SQLITE_STATIC);
    int rc = PDB_OK;
    if (sqlite3_step(st) == SQLITE_ROW)
        rc = pdb_fail("report gpu --compat hta does not apply to this run: on rank %d HTA's "
                      "rounding to whole microseconds leaves GPU events of negative length "
                      "(kernel time %lld us, idle %lld us, compute %lld us), where HTA's "
                      "temporal breakdown fails its own assertions and gives no answer; "
                      "'gpu' without --compat measures them in ns",
                      sqlite3_column_int(st, 0),
                      (long long)(sqlite3_column_int64(st, 1) / 1000),
                      (long long)(sqlite3_column_int64(st, 2) / 1000),
                      (long long)(sqlite3_column_int64(st, 3) / 1000));
    sqlite3_finalize(st);
    return rc;
}

int pdb_report_gpu(pdb_report_ctx *ctx)
{
    const char *mode;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    if (strcmp(mode, "hta") == 0 && hta_defined(ctx) != PDB_OK)
        return PDB_ERR;
    return gpu_report(ctx, "gpu", "trace_gpu.gpu", "trace_gpu.gpu_hta");
}

/* --compat hta gives HTA's one total over the ranks, --by rank the rows of
 * each rank as the exact mode does. */
int pdb_report_kernel_types(pdb_report_ctx *ctx)
{
    const char *mode;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    bool hta = strcmp(mode, "hta") == 0;
    if (ctx->by && !(hta && strcmp(ctx->by, "rank") == 0))
        return pdb_fail("kernel-types --by takes only 'rank', with --compat hta (HTA gives one "
                        "total over the ranks; exact mode prints each rank)");
    return gpu_report(ctx, "kernel-types", "trace_gpu.kernel_types",
                      ctx->by ? "trace_gpu.kernel_types" : "trace_gpu.kernel_types_hta");
}

/* kernels --by KEY: the attribution keys and their queries. */
static const struct {
    const char *key, *query;
} by_keys[] = {
    {"op", "trace_gpu.by_op"},
    {"top-op", "trace_gpu.by_top_op"},
    {"annotation", "trace_gpu.by_annotation"},
    {"gpu-annotation", "trace_gpu.by_gpu_annotation"},
    {"module", "trace_gpu.by_module"},
    {"step", "trace_gpu.by_step"},
};

static int kernels_by(pdb_report_ctx *ctx)
{
    const char *query = NULL, *mode;
    for (size_t i = 0; i < sizeof by_keys / sizeof *by_keys; i++)
        if (strcmp(ctx->by, by_keys[i].key) == 0)
            query = by_keys[i].query;
    if (!query)
        return pdb_fail("unknown --by '%s' (expected op, top-op, annotation, gpu-annotation, "
                        "module or step)",
                        ctx->by);
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    if (strcmp(mode, "exact") != 0)
        return pdb_fail("kernels --by is profdb's own attribution and has no --compat hta form "
                        "(HTA's per-range sums are in 'annotations --compat hta')");
    bool ok;
    pdb_report_title(ctx, "kernels");
    if (pdb_report_require(ctx, "kernels", "trace_gpu.by_require", mode,
                           "no GPU events in this run: kernels --by does not apply", &ok) != PDB_OK)
        return PDB_ERR;
    return ok ? pdb_trace_query(ctx, query, mode, ctx->by) : PDB_OK;
}

int pdb_report_kernels(pdb_report_ctx *ctx)
{
    if (ctx->by)
        return kernels_by(ctx);
    return gpu_report(ctx, "kernels", "trace_gpu.kernels", "trace_gpu.kernels");
}

/* attribution --by KEY: the keys, their queries and ?5. */
static const struct {
    const char *key, *query;
} attribution_keys[] = {
    {"annotation", "trace_gpu.attribution_annotation"},
    {"module", "trace_gpu.attribution_module"},
    {"op", "trace_gpu.attribution_op"},
    {"top-op", "trace_gpu.attribution_top_op"},
    {"kernel", "trace_gpu.attribution_kernels"},
};

/* The links found, one line under a table (text and Markdown only, so
 * CSV and JSON stay one result set). */
static void links_note(pdb_report_ctx *ctx, const pdb_fwd_bwd_stats *st)
{
    if (ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
        return;
    if (st->flow_links + st->seq_links == 0) {
        fprintf(ctx->out, "\nno backward op in this run is linked to a forward op (no fwdbwd "
                          "flows, no ops with \"Sequence number\" and \"Fwd thread id\"): "
                          "every row is via direct\n");
        return;
    }
    fprintf(ctx->out,
            "\nbackward ops linked to their forward op: %lld by fwdbwd flow, %lld by sequence "
            "number; %lld launches inside them%s\n",
            (long long)st->flow_links, (long long)st->seq_links, (long long)st->launches,
            st->deep ? " (some ops nested past the sweep's depth bound were left out)" : "");
}

int pdb_report_attribution(pdb_report_ctx *ctx)
{
    const char *key = ctx->by ? ctx->by : "annotation", *query = NULL, *mode;
    for (size_t i = 0; i < sizeof attribution_keys / sizeof *attribution_keys; i++)
        if (strcmp(key, attribution_keys[i].key) == 0)
            query = attribution_keys[i].query;
    if (!query)
        return pdb_fail("unknown attribution --by '%s' (expected annotation, module, op, "
                        "top-op or kernel)",
                        key);
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    if (strcmp(mode, "exact") != 0)
        return pdb_fail("attribution is profdb's own and has no --compat hta form (HTA's "
                        "per-range sums are in 'annotations --compat hta')");
    bool ok;
    pdb_report_title(ctx, "attribution");
    if (pdb_report_require(ctx, "attribution", "trace_gpu.by_require", mode,
                           "no GPU events in this run: attribution does not apply", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    pdb_fwd_bwd_stats st;
    if (pdb_fwd_bwd(ctx->db, ctx->run_id, &st) != PDB_OK ||
        pdb_trace_query(ctx, query, mode, key) != PDB_OK)
        return PDB_ERR;
    links_note(ctx, &st);
    return PDB_OK;
}
