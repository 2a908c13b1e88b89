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
 * only known when its GPU event comes by, later. So points wait in one heap
 * (by time, launches first) until no launch still unresolved can come
 * before them: a FIFO of the launches in flight (and of GPU events that
 * came before their launch) gives the watermark, the earliest time a point
 * may still appear at. Points before the watermark are final and leave the
 * heap, in time order, to their stream's series. Memory is the launches in
 * flight and the points in the window from the oldest of them to now, not
 * the trace. A launch stuck in flight past LATE_AFTER entries stops holding
 * the watermark back; its points are then added where the stream's series
 * has got to and counted as late (analysis_queue_ranks.late_launches; 0 on
 * every corpus trace).
 *
 * Streams. Streams are numbered in the order first met, under their whole
 * value (pid and stream: two streams sharing a long prefix stay apart), in
 * a record store per mode (recstore.h). The first STREAMS_IN_MEMORY of a
 * mode are followed in memory: their record holds the running value, and
 * their histogram is a record per (stream, value) in a store of its own
 * (so a first-seen value keeps its place). The others (a trace with
 * 100,000 streams; every stream past 3 under PROFDB_SPILL_TEST) append
 * their final points, numbered, to a temporary table; when the rows are
 * written, the points come back sorted by stream (SQLite's sorter) and one
 * pass sums each stream's series: the same running sum in the same order,
 * so the same rows. Nothing is kept per stream outside the stores (and one
 * stream's values while it is read back), and no step visits every stream.
 *
 * Both modes run from the same rows: exact (every kernel, memcpy and memset
 * whose correlation has a CPU-side event; streams per device) and hta
 * (HTA's launch names, event set, rounding and dropped last step; streams
 * by number alone, as HTA groups them). */
#include "analyze/hta.h"
#include "analyze/recstore.h"
#include "analyze/idmap.h"
#include "analyze/series.h"
#include "analyze/sum.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "analyze/queries.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define LATE_AFTER (1 << 20) /* launches in flight before the oldest counts as late */
#define SMALL_NEG 64               /* queue lengths in [-64, 1024) are written first, ascending */
#define SMALL_VALUES (SMALL_NEG + 1024)
#define FINALIZE_BATCH 256          /* points buffered before they are made final */
#define STREAMS_IN_MEMORY 1024      /* per mode: streams followed in memory */
#define HIST_IN_MEMORY 16384        /* their (stream, value) records in memory */
#define HIST_KEY (1 + 8 + 8)        /* mode, stream number, value */
#define VALUES_IN_MEMORY 65536      /* distinct values of one spilled stream summed in memory */

enum { EXACT, HTA, MODES };

/* A point of a stream's series waiting to be final: +1 (launch) or -1 (GPU
 * event start) on stream number `stream` of its mode. */
typedef struct {
    int64_t t, stream;
    int8_t delta;
    uint8_t mode;
} point;

/* A stream followed in memory, after its last final point. */
typedef struct {
    int64_t value, prev_t;
    int64_t cur;                     /* the histogram record of value; -1: no point yet */
    int64_t last_value, last;        /* the value before, and its record (-1: none): a
                                        queue mostly steps back to it (launch, start) */
} stream_state;

/* Points with a value and the time from them to the stream's next point. */
typedef struct {
    int64_t points, dur;
} hist_rec;
/* What is known of a launch, kept until its GPU events have come by. */
typedef struct {
    int64_t ts, hta_ts;
    bool hta_ok;        /* an HTA launch name, kept by HTA */
} launch_info;

/* A GPU event seen before its launch (clock skew, equal start times). */
typedef struct {
    pdb_val pid, stream; /* owned once kept */
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
    sqlite3 *db;
    pdb_hta_mode hta;
    pdb_recstore *streams[MODES];    /* key: pid and stream values (exact), HTA's number */
    pdb_recstore *hist;              /* key: HIST_KEY bytes; streams in memory only */
    pdb_buf key;                     /* the stream key being looked up */
    pdb_buf recent_key[MODES];       /* the stream found last, per mode */
    int64_t recent[MODES];           /* its number, or -1 */
    point *heap;                     /* points not yet final: a binary heap */
    size_t nheap, heap_cap;
    int64_t seq;                     /* final points sent to the table so far */
    sqlite3_stmt *ins_point;
    int err;                         /* sticky: a database error while adding */
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
    int64_t late;
    bool hist_merged;                /* a spilled stream's histogram came in parts */
    /* Spans for relative durations: exact (all slices), hta (kept events). */
    bool any[MODES];
    int64_t first[MODES], last[MODES];
};

/* The temporary tables of the streams past STREAMS_IN_MEMORY are
 * queue_pass.sql's create_tables, made before the scan starts. */

int pdb_queue_acc_new(sqlite3 *db, const pdb_hta_mode *hta, pdb_queue_acc **out)
{
    pdb_queue_acc *a = pdb_xcalloc(1, sizeof *a);
    *out = a;
    a->db = db;
    a->hta = *hta;
    for (int m = 0; m < MODES; m++)
        a->recent[m] = -1;
    if (pdb_rs_new(db, "queue_exact", sizeof(stream_state), STREAMS_IN_MEMORY, SIZE_MAX,
                   &a->streams[EXACT]) != PDB_OK ||
        pdb_rs_new(db, "queue_hta", sizeof(stream_state), STREAMS_IN_MEMORY, SIZE_MAX,
                   &a->streams[HTA]) != PDB_OK ||
        pdb_rs_new(db, "queue_hist", sizeof(hist_rec), HIST_IN_MEMORY, SIZE_MAX, &a->hist) !=
            PDB_OK ||
        pdb_analyze_exec(db, "queue_pass.create_tables") != PDB_OK)
        return PDB_ERR;
    return PDB_OK;
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

/* The number of a stream of mode m (exact: by device and stream value;
 * hta: by HTA's stream number), -1 after a database error. Consecutive
 * GPU events often share a stream: the last one is remembered. */
static int64_t stream_for(pdb_queue_acc *a, int m, const pdb_val *device, const pdb_val *stream,
                          int64_t hta_stream)
{
    pdb_buf_reset(&a->key);
    if (m == EXACT) {
        pdb_val_key(&a->key, device);
        pdb_val_key(&a->key, stream);
    } else {
        unsigned char k[8];
        pdb_rs_key_int(k, hta_stream);
        pdb_buf_add(&a->key, k, sizeof k);
    }
    pdb_buf *r = &a->recent_key[m];
    if (a->recent[m] >= 0 && r->len == a->key.len && memcmp(r->p, a->key.p, r->len) == 0)
        return a->recent[m];
    stream_state init = {0, 0, -1, 0, -1};
    bool created;
    int64_t h = pdb_rs_find(a->streams[m], a->key.p, a->key.len, &init, &created);
    pdb_buf_reset(r);
    pdb_buf_add(r, a->key.p, a->key.len);
    a->recent[m] = h;
    return h;
}

/* Heap order: earlier first; at equal times launches first (HTA's order);
 * points that tie on both are interchangeable. */
static bool before(const point *x, const point *y)
{
    return x->t < y->t || (x->t == y->t && x->delta > y->delta);
}

/* Adds a point: +1 (a launch) or -1 (a GPU event start). */
static void buffer_add(pdb_queue_acc *a, int m, int64_t stream, int64_t t, int delta)
{
    if (stream < 0)
        return; /* a database error, reported when the rows are written */
    if (a->nheap == a->heap_cap) {
        a->heap_cap = a->heap_cap ? a->heap_cap * 2 : 256;
        a->heap = pdb_xrealloc(a->heap, a->heap_cap * sizeof *a->heap);
    }
    point p = {t, stream, (int8_t)delta, (uint8_t)m};
    size_t i = a->nheap++;
    while (i > 0 && before(&p, &a->heap[(i - 1) / 2])) {
        a->heap[i] = a->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a->heap[i] = p;
}

static point heap_pop(pdb_queue_acc *a)
{
    assert(a->nheap > 0);
    point top = a->heap[0], last = a->heap[--a->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= a->nheap)
            break;
        if (c + 1 < a->nheap && before(&a->heap[c + 1], &a->heap[c]))
            c++;
        if (!before(&a->heap[c], &last))
            break;
        a->heap[i] = a->heap[c];
        i = c;
    }
    if (a->nheap > 0)
        a->heap[i] = last;
    return top;
}

/* An integer of a key, as pdb_rs_key_int wrote it. */
static int64_t key_int(const unsigned char *in)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | in[i];
    return (int64_t)v;
}

/* A final point of a stream followed in memory: the previous point lasted
 * until now, and the new value gains a point. */
static void final_in_memory(pdb_queue_acc *a, const point *p)
{
    pdb_recstore *streams = a->streams[p->mode];
    stream_state s = *(const stream_state *)pdb_rs_read(streams, p->stream);
    if (s.cur >= 0) {
        hist_rec *h = pdb_rs_get(a->hist, s.cur);
        pdb_sum(&h->dur, p->t - s.prev_t);
    }
    int64_t before = s.value, before_h = s.cur;
    s.value += p->delta;
    s.prev_t = p->t;
    if (s.last >= 0 && s.last_value == s.value) {
        s.cur = s.last;
    } else {
        unsigned char key[HIST_KEY];
        key[0] = p->mode;
        pdb_rs_key_int(key + 1, p->stream);
        pdb_rs_key_int(key + 9, s.value);
        hist_rec zero = {0, 0};
        bool created;
        s.cur = pdb_rs_find(a->hist, key, sizeof key, &zero, &created);
    }
    s.last_value = before, s.last = before_h;
    if (s.cur >= 0) {
        hist_rec *h = pdb_rs_get(a->hist, s.cur);
        h->points++;
    }
    *(stream_state *)pdb_rs_get(streams, p->stream) = s;
}

/* A final point of a stream past the bound: appended to the table, its
 * place in the series given by seq. */
static void final_to_table(pdb_queue_acc *a, const point *p)
{
    if (a->err != PDB_OK)
        return;
    if (!a->ins_point) {
        pdb_bound_passed("queue points sent to a table");
        if (pdb_analyze_prepare(a->db, "queue_pass.add_point", &a->ins_point) != PDB_OK) {
            a->err = PDB_ERR;
            return;
        }
    }
    sqlite3_bind_int64(a->ins_point, 1, a->seq++);
    sqlite3_bind_int(a->ins_point, 2, p->mode);
    sqlite3_bind_int64(a->ins_point, 3, p->stream);
    sqlite3_bind_int64(a->ins_point, 4, p->t);
    sqlite3_bind_int(a->ins_point, 5, p->delta);
    if (pdb_db_step_done(a->db, a->ins_point) != PDB_OK)
        a->err = PDB_ERR;
}

/* Points before the watermark w are final, in time order. */
static void finalize(pdb_queue_acc *a, int64_t w)
{
    while (a->nheap > 0 && a->heap[0].t < w) {
        point p = heap_pop(a);
        if (pdb_rs_in_memory(a->streams[p.mode], p.stream))
            final_in_memory(a, &p);
        else
            final_to_table(a, &p);
    }
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
        pdb_val_free(&f->early[i].pid);
        pdb_val_free(&f->early[i].stream);
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
        int64_t s = stream_for(a, EXACT, &g->pid, &g->stream, 0);
        buffer_add(a, EXACT, s, l->ts, +1);
        buffer_add(a, EXACT, s, g->ts, -1);
    }
    if (g->hta_gpu && l->hta_ok) {
        int64_t s = stream_for(a, HTA, NULL, NULL, pdb_hta_stream_val(&g->stream));
        buffer_add(a, HTA, s, l->hta_ts, +1);
        buffer_add(a, HTA, s, g->hta_start, -1);
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
        bool kernel = (r->has_corr && r->corr >= 0 && pdb_hta_stream_val(&r->stream) >= 0) ||
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
                   hta_event(r) && pdb_hta_stream_val(&r->stream) != -1};
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
    g.pid = pdb_val_dup(&r->pid);
    g.stream = pdb_val_dup(&r->stream);
    f->early[f->nearly++] = g;
}

int pdb_queue_acc_add(pdb_queue_acc *a, const pdb_row *r)
{
    span(a, EXACT, r->ts);
    hta_span(a, r);
    if (r->launches > 0)
        add_launch(a, r);
    else if (r->gpu && r->has_corr)
        add_gpu(a, r);
    if (a->nheap >= FINALIZE_BATCH) /* points are final in any order of batches */
        finalize(a, watermark(a, r->ts));
    return a->err;
}

/* Writing ---------------------------------------------------------------- */

static int insert_hist(sqlite3_stmt *st, int64_t mode, int64_t stream, int64_t value,
                       int64_t points, int64_t dur, int64_t first)
{
    sqlite3_bind_int64(st, 1, mode);
    sqlite3_bind_int64(st, 2, stream);
    sqlite3_bind_int64(st, 3, value);
    sqlite3_bind_int64(st, 4, points);
    sqlite3_bind_int64(st, 5, dur);
    sqlite3_bind_int64(st, 6, first);
    return pdb_db_step_done(sqlite3_db_handle(st), st);
}

/* A histogram record of a stream followed in memory, to the table; its
 * record number says when its value was first seen. */
static int hist_to_table(int64_t h, const void *key, size_t klen, const void *rec, void *arg)
{
    const unsigned char *k = key;
    const hist_rec *r = rec;
    assert(klen == HIST_KEY);
    (void)klen;
    return insert_hist(arg, k[0], key_int(k + 1), key_int(k + 9), r->points, r->dur, h);
}

/* The histograms of the streams past the bound, from their points read
 * back by stream and in the order they were made final: the running sum
 * is the value after each point, which gains the point and the time until
 * the stream's next point; a value's first point orders it. One sort of
 * the points by SQLite, then one pass in C with a map of the stream's
 * values (a window query over the same rows cost 28,000 instructions a
 * point). A stream with more than VALUES_IN_MEMORY distinct values sends
 * partial rows, which the rows query sums (hist_merged). */
typedef struct {
    int64_t value, points, dur, first;
} value_acc;

typedef struct {
    int64_t mode, stream;   /* the stream being read */
    int64_t value, prev_t;
    int64_t prev;           /* the entry of the previous point's value; -1: none */
    value_acc *v;
    size_t n, cap, max;     /* max: VALUES_IN_MEMORY (4 under PROFDB_SPILL_TEST) */
    pdb_idmap index;        /* value -> entry */
} stream_hist;

static int hist_flush(pdb_queue_acc *a, stream_hist *g, sqlite3_stmt *ins)
{
    int rc = PDB_OK;
    for (size_t i = 0; i < g->n; i++) {
        const value_acc *e = &g->v[i];
        if (rc == PDB_OK)
            rc = insert_hist(ins, g->mode, g->stream, e->value, e->points, e->dur, e->first);
        pdb_idmap_del(&g->index, e->value);
    }
    g->n = 0;
    g->prev = -1;
    return rc;
}

/* The entry of value in the stream's map, made with first = seq if new. */
static int64_t hist_entry(stream_hist *g, int64_t value, int64_t seq)
{
    int64_t i;
    if (pdb_idmap_get(&g->index, value, &i))
        return i;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->v = pdb_xrealloc(g->v, g->cap * sizeof *g->v);
    }
    g->v[g->n] = (value_acc){value, 0, 0, seq};
    pdb_idmap_put(&g->index, value, (int64_t)g->n);
    return (int64_t)g->n++;
}

static int hist_point(pdb_queue_acc *a, stream_hist *g, sqlite3_stmt *ins, int64_t seq,
                      int64_t t, int64_t delta)
{
    if (g->prev >= 0)
        pdb_sum(&g->v[g->prev].dur, t - g->prev_t);
    int rc = PDB_OK;
    if (g->n >= g->max) {
        if (!a->hist_merged)
            pdb_bound_passed("queue values summed in parts");
        a->hist_merged = true; /* the stream's later rows repeat values */
        rc = hist_flush(a, g, ins);
    }
    pdb_sum(&g->value, delta);
    g->prev = hist_entry(g, g->value, seq);
    g->v[g->prev].points++;
    g->prev_t = t;
    return rc;
}

static int table_hist(pdb_queue_acc *a, sqlite3_stmt *ins)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(a->db, "queue_pass.points", &st) != PDB_OK)
        return PDB_ERR;
    stream_hist g = {.mode = -1, .prev = -1, .max = (size_t)pdb_bound(VALUES_IN_MEMORY, 4)};
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t mode = sqlite3_column_int64(st, 0), stream = sqlite3_column_int64(st, 1);
        if (mode != g.mode || stream != g.stream) {
            rc = hist_flush(a, &g, ins);
            g.mode = mode, g.stream = stream, g.value = 0;
        }
        if (rc == PDB_OK)
            rc = hist_point(a, &g, ins, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
                            sqlite3_column_int64(st, 4));
    }
    if (rc == PDB_OK)
        rc = step == SQLITE_DONE ? hist_flush(a, &g, ins)
                                 : pdb_db_fail(a->db, "launch queue points");
    sqlite3_finalize(st);
    free(g.v);
    pdb_idmap_free(&g.index);
    return rc;
}

static int gather_hist(pdb_queue_acc *a)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(a->db, "queue_pass.add_hist", &st) != PDB_OK)
        return PDB_ERR;
    int rc = pdb_rs_each(a->hist, hist_to_table, st);
    if (rc == PDB_OK && a->ins_point)
        rc = table_hist(a, st);
    sqlite3_finalize(st);
    return rc;
}

/* Binds a stream's device and stream values (exact) or HTA's number. */
static void bind_stream(pdb_queue_acc *a, sqlite3_stmt *st, int m, int64_t stream)
{
    size_t klen;
    const unsigned char *k = pdb_rs_key(a->streams[m], stream, &klen);
    if (m == EXACT) {
        pdb_value_key_bind(st, 4, &k, &klen);
        pdb_value_key_bind(st, 5, &k, &klen);
        assert(klen == 0);
    } else {
        assert(klen == 8);
        sqlite3_bind_null(st, 4);
        sqlite3_bind_int64(st, 5, key_int(k));
    }
}

static int write_rows(pdb_queue_acc *a, sqlite3_stmt *ins, int64_t run_id, int rank)
{
    static const char *const modes[] = {"exact", "hta"};
    sqlite3_stmt *st;
    /* every stream's rows in the order they always had (queue_pass.sql) */
    if (pdb_analyze_prepare(a->db, a->hist_merged ? "queue_pass.rows_merged" : "queue_pass.rows",
                            &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int(st, 1, -SMALL_NEG);
    sqlite3_bind_int(st, 2, SMALL_VALUES - SMALL_NEG - 1);
    sqlite3_bind_int64(ins, 1, run_id);
    sqlite3_bind_int(ins, 3, rank);
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int m = sqlite3_column_int(st, 0);
        assert(m == EXACT || m == HTA);
        sqlite3_bind_text(ins, 2, modes[m], -1, SQLITE_STATIC);
        bind_stream(a, ins, m, sqlite3_column_int64(st, 1));
        for (int c = 2; c < 5; c++)
            sqlite3_bind_int64(ins, c + 4, sqlite3_column_int64(st, c));
        rc = pdb_db_step_done(a->db, ins);
    }
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(a->db, "launch queue rows");
    sqlite3_finalize(st);
    return rc;
}

static int write_ranks(pdb_queue_acc *a, int64_t run_id, int rank)
{
    static const char *const modes[] = {"exact", "hta"};
    sqlite3_stmt *sp;
    if (pdb_analyze_prepare(a->db, "queue_pass.add_rank", &sp) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int m = 0; m < MODES && rc == PDB_OK; m++) {
        if (!a->any[m])
            continue;
        sqlite3_bind_int64(sp, 1, run_id);
        sqlite3_bind_text(sp, 2, modes[m], -1, SQLITE_STATIC);
        sqlite3_bind_int(sp, 3, rank);
        sqlite3_bind_int64(sp, 4, m == HTA ? hta_start(a, a->first[m]) : a->first[m]);
        sqlite3_bind_int64(sp, 5, m == HTA ? hta_start(a, a->last[m]) : a->last[m]);
        sqlite3_bind_int64(sp, 6, a->late);
        rc = pdb_db_step_done(a->db, sp);
    }
    sqlite3_finalize(sp);
    return rc;
}

int pdb_queue_acc_write(pdb_queue_acc *a, int64_t run_id, int rank)
{
    finalize(a, watermark(a, INT64_MAX));
    if (a->err != PDB_OK)
        return PDB_ERR;
    for (int m = 0; m < MODES; m++)
        if (pdb_rs_error(a->streams[m]) != PDB_OK)
            return PDB_ERR;
    if (pdb_rs_error(a->hist) != PDB_OK || gather_hist(a) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *ins;
    if (pdb_analyze_prepare(a->db, "queue_pass.add_queue", &ins) != PDB_OK)
        return PDB_ERR;
    int rc = write_rows(a, ins, run_id, rank);
    sqlite3_finalize(ins);
    if (rc == PDB_OK)
        rc = write_ranks(a, run_id, rank);
    if (rc == PDB_OK) /* the temporary tables' pages go back to the temp file's free list */
        rc = pdb_analyze_exec(a->db, "queue_pass.clear");
    return rc;
}

void pdb_queue_acc_free(pdb_queue_acc *a)
{
    if (!a)
        return;
    for (int m = 0; m < MODES; m++) {
        pdb_rs_free(a->streams[m]);
        pdb_buf_free(&a->recent_key[m]);
    }
    pdb_rs_free(a->hist);
    pdb_buf_free(&a->key);
    free(a->heap);
    sqlite3_finalize(a->ins_point);
    for (size_t i = 0; i < a->nflights; i++) {
        int64_t j;
        if (!pdb_idmap_get(&a->by_corr, a->flights[i].corr, &j) || (size_t)j != i)
            continue; /* a free slot */
        for (int k = 0; k < a->flights[i].nearly; k++) {
            pdb_val_free(&a->flights[i].early[k].pid);
            pdb_val_free(&a->flights[i].early[k].stream);
        }
        free(a->flights[i].early);
    }
    free(a->flights);
    free(a->free_slots);
    free(a->fifo);
    pdb_idmap_free(&a->by_corr);
    free(a);
}
