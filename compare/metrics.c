/* metrics.c: the metric table (the rows of metrics.def), parsing metric
 * names and reading their samples (see metrics.h). The queries are in
 * compare/queries/metrics.sql. */
#include "compare/metrics.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "compare/queries.h"
#include "render/text.h"
#include "report/trace_sql.h"

#include <assert.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------- */

/* Trace step categories: phase name -> column of metrics.trace_steps. */
static const char *const trace_phases[][2] = {
    {"kernel", "kernel_ns"}, {"memcpy", "memcpy_ns"}, {"memset", "memset_ns"},
    {"runtime", "runtime_ns"}, {"dataloader", "dataloader_ns"},
    {"cpu_exec", "cpu_exec_ns"}, {"other", "other_ns"}, {NULL, NULL},
};

static const char *trace_phase_column(const char *name)
{
    for (int i = 0; trace_phases[i][0]; i++)
        if (strcmp(trace_phases[i][0], name) == 0)
            return trace_phases[i][1];
    return NULL;
}

/* The sample readers of the rows (defined below), then the rows. */
#define PDB_METRIC(kind, spec, arg, unit, worse, samples, companion, help)        \
    static int samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out);
#include "compare/metrics.def"
#undef PDB_METRIC

const pdb_metric_row pdb_metric_rows[PDB_METRIC_KINDS] = {
#define PDB_METRIC(kind, spec, arg, unit, worse, samples, companion, help)        \
    [kind] = {kind, spec, arg, unit, worse, samples, companion, help},
#include "compare/metrics.def"
#undef PDB_METRIC
};

/* A row's spec ending in ':' is a prefix: the name of what it samples
 * follows. */
static bool is_prefix(const pdb_metric_row *row)
{
    size_t n = strlen(row->spec);
    return n && row->spec[n - 1] == ':';
}

/* Step-log metrics that are better when higher: rates, utilisation and
 * model FLOPs utilisation. Everything else (times, sizes, losses) is worse
 * when higher. Matched as substrings of the canonical name. */
static bool higher_is_better(const char *name)
{
    static const char *const better[] = {"per_s", "throughput", "mfu", "tflops", "util",
                                         "flops"};
    for (size_t i = 0; i < sizeof better / sizeof better[0]; i++)
        if (strstr(name, better[i]))
            return true;
    return false;
}

void pdb_metric_names(pdb_buf *out)
{
    for (int k = 0; k < PDB_METRIC_KINDS; k++) {
        const pdb_metric_row *row = &pdb_metric_rows[k];
        pdb_buf_addf(out, "%s%s%s%s", k ? ", " : "", row->spec, row->arg ? row->arg : "",
                     k == PDB_METRIC_STEPLOG ? " or a step-log metric name" : "");
    }
}

void pdb_metric_help(pdb_buf *out)
{
    for (int k = 0; k < PDB_METRIC_KINDS; k++) {
        const pdb_metric_row *row = &pdb_metric_rows[k];
        if (!row->help)
            continue; /* a companion: its metric's help says it */
        char name[40];
        snprintf(name, sizeof name, "%s%s%s", k == PDB_METRIC_STEPLOG ? "NAME, " : "",
                 row->spec, row->arg ? row->arg : "");
        pdb_buf_addf(out, "  %-18s ", name);
        for (const char *line = row->help; *line;) {
            size_t len = strcspn(line, "\n");
            pdb_buf_addf(out, "%s%.*s\n", line == row->help ? "" : "                     ",
                         (int)len, line);
            line += len + (line[len] == '\n');
        }
    }
}

int pdb_metric_parse(const char *spec, pdb_metric *m)
{
    for (int k = 0; k < PDB_METRIC_KINDS; k++) {
        const pdb_metric_row *row = &pdb_metric_rows[k];
        const char *name = spec;
        if (is_prefix(row) ? !pdb_skip_prefix(spec, row->spec, &name)
                           : strcmp(spec, row->spec) != 0)
            continue;
        if (is_prefix(row) && !*name)
            return pdb_fail("metric '%s': a name must follow the '%s'", spec, row->spec);
        *m = (pdb_metric){.kind = row->kind, .name = name, .spec = spec, .unit = row->unit};
        m->higher_is_worse = row->worse == PDB_WORSE_HIGHER ||
                             (row->worse == PDB_WORSE_BY_NAME && !higher_is_better(name));
        return PDB_OK;
    }
    if (strchr(spec, ':')) {
        pdb_buf names = PDB_BUF_INIT;
        pdb_metric_names(&names);
        int rc = pdb_fail("unknown metric '%s' (%s)", spec, pdb_buf_str(&names));
        pdb_buf_free(&names);
        return rc;
    }
    const pdb_metric_row *row = &pdb_metric_rows[PDB_METRIC_STEPLOG];
    *m = (pdb_metric){.kind = row->kind, .name = spec, .spec = spec, .unit = row->unit,
                      .higher_is_worse = !higher_is_better(spec)};
    return PDB_OK;
}

char *pdb_metric_companion(const pdb_metric *m)
{
    const char *prefix = pdb_metric_rows[m->kind].companion;
    if (!prefix)
        return NULL;
    size_t n = strlen(prefix) + strlen(m->name) + 1;
    char *s = pdb_xmalloc(n);
    snprintf(s, n, "%s%s", prefix, m->name);
    return s;
}

/* ---- reading ----------------------------------------------------------- */

static void push(pdb_samples *out, size_t *cap, double v)
{
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        out->v = pdb_xrealloc(out->v, *cap * sizeof *out->v);
    }
    out->v[out->n++] = v;
    out->total += v;
}

/* The result column called name (a query and its caller must agree). */
static int column_index(sqlite3_stmt *st, const char *name)
{
    for (int c = 0; c < sqlite3_column_count(st); c++)
        if (strcmp(sqlite3_column_name(st, c), name) == 0)
            return c;
    assert(!"the query has no such column");
    return -1;
}

static int prepare(const pdb_metric_run *r, const char *query, const char *name,
                   sqlite3_stmt **st)
{
    if (pdb_compare_prepare(r->db, query, r->schema, st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(*st, 1, r->run_id);
    if (name && sqlite3_bind_parameter_count(*st) >= 2)
        sqlite3_bind_text(*st, 2, name, -1, SQLITE_TRANSIENT);
    return PDB_OK;
}

/* Runs query on r and collects its column called column, times scale. */
static int collect(const pdb_metric_run *r, const char *query, const char *name,
                   const char *column, double scale, pdb_samples *out)
{
    sqlite3_stmt *st;
    if (prepare(r, query, name, &st) != PDB_OK)
        return PDB_ERR;
    int c = column_index(st, column);
    size_t cap = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if (c >= 0 && sqlite3_column_type(st, c) != SQLITE_NULL)
            push(out, &cap, sqlite3_column_double(st, c) * scale);
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(r->db, "database error");
}

/* ---- step logs ---------------------------------------------------------- */

/* How a step log aggregates a metric, in the order the gate prefers them:
 * a value per step, then exact means over a window (from a clock), the
 * log's interval means, window medians (detectron2), running means turned
 * back into interval means, and last smoothed values (tqdm's EMA), of which
 * one in EMA_THIN is kept so that neighbouring samples are nearly
 * independent (tqdm's default smoothing forgets a value within a few
 * updates). One kind is used per run, never a mix. */
static const char *const agg_order[] = {"point", "derived", "interval_mean", "window_median",
                                        "running_mean", "moving_avg"};
#define EMA_THIN 10
enum { N_AGGS = sizeof agg_order / sizeof agg_order[0] };

static int agg_rank(const char *agg)
{
    for (int i = 0; i < N_AGGS; i++)
        if (agg && strcmp(agg, agg_order[i]) == 0)
            return i;
    return N_AGGS;
}

/* The preferred aggregation present, the most common window of its
 * values and their unit. */
typedef struct {
    int agg;
    int64_t window;
    char unit[8];
} steplog_kind;

static int steplog_survey(const pdb_metric_run *r, const char *metric, steplog_kind *k)
{
    sqlite3_stmt *st;
    if (prepare(r, "metrics.steplog_values", metric, &st) != PDB_OK)
        return PDB_ERR;
    k->agg = N_AGGS;
    k->window = 0;
    k->unit[0] = '\0';
    int64_t windows[4] = {0}, counts[4] = {0};
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int a = agg_rank((const char *)sqlite3_column_text(st, 4));
        if (a < k->agg) {
            k->agg = a;
            memset(counts, 0, sizeof counts);
            snprintf(k->unit, sizeof k->unit, "%s", (const char *)sqlite3_column_text(st, 6));
        }
        if (a != k->agg || sqlite3_column_type(st, 5) == SQLITE_NULL)
            continue;
        /* A few distinct windows are plenty to find the usual one. */
        int64_t w = sqlite3_column_int64(st, 5);
        for (int i = 0; i < 4; i++)
            if (!counts[i] || windows[i] == w) {
                windows[i] = w;
                counts[i]++;
                break;
            }
    }
    sqlite3_finalize(st);
    for (int i = 0, best = 0; i < 4; i++)
        if (counts[i] > best) {
            best = (int)counts[i];
            k->window = windows[i];
        }
    return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(r->db, "database error");
}

/* State for turning running means back into the mean of each interval:
 * with R_k the mean of the first c_k steps, the steps between two records
 * average (R_k c_k - R_j c_j) / (c_k - c_j). A running mean restarts when
 * the epoch changes or the step goes back. c is the window (steps covered)
 * when the log says, else the step number. */
typedef struct {
    int64_t source;
    double epoch, prev_mean, prev_count;
    int64_t prev_step;
    bool open;
} running;

static bool unrun(running *s, sqlite3_stmt *st, double *out)
{
    int64_t source = sqlite3_column_int64(st, 0), stepno = sqlite3_column_int64(st, 1);
    double epoch = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
    double mean = sqlite3_column_double(st, 3);
    double count = sqlite3_column_type(st, 5) != SQLITE_NULL ? sqlite3_column_double(st, 5)
                                                             : (double)stepno;
    bool restart = !s->open || source != s->source || stepno < s->prev_step ||
                   (!isnan(epoch) && epoch != s->epoch) || count <= s->prev_count;
    bool have = false;
    if (restart)
        *out = mean, have = true;
    else if (count > s->prev_count)
        *out = (mean * count - s->prev_mean * s->prev_count) / (count - s->prev_count),
        have = true;
    *s = (running){source, epoch, mean, count, stepno, true};
    return have;
}

/* Whether a windowed value shares none of its steps with the last one kept:
 * MetricLogger prints the mean of the last 20 iterations every 10, so
 * neighbours share half their steps and only every other one is a sample
 * of its own. A new source, or a step that goes back (a new epoch counted
 * from 0), starts again. */
typedef struct {
    int64_t source, step;
    bool open;
} disjoint;

static bool disjoint_window(disjoint *d, sqlite3_stmt *st)
{
    if (sqlite3_column_type(st, 1) == SQLITE_NULL || sqlite3_column_type(st, 5) == SQLITE_NULL)
        return true;
    int64_t source = sqlite3_column_int64(st, 0), stepno = sqlite3_column_int64(st, 1);
    int64_t window = sqlite3_column_int64(st, 5);
    if (d->open && source == d->source && stepno >= d->step && stepno - d->step < window)
        return false;
    *d = (disjoint){source, stepno, true};
    return true;
}

static int steplog_series(const pdb_metric_run *r, const char *metric, pdb_samples *out)
{
    steplog_kind k;
    if (steplog_survey(r, metric, &k) != PDB_OK)
        return PDB_ERR;
    if (k.agg == N_AGGS)
        return PDB_OK;
    sqlite3_stmt *st;
    if (prepare(r, "metrics.steplog_values", metric, &st) != PDB_OK)
        return PDB_ERR;
    running run = {0};
    size_t cap = 0, seen = 0;
    int step;
    bool unrunning = strcmp(agg_order[k.agg], "running_mean") == 0;
    /* a moving average over a known window is thinned by its window; one
     * without (tqdm's EMA) keeps one value in EMA_THIN */
    bool thinning = strcmp(agg_order[k.agg], "moving_avg") == 0 && k.window == 0;
    bool windowed = strcmp(agg_order[k.agg], "window_median") == 0 ||
                    (strcmp(agg_order[k.agg], "moving_avg") == 0 && !thinning);
    disjoint last = {0};
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (agg_rank((const char *)sqlite3_column_text(st, 4)) != k.agg)
            continue;
        double v = sqlite3_column_double(st, 3);
        if (thinning && seen++ % EMA_THIN != 0)
            continue;
        if (windowed && !disjoint_window(&last, st))
            continue;
        if (!unrunning || unrun(&run, st, &v))
            push(out, &cap, v);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE)
        return pdb_db_fail(r->db, "database error");
    static const char *const what[] = {
        "per-step values", "means over %lld steps (derived)", "interval means (window %lld)",
        "window medians (window %lld)", "interval means recovered from running means",
        "moving averages (window %lld), windows that share no step"};
    static const char *const what_nowindow[] = {
        "per-step values", "derived means", "interval means", "window medians",
        "interval means recovered from running means", "smoothed values (EMA), one in 10"};
    if (k.window)
        snprintf(out->what, sizeof out->what, what[k.agg], (long long)k.window);
    else
        snprintf(out->what, sizeof out->what, "%s", what_nowindow[k.agg]);
    out->source = "step log";
    static const char *const units[] = {"s", "B", "%", "/s", "1/s", "W", "J", ""};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(units[i], k.unit) == 0)
            out->unit = units[i];
    return PDB_OK;
}

/* ---- per-metric readers -------------------------------------------------- */

/* A step-time-like metric: the step log if it has it, else the trace
 * steps' trace_column (NULL: none). */
static int step_samples(const pdb_metric_run *r, const char *steplog_metric,
                        const char *trace_column, pdb_samples *out)
{
    if (steplog_series(r, steplog_metric, out) != PDB_OK)
        return PDB_ERR;
    if (out->n || !trace_column)
        return PDB_OK;
    /* A log that times only its epochs (Lightning's CSV, DGL's examples):
     * the epoch times are the step times it has, and the check says so. */
    if (strcmp(steplog_metric, "step_time") == 0) {
        if (steplog_series(r, "epoch_time", out) != PDB_OK)
            return PDB_ERR;
        if (out->n) {
            snprintf(out->what, sizeof out->what, "per-epoch times (no per-step time in the log)");
            return PDB_OK;
        }
    }
    out->source = "trace steps";
    snprintf(out->what, sizeof out->what, "ProfilerSteps");
    return collect(r, "metrics.trace_steps", NULL, trace_column, 1e-9, out);
}

static void invert(pdb_samples *s)
{
    size_t k = 0;
    s->total = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] > 0) {
            s->v[k] = 1.0 / s->v[i];
            s->total += s->v[k++];
        }
    s->n = k;
}

/* Throughput as the log reports it (tokens, samples or steps per second),
 * else steps per second from the step times. */
static int throughput_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    (void)m;
    static const char *const rates[] = {"tokens_per_s", "samples_per_s", "steps_per_s"};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        if (steplog_series(r, rates[i], out) != PDB_OK)
            return PDB_ERR;
        if (out->n) {
            size_t len = strlen(out->what);
            snprintf(out->what + len, sizeof out->what - len, " of %s", rates[i]);
            return PDB_OK;
        }
    }
    if (step_samples(r, "step_time", "dur_ns", out) != PDB_OK)
        return PDB_ERR;
    invert(out);
    size_t len = strlen(out->what);
    snprintf(out->what + len, sizeof out->what - len, ", as steps/s");
    out->unit = "/s";
    return PDB_OK;
}

static void list_add(char *buf, size_t cap, const char *name);

/* Per-step totals of a kernel, kernel type or op in a trace (column
 * time_ns or calls); absent when no step has a call. */
static int trace_step_totals(const pdb_metric_run *r, const char *query, const char *name,
                             const char *column, const char *what, pdb_samples *out)
{
    out->source = "trace steps";
    snprintf(out->what, sizeof out->what, "%s per ProfilerStep", what);
    pdb_samples calls = {0};
    if (collect(r, query, name, "calls", 1.0, &calls) != PDB_OK)
        return PDB_ERR;
    out->absent = calls.n > 0 && calls.total == 0;
    if (strcmp(column, "calls") == 0) {
        out->v = calls.v;
        out->n = calls.n;
        out->total = calls.total;
        return PDB_OK;
    }
    pdb_samples_free(&calls);
    return collect(r, query, name, column, 1e-9, out);
}

/* The SAMPLES of the rows of metrics.def. */
static int step_time_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    (void)m;
    return step_samples(r, "step_time", "dur_ns", out);
}

static int phase_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    return step_samples(r, m->name, trace_phase_column(m->name), out);
}

static int op_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    return trace_step_totals(r, "metrics.op_steps", m->name, "time_ns", "CPU time", out);
}

static int op_calls_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    return trace_step_totals(r, "metrics.op_steps", m->name, "calls", "calls", out);
}

/* Whether "kernel:name is full" was said already: the base, the test and
 * kernel-calls: resolve the same name; once is enough. */
static bool said_before(const char *name, const char *full)
{
    static char last[512];
    char now[sizeof last];
    snprintf(now, sizeof now, "%s\n%s", name, full);
    if (strcmp(now, last) == 0)
        return true;
    memcpy(last, now, sizeof last);
    return false;
}

/* Tables show kernels by short, cut names: kernel:NAME takes the full name,
 * the short form or a glob pattern (* ? [) of either. The one kernel of r
 * it matches (malloc'd in *full), said on stderr when it is not NAME as
 * given; several are refused, listed; none leaves NAME (a kernel the run
 * never ran counts 0 per step). */
/* Whether kernel name k is what kernel:given names: its short form, or
 * (a pattern) either form matching it. */
static bool kernel_matches(const char *k, const char *given, bool pattern)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_short_name(k, &b);
    const char *s = pdb_buf_str(&b);
    bool hit = strcmp(s, given) == 0 ||
               (pattern && (fnmatch(given, k, 0) == 0 || fnmatch(given, s, 0) == 0));
    pdb_buf_free(&b);
    return hit;
}

static int resolve_kernel(const pdb_metric_run *r, const char *name, char **full)
{
    sqlite3_stmt *st;
    if (prepare(r, "metrics.kernel_names", NULL, &st) != PDB_OK)
        return PDB_ERR;
    bool pattern = strpbrk(name, "*?[") != NULL;
    char found[1024] = "";
    int n = 0, step;
    *full = NULL;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        if (strcmp(k, name) == 0) { /* the full name itself wins */
            free(*full);
            *full = pdb_xstrdup(name);
            n = 1;
            break;
        }
        if (!kernel_matches(k, name, pattern))
            continue;
        if (n++ == 0)
            *full = pdb_xstrdup(k);
        if (n <= 10)
            list_add(found, sizeof found, k);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE && step != SQLITE_ROW) {
        free(*full);
        return pdb_db_fail(r->db, "database error");
    }
    if (n > 1) {
        free(*full);
        *full = NULL;
        return pdb_fail("kernel:%s matches %d kernels: %s (give more of the name)", name, n,
                        found);
    }
    if (!*full)
        *full = pdb_xstrdup(name);
    else if (strcmp(*full, name) != 0 && !said_before(name, *full)) {
        fprintf(stderr, "profdb: kernel:");
        pdb_fput_term(stderr, name);
        fprintf(stderr, " is the kernel ");
        pdb_fput_term(stderr, *full);
        fputc('\n', stderr);
    }
    return PDB_OK;
}

static int kernel_totals(const pdb_metric_run *r, const pdb_metric *m, const char *column,
                         const char *what, pdb_samples *out)
{
    char *full;
    if (resolve_kernel(r, m->name, &full) != PDB_OK)
        return PDB_ERR;
    int rc = trace_step_totals(r, "metrics.kernel_steps", full, column, what, out);
    free(full);
    return rc;
}

static int kernel_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    return kernel_totals(r, m, "time_ns", "GPU time", out);
}

static int kernel_calls_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    return kernel_totals(r, m, "calls", "launches", out);
}

static int kernel_type_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    return trace_step_totals(r, "metrics.kernel_type_steps", m->name, "time_ns", "GPU time",
                             out);
}

static int steplog_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    return steplog_series(r, m->name, out);
}

/* ---- py-spy -------------------------------------------------------------- */

int pdb_metric_pyspy_counts(const pdb_metric_run *r, const char *function,
                            pdb_pyspy_counts *out)
{
    memset(out, 0, sizeof *out);
    /* "NAME (FILE)", as report pyspy and diff print a function, or a bare name */
    size_t len = strlen(function);
    const char *open = len > 3 && function[len - 1] == ')' ? strstr(function, " (") : NULL;
    while (open && strstr(open + 1, " ("))
        open = strstr(open + 1, " (");
    sqlite3_stmt *st;
    if (pdb_compare_prepare(r->db, "metrics.pyspy_share", r->schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, r->run_id);
    if (open) {
        sqlite3_bind_text(st, 2, function, (int)(open - function), SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, open + 2, (int)(function + len - 1 - (open + 2)),
                          SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_text(st, 2, function, -1, SQLITE_TRANSIENT);
    }
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->samples = sqlite3_column_int64(st, 0);
        out->holding = sqlite3_column_int64(st, 1);
        out->files = sqlite3_column_int64(st, 2);
        out->weighted = sqlite3_column_int(st, 3) != 0;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(r->db, "database error");
}

/* One sample per run, the share in percent: trend follows it from run to
 * run; check tests the counts behind it (check_share.c). */
static int pyspy_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    pdb_pyspy_counts c;
    if (pdb_metric_pyspy_counts(r, m->name, &c) != PDB_OK)
        return PDB_ERR;
    out->source = "py-spy";
    snprintf(out->what, sizeof out->what, "share of the run's samples");
    if (c.samples == 0)
        return PDB_OK;
    out->v = pdb_xmalloc(sizeof *out->v);
    out->v[0] = 100.0 * (double)c.holding / (double)c.samples;
    out->n = 1;
    out->total = out->v[0];
    out->absent = c.files == 0;
    return PDB_OK;
}

int pdb_metric_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out)
{
    memset(out, 0, sizeof *out);
    assert(m->kind >= 0 && m->kind < PDB_METRIC_KINDS);
    return pdb_metric_rows[m->kind].samples(r, m, out);
}

void pdb_samples_free(pdb_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* Appends ", name" to buf while it fits (a list in a message). */
static void list_add(char *buf, size_t cap, const char *name)
{
    size_t len = strlen(buf);
    if (len + strlen(name) + 8 < cap)
        snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", name);
    else if (len + 6 < cap && strcmp(buf + len - 3, "...") != 0)
        snprintf(buf + len, cap - len, ", ...");
}

int pdb_metric_available(const pdb_metric_run *r, char *buf, size_t cap)
{
    char steps[256] = "", summary[256] = "";
    sqlite3_stmt *st;
    if (prepare(r, "metrics.available", NULL, &st) != PDB_OK)
        return PDB_ERR;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        bool per_step = strcmp((const char *)sqlite3_column_text(st, 1), "steps") == 0;
        list_add(per_step ? steps : summary, per_step ? sizeof steps : sizeof summary, name);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE)
        return pdb_db_fail(r->db, "database error");
    if (steps[0] && summary[0])
        snprintf(buf, cap, "it has per-step samples of: %s; and only run summaries or "
                           "validation records of: %s (not gateable: one value per run)",
                 steps, summary);
    else if (steps[0])
        snprintf(buf, cap, "it has per-step samples of: %s", steps);
    else if (summary[0])
        snprintf(buf, cap, "it holds no per-step values, only run summaries or validation "
                           "records (%s); gate on per-step logs or traces", summary);
    else
        snprintf(buf, cap, "it holds no step log values and no ProfilerSteps");
    return PDB_OK;
}
