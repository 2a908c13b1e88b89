/* queue_pass.c: the CUDA launch queue length per stream (analysis_queue):
 * how many operations the CPU has issued to a stream that the GPU has not
 * yet started, as a histogram of the values the series takes and the time
 * spent at each.
 *
 * The series. Each GPU event with a launch adds +1 at the launch's start
 * and -1 at its own start, on its stream; the points are ordered by time,
 * launches before GPU events at equal times (HTA's order under a stable
 * sort), and the running sum is the queue length. A point lasts until the
 * stream's next point (the last one: not at all). The histogram (value ->
 * points, duration) fixes HTA's describe() of the series and the time spent
 * at or above any queue limit (get_time_spent_blocked_on_full_queue).
 *
 * Streaming. The scan gives rows in start order, but a launch's stream is
 * only known when its GPU event comes by, later. So points wait in a small
 * sorted buffer per stream until no launch still unresolved can come before
 * them: a FIFO of the launches in flight (and of GPU events that came
 * before their launch) gives the watermark, the earliest time a point may
 * still appear at. Points before the watermark are final and leave the
 * buffer. Memory is the launches in flight and the points in the window
 * from the oldest of them to now, not the trace. A launch stuck in flight
 * past LATE_AFTER entries stops holding the watermark back; its points are
 * then added where the stream's series has got to and counted as late
 * (analysis_queue_ranks.late_launches; 0 on every corpus trace).
 *
 * Both modes run from the same rows: exact (every kernel, memcpy and memset
 * whose correlation has a CPU-side event; streams per device) and hta
 * (HTA's launch names, event set, rounding and dropped last step; streams
 * by number alone, as HTA groups them). */
#include "analyze/hta.h"
#include "analyze/idmap.h"
#include "analyze/series.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define LATE_AFTER (1 << 20) /* launches in flight before the oldest counts as late */
#define SMALL_NEG 64               /* queue lengths in [-64, 1024) are written first, ascending */
#define SMALL_VALUES (SMALL_NEG + 1024)
#define FINALIZE_BATCH 256          /* points buffered before they are made final */

enum { EXACT, HTA, MODES };

/* A point of a stream's series: +1 (launch) or -1 (GPU event start). */
typedef struct {
    int64_t t;
    int delta;
} point;

/* Points of one kind waiting to be final, by time: each kind arrives
 * nearly in order (GPU starts in scan order, launches in the order their
 * stream runs them), so a late one is inserted from the back. */
typedef struct {
    int64_t *t;
    size_t head, n, cap;
} tqueue;

typedef struct {
    char key[80];
    size_t klen;
    sqlite3_value *device, *stream;  /* as written (exact) / NULL, HTA's number */
    int64_t hta_stream;
    tqueue q[2];                     /* not yet final: launches (+1), GPU starts (-1) */
    bool any;                        /* a final point has been seen */
    int64_t value, prev_t;           /* after the last final point */
    pdb_idmap hist;                  /* value -> index in points/durs/values */
    int64_t *points, *durs, *values; /* as many as the values seen: a stream costs a few
                                        hundred bytes, not an array per possible value */
    size_t nvalues, vcap;
} stream_acc;

typedef struct {
    stream_acc *v;
    size_t n, cap;
    pdb_idmap ints;                  /* (pid, stream) or HTA's stream -> index + 1 */
    int64_t recent_key[2];           /* the two streams found last */
    int64_t recent[2];               /* their index + 1 (0: empty) */
} stream_set;

/* What is known of a launch, kept until its GPU events have come by. */
typedef struct {
    int64_t ts, hta_ts;
    bool hta_ok;        /* an HTA launch name, kept by HTA */
} launch_info;

/* A GPU event seen before its launch (clock skew, equal start times). */
typedef struct {
    sqlite3_value *pid, *stream;
    int64_t ts, hta_start;
    bool exact_ok, hta_gpu;
} early_gpu;

/* An entry of the FIFO of things that hold the watermark. */
typedef struct {
    int64_t ts;
    bool resolved;
} fifo_entry;

typedef struct {
    int64_t corr, seq;   /* seq: its FIFO entry */
    int remaining;       /* GPU events still to come (launch known) */
    bool launch_known;
    launch_info launch;
    early_gpu *early;    /* GPU events waiting for the launch */
    int nearly;
} flight;

struct pdb_queue_acc {
    pdb_hta_mode hta;
    stream_set streams[MODES];
    /* Launches in flight: correlation -> index in flights. */
    pdb_idmap by_corr;
    flight *flights;
    size_t nflights, fcap;
    int64_t *free_slots;
    size_t nfree, free_cap;
    /* FIFO by seq: entries from fifo_head to fifo_tail. */
    fifo_entry *fifo;
    int64_t fifo_head, fifo_tail;
    size_t fifo_cap;
    int64_t min_buffered;            /* no buffered point is earlier */
    int64_t buffered;                /* points waiting */
    int64_t late;
    /* Spans for relative durations: exact (all slices), hta (kept events). */
    bool any[MODES];
    int64_t first[MODES], last[MODES];
};

pdb_queue_acc *pdb_queue_acc_new(const pdb_hta_mode *hta)
{
    pdb_queue_acc *a = pdb_xcalloc(1, sizeof *a);
    a->hta = *hta;
    a->min_buffered = INT64_MAX;
    return a;
}

/* HTA's runtime launch events (get_runtime_launch_events_mask); decided
 * once per name by the scan's classification (pdb_name_info.hta_launch). */
bool pdb_queue_launch_name(const char *name)
{
    static const char *const names[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
        "cudaMemcpyAsync", "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution",
        "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
        "hipMemcpyWithStream"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

/* Streams --------------------------------------------------------------- */

static stream_acc *stream_lookup(stream_set *s, sqlite3_value *device, sqlite3_value *stream,
                                 int64_t hta_stream);

/* Integer keys (the usual case) are found in a map before any key text is
 * built. */
static stream_acc *stream_for(stream_set *s, sqlite3_value *device, sqlite3_value *stream,
                              int64_t hta_stream)
{
    bool ints = !device || (sqlite3_value_type(device) == SQLITE_INTEGER &&
                            sqlite3_value_type(stream) == SQLITE_INTEGER);
    int64_t key = device ? pdb_idmap_pair(sqlite3_value_int64(device), sqlite3_value_int64(stream))
                         : hta_stream, i;
    if (ints) {
        for (int k = 0; k < 2; k++)
            if (s->recent[k] && s->recent_key[k] == key)
                return &s->v[s->recent[k] - 1];
        if (!pdb_idmap_get(&s->ints, key, &i)) {
            i = (int64_t)(stream_lookup(s, device, stream, hta_stream) - s->v) + 1;
            pdb_idmap_put(&s->ints, key, i);
        }
        s->recent_key[1] = s->recent_key[0];
        s->recent[1] = s->recent[0];
        s->recent_key[0] = key;
        s->recent[0] = i;
        return &s->v[i - 1];
    }
    return stream_lookup(s, device, stream, hta_stream);
}

static stream_acc *stream_lookup(stream_set *s, sqlite3_value *device, sqlite3_value *stream,
                                 int64_t hta_stream)
{
    char key[80];
    size_t klen = 0;
    if (device) {
        size_t n1, n2;
        pdb_value_key_cut(device, key, 32, &n1);
        key[n1] = '\x1f';
        pdb_value_key_cut(stream, key + n1 + 1, 32, &n2);
        klen = n1 + 1 + n2;
    } else {
        memcpy(key, &hta_stream, sizeof hta_stream);
        klen = sizeof hta_stream;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].klen == klen && memcmp(s->v[i].key, key, klen) == 0)
            return &s->v[i];
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = pdb_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    stream_acc *st = &s->v[s->n++];
    *st = (stream_acc){.klen = klen, .hta_stream = hta_stream};
    memcpy(st->key, key, klen);
    if (device) {
        st->device = sqlite3_value_dup(device);
        st->stream = sqlite3_value_dup(stream);
    }
    return st;
}

static void tq_add(tqueue *q, int64_t t)
{
    if (q->head > 0 && q->head * 2 >= q->n) {
        memmove(q->t, q->t + q->head, (q->n - q->head) * sizeof *q->t);
        q->n -= q->head;
        q->head = 0;
    }
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 64;
        q->t = pdb_xrealloc(q->t, q->cap * sizeof *q->t);
    }
    size_t i = q->n++;
    while (i > q->head && t < q->t[i - 1]) {
        q->t[i] = q->t[i - 1];
        i--;
    }
    q->t[i] = t;
}

/* Adds a point: +1 (a launch) or -1 (a GPU event start). */
static void buffer_add(pdb_queue_acc *a, stream_acc *s, int64_t t, int delta)
{
    tq_add(&s->q[delta > 0 ? 0 : 1], t);
    a->buffered++;
    if (t < a->min_buffered)
        a->min_buffered = t;
}

static void hist_add(stream_acc *s, int64_t value, int64_t points, int64_t dur)
{
    int64_t i;
    if (!pdb_idmap_get(&s->hist, value, &i)) {
        if (s->nvalues == s->vcap) {
            s->vcap = s->vcap ? s->vcap * 2 : 16;
            s->points = pdb_xrealloc(s->points, s->vcap * sizeof *s->points);
            s->durs = pdb_xrealloc(s->durs, s->vcap * sizeof *s->durs);
            s->values = pdb_xrealloc(s->values, s->vcap * sizeof *s->values);
        }
        i = (int64_t)s->nvalues++;
        s->points[i] = s->durs[i] = 0;
        s->values[i] = value;
        pdb_idmap_put(&s->hist, value, i);
    }
    s->points[i] += points;
    s->durs[i] += dur;
}

/* A final point: the previous one lasted until now. */
static void final_point(stream_acc *s, const point *p)
{
    if (s->any)
        hist_add(s, s->value, 0, p->t - s->prev_t);
    s->any = true;
    s->value += p->delta;
    s->prev_t = p->t;
    hist_add(s, s->value, 1, 0);
}

/* Points before the watermark w are final. */
static void finalize(pdb_queue_acc *a, int64_t w)
{
    if (w <= a->min_buffered)
        return;
    int64_t min = INT64_MAX;
    for (int m = 0; m < MODES; m++)
        for (size_t i = 0; i < a->streams[m].n; i++) {
            stream_acc *s = &a->streams[m].v[i];
            /* Merge the two kinds: launches first at equal times. */
            tqueue *l = &s->q[0], *g = &s->q[1];
            for (;;) {
                bool hl = l->head < l->n && l->t[l->head] < w;
                bool hg = g->head < g->n && g->t[g->head] < w;
                if (!hl && !hg)
                    break;
                point p;
                if (hl && (!hg || l->t[l->head] <= g->t[g->head]))
                    p = (point){l->t[l->head++], +1};
                else
                    p = (point){g->t[g->head++], -1};
                final_point(s, &p);
                a->buffered--;
            }
            for (int k = 0; k < 2; k++)
                if (s->q[k].head < s->q[k].n && s->q[k].t[s->q[k].head] < min)
                    min = s->q[k].t[s->q[k].head];
        }
    a->min_buffered = min;
}

/* Launches in flight ----------------------------------------------------- */

static int64_t fifo_push(pdb_queue_acc *a, int64_t ts)
{
    if ((size_t)(a->fifo_tail - a->fifo_head) == a->fifo_cap) {
        size_t cap = a->fifo_cap ? a->fifo_cap * 2 : 256;
        fifo_entry *f = pdb_xmalloc(cap * sizeof *f);
        for (int64_t s = a->fifo_head; s < a->fifo_tail; s++)
            f[(size_t)s & (cap - 1)] = a->fifo[(size_t)s & (a->fifo_cap - 1)];
        free(a->fifo);
        a->fifo = f;
        a->fifo_cap = cap;
    }
    a->fifo[(size_t)a->fifo_tail & (a->fifo_cap - 1)] = (fifo_entry){ts, false};
    return a->fifo_tail++;
}

static fifo_entry *fifo_at(pdb_queue_acc *a, int64_t seq)
{
    return &a->fifo[(size_t)seq & (a->fifo_cap - 1)];
}

/* The earliest time a point can still be added at: now, or the oldest
 * launch (or early GPU event) in flight. */
static int64_t watermark(pdb_queue_acc *a, int64_t now)
{
    while (a->fifo_head < a->fifo_tail && fifo_at(a, a->fifo_head)->resolved)
        a->fifo_head++;
    while (a->fifo_tail - a->fifo_head > LATE_AFTER) {
        fifo_at(a, a->fifo_head)->resolved = true; /* stuck: see the file comment */
        a->late++;
        while (a->fifo_head < a->fifo_tail && fifo_at(a, a->fifo_head)->resolved)
            a->fifo_head++;
    }
    if (a->fifo_head < a->fifo_tail && fifo_at(a, a->fifo_head)->ts < now)
        return fifo_at(a, a->fifo_head)->ts;
    return now;
}

static flight *flight_get(pdb_queue_acc *a, int64_t corr)
{
    int64_t i;
    return pdb_idmap_get(&a->by_corr, corr, &i) ? &a->flights[i] : NULL;
}

static flight *flight_new(pdb_queue_acc *a, int64_t corr, int64_t ts)
{
    int64_t i;
    if (a->nfree)
        i = a->free_slots[--a->nfree];
    else {
        if (a->nflights == a->fcap) {
            a->fcap = a->fcap ? a->fcap * 2 : 64;
            a->flights = pdb_xrealloc(a->flights, a->fcap * sizeof *a->flights);
        }
        i = (int64_t)a->nflights++;
    }
    a->flights[i] = (flight){.corr = corr, .seq = fifo_push(a, ts)};
    pdb_idmap_put(&a->by_corr, corr, i);
    return &a->flights[i];
}

static void flight_done(pdb_queue_acc *a, flight *f)
{
    fifo_at(a, f->seq)->resolved = true;
    for (int i = 0; i < f->nearly; i++) {
        sqlite3_value_free(f->early[i].pid);
        sqlite3_value_free(f->early[i].stream);
    }
    free(f->early);
    pdb_idmap_del(&a->by_corr, f->corr);
    if (a->nfree == a->free_cap) {
        a->free_cap = a->free_cap ? a->free_cap * 2 : 64;
        a->free_slots = pdb_xrealloc(a->free_slots, a->free_cap * sizeof *a->free_slots);
    }
    a->free_slots[a->nfree++] = f - a->flights;
}

/* The points of one GPU event whose launch is known. */
static void emit(pdb_queue_acc *a, const launch_info *l, const early_gpu *g)
{
    if (g->exact_ok) {
        stream_acc *s = stream_for(&a->streams[EXACT], g->pid, g->stream, 0);
        buffer_add(a, s, l->ts, +1);
        buffer_add(a, s, g->ts, -1);
    }
    if (g->hta_gpu && l->hta_ok) {
        int64_t hs = pdb_hta_stream(g->stream);
        stream_acc *s = stream_for(&a->streams[HTA], NULL, NULL, hs);
        buffer_add(a, s, l->hta_ts, +1);
        buffer_add(a, s, g->hta_start, -1);
    }
}

/* Rows ------------------------------------------------------------------- */

/* HTA keeps X events with a category other than Trace. */
static bool hta_event(const pdb_row *r)
{
    return r->ph_x && r->cat && !r->cat->trace;
}

static int64_t hta_start(const pdb_queue_acc *a, int64_t ts)
{
    return a->hta.round ? pdb_hta_ceil(ts) : ts;
}

/* hta_start(ts) < cutoff, rounding only near the cut (rounding moves a time
 * by less than 2 us). */
static bool before_cut(const pdb_queue_acc *a, int64_t ts)
{
    if (ts < a->hta.cutoff - 2 * PDB_HTA_US)
        return true;
    if (ts > a->hta.cutoff + 2 * PDB_HTA_US)
        return false;
    return hta_start(a, ts) < a->hta.cutoff;
}

static void span(pdb_queue_acc *a, int m, int64_t t)
{
    if (!a->any[m] || t < a->first[m])
        a->first[m] = t;
    if (!a->any[m] || t > a->last[m])
        a->last[m] = t;
    a->any[m] = true;
}

/* HTA's get_trace_duration: the span of the kept events' starts. A GPU
 * event (GPUKernelFilter) is kept with its launch; anything else when it
 * starts before the dropped last step. Rounding is monotone, so the raw
 * first and last starts are kept and rounded when written; the rounding
 * of a start is only needed to compare it with the cut. */
static void hta_span(pdb_queue_acc *a, const pdb_row *r)
{
    if (!hta_event(r))
        return;
    if (a->hta.drop_last) {
        bool kernel = (r->has_corr && r->corr >= 0 && pdb_hta_stream(r->stream) >= 0) ||
                      r->name->device_sync;
        if (kernel ? !r->has_launch || !before_cut(a, r->launch) : !before_cut(a, r->ts))
            return;
    }
    span(a, HTA, r->ts);
}

/* A CPU-side row that is the first of its correlation, with launches > 0. */
static void add_launch(pdb_queue_acc *a, const pdb_row *r)
{
    int64_t start = hta_start(a, r->ts);
    launch_info l = {r->ts, start,
                     hta_event(r) && r->name->hta_launch &&
                         (!a->hta.drop_last || before_cut(a, r->ts))};
    int remaining = (int)r->launches;
    flight *f = flight_get(a, r->corr);
    if (f) { /* its GPU events that came first */
        assert(!f->launch_known);
        for (int i = 0; i < f->nearly; i++)
            emit(a, &l, &f->early[i]);
        remaining -= f->nearly;
        flight_done(a, f);
    }
    if (remaining <= 0)
        return;
    f = flight_new(a, r->corr, r->ts);
    f->launch_known = true;
    f->launch = l;
    f->remaining = remaining;
}

static void add_gpu(pdb_queue_acc *a, const pdb_row *r)
{
    bool queued = !r->cat || r->cat->hta_idle; /* kernels, copies, sets */
    early_gpu g = {r->pid, r->stream, r->ts, hta_start(a, r->ts), queued,
                   hta_event(r) && pdb_hta_stream(r->stream) != -1};
    flight *f = flight_get(a, r->corr);
    if (f && f->launch_known) {
        emit(a, &f->launch, &g);
        if (--f->remaining <= 0)
            flight_done(a, f);
        return;
    }
    if (!r->has_launch)
        return; /* launched by nothing in the trace: not queued */
    if (!f)
        f = flight_new(a, r->corr, r->ts);
    f->early = pdb_xrealloc(f->early, (size_t)(f->nearly + 1) * sizeof *f->early);
    g.pid = sqlite3_value_dup(r->pid);
    g.stream = sqlite3_value_dup(r->stream);
    f->early[f->nearly++] = g;
}

void pdb_queue_acc_add(pdb_queue_acc *a, const pdb_row *r)
{
    span(a, EXACT, r->ts);
    hta_span(a, r);
    if (r->launches > 0)
        add_launch(a, r);
    else if (r->gpu && r->has_corr)
        add_gpu(a, r);
    if (a->buffered >= FINALIZE_BATCH) /* points are final in any order of batches */
        finalize(a, watermark(a, r->ts));
}

/* Writing ---------------------------------------------------------------- */

static int write_value(sqlite3_stmt *st, int m, const stream_acc *s, int64_t value,
                       int64_t points, int64_t dur)
{
    if (m == EXACT) {
        sqlite3_bind_value(st, 4, s->device);
        sqlite3_bind_value(st, 5, s->stream);
    } else {
        sqlite3_bind_null(st, 4);
        sqlite3_bind_int64(st, 5, s->hta_stream);
    }
    sqlite3_bind_int64(st, 6, value);
    sqlite3_bind_int64(st, 7, points);
    sqlite3_bind_int64(st, 8, dur);
    return pdb_db_step_done(sqlite3_db_handle(st), st);
}

static bool small_value(int64_t v)
{
    return v >= -SMALL_NEG && v < SMALL_VALUES - SMALL_NEG;
}

static int cmp_pair(const void *x, const void *y)
{
    const int64_t *a = x, *b = y; /* (value, index) */
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* A stream's rows in the order they always had: the values in the small
 * range ascending (those with points or time), then the others in the
 * order first seen. */
static int write_stream(sqlite3_stmt *st, int m, stream_acc *s)
{
    int64_t *order = pdb_xmalloc((s->nvalues + 1) * 2 * sizeof *order);
    size_t n = 0;
    for (size_t v = 0; v < s->nvalues; v++)
        if (small_value(s->values[v])) {
            order[2 * n] = s->values[v];
            order[2 * n + 1] = (int64_t)v;
            n++;
        }
    qsort(order, n, 2 * sizeof *order, cmp_pair);
    int rc = PDB_OK;
    for (size_t k = 0; k < n && rc == PDB_OK; k++) {
        size_t v = (size_t)order[2 * k + 1];
        if (s->points[v] || s->durs[v])
            rc = write_value(st, m, s, s->values[v], s->points[v], s->durs[v]);
    }
    free(order);
    for (size_t v = 0; v < s->nvalues && rc == PDB_OK; v++)
        if (!small_value(s->values[v]))
            rc = write_value(st, m, s, s->values[v], s->points[v], s->durs[v]);
    return rc;
}

static int write_mode(pdb_queue_acc *a, sqlite3_stmt *st, int m)
{
    for (size_t i = 0; i < a->streams[m].n; i++)
        if (write_stream(st, m, &a->streams[m].v[i]) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

int pdb_queue_acc_write(pdb_queue_acc *a, sqlite3 *db, int64_t run_id, int rank)
{
    static const char *const modes[] = {"exact", "hta"};
    finalize(a, watermark(a, INT64_MAX));
    sqlite3_stmt *st, *sp;
    if (pdb_db_prepare(db, "INSERT INTO analysis_queue VALUES (?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    if (pdb_db_prepare(db, "INSERT INTO analysis_queue_ranks VALUES (?,?,?,?,?,?)", &sp) !=
        PDB_OK) {
        sqlite3_finalize(st);
        return PDB_ERR;
    }
    int rc = PDB_OK;
    for (int m = 0; m < MODES && rc == PDB_OK; m++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, modes[m], -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, rank);
        rc = write_mode(a, st, m);
        if (rc != PDB_OK || !a->any[m])
            continue;
        sqlite3_bind_int64(sp, 1, run_id);
        sqlite3_bind_text(sp, 2, modes[m], -1, SQLITE_STATIC);
        sqlite3_bind_int(sp, 3, rank);
        sqlite3_bind_int64(sp, 4, m == HTA ? hta_start(a, a->first[m]) : a->first[m]);
        sqlite3_bind_int64(sp, 5, m == HTA ? hta_start(a, a->last[m]) : a->last[m]);
        sqlite3_bind_int64(sp, 6, a->late);
        rc = pdb_db_step_done(db, sp);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(sp);
    return rc;
}

void pdb_queue_acc_free(pdb_queue_acc *a)
{
    if (!a)
        return;
    for (int m = 0; m < MODES; m++) {
        for (size_t i = 0; i < a->streams[m].n; i++) {
            stream_acc *s = &a->streams[m].v[i];
            sqlite3_value_free(s->device);
            sqlite3_value_free(s->stream);
            free(s->q[0].t);
            free(s->q[1].t);
            pdb_idmap_free(&s->hist);
            free(s->points);
            free(s->durs);
            free(s->values);
        }
        free(a->streams[m].v);
        pdb_idmap_free(&a->streams[m].ints);
    }
    for (size_t i = 0; i < a->nflights; i++) {
        int64_t j;
        if (!pdb_idmap_get(&a->by_corr, a->flights[i].corr, &j) || (size_t)j != i)
            continue; /* a free slot */
        for (int k = 0; k < a->flights[i].nearly; k++) {
            sqlite3_value_free(a->flights[i].early[k].pid);
            sqlite3_value_free(a->flights[i].early[k].stream);
        }
        free(a->flights[i].early);
    }
    free(a->flights);
    free(a->free_slots);
    free(a->fifo);
    pdb_idmap_free(&a->by_corr);
    free(a);
}
