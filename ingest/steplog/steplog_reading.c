/* steplog_reading.c: what a step-log ingest understood, said and stored.
 *
 * Earlier rounds fixed the log families they were shown and the next ones
 * failed silently: a log ingested with exit 0 and no usable step time, or
 * with per-epoch counters colliding, looked like any other. The reading
 * makes what the reader understood visible (steplog_reading.h): gathered
 * while reading through small hooks (the counter of each step record, the
 * lines that held values), then completed from the stored values (which
 * series times the steps, and how finely; what gives throughput), printed
 * as one line, checked for weakness (warnings, exit 0) and stored as a row
 * of steplog_readings. Memory is bounded: a few counter texts and one
 * small map of record groups (kind, rank, loader). The SQL reads only this
 * source's series and at most SAMPLE values. */
#include "ingest/steplog/steplog_reading.h"
#include "ingest/queries.h"
#include "ingest/steplog/steplog.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/strutil.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNTERS 4        /* distinct counter texts kept */
#define COUNTER_TEXT 64   /* bytes of a counter text kept */
#define MAX_GROUPS 4096   /* (kind, rank, loader) groups followed for collisions */
#define SAMPLE 2000       /* step-time values read to judge resolution and windows */
#define PREFIX_NAMES 4    /* prefix-like metric names listed */

struct pdb_sl_reading {
    struct {
        char text[COUNTER_TEXT];
        int64_t line, records;
    } counter[COUNTERS];
    int ncounters, last_counter;
    pdb_buf last_counter_key;    /* what pdb_steplog_saw_counter was given last */
    int64_t other_counters;      /* records whose counter text did not fit */
    bool per_epoch;              /* some step was not its printed counter */
    int64_t epoch_total;         /* M of epoch x M + N, when printed */
    bool epochs_from_one;        /* ... (epoch - 1) x M + N */
    int64_t counted_record;      /* the last record whose counter was seen */
    /* from the writer */
    int64_t last_line, lines_used, merged_lines, last_record;
    int64_t with_step;           /* step records with a step */
    bool any_epoch, any_wall;
    double epoch_min, epoch_max;
    /* step records whose step repeats or goes back, per (kind, rank, loader) */
    pdb_strmap *groups;
    int64_t *group_step;
    int ngroups;
    int64_t repeats, backs;
    struct {                     /* the group of the last record followed */
        const char *kind;
        int64_t rank;
        char loader[64], raw[64];
        size_t rawlen;
        int64_t group;           /* -1: none */
    } last;
    int64_t followed_record;     /* the last record followed */
    bool any_step;
    int64_t step_min, step_max;  /* of training records */
    int64_t back_line, back_step, back_from; /* the first step back */
    int64_t gap, gap_seen;       /* steps between a group's records (the log
                                  * interval), and how often it was seen */
    pdb_buf key;
};

static pdb_sl_reading *reading(pdb_steplog *w)
{
    if (!w->reading) {
        w->reading = pdb_xcalloc(1, sizeof *w->reading);
        w->reading->last.group = -1;
    }
    return w->reading;
}

void pdb_sl_reading_free(pdb_sl_reading *r)
{
    if (!r)
        return;
    if (r->groups)
        pdb_strmap_free(r->groups);
    free(r->group_step);
    pdb_buf_free(&r->key);
    pdb_buf_free(&r->last_counter_key);
    free(r);
}

/* ---- hooks ------------------------------------------------------------------ */

static void counter_text(pdb_steplog *w, const char *text, size_t len)
{
    pdb_sl_reading *r = reading(w);
    if (r->counted_record == w->record && w->record)
        return;
    r->counted_record = w->record;
    if (len >= COUNTER_TEXT)
        len = COUNTER_TEXT - 1;
    int i = r->last_counter;
    if (i < r->ncounters && strlen(r->counter[i].text) == len &&
        memcmp(r->counter[i].text, text, len) == 0) {
        r->counter[i].records++;
        return;
    }
    for (i = 0; i < r->ncounters; i++)
        if (strlen(r->counter[i].text) == len && memcmp(r->counter[i].text, text, len) == 0)
            break;
    if (i == r->ncounters) {
        if (r->ncounters == COUNTERS) {
            r->other_counters++;
            pdb_buf_reset(&r->last_counter_key); /* not one of the kept ones */
            return;
        }
        r->ncounters++;
        memcpy(r->counter[i].text, text, len);
        r->counter[i].text[len] = '\0';
        r->counter[i].line = w->line;
    }
    r->counter[i].records++;
    r->last_counter = i;
}

static bool same_counter(pdb_sl_reading *r, pdb_steplog *w);

void pdb_steplog_saw_counter_text(pdb_steplog *w, const char *text, size_t len)
{
    pdb_sl_reading *r = reading(w);
    pdb_buf_reset(&r->key);
    pdb_buf_addc(&r->key, 't');
    pdb_buf_add(&r->key, text, len);
    if (!same_counter(r, w))
        counter_text(w, text, len);
}

/* The fields of c that make its text, as bytes to compare. */
static void counter_key(pdb_buf *k, const pdb_sl_counter *c)
{
    pdb_buf_reset(k);
    pdb_buf_addc(k, c->progress ? 'p' : 'c');
    pdb_buf_add(k, &c->nl, sizeof c->nl);
    if (c->name)
        pdb_buf_add(k, c->name, c->nl);
    if (c->epoch)
        pdb_buf_add(k, c->epoch, c->el);
}

/* Whether r->key is the key of the last counter seen, which is then
 * counted for the current record: most records repeat the counter of the
 * one before, and formatting its text each time cost more than the rest of
 * the reading. Else r->key becomes the last key. */
static bool same_counter(pdb_sl_reading *r, pdb_steplog *w)
{
    if (r->ncounters && r->last_counter_key.len == r->key.len &&
        memcmp(r->last_counter_key.p, r->key.p, r->key.len) == 0) {
        if (r->counted_record != w->record || !w->record) {
            r->counted_record = w->record;
            r->counter[r->last_counter].records++;
        }
        return true;
    }
    pdb_buf_reset(&r->last_counter_key);
    pdb_buf_add(&r->last_counter_key, r->key.p, r->key.len);
    return false;
}

void pdb_steplog_saw_counter_named(pdb_steplog *w, const char *fmt, const char *name, size_t nl)
{
    pdb_sl_reading *r = reading(w);
    pdb_buf_reset(&r->key);
    pdb_buf_add(&r->key, &fmt, sizeof fmt);
    pdb_buf_add(&r->key, name, nl);
    if (same_counter(r, w))
        return;
    char t[COUNTER_TEXT];
    snprintf(t, sizeof t, fmt, (int)(nl < 40 ? nl : 40), name);
    counter_text(w, t, strlen(t));
}

void pdb_steplog_saw_counter(pdb_steplog *w, const pdb_sl_counter *c)
{
    pdb_sl_reading *r = reading(w);
    if (c->printed != c->step)
        r->per_epoch = true;
    if (c->per_epoch > 0) {
        r->epoch_total = c->per_epoch;
        r->epochs_from_one = c->from_one;
    }
    counter_key(&r->key, c);
    if (same_counter(r, w))
        return;
    char t[COUNTER_TEXT];
    int n = 0;
    if (c->epoch && c->el)
        n = snprintf(t, sizeof t, "\"%.*s E, ", (int)(c->el < 24 ? c->el : 24), c->epoch);
    else
        n = snprintf(t, sizeof t, "\"");
    if (c->name && c->nl && c->epoch_first)
        snprintf(t + n, sizeof t - (size_t)n, "%.*s E/N\" (E stays while N grows: epoch, step)",
                 (int)(c->nl < 32 ? c->nl : 32), c->name);
    else if (c->name && c->nl)
        snprintf(t + n, sizeof t - (size_t)n, "%.*s N%s\"", (int)(c->nl < 32 ? c->nl : 32),
                 c->name, c->progress ? "/M" : "");
    else
        snprintf(t + n, sizeof t - (size_t)n, "N/M\"");
    counter_text(w, t, strlen(t));
}

void pdb_steplog_saw_lines(pdb_steplog *w, int64_t n)
{
    reading(w)->merged_lines += n;
}

static int64_t group_of(pdb_sl_reading *r, pdb_steplog *w, int64_t rank, const char *raw,
                        size_t rawlen);

/* A training record's step against the last one of its group (kind,
 * rank, loader, and the name of its first training value: Megatron's
 * golden values are one record per metric and step, metric after metric).
 * A counter that goes back more than once is per-epoch counters read as one
 * (a resumed run goes back once); a record that repeats the step before it
 * is a second record of that step (an epoch summary, a line printed twice)
 * unless most do. */
static void follow_step(pdb_sl_reading *r, pdb_steplog *w, const char *raw, size_t rawlen)
{
    int64_t rank = w->has_rank ? w->rank : INT64_MIN;
    if (!r->any_step || w->step < r->step_min)
        r->step_min = w->step;
    if (!r->any_step || w->step > r->step_max)
        r->step_max = w->step;
    r->any_step = true;
    /* a log's records are mostly of one group: the last one is checked first
     * (kinds are literals, so one pointer is one kind) */
    int64_t i = -1;
    if (r->last.group >= 0 && r->last.kind == w->kind && r->last.rank == rank &&
        r->last.rawlen == rawlen && memcmp(r->last.raw, raw, rawlen) == 0 &&
        strcmp(r->last.loader, w->loader) == 0)
        i = r->last.group;
    else if ((i = group_of(r, w, rank, raw, rawlen)) < 0)
        return; /* the group's first record */
    int64_t gap = w->step - r->group_step[i];
    if (gap > 0 && gap == r->gap) {
        r->gap_seen++;
    } else if (gap > 0 && r->gap_seen < 2) {
        r->gap = gap;
        r->gap_seen = 1;
    }
    if (w->step == r->group_step[i]) {
        r->repeats++;
    } else if (w->step < r->group_step[i]) {
        if (r->backs++ == 0) {
            r->back_line = w->line;
            r->back_step = w->step;
            r->back_from = r->group_step[i];
        }
    }
    r->group_step[i] = w->step;
}

/* The group of a record in the map, or -1 when it is new (then added, with
 * the record's step); remembered as the last group when its raw name fits. */
static int64_t group_of(pdb_sl_reading *r, pdb_steplog *w, int64_t rank, const char *raw,
                        size_t rawlen)
{
    pdb_buf *key = &r->key;
    pdb_buf_reset(key);
    pdb_buf_add(key, w->kind ? w->kind : "", w->kind ? strlen(w->kind) + 1 : 1);
    pdb_buf_add(key, &rank, sizeof rank);
    pdb_buf_add(key, w->loader, strlen(w->loader) + 1);
    pdb_buf_add(key, raw, rawlen);
    if (!r->groups)
        r->groups = pdb_strmap_new();
    int64_t i;
    bool seen = pdb_strmap_get(r->groups, key->p, key->len, &i);
    if (!seen) {
        if (r->ngroups == MAX_GROUPS) {
            pdb_strmap_free(r->groups);
            r->groups = pdb_strmap_new();
            r->ngroups = 0;
        }
        i = r->ngroups++;
        r->group_step = pdb_xrealloc(r->group_step, (size_t)r->ngroups * sizeof *r->group_step);
        pdb_strmap_put(r->groups, key->p, key->len, i);
        r->group_step[i] = w->step;
    }
    r->last.group = -1;
    if (rawlen <= sizeof r->last.raw && strlen(w->loader) < sizeof r->last.loader) {
        r->last.group = i;
        r->last.kind = w->kind;
        r->last.rank = rank;
        memcpy(r->last.raw, raw, rawlen);
        r->last.rawlen = rawlen;
        strcpy(r->last.loader, w->loader);
    }
    return seen ? i : -1;
}

void pdb_sl_reading_value(pdb_steplog *w, const char *split, const char *raw, size_t rawlen)
{
    pdb_sl_reading *r = reading(w);
    if (w->line != r->last_line) {
        r->last_line = w->line;
        r->lines_used++;
    }
    if (!w->is_step)
        return;
    if (w->has_step && r->followed_record != w->record &&
        (!split || strcmp(split, "train") == 0)) {
        r->followed_record = w->record;
        follow_step(r, w, raw, rawlen);
    }
    if (r->last_record == w->record)
        return;
    r->last_record = w->record;
    if (w->has_epoch && isfinite(w->epoch)) {
        if (!r->any_epoch || w->epoch < r->epoch_min)
            r->epoch_min = w->epoch;
        if (!r->any_epoch || w->epoch > r->epoch_max)
            r->epoch_max = w->epoch;
        r->any_epoch = true;
    }
    r->with_step += w->has_step;
    r->any_wall |= w->has_wall;
}

/* ---- completing the reading ----------------------------------------------------- */

typedef struct {
    pdb_buf step_time, throughput, epochs, warnings, summary, line;
    const char *agg;             /* of the step-time source, or NULL */
    char agg_buf[32];
    double resolution;           /* seconds, or NAN */
    double typical_window, step_mean;
    bool from_timestamps;
} finding;

/* Prepares query name of ingest/queries/steplog_reading.sql, ?1 bound. */
static int prepare(pdb_steplog *w, const char *name, sqlite3_stmt **st)
{
    if (pdb_ingest_prepare(w->src->db, name, st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(*st, 1, w->src->source_id);
    return PDB_OK;
}

/* Decimal digits x shows, up to 9: the k for which x * 10^k is whole, to
 * within the error eps that x carries (a timestamp near 1.7e9 s, less its
 * whole seconds, is off by up to 2.4e-7). */
static int digits(double x, double eps)
{
    double m = fabs(x), e = 4 * eps;
    for (int k = 0; k < 9; k++, m *= 10, e *= 10)
        if (fabs(m - nearbyint(m)) <= fmax(1e-9 * (m > 1 ? m : 1), e))
            return k;
    return 9;
}

/* "10 ms", "1 s", "5 us". */
static void add_duration(pdb_buf *b, double s)
{
    if (s >= 1)
        pdb_buf_addf(b, "%.3g s", s);
    else if (s >= 1e-3)
        pdb_buf_addf(b, "%.3g ms", s * 1e3);
    else if (s >= 1e-6)
        pdb_buf_addf(b, "%.3g us", s * 1e6);
    else
        pdb_buf_addf(b, "%.3g ns", s * 1e9);
}

static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The most frequent window of a sorted sample. */
static int64_t mode_window(const int64_t *win, int n)
{
    int64_t best = 1;
    int best_n = 0;
    for (int i = 0; i < n;) {
        int k = i;
        while (k < n && win[k] == win[i])
            k++;
        if (k - i > best_n) {
            best_n = k - i;
            best = win[i];
        }
        i = k;
    }
    return best;
}

/* Resolution (seconds) of what was printed for the series raw/agg: the
 * finest digit its values show; for an interval mean that may be a
 * window's total divided by the window (Marian's 'Time' over 2000 updates),
 * the coarser of its own digits and the total's over the typical window;
 * for timestamps, the digits of the records' times. Also the typical window
 * and the mean step time of the sample. */
static int sample_series(pdb_steplog *w, const char *raw, const char *agg, bool wall,
                         finding *f)
{
    sqlite3_stmt *st;
    if (prepare(w, "steplog_reading.sample", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 2, raw, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, agg, -1, SQLITE_TRANSIENT);
    int64_t *win = pdb_xmalloc(SAMPLE * sizeof *win);
    int n = 0, k = 0, kw = 0, r;
    double base = NAN, sum = 0, wsum = 0;
    bool interval = strcmp(agg, "interval_mean") == 0;
    while ((r = sqlite3_step(st)) == SQLITE_ROW && n < SAMPLE) {
        double v = sqlite3_column_double(st, 0);
        int64_t wn = sqlite3_column_type(st, 1) == SQLITE_NULL ? 1 : sqlite3_column_int64(st, 1);
        if (sqlite3_column_type(st, 0) == SQLITE_NULL || wn < 1)
            continue;
        win[n++] = wn;
        sum += v * (double)wn;
        wsum += (double)wn;
        if (wall) {
            if (sqlite3_column_type(st, 2) == SQLITE_NULL)
                continue;
            double t = sqlite3_column_double(st, 2);
            if (isnan(base))
                base = floor(t);
            int d = digits(t - base, fabs(t) * DBL_EPSILON);
            k = d > k ? d : k;
        } else {
            int d = digits(v, 0), dw = digits(v * (double)wn, 0);
            k = d > k ? d : k;
            kw = dw > kw ? dw : kw;
        }
    }
    int rc = r == SQLITE_ROW || r == SQLITE_DONE ? PDB_OK : pdb_db_fail(w->src->db, "reading");
    pdb_db_release(st);
    if (n > 0) {
        qsort(win, (size_t)n, sizeof *win, cmp_int64);
        f->typical_window = (double)mode_window(win, n);
        f->resolution = pow(10, -k);
        if (interval) /* the larger of: a mean printed, a window's total divided */
            f->resolution = fmax(f->resolution, pow(10, -kw) / f->typical_window);
        f->step_mean = wsum > 0 ? sum / wsum : NAN;
    }
    free(win);
    return rc;
}

static bool has_series(pdb_steplog *w, const char *raw, bool *out)
{
    sqlite3_stmt *st;
    if (prepare(w, "steplog_reading.has_series", &st) != PDB_OK)
        return false;
    sqlite3_bind_text(st, 2, raw, -1, SQLITE_TRANSIENT);
    *out = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
    pdb_db_release(st);
    return true;
}

/* Where step times come from, in words: "logged field 'time'", "window mean
 * of 'Time' over 2000 steps", "cumulative clock 'train_time'", "timestamp
 * deltas". */
static int step_time_source(pdb_steplog *w, finding *f)
{
    sqlite3_stmt *st;
    f->resolution = NAN;
    f->typical_window = 1;
    f->step_mean = NAN;
    if (prepare(w, "steplog_reading.step_time", &st) != PDB_OK)
        return PDB_ERR;
    int r = sqlite3_step(st);
    if (r != SQLITE_ROW) {
        pdb_db_release(st);
        if (r != SQLITE_DONE)
            return pdb_db_fail(w->src->db, "reading");
        pdb_buf_adds(&f->step_time, "none (no step time, no timestamps)");
        return PDB_OK;
    }
    char raw[200];
    snprintf(raw, sizeof raw, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(f->agg_buf, sizeof f->agg_buf, "%s", (const char *)sqlite3_column_text(st, 1));
    f->agg = f->agg_buf;
    pdb_db_release(st);
    const char *clock;
    size_t rl = strlen(raw);
    pdb_buf *b = &f->step_time;
    int rc;
    if (strcmp(raw, "timestamp delta") == 0) {
        f->from_timestamps = true;
        rc = sample_series(w, raw, f->agg, true, f);
        pdb_buf_addf(b, "timestamp deltas over %.0f step%s", f->typical_window,
                     f->typical_window == 1 ? "" : "s");
    } else if (pdb_skip_prefix(raw, "delta ", &clock)) {
        double win;
        rc = sample_series(w, raw, f->agg, false, f);
        win = f->typical_window;
        /* the clock's own digits are the resolution */
        if (rc == PDB_OK)
            rc = sample_series(w, clock, "cumulative", false, f);
        f->typical_window = win;
        pdb_buf_addf(b, "cumulative clock '%s', differences over %.0f step%s", clock, win,
                     win == 1 ? "" : "s");
    } else if (strcmp(f->agg, "interval_mean") == 0) {
        rc = sample_series(w, raw, f->agg, false, f);
        char window[220];
        bool divided = false;
        if (pdb_ends_with_icase(raw, rl, "/step_time")) {
            snprintf(window, sizeof window, "%.*s (window)", (int)(rl - 10), raw);
            has_series(w, window, &divided);
        }
        if (divided)
            pdb_buf_addf(b, "window time '%.*s' over %.0f steps, divided by them", (int)(rl - 10),
                         raw, f->typical_window);
        else
            pdb_buf_addf(b, "window mean of '%s' over %.0f step%s", raw, f->typical_window,
                         f->typical_window == 1 ? "" : "s");
    } else {
        rc = sample_series(w, raw, f->agg, false, f);
        if (strcmp(f->agg, "point") == 0)
            pdb_buf_addf(b, "logged field '%s'", raw);
        else if (strcmp(f->agg, "window_median") == 0)
            pdb_buf_addf(b, "window median of '%s' over %.0f step%s", raw,
                         f->typical_window, f->typical_window == 1 ? "" : "s");
        else if (strcmp(f->agg, "moving_avg") == 0)
            pdb_buf_addf(b, "moving average '%s'", raw);
        else
            pdb_buf_addf(b, "running mean '%s' only (no per-step time for the gate)", raw);
    }
    if (rc == PDB_OK && isfinite(f->resolution)) {
        pdb_buf_adds(b, ", resolution ");
        add_duration(b, f->resolution);
    }
    return rc;
}

static int throughput_source(pdb_steplog *w, finding *f)
{
    sqlite3_stmt *st;
    if (prepare(w, "steplog_reading.throughput", &st) != PDB_OK)
        return PDB_ERR;
    int r = sqlite3_step(st);
    pdb_buf *b = &f->throughput;
    if (r == SQLITE_ROW) {
        const char *raw = (const char *)sqlite3_column_text(st, 0);
        const char *metric = (const char *)sqlite3_column_text(st, 1);
        if (pdb_skip_prefix(metric, "consumed_", NULL))
            pdb_buf_addf(b, "counter '%s' (%s) over the step time", raw, metric);
        else if (strcmp(metric, "batch_size") == 0)
            pdb_buf_addf(b, "batch size '%s' x steps/s", raw);
        else
            pdb_buf_addf(b, "logged '%s' (%s%s)", raw, metric,
                         strstr(metric, "per_gpu") ? ": per GPU" : "");
    } else if (r == SQLITE_DONE) {
        pdb_buf_adds(b, f->agg ? "steps/s from the step time" : "none");
    }
    pdb_db_release(st);
    return r == SQLITE_ROW || r == SQLITE_DONE ? PDB_OK : pdb_db_fail(w->src->db, "reading");
}

static void epoch_structure(const pdb_sl_reading *r, finding *f)
{
    pdb_buf *b = &f->epochs;
    if (r->per_epoch && r->epoch_total > 0 && r->epochs_from_one)
        pdb_buf_addf(b, "per-epoch counter made global: (epoch - 1) x %lld + N (epochs "
                        "counted from 1)", (long long)r->epoch_total);
    else if (r->per_epoch && r->epoch_total > 0)
        pdb_buf_addf(b, "per-epoch counter made global: epoch x %lld + N (epochs counted "
                        "from 0)", (long long)r->epoch_total);
    else if (r->per_epoch)
        pdb_buf_adds(b, "per-epoch counter made global: each restart continues after the "
                        "previous epoch's last step (and one interval, for a counter from "
                        "0)");
    else if (r->with_step == 0)
        pdb_buf_adds(b, r->any_epoch ? "epoch counter only, no step" : "no step counter");
    else
        pdb_buf_adds(b, "global counter");
    if (r->any_epoch)
        pdb_buf_addf(b, "; epochs %g to %g", r->epoch_min, r->epoch_max);
    else if (r->with_step)
        pdb_buf_adds(b, "; no epochs");
}

/* ---- log prefixes stored as metrics ------------------------------------------- */

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Whether a raw metric name looks like part of a log line's prefix rather
 * than a measured quantity: a glog severity and date (I0627), a source
 * file (solver.cpp, train.py:120), a logger or host and a line or rank
 * (olmo.train:979, host:0), a log level, a date or a time of day, a
 * number. */
static bool prefix_like(const char *s)
{
    size_t n = strlen(s);
    static const char *const levels[] = {"INFO", "WARNING", "WARN", "ERROR", "DEBUG",
                                         "CRITICAL", "FATAL", "TRACE", NULL};
    static const char *const exts[] = {".py", ".cc", ".cpp", ".c", ".h", ".hpp", ".cu",
                                       ".java", ".go", ".rs", ".js", NULL};
    if (n == 5 && strchr("IWEF", s[0]) && all_digits(s + 1, 4))
        return true;
    for (int i = 0; levels[i]; i++)
        if (pdb_skip_prefix(s, levels[i], NULL) &&
            (n == strlen(levels[i]) || strchr(":]", s[strlen(levels[i])])))
            return true;
    const char *colon = strrchr(s, ':');
    size_t stem = colon && all_digits(colon + 1, strlen(colon + 1)) ? (size_t)(colon - s) : n;
    for (int i = 0; exts[i]; i++)
        if (pdb_ends_with_icase(s, stem, exts[i]) && stem > strlen(exts[i]))
            return true;
    if (stem < n && stem > 0) /* NAME:NUMBER: a logger's line, a host's rank */
        return true;
    /* (a name of digits alone is a column's: the general reader keeps no
     * letterless name, and a table's class columns are digits, R
     * randomForest's "ntree  OOB  1  2  3") */
    /* a date or a clock: digits with '-', '/', ':' */
    size_t d = 0, sep = 0;
    for (size_t i = 0; i < n; i++) {
        d += isdigit((unsigned char)s[i]) != 0;
        sep += strchr("-/:.", s[i]) != NULL;
    }
    return n >= 5 && d + sep == n && d >= 4 && sep >= 2;
}

static int prefix_names(pdb_steplog *w, pdb_buf *out, int *count)
{
    sqlite3_stmt *st;
    *count = 0;
    if (prepare(w, "steplog_reading.names", &st) != PDB_OK)
        return PDB_ERR;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *raw = (const char *)sqlite3_column_text(st, 0);
        if (!prefix_like(raw))
            continue;
        if ((*count)++ < PREFIX_NAMES) {
            pdb_buf_adds(out, *count > 1 ? ", '" : "'");
            pdb_utf8_clean(out, raw, strlen(raw) < 40 ? strlen(raw) : 40, PDB_UTF8_CONTROLS);
            pdb_buf_addc(out, '\'');
        }
    }
    pdb_db_release(st);
    return r == SQLITE_DONE ? PDB_OK : pdb_db_fail(w->src->db, "reading");
}

/* ---- weak readings -------------------------------------------------------------- */

static void warn_add(finding *f, const char *fmt, ...) PDB_PRINTF(2, 3);

static void warn_add(finding *f, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (f->warnings.len)
        pdb_buf_adds(&f->warnings, "; ");
    pdb_buf_adds(&f->warnings, tmp);
}

static int weak_reading(pdb_steplog *w, const pdb_sl_reading *r, bool lines, int64_t used,
                        finding *f)
{
    int64_t steps = w->step_records;
    if (steps < 3)
        warn_add(f, "%lld step records from %lld lines (fewer than 3)", (long long)steps,
                 (long long)w->lineno);
    else if (lines && w->lineno >= 50 && used * 20 < w->lineno)
        warn_add(f, "%lld step records from %lld lines: %lld lines used, most lines unread",
                 (long long)steps, (long long)w->lineno, (long long)used);
    if (f->from_timestamps && f->resolution >= 1) {
        double span = isfinite(f->step_mean) ? f->step_mean * f->typical_window : NAN;
        if (isfinite(span) && span > 0)
            warn_add(f, "step times from timestamps at %g s resolution (+-%g s on a typical "
                        "window of %.0f step(s), %.3g s: %.0f%%)",
                     f->resolution, f->resolution, f->typical_window, span,
                     100 * f->resolution / span);
        else
            warn_add(f, "step times from timestamps at %g s resolution", f->resolution);
    }
    /* a step's time that would put hours between log lines printed every
     * N steps is likely the interval's (GluonNLP's "time=163.24" every 250
     * steps): said, as nothing in the log tells the two apart */
    if (!f->from_timestamps && f->agg && strcmp(f->agg, "point") == 0 && r->gap >= 10 &&
        r->gap_seen >= 2 && isfinite(f->step_mean) && f->step_mean * (double)r->gap > 3600)
        warn_add(f, "a step time of %.3g s with records %lld steps apart puts %.1f h between "
                    "log lines: if it is the time of those %lld steps, a --pattern field "
                    "{NAME:window} says so",
                 f->step_mean, (long long)r->gap, f->step_mean * (double)r->gap / 3600,
                 (long long)r->gap);
    if (w->hf_bar_warn[0])
        warn_add(f, "%s", w->hf_bar_warn);
    /* a CSV or JSON Lines log without a step, epoch or time column: records in
     * log order only (the general reader says it on its own) */
    if (!w->gen && steps >= 3 && r->with_step == 0 && !r->any_epoch && !r->any_wall)
        warn_add(f, "no step record has a step number (%lld records in log order)",
                 (long long)steps);
    if (r->backs >= 2)
        warn_add(f, "colliding counters: the step went back %lld times (first at line %lld: "
                    "step %lld after %lld): several counters, or per-epoch counters, read as one",
                 (long long)r->backs, (long long)r->back_line, (long long)r->back_step,
                 (long long)r->back_from);
    else if (r->repeats >= 3 && r->repeats * 2 > r->with_step)
        warn_add(f, "colliding counters: %lld of %lld step records repeat the step before "
                    "them", (long long)r->repeats, (long long)r->with_step);
    pdb_buf names = PDB_BUF_INIT;
    int count;
    if (prefix_names(w, &names, &count) != PDB_OK) {
        pdb_buf_free(&names);
        return PDB_ERR;
    }
    if (count)
        warn_add(f, "%d metric%s look%s like log prefixes (%s%s)", count, count > 1 ? "s" : "",
                 count > 1 ? "" : "s", pdb_buf_str(&names), count > PREFIX_NAMES ? ", ..." : "");
    pdb_buf_free(&names);
    return PDB_OK;
}

/* ---- saying it and storing it ------------------------------------------------------- */

static const char *flavor_counter(const char *flavor);

/* The main counter: the one most records were counted by; of equals, the
 * flavor's own (Megatron's iteration line over DeepSpeed's step= beside it). */
static int main_counter(const pdb_sl_reading *r, const char *flavor)
{
    int best = -1;
    const char *own = flavor_counter(flavor);
    for (int i = 0; i < r->ncounters; i++)
        if (best < 0 || r->counter[i].records > r->counter[best].records ||
            (r->counter[i].records == r->counter[best].records && own &&
             strstr(r->counter[i].text, own) && !strstr(r->counter[best].text, own)))
            best = i;
    return best;
}

/* The counter part: "\"Up. N\" (line 12, 37 records)", the main one first. */
static void counter_words(const pdb_sl_reading *r, const char *flavor, pdb_buf *b,
                          bool with_line)
{
    int best = main_counter(r, flavor);
    if (best < 0) {
        pdb_buf_adds(b, "none");
        return;
    }
    for (int k = 0, shown = 0; k < r->ncounters; k++) {
        int i = k == 0 ? best : (k <= best ? k - 1 : k);
        pdb_buf_adds(b, shown++ ? ", " : "");
        pdb_utf8_clean(b, r->counter[i].text, strlen(r->counter[i].text), PDB_UTF8_CONTROLS);
        if (with_line && r->counter[i].line > 0)
            pdb_buf_addf(b, " (line %lld", (long long)r->counter[i].line);
        else if (with_line)
            pdb_buf_adds(b, " (");
        if (with_line)
            pdb_buf_addf(b, "%s%lld records)", r->counter[i].line > 0 ? ", " : "",
                         (long long)r->counter[i].records);
    }
    if (r->other_counters)
        pdb_buf_addf(b, " and %lld records of other counters", (long long)r->other_counters);
}

/* What each flavor counts by, for flavors that do not report it. */
static const char *flavor_counter(const char *flavor)
{
    static const struct {
        const char *flavor, *counter;
    } t[] = {
        {"megatron", "iteration N/ M"}, {"deepspeed", "step=N"},
        {"nanogpt", "iter N:, step:N/M"}, {"torchtitan", "step: N"},
        {"hf-trainer", "'step' key, or dict order x logging_steps; bar N/T"},
        {"hf-trainer-state", "log_history[].step"}, {"megatron-golden", "values: {\"N\": v}"},
        {"kv", "step: N lines"}, {"rectflow", "Profiling Report (Step N)"},
        {"mae", "=== Epoch N Profiling Summary ==="}, {"nvidia-smi", "none: samples by time"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].flavor, flavor) == 0)
            return t[i].counter;
    return NULL;
}

/* The step-time source in a word or two, for the summary. */
static const char *compact_source(const finding *f)
{
    static const struct {
        const char *agg, *words;
    } t[] = {
        {"point", "logged"}, {"interval_mean", "window mean"},
        {"window_median", "window median"}, {"moving_avg", "moving average"},
        {"running_mean", "running mean only"},
    };
    if (!f->agg)
        return "none";
    if (strcmp(f->agg, "derived") == 0)
        return f->from_timestamps ? "timestamps" : "clock";
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].agg, f->agg) == 0)
            return t[i].words;
    return f->agg;
}

static int store(pdb_steplog *w, const pdb_sl_reading *r, const finding *f, const char *counter,
                 bool lines, int64_t used)
{
    sqlite3_stmt *st;
    if (prepare(w, "steplog_reading.add", &st) != PDB_OK)
        return PDB_ERR;
    int best = main_counter(r, w->flavor);
    sqlite3_bind_int64(st, 2, w->src->run_id);
    sqlite3_bind_text(st, 3, w->flavor, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, counter, -1, SQLITE_STATIC);
    if (best >= 0 && r->counter[best].line > 0)
        sqlite3_bind_int64(st, 5, r->counter[best].line);
    sqlite3_bind_int64(st, 6, w->step_records);
    sqlite3_bind_text(st, 7, pdb_buf_str(&f->step_time), -1, SQLITE_STATIC);
    if (f->agg)
        sqlite3_bind_text(st, 8, f->agg, -1, SQLITE_STATIC);
    if (isfinite(f->resolution))
        sqlite3_bind_double(st, 9, f->resolution);
    sqlite3_bind_text(st, 10, pdb_buf_str(&f->throughput), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 11, pdb_buf_str(&f->epochs), -1, SQLITE_STATIC);
    if (lines) {
        sqlite3_bind_int64(st, 12, w->lineno);
        sqlite3_bind_int64(st, 13, used);
    }
    if (f->warnings.len)
        sqlite3_bind_text(st, 14, pdb_buf_str(&f->warnings), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 15, pdb_buf_str(&f->summary), -1, SQLITE_STATIC);
    if (w->pattern_rules)
        sqlite3_bind_text(st, 18, w->pattern_rules, -1, SQLITE_STATIC);
    if (r->any_step) {
        sqlite3_bind_int64(st, 16, r->step_min);
        sqlite3_bind_int64(st, 17, r->step_max);
    }
    int rc = pdb_db_step_done(w->src->db, st);
    pdb_db_release(st);
    return rc;
}

static void finding_free(finding *f)
{
    pdb_buf_free(&f->step_time);
    pdb_buf_free(&f->throughput);
    pdb_buf_free(&f->epochs);
    pdb_buf_free(&f->warnings);
    pdb_buf_free(&f->summary);
    pdb_buf_free(&f->line);
}

int pdb_sl_reading_finish(pdb_steplog *w, bool lines, bool quiet)
{
    pdb_sl_reading *r = reading(w);
    finding f = {.agg = NULL};
    int64_t used = r->lines_used + r->merged_lines;
    if (used > w->lineno)
        used = w->lineno;
    int rc = step_time_source(w, &f);
    if (rc == PDB_OK)
        rc = throughput_source(w, &f);
    epoch_structure(r, &f);
    if (rc == PDB_OK)
        rc = weak_reading(w, r, lines, used, &f);
    pdb_buf counter = PDB_BUF_INIT;
    if (r->ncounters)
        counter_words(r, w->flavor, &counter, false);
    else if (flavor_counter(w->flavor))
        pdb_buf_adds(&counter, flavor_counter(w->flavor));
    /* the summary: what `profdb runs` shows in one column */
    pdb_buf_addf(&f.summary, "%s; %s; %lld steps; step time: %s", w->flavor,
                 counter.len ? pdb_buf_str(&counter) : "no counter", (long long)w->step_records,
                 compact_source(&f));
    if (isfinite(f.resolution)) {
        pdb_buf_adds(&f.summary, " (");
        add_duration(&f.summary, f.resolution);
        pdb_buf_addc(&f.summary, ')');
    }
    if (f.warnings.len)
        pdb_buf_adds(&f.summary, "; WEAK");
    if (w->hf_bar_note[0] && f.step_time.len)
        pdb_buf_addf(&f.step_time, ", %s", w->hf_bar_note);
    if (w->table_note[0] && f.step_time.len)
        pdb_buf_addf(&f.step_time, "; %s", w->table_note);
    if (rc == PDB_OK)
        rc = store(w, r, &f, counter.len ? pdb_buf_str(&counter) : NULL, lines, used);
    if (rc == PDB_OK && !quiet) {
        pdb_buf *b = &f.line;
        if (w->pattern_origin)
            pdb_buf_addf(b, "%s: reading (pattern of %s): step counter ", w->src->path,
                         w->pattern_origin);
        else
            pdb_buf_addf(b, "%s: reading (%s): step counter ", w->src->path,
                         strcmp(w->flavor, "text") == 0 ? "general text reader" : w->flavor);
        if (r->ncounters)
            counter_words(r, w->flavor, b, true);
        else
            pdb_buf_adds(b, counter.len ? pdb_buf_str(&counter) : "none");
        pdb_buf_addf(b, "; %lld step records", (long long)w->step_records);
        if (r->any_step)
            pdb_buf_addf(b, " (steps %lld to %lld)", (long long)r->step_min,
                         (long long)r->step_max);
        pdb_buf_addf(b, "; step time: %s; throughput: %s; epochs: %s", pdb_buf_str(&f.step_time),
                     pdb_buf_str(&f.throughput), pdb_buf_str(&f.epochs));
        if (lines && w->lineno > 0)
            pdb_buf_addf(b, "; lines used: %lld of %lld (%.0f%%)", (long long)used,
                         (long long)w->lineno, 100.0 * (double)used / (double)w->lineno);
        pdb_buf clean = PDB_BUF_INIT;
        pdb_utf8_clean(&clean, pdb_buf_str(b), b->len, PDB_UTF8_CONTROLS);
        fprintf(stderr, "profdb: %s\n", pdb_buf_str(&clean));
        pdb_buf_free(&clean);
    }
    /* warned even when quiet, as every warning is */
    if (rc == PDB_OK && f.warnings.len)
        pdb_warn("%s: weak reading: %s; see 'profdb runs --reading', teach the format with "
                 "--pattern (docs/steplogs.md) or force a flavor with --format steplog:FLAVOR",
                 w->src->path, pdb_buf_str(&f.warnings));
    pdb_buf_free(&counter);
    finding_free(&f);
    return rc;
}
