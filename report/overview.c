/* overview.c: `profdb report` without names: what the run contains, which
 * reports apply, and the key findings (see overview.h); the counts and the
 * pstats findings are in report/queries/overview.sql. */
#include "report/overview.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "report/queries.h"
#include "report/shard_guard.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int pdb_run_facts_get(sqlite3 *db, int64_t run_id, pdb_run_facts *f)
{
    struct { const char *query; int64_t *out; } q[] = {
        {"overview.count_sources", &f->sources},
        {"overview.count_records", &f->records},
        {"overview.count_traces", &f->traces},
        {"overview.count_ranks", &f->ranks},
        {"overview.count_gpu_events", &f->gpu_events},
        {"overview.count_steps", &f->steps},
        {"overview.count_ops", &f->ops},
        {"overview.count_pstats_functions", &f->pstats_funcs},
        {"overview.count_steplog_values", &f->steplog_values},
        {"overview.count_steplog_steps", &f->steplog_steps},
        {"overview.count_memory_events", &f->memory_events},
        {"overview.count_pyspy_profiles", &f->pyspy_profiles},
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if (pdb_report_number(db, q[i].query, run_id, q[i].out) != PDB_OK)
            return PDB_ERR;
    if (pdb_analysis_state_get(db, run_id, &f->analysis) != PDB_OK)
        return PDB_ERR;
    return PDB_OK;
}

/* The reasons a report may not apply, in the order they are checked and
 * listed: a report lacks the first whose needs it shares and the run lacks. */
static bool no_traces(const pdb_run_facts *f) { return !f->traces; }
static bool never_analysed(const pdb_run_facts *f) { return f->traces && f->analysis.never; }
static bool no_gpu(const pdb_run_facts *f) { return !f->gpu_events; }
static bool no_steps(const pdb_run_facts *f) { return !f->steps; }
static bool no_pstats(const pdb_run_facts *f) { return !f->pstats_funcs; }
static bool no_steplog(const pdb_run_facts *f) { return !f->steplog_values; }
static bool no_memory(const pdb_run_facts *f) { return !f->memory_events; }
static bool no_pyspy(const pdb_run_facts *f) { return !f->pyspy_profiles; }

static const struct {
    int needs;
    bool (*lacks)(const pdb_run_facts *f);
    const char *why;
    const char *what;   /* what the report needs, for "it needs ..." */
} reasons[] = {
    {PDB_NEEDS_TRACE, no_traces, "no traces", "a PyTorch profiler trace"},
    {PDB_NEEDS_TRACE | PDB_NEEDS_GPU | PDB_NEEDS_STEPS | PDB_NEEDS_MEMORY, never_analysed,
     PDB_NOT_ANALYSED, PDB_NOT_ANALYSED_NEEDS},
    {PDB_NEEDS_GPU, no_gpu, "no GPU events", "GPU events (trace events with a stream arg)"},
    {PDB_NEEDS_STEPS, no_steps, "no ProfilerStep annotations", "ProfilerStep annotations"},
    {PDB_NEEDS_PSTATS, no_pstats, "no pstats dump", "a cProfile/pstats dump"},
    {PDB_NEEDS_STEPLOG, no_steplog, "no step logs", "a training step log"},
    {PDB_NEEDS_MEMORY, no_memory, "no [memory] events",
     "[memory] events (a trace recorded with profile_memory=True)"},
    {PDB_NEEDS_PYSPY, no_pyspy, "no py-spy profile", "a py-spy profile"},
};
enum { N_REASONS = sizeof reasons / sizeof reasons[0] };

const char *pdb_report_missing(const pdb_run_facts *f, int needs)
{
    for (int i = 0; i < N_REASONS; i++)
        if ((needs & reasons[i].needs) && reasons[i].lacks(f))
            return reasons[i].why;
    return NULL;
}

/* Reports whose NEEDS a run can meet without holding what they show: they
 * apply when they find rows. */
static const struct {
    const char *name, *what;
} finds_rows[] = {
    {"comm", "collective (communication) kernels"},
    {"collectives", "collective kernels on two or more ranks"},
    {"rank-kernels", "a rank that rank-spread names as outlying"},
    {"phases", "phase times (forward, backward, data, ...) in its step logs"},
    {"loaders", "per-dataloader phase times in its step logs"},
    {"throughput", "step times, or sample or token counts, in its step logs"},
    {"scaling", "runs labelled gpus=N (profdb ingest --label gpus=N)"},
    {"step-insights", "phase times or memory values in its step logs (what its rules read)"},
    {"gpu-util", "an nvidia-smi log"},
    {"rf-report", "rectified-flow profiler blocks in its step logs"},
    {"pyspy-trace", "python_function events (a trace recorded with with_stack=True)"},
};

/* Whether a Markdown table has a row: three '|' lines in a row (header,
 * rule, row); a report's own note ("comm: no collectives") is prose. */
static bool has_row(const char *md, size_t len)
{
    int run = 0;
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && md[i - 1] != '\n')
            continue;
        run = md[i] == '|' ? run + 1 : 0;
        if (run == 3)
            return true;
    }
    return false;
}

/* Whether report r prints no row on ctx's run. Markdown, which keeps the
 * report's own note in the output, not on stderr. */
static int prints_nothing(pdb_report_ctx *ctx, const pdb_report *r, bool *nothing)
{
    char *mem = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&mem, &len);
    if (!m)
        return pdb_fail("out of memory");
    pdb_report_ctx c = *ctx;
    c.out = m;
    c.titles = false;
    c.render.format = PDB_OUT_MD;
    c.render.columns = NULL;
    c.render.fit_width = 0;
    int rc = r->run(&c);
    fclose(m);
    *nothing = rc == PDB_OK && !has_row(mem, len);
    free(mem);
    return rc;
}

int pdb_report_applies(pdb_report_ctx *ctx, const pdb_report *r, const pdb_run_facts *f,
                       const char **what)
{
    *what = NULL;
    for (int i = 0; i < N_REASONS; i++)
        if ((r->needs & reasons[i].needs) && reasons[i].lacks(f)) {
            *what = reasons[i].what;
            return PDB_OK;
        }
    bool found = false;
    for (size_t i = 0; i < sizeof finds_rows / sizeof finds_rows[0]; i++) {
        bool nothing;
        if (strcmp(r->name, finds_rows[i].name) != 0)
            continue;
        found = true;
        if (prints_nothing(ctx, r, &nothing) != PDB_OK) {
            if (!pdb_shard_guard_take())
                return PDB_ERR;
            *what = PDB_SHARD_GUARD_NEEDS; /* a run merged without --full */
            return PDB_OK;
        }
        *what = nothing ? finds_rows[i].what : NULL;
    }
    /* A run merged without --full: a report that reads events is run once
     * to find out (the guard refuses it before it reads anything). */
    bool nothing;
    if (!found && pdb_shard_guard_active() && prints_nothing(ctx, r, &nothing) != PDB_OK) {
        if (!pdb_shard_guard_take())
            return PDB_ERR;
        *what = PDB_SHARD_GUARD_NEEDS;
    }
    return PDB_OK;
}

/* Keeps the first max_rows rows of a table (after its two header lines). */
static void cut_rows(char *text, int max_rows, bool md, int *rows, pdb_buf *out)
{
    int line = 0, kept = 0, total = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        bool row = line >= 2 && (md ? p[0] == '|' : len > 1);
        total += row;
        if (!row || max_rows < 0 || kept < max_rows) {
            pdb_buf_add(out, p, len);
            kept += row;
        }
        line++;
        p += len;
    }
    if (total > kept)
        pdb_buf_addf(out, "%s(%d more rows)\n", md ? "\n" : "", total - kept);
    *rows = total;
}

int pdb_report_capture(pdb_report_ctx *ctx, const pdb_report *r, int max_rows, char **text,
                       int *rows)
{
    char *mem = NULL;
    size_t memlen = 0;
    FILE *m = open_memstream(&mem, &memlen);
    if (!m)
        return pdb_fail("out of memory");
    pdb_report_ctx c = *ctx;
    c.out = m;
    c.titles = false;
    int rc = r->run(&c);
    fclose(m);
    pdb_buf b = PDB_BUF_INIT;
    *rows = 0;
    if (rc == PDB_OK)
        cut_rows(mem, max_rows, ctx->render.format == PDB_OUT_MD, rows, &b);
    free(mem);
    *text = rc == PDB_OK ? strdup(pdb_buf_str(&b)) : NULL;
    pdb_buf_free(&b);
    return rc;
}

static void heading(pdb_report_ctx *ctx, const char *title)
{
    if (ctx->render.format == PDB_OUT_MD)
        fprintf(ctx->out, "\n### %s\n\n", title);
    else
        fprintf(ctx->out, "\n== %s ==\n", title);
}

/* The reports that apply and, grouped by reason, those that do not
 * (those that find no rows last, each with what it needs). */
static int applicable(pdb_report_ctx *ctx, const pdb_run_facts *f)
{
    const char *li = ctx->render.format == PDB_OUT_MD ? "- " : "";
    pdb_buf empty = PDB_BUF_INIT;
    fprintf(ctx->out, "%sreports that apply:", li);
    for (const pdb_report *r = pdb_reports; r->name; r++) {
        const char *what;
        if (pdb_report_missing(f, r->needs))
            continue;
        if (pdb_report_applies(ctx, r, f, &what) != PDB_OK) {
            pdb_buf_free(&empty);
            return PDB_ERR;
        }
        if (what)
            pdb_buf_addf(&empty, "%snot applicable: %s (it needs %s)\n", li, r->name, what);
        else
            fprintf(ctx->out, " %s", r->name);
    }
    fputc('\n', ctx->out);
    for (int i = 0; i < N_REASONS; i++) {
        bool any = false;
        for (const pdb_report *r = pdb_reports; r->name; r++) {
            if (pdb_report_missing(f, r->needs) == reasons[i].why) {
                fprintf(ctx->out, "%s%s %s", any ? "" : li, any ? "" : "not applicable:", r->name);
                any = true;
            }
        }
        if (any)
            fprintf(ctx->out, " (%s)\n", reasons[i].why);
    }
    fputs(pdb_buf_str(&empty), ctx->out);
    pdb_buf_free(&empty);
    return PDB_OK;
}

static int findings(pdb_report_ctx *ctx, const char *name)
{
    char *text;
    int rows;
    char title[80];
    snprintf(title, sizeof title, "key findings (profdb report %s)", name);
    if (pdb_report_capture(ctx, pdb_report_find(name), 12, &text, &rows) != PDB_OK) {
        if (!pdb_shard_guard_take())
            return PDB_ERR;
        heading(ctx, title); /* a run merged without --full */
        fprintf(ctx->out, "%s: it needs %s\n", name, PDB_SHARD_GUARD_NEEDS);
        return PDB_OK;
    }
    heading(ctx, title);
    fputs(text, ctx->out);
    free(text);
    return PDB_OK;
}

/* pstats has no insights report: its findings are the costliest functions. */
static int pstats_findings(pdb_report_ctx *ctx)
{
    heading(ctx, "key findings (top functions by cumulative time; profdb report pstats)");
    return pdb_report_query(ctx, "overview.pstats_findings");
}

int pdb_report_overview(pdb_report_ctx *ctx)
{
    if (ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
        return pdb_report_summary(ctx);
    pdb_run_facts f;
    if (pdb_run_facts_get(ctx->db, ctx->run_id, &f) != PDB_OK)
        return PDB_ERR;
    bool md = ctx->render.format == PDB_OUT_MD;
    const char *li = md ? "- " : "  ";
    fprintf(ctx->out, "%ssources: %" PRId64 ", records: %" PRId64 "\n", li, f.sources, f.records);
    if (f.traces && f.analysis.never)
        fprintf(ctx->out, "%straces: %" PRId64 " (ranks: %" PRId64 "), %" PRId64
                          " GPU events, not analysed\n",
                li, f.traces, f.ranks, f.analysis.gpu_events);
    else if (f.traces)
        fprintf(ctx->out, "%straces: %" PRId64 " (ranks: %" PRId64 "), %" PRId64
                          " GPU events, %" PRId64 " profiler steps, %" PRId64 " op rows\n",
                li, f.traces, f.ranks, f.gpu_events, f.steps, f.ops);
    if (f.traces && f.analysis.missing) {
        char why[768];
        pdb_buf run = PDB_BUF_INIT;
        const char *name = ctx->run_name ? ctx->run_name : "";
        pdb_utf8_clean(&run, name, strlen(name), PDB_UTF8_CONTROLS);
        pdb_analysis_state_message(&f.analysis, pdb_buf_str(&run), why, sizeof why);
        pdb_buf_free(&run);
        fprintf(ctx->out, "%s%s\n", li, why);
    }
    if (f.pstats_funcs)
        fprintf(ctx->out, "%spstats: %" PRId64 " functions\n", li, f.pstats_funcs);
    if (f.steplog_values)
        fprintf(ctx->out, "%sstep logs: %" PRId64 " values over %" PRId64 " steps\n", li,
                f.steplog_values, f.steplog_steps);
    if (md)
        fputc('\n', ctx->out);
    if (applicable(ctx, &f) != PDB_OK)
        return PDB_ERR;
    heading(ctx, "sources (profdb report summary)");
    pdb_report_ctx c = *ctx;
    c.titles = false;
    if (pdb_report_summary(&c) != PDB_OK)
        return PDB_ERR;
    if (f.traces && !f.analysis.never && findings(ctx, "insights") != PDB_OK)
        return PDB_ERR;
    if (f.pstats_funcs && pstats_findings(ctx) != PDB_OK)
        return PDB_ERR;
    if (f.steplog_values && findings(ctx, "step-insights") != PDB_OK)
        return PDB_ERR;
    return PDB_OK;
}
