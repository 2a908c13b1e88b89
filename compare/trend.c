/* trend.c: a metric's history over many runs, its change points and the
 * verdict of `trend --check` (see trend.h). The queries are in
 * compare/queries/trend.sql; the output is in trend_output.c.
 *
 * Memory holds one summary per run (a few hundred bytes) and, while a
 * missing summary is computed, one run's samples: never the samples of the
 * whole history.
 *
 * Why summaries are computed by trend and not at ingest: reading a metric's
 * samples scans the run's step-log values and sorts them, which on a
 * 200,000-step log with 7 metrics took 1.5 s for step_time and throughput,
 * half the 2.9 s of its ingest; every ingest would pay it, trend or not.
 * Computed on first use, each run's summary costs that once, when the
 * nightly trend first sees the run, and a trend over a thousand summarised
 * runs reads a thousand rows. */
#include "compare/trend.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/stats.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "compare/changepoint.h"
#include "compare/check.h"
#include "compare/queries.h"
#include "compare/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- summaries ------------------------------------------------------------ */

typedef struct {
    size_t samples;
    bool absent;           /* a kernel or op the run never ran */
    double median, q1, q3, mean, min, max;
    const char *unit;      /* the samples' own unit when the metric has none */
    const char *source;
    char what[96];
} summary;

/* One run's samples of m, summarised (they are freed before returning). */
static int summarize(sqlite3 *db, int64_t run_id, const pdb_metric *m, summary *out)
{
    pdb_metric_run r = {db, "main", run_id};
    pdb_samples s;
    if (pdb_metric_samples(&r, m, &s) != PDB_OK) {
        pdb_samples_free(&s);
        return PDB_ERR;
    }
    memset(out, 0, sizeof *out);
    out->samples = s.n;
    out->absent = s.absent;
    out->unit = s.unit;
    out->source = s.source;
    snprintf(out->what, sizeof out->what, "%s", s.what);
    if (s.n) {
        pdb_stats_sort(s.v, s.n);
        out->median = pdb_quantile_sorted(s.v, s.n, 0.5);
        out->q1 = pdb_quantile_sorted(s.v, s.n, 0.25);
        out->q3 = pdb_quantile_sorted(s.v, s.n, 0.75);
        out->min = s.v[0];
        out->max = s.v[s.n - 1];
        out->mean = s.total / (double)s.n;
    }
    pdb_samples_free(&s);
    return PDB_OK;
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

static int store(sqlite3 *db, sqlite3_stmt *st, int64_t run_id, const char *metric,
                 const summary *s)
{
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, metric, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, PDB_TREND_METHOD);
    sqlite3_bind_int64(st, 4, (int64_t)s->samples);
    const double v[] = {s->median, s->q1, s->q3, s->mean, s->min, s->max}; /* ?5 .. ?10 */
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        bind_real(st, 5 + (int)i, s->samples ? v[i] : NAN);
    bind_text(st, 11, s->unit);
    bind_text(st, 12, s->samples ? s->source : NULL);
    bind_text(st, 13, s->samples ? s->what : NULL);
    sqlite3_bind_int(st, 14, s->absent);
    return pdb_db_step_done(db, st);
}

/* Summaries computed while reading a history, stored afterwards. */
typedef struct {
    int64_t *run_id;
    summary *s;
    size_t n, cap;
} pending;

static void pending_add(pending *p, int64_t run_id, const summary *s)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->run_id = pdb_xrealloc(p->run_id, p->cap * sizeof *p->run_id);
        p->s = pdb_xrealloc(p->s, p->cap * sizeof *p->s);
    }
    p->run_id[p->n] = run_id;
    p->s[p->n++] = *s;
}

/* Ends the read transaction of a history, keeping the summaries computed
 * in it. A cache: when the database is read-only, or another process holds
 * the write lock or wrote since the read began (SQLite then refuses to turn
 * the read into a write: the summaries may be stale), nothing is stored and
 * trend goes on without waiting; the next trend computes them again. */
static void end_read(sqlite3 *db, const char *metric, const pending *p)
{
    int rc = PDB_OK;
    if (p->n && sqlite3_db_readonly(db, "main") == 0) {
        sqlite3_busy_timeout(db, 0);
        sqlite3_stmt *st = NULL;
        rc = pdb_compare_prepare(db, "trend.store", NULL, &st);
        for (size_t i = 0; rc == PDB_OK && i < p->n; i++)
            rc = store(db, st, p->run_id[i], metric, &p->s[i]);
        sqlite3_finalize(st);
        sqlite3_busy_timeout(db, PDB_DB_BUSY_MS);
    }
    if (rc != PDB_OK || pdb_db_commit(db) != PDB_OK)
        pdb_db_rollback(db);
    pdb_clear_error();
}

/* ---- the history ----------------------------------------------------------- */

static const char *col_text(sqlite3_stmt *st, int c)
{
    const char *s = (const char *)sqlite3_column_text(st, c);
    return s ? s : "";
}

/* The summary stored in the row of trend.runs (columns 4..14). */
static void stored_summary(sqlite3_stmt *st, summary *s)
{
    memset(s, 0, sizeof *s);
    s->samples = (size_t)sqlite3_column_int64(st, 4);
    s->absent = sqlite3_column_int(st, 14) != 0;
    s->median = sqlite3_column_double(st, 5);
    s->q1 = sqlite3_column_double(st, 6);
    s->q3 = sqlite3_column_double(st, 7);
    s->mean = sqlite3_column_double(st, 8);
    s->min = sqlite3_column_double(st, 9);
    s->max = sqlite3_column_double(st, 10);
}

static void fill_point(pdb_trend_point *p, sqlite3_stmt *st, const summary *s,
                       const char *source, const char *what)
{
    memset(p, 0, sizeof *p);
    p->run_id = sqlite3_column_int64(st, 0);
    p->run = pdb_xstrdup(col_text(st, 1));
    p->created_at = pdb_xstrdup(col_text(st, 2));
    p->order = pdb_xstrdup(sqlite3_column_type(st, 3) != SQLITE_NULL ? col_text(st, 3)
                                                                      : col_text(st, 2));
    p->samples = s->samples;
    p->median = s->median;
    p->q1 = s->q1;
    p->q3 = s->q3;
    p->change = -1;
    snprintf(p->source, sizeof p->source, "%s", source ? source : "");
    snprintf(p->what, sizeof p->what, "%s", what ? what : "");
}

static void add_point(pdb_trend *t, size_t *cap, sqlite3_stmt *st, const summary *s,
                      const char *source, const char *what)
{
    if (t->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        t->pt = pdb_xrealloc(t->pt, *cap * sizeof *t->pt);
    }
    fill_point(&t->pt[t->n++], st, s, source, what);
}

/* The metric's unit: its own, else the samples' (a step-log metric's). */
static void note_unit(pdb_trend *t, const char *unit)
{
    if (!t->unit && unit)
        t->unit = strcmp(unit, "s") == 0 ? "s" : strcmp(unit, "/s") == 0 ? "/s" : NULL;
    if (!t->unit && unit) {
        /* Units of step-log values (steplog_units.c); anything else shows as none. */
        static const char *const known[] = {"B", "%", "1/s", "W", "J", "calls", ""};
        for (size_t i = 0; i < sizeof known / sizeof *known; i++)
            if (strcmp(known[i], unit) == 0)
                t->unit = known[i];
    }
}

static int compare_points(const void *a, const void *b);
static void free_point(pdb_trend_point *p);

/* A run left out for want of samples: kept in t->newest_without when it is
 * the newest such run so far (in the order of the history). */
static void note_without(pdb_trend *t, sqlite3_stmt *st)
{
    pdb_trend_point p;
    const summary none = {0};
    fill_point(&p, st, &none, NULL, NULL);
    if (t->newest_without.run && compare_points(&p, &t->newest_without) <= 0) {
        free_point(&p);
        return;
    }
    free_point(&t->newest_without);
    t->newest_without = p;
}

/* Reads every run's row of trend.runs: its stored summary, or a fresh one. */
static int read_runs(sqlite3 *db, const pdb_trend_opts *o, pdb_trend *t, pending *p)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(db, "trend.runs", NULL, &st) != PDB_OK)
        return PDB_ERR;
    bind_text(st, 1, o->by);
    sqlite3_bind_text(st, 2, t->spec, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, PDB_TREND_METHOD);
    bind_text(st, 4, o->runs);
    size_t cap = 0;
    int step, rc = PDB_OK;
    while (rc == PDB_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (o->by && sqlite3_column_type(st, 3) == SQLITE_NULL) {
            t->unlabelled++;
            int64_t id = sqlite3_column_int64(st, 0);
            if (id > t->unlabelled_id) {
                free(t->unlabelled_run);
                t->unlabelled_id = id;
                t->unlabelled_run = pdb_xstrdup((const char *)sqlite3_column_text(st, 1));
            }
            continue;
        }
        summary s;
        const char *source, *what, *unit;
        if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
            stored_summary(st, &s);
            source = (const char *)sqlite3_column_text(st, 12);
            what = (const char *)sqlite3_column_text(st, 13);
            unit = (const char *)sqlite3_column_text(st, 11);
        } else {
            rc = summarize(db, sqlite3_column_int64(st, 0), &t->metric, &s);
            pending_add(p, sqlite3_column_int64(st, 0), &s);
            source = s.source;
            what = s.what;
            unit = s.unit;
        }
        if (rc != PDB_OK)
            break;
        if (!s.samples) {
            t->without++;
            note_without(t, st);
            continue;
        }
        note_unit(t, unit);
        add_point(t, &cap, st, &s, source, what);
        t->absent += s.absent;
    }
    sqlite3_finalize(st);
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(db, "database error");
    return rc;
}

/* Sort key of a --by value: numbers by value, before any text, which sorts
 * as text (ISO dates and times in time order). */
static bool as_number(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return *s && end != s && *end == '\0' && isfinite(*v);
}

static int compare_points(const void *a, const void *b)
{
    const pdb_trend_point *x = a, *y = b;
    double u, v;
    bool xn = as_number(x->order, &u), yn = as_number(y->order, &v);
    int c = xn && yn ? (u > v) - (u < v) : xn != yn ? (xn ? -1 : 1) : strcmp(x->order, y->order);
    if (!c)
        c = strcmp(x->created_at, y->created_at);
    if (!c)
        c = (x->run_id > y->run_id) - (x->run_id < y->run_id);
    return c;
}

static void free_point(pdb_trend_point *p)
{
    free(p->run);
    free(p->order);
    free(p->created_at);
}

/* Keeps the newest `last` runs. */
static void keep_last(pdb_trend *t, long last)
{
    if (last <= 0 || (size_t)last >= t->n)
        return;
    size_t drop = t->n - (size_t)last;
    for (size_t i = 0; i < drop; i++)
        free_point(&t->pt[i]);
    memmove(t->pt, t->pt + drop, (size_t)last * sizeof *t->pt);
    t->n = (size_t)last;
    t->older = drop;
}

/* ---- change points ----------------------------------------------------------- */

/* Change points of the first n medians and the level of each run (the
 * median of its segment's medians); returns how many, written to ch (room
 * for n / 2 + 1). */
static size_t detect(const pdb_trend *t, size_t n, double alpha, pdb_trend_change *ch,
                     double *level)
{
    double *x = pdb_xmalloc((n ? n : 1) * sizeof *x);
    pdb_change_point *cp = pdb_xmalloc((n / PDB_CP_MIN_SEGMENT + 2) * sizeof *cp);
    for (size_t i = 0; i < n; i++)
        x[i] = t->pt[i].median;
    pdb_cp_opts o = PDB_CP_OPTS_DEFAULT(alpha);
    size_t ncp = pdb_change_points(x, n, &o, cp);
    /* Segment s runs from bound[s] to bound[s + 1]. */
    size_t *bound = pdb_xmalloc((ncp + 2) * sizeof *bound);
    double *seg_level = pdb_xmalloc((ncp + 1) * sizeof *seg_level);
    bound[0] = 0;
    for (size_t i = 0; i < ncp; i++)
        bound[i + 1] = cp[i].at;
    bound[ncp + 1] = n;
    for (size_t s = 0; s <= ncp; s++) {
        assert(bound[s] < bound[s + 1] || n == 0);
        seg_level[s] = pdb_median(x + bound[s], bound[s + 1] - bound[s]);
        for (size_t i = bound[s]; i < bound[s + 1]; i++)
            level[i] = seg_level[s];
    }
    for (size_t i = 0; i < ncp; i++) {
        pdb_trend_change *c = &ch[i];
        c->at = cp[i].at;
        c->from = bound[i];
        c->to = bound[i + 2];
        c->before = seg_level[i];
        c->after = seg_level[i + 1];
        c->change_pct = c->before != 0 ? 100 * (c->after - c->before) / fabs(c->before) : NAN;
        c->worse = t->metric.higher_is_worse ? c->after > c->before : c->after < c->before;
        c->p = cp[i].p;
        c->tail = cp[i].tail;
    }
    free(x);
    free(cp);
    free(bound);
    free(seg_level);
    return ncp;
}

static void find_changes(pdb_trend *t, double alpha)
{
    double *level = pdb_xmalloc((t->n ? t->n : 1) * sizeof *level);
    t->ch = pdb_xmalloc((t->n / PDB_CP_MIN_SEGMENT + 2) * sizeof *t->ch);
    t->nch = detect(t, t->n, alpha, t->ch, level);
    for (size_t i = 0; i < t->n; i++)
        t->pt[i].level = level[i];
    for (size_t i = 0; i < t->nch; i++)
        t->pt[t->ch[i].at].change = (int)i;
    free(level);
}

/* Runs whose samples are other values than the newest run's (a step log's
 * interval means against another's per-step values, trace steps against a
 * log): the trend then compares unlike numbers, which the output says. */
static size_t count_mixed(const pdb_trend *t)
{
    size_t k = 0;
    const pdb_trend_point *last = &t->pt[t->n - 1];
    for (size_t i = 0; i + 1 < t->n; i++)
        k += strcmp(t->pt[i].source, last->source) != 0 || strcmp(t->pt[i].what, last->what) != 0;
    return k;
}

static int no_samples(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o)
{
    if (!t->without && o->runs)
        return pdb_fail("no run matches --runs '%s' (see 'profdb runs')", o->runs);
    int64_t newest;
    bool found;
    if (pdb_run_find(db, "main", NULL, &newest, &found) != PDB_OK)
        return PDB_ERR;
    if (!found || !t->without)
        return pdb_fail("no runs to show a trend of (see 'profdb runs')");
    char avail[512];
    pdb_metric_run r = {db, "main", newest};
    if (pdb_metric_available(&r, avail, sizeof avail) != PDB_OK)
        return PDB_ERR;
    return pdb_fail("metric '%s': no run has samples of it; the newest run: %s", t->spec, avail);
}

int pdb_trend_load(sqlite3 *db, const char *spec, const pdb_trend_opts *o, pdb_trend *t)
{
    memset(t, 0, sizeof *t);
    t->spec = pdb_xstrdup(spec);
    if (pdb_metric_parse(t->spec, &t->metric) != PDB_OK)
        return PDB_ERR;
    t->unit = t->metric.unit;
    pending p = {0};
    /* One read transaction: the summaries stored are those of what was read. */
    int rc = pdb_db_begin(db);
    if (rc == PDB_OK) {
        rc = read_runs(db, o, t, &p);
        if (rc == PDB_OK)
            end_read(db, t->spec, &p);
        else
            pdb_db_rollback(db);
    }
    free(p.run_id);
    free(p.s);
    if (rc != PDB_OK)
        return PDB_ERR;
    if (!t->unit)
        t->unit = "";
    if (t->n == 0) {
        if (t->unlabelled && !t->without)
            return pdb_fail("no run has the label '%s' (labels are given at ingest: "
                            "--label %s=VALUE)", o->by, o->by);
        return no_samples(db, t, o);
    }
    if (t->absent == t->n)
        return pdb_fail("metric '%s': none of the %zu runs has a call of '%s' in its "
                        "ProfilerSteps (names must match exactly; see 'profdb report kernels' "
                        "or 'ops')", t->spec, t->n, t->metric.name);
    qsort(t->pt, t->n, sizeof *t->pt, compare_points);
    if (t->newest_without.run && compare_points(&t->newest_without, &t->pt[t->n - 1]) < 0) {
        free_point(&t->newest_without);
        memset(&t->newest_without, 0, sizeof t->newest_without);
    }
    keep_last(t, o->last);
    t->mixed = count_mixed(t);
    find_changes(t, o->alpha);
    return PDB_OK;
}

void pdb_trend_free(pdb_trend *t)
{
    for (size_t i = 0; i < t->n; i++)
        free_point(&t->pt[i]);
    free(t->pt);
    free(t->ch);
    free(t->spec);
    free_point(&t->newest_without);
    free(t->unlabelled_run);
    memset(t, 0, sizeof *t);
}

/* ---- --check ------------------------------------------------------------------ */

/* Earlier histories --check looks back at, at most: a change point none of
 * the last PDB_TREND_LOOKBACK histories found counts as new. */
#define PDB_TREND_LOOKBACK 60

static bool matches(const pdb_trend_change *c, const pdb_trend_change *prev, size_t nprev)
{
    for (size_t i = 0; i < nprev; i++)
        if (prev[i].worse == c->worse && prev[i].at + 1 >= c->at && prev[i].at <= c->at + 1)
            return true;
    return false;
}

/* The first change point not found before the newest run, or -1. A change
 * point was found before when the history that ended at some earlier run
 * since it (yesterday's first) had one in the same direction at most one
 * run away. Looking further back than yesterday matters for short
 * histories: in twelve runs, three after a shift cannot reach significance
 * (C(12, 3) orderings), so a shift the newest-runs test flagged the night
 * it came can vanish for a few nights and be found again, which is not a
 * new one. */
static int first_new(const pdb_trend *t, double alpha)
{
    bool *seen = pdb_xcalloc(t->nch ? t->nch : 1, sizeof *seen);
    pdb_trend_change *prev = pdb_xmalloc((t->n / PDB_CP_MIN_SEGMENT + 2) * sizeof *prev);
    double *level = pdb_xmalloc(t->n * sizeof *level);
    for (size_t m = t->n - 1; m >= 1 && t->n - 1 - m < PDB_TREND_LOOKBACK; m--) {
        /* The history of the first m runs holds change point i when at < m. */
        size_t need = t->n;
        for (size_t i = 0; i < t->nch; i++)
            if (!seen[i] && t->ch[i].at + 1 < need)
                need = t->ch[i].at + 1;
        if (m < need)
            break; /* every change point seen, or none left that m runs hold */
        size_t nprev = detect(t, m, alpha, prev, level);
        for (size_t i = 0; i < t->nch; i++)
            if (!seen[i] && t->ch[i].at < m && matches(&t->ch[i], prev, nprev))
                seen[i] = true;
    }
    int first = -1;
    for (size_t i = 0; i < t->nch && first < 0; i++)
        if (!seen[i])
            first = (int)i;
    free(seen);
    free(prev);
    free(level);
    return first;
}

/* The error when the newest run gives --check nothing to gate (see
 * trend.h), else PDB_OK. */
static int nothing_to_gate(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o)
{
    if (t->newest_without.run) {
        char avail[512];
        pdb_metric_run r = {db, "main", t->newest_without.run_id};
        if (pdb_metric_available(&r, avail, sizeof avail) != PDB_OK)
            return PDB_ERR;
        return pdb_fail("trend --check: the newest run '%s' has no samples of '%s' (%s): nothing "
                        "to gate, and the older run '%s' is not judged in its place; ingest the "
                        "run again with its data (--replace), or leave it out with --runs",
                        t->newest_without.run, t->spec, avail, t->pt[t->n - 1].run);
    }
    int64_t newest_labelled = 0;
    for (size_t k = 0; k < t->n; k++)
        if (t->pt[k].run_id > newest_labelled)
            newest_labelled = t->pt[k].run_id;
    if (t->unlabelled_run && t->unlabelled_id > newest_labelled)
        return pdb_fail("trend --check: the most recently ingested run '%s' has no label '%s', "
                        "so --by cannot place it, and the run judged in its place would be "
                        "'%s'; ingest it again with the label (--replace --label %s=VALUE), or "
                        "leave it out with --runs", t->unlabelled_run, o->by,
                        t->pt[t->n - 1].run, o->by);
    const pdb_trend_point *last = &t->pt[t->n - 1];
    size_t i = 0;
    while (i + 1 < t->n && strcmp(t->pt[i].source, last->source) != 0)
        i++;
    if (t->n < 2 || i + 1 < t->n)
        return PDB_OK;
    return pdb_fail("trend --check: the newest run '%s' has samples of '%s' only from %s (%s), "
                    "none of the %zu runs before it from there (the one before: %s, %s): "
                    "nothing comparable to gate; ingest the run again with the inputs it lacks "
                    "(--replace), or leave it out with --runs", last->run, t->spec, last->source,
                    last->what, t->n - 1, t->pt[t->n - 2].source, t->pt[t->n - 2].what);
}

/* A history too short for change points (fewer than PDB_CP_MIN_HISTORY + 1
 * runs) is no evidence of "no change": the newest run is judged against the
 * one before it as `profdb check` judges two runs (per-step samples, the
 * limit, two-sided Mann-Whitney), and a single run is inconclusive. */
static int short_history(sqlite3 *db, const pdb_trend *t, double limit_pct,
                         pdb_trend_verdict *v)
{
    if (t->n < 2) {
        v->inconclusive = true;
        snprintf(v->reason, sizeof v->reason, "%zu run: nothing to compare the newest run "
                 "with", t->n);
        return PDB_OK;
    }
    const pdb_trend_point *prev = &t->pt[t->n - 2], *last = &t->pt[t->n - 1];
    pdb_cmp_run base = {db, "main", prev->run, prev->run_id, NULL};
    pdb_cmp_run test = {db, "main", last->run, last->run_id, NULL};
    pdb_check_run run = {.alpha = PDB_ALPHA, .min_samples = 2};
    pdb_check_result r = {0};
    pdb_buf spec = PDB_BUF_INIT;
    pdb_buf_addf(&spec, "%s=%.17g", t->spec, limit_pct);
    int rc = pdb_check_parse_limit(pdb_buf_str(&spec), &r);
    if (rc == PDB_OK)
        rc = pdb_check_metric(&base, &test, &run, &r);
    if (rc == PDB_OK) {
        v->regression = r.status == PDB_CHECK_FAIL;
        v->inconclusive = r.status == PDB_CHECK_INCONCLUSIVE;
        v->from = r.cmp.base_median;
        v->to = r.cmp.test_median;
        v->change_pct = r.cmp.change_pct;
        pdb_buf run_name = PDB_BUF_INIT;
        pdb_utf8_clean(&run_name, prev->run, strlen(prev->run), PDB_UTF8_CONTROLS);
        snprintf(v->reason, sizeof v->reason, "%zu runs: too few for change points (at least "
                 "%d); the newest run against the one before ('%.120s'), as 'profdb check' "
                 "does: %.640s", t->n, PDB_CP_MIN_HISTORY + 1, pdb_buf_str(&run_name), r.reason);
        pdb_buf_free(&run_name);
    }
    free((char *)r.metric.spec);
    pdb_buf_free(&spec);
    return rc;
}

int pdb_trend_check(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o, double limit_pct,
                    pdb_trend_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->limit_pct = limit_pct;
    v->first_new = -1;
    v->to = t->n ? t->pt[t->n - 1].level : NAN;
    v->from = v->change_pct = NAN;
    if (nothing_to_gate(db, t, o) != PDB_OK)
        return PDB_ERR;
    if (t->n < PDB_CP_MIN_HISTORY + 1)
        return short_history(db, t, limit_pct, v);
    v->first_new = first_new(t, o->alpha);
    if (v->first_new < 0) {
        snprintf(v->reason, sizeof v->reason, "no change point is new with the newest run "
                 "(%zu found in %zu runs)", t->nch, t->n);
        return PDB_OK;
    }
    const pdb_trend_change *c = &t->ch[v->first_new];
    v->from = c->before;
    v->change_pct = v->from != 0 ? 100 * (v->to - v->from) / fabs(v->from) : NAN;
    double worse_pct = t->metric.higher_is_worse ? v->change_pct : -v->change_pct;
    bool beyond = isnan(v->change_pct) ? (t->metric.higher_is_worse ? v->to > v->from
                                                                    : v->to < v->from)
                                       : worse_pct > limit_pct;
    v->regression = beyond;
    const char *how = c->at == t->n - 1 ? "at the newest run"
                                        : "starting earlier, found with the newest run";
    pdb_buf run = PDB_BUF_INIT;
    pdb_utf8_clean(&run, t->pt[c->at].run, strlen(t->pt[c->at].run), PDB_UTF8_CONTROLS);
    char p[32];
    pdb_format_p(c->p, p, sizeof p);
    snprintf(v->reason, sizeof v->reason, "new change point %s ('%.120s', p=%s); level %s by "
             "%.1f%% since, limit %g%%", how, pdb_buf_str(&run), p,
             worse_pct > 0 ? "worse" : "better", fabs(worse_pct), limit_pct);
    pdb_buf_free(&run);
    return PDB_OK;
}
