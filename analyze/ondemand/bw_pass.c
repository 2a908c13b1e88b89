/* bw_pass.c: memory bandwidth over time, on demand (bw_pass.h): the series
 * of HTA's get_memory_bw_time_series, one row per point.
 *
 * Each memcpy or memset GPU event adds its bandwidth at its start and takes
 * it away at its end; per kind ("Memcpy HtoD", "Memset", ...) the running
 * sum is the bandwidth in use. Bandwidth: exact mode divides the event's
 * bytes by its duration (1 byte/ns = 1 GB/s), and takes the trace's "memory
 * bandwidth (GB/s)" arg where bytes are missing; hta mode takes the arg
 * (missing: 0, as HTA) over HTA's rounded times, a zero duration counted as
 * 1 us.
 *
 * Order. exact: by time, starts before ends at equal times, each group in
 * trace order (slice id). hta: HTA's order, which is that of pandas'
 * default sort_values("ts") of its table (every start, in trace order, then
 * every end): numpy's unstable quicksort (analyze/np_argsort.h). Where
 * copies of a kind start and end at one timestamp, that order decides the
 * running sums there and which points are above 0 (the summary's count):
 * a stable sort put every start first and counted, on traces with
 * overlapping device-to-device copies, points HTA does not have.
 *
 * On demand, not at ingest: memory events are few beside kernels, and the
 * attribution's (run, name) index finds them without reading the trace, so
 * the report pays for them only when asked (at ingest the pass cost 4% of
 * the analysis on the bench trace, for one or two percent of its events).
 * Streaming (exact): the memory events come in start order; ends wait in a
 * buffer per kind until no start can come before them. The buffers hold the
 * copies in flight. hta mode cannot stream: numpy's sort orders ties by
 * partitions of the whole table, so it holds the rank's HTA memory events
 * (72 bytes each with the sort's keys and order: a rank with a million
 * memcpys and memsets takes 72 MB; HTA's own tables hold several times
 * that). */
#include "analyze/ondemand/bw_pass.h"
#include "analyze/hta.h"
#include "analyze/idmap.h"
#include "analyze/np_argsort.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "analyze/queries.h"

#include <stdlib.h>
#include <string.h>

enum { EXACT, HTA, MODES };

typedef struct {
    int64_t t, id;
    int end;            /* 0 start, 1 end: starts first at equal times */
    double bw;
} bw_point;

typedef struct {
    char name[16];      /* "Memcpy HtoD", "Memset", "Memcpy Unknown" */
    bw_point *buf;      /* not yet final; sorted when finalized */
    size_t n, cap;
    double value;       /* running sum */
} kind_acc;

typedef struct {
    kind_acc *v;
    size_t n, cap;
} kind_set;

/* hta mode: one of HTA's memory events, its times rounded as HTA does. */
typedef struct {
    int64_t id, start, end;
    double bw;
    uint32_t kind;      /* index in kinds[HTA] */
} hta_mem_event;

typedef struct {
    sqlite3 *db;
    int rank;
    hta_mem_event *events;  /* hta mode: every event, in the query's order */
    size_t nevents, cap_events;
    pdb_hta_mode hta;
    kind_set kinds[MODES];
    int64_t buffered;
    int64_t min_t[MODES];   /* no buffered point is earlier */
    bool want[MODES];
    pdb_bw_fn fn;
    void *arg;
} bw_state;

/* HTA's get_memory_kernel_type. */
static void kind_name(const char *name, char *out)
{
    if (strncmp(name, "Memset", strlen("Memset")) == 0)
        strcpy(out, "Memset");
    else if (strncmp(name, "Memcpy", strlen("Memcpy")) != 0)
        strcpy(out, "Memcpy Unknown");
    else { /* name[:11]: "Memcpy DtoH" */
        size_t n = strnlen(name, strlen("Memcpy DtoH"));
        memcpy(out, name, n);
        out[n] = '\0';
    }
}

static kind_acc *kind_for(kind_set *s, const char *name)
{
    char k[16];
    kind_name(name, k);
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, k) == 0)
            return &s->v[i];
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->v = pdb_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    kind_acc *ka = &s->v[s->n++];
    *ka = (kind_acc){0};
    strcpy(ka->name, k);
    return ka;
}

static void push(bw_state *a, int m, kind_acc *k, int64_t t, int64_t id, int end, double bw)
{
    if (t < a->min_t[m])
        a->min_t[m] = t;
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 16;
        k->buf = pdb_xrealloc(k->buf, k->cap * sizeof *k->buf);
    }
    k->buf[k->n++] = (bw_point){t, id, end, bw};
    a->buffered++;
}

static int cmp_point(const void *x, const void *y)
{
    const bw_point *p = x, *q = y;
    if (p->t != q->t)
        return p->t < q->t ? -1 : 1;
    if (p->end != q->end)
        return p->end - q->end;
    return p->id < q->id ? -1 : p->id > q->id;
}

/* Emits the points before w in order with their running sums. */
static int finalize(bw_state *a, int m, int64_t w)
{
    if (w <= a->min_t[m])
        return PDB_OK;
    a->min_t[m] = INT64_MAX;
    for (size_t i = 0; i < a->kinds[m].n; i++) {
        kind_acc *k = &a->kinds[m].v[i];
        if (!k->n)
            continue;
        qsort(k->buf, k->n, sizeof *k->buf, cmp_point);
        size_t done = 0;
        while (done < k->n && k->buf[done].t < w) {
            bw_point *p = &k->buf[done++];
            k->value += p->end ? -p->bw : p->bw;
            if (a->fn(a->arg, a->rank, k->name, p->t, k->value) != PDB_OK)
                return PDB_ERR;
        }
        memmove(k->buf, k->buf + done, (k->n - done) * sizeof *k->buf);
        k->n -= done;
        if (k->n && k->buf[0].t < a->min_t[m])
            a->min_t[m] = k->buf[0].t;
        a->buffered -= (int64_t)done;
    }
    return PDB_OK;
}

/* One memory event (a row of bw_pass.sql's events) in start order. */
static int add_event(bw_state *a, sqlite3_stmt *st)
{
    int64_t id = sqlite3_column_int64(st, 0), ts = sqlite3_column_int64(st, 1);
    int64_t dur = sqlite3_column_int64(st, 2);
    const char *name = (const char *)sqlite3_column_text(st, 3);
    bool has_bytes = sqlite3_column_type(st, 4) != SQLITE_NULL;
    bool has_arg = sqlite3_column_type(st, 5) != SQLITE_NULL;
    int64_t bytes = sqlite3_column_int64(st, 4);
    double arg = sqlite3_column_double(st, 5);
    bool hta_event = sqlite3_column_int(st, 6);
    bool has_launch = sqlite3_column_type(st, 7) != SQLITE_NULL;
    int64_t launch = sqlite3_column_int64(st, 7);
    bool exact = a->want[EXACT] && pdb_kernel_type_of(name) == PDB_KT_MEMORY;
    bool hta = a->want[HTA] && hta_event && pdb_hta_stream(sqlite3_column_value(st, 8)) != -1 &&
               pdb_kernel_type_hta(name) == PDB_KT_MEMORY;
    if (hta && a->hta.drop_last) {
        bool kernel = sqlite3_column_type(st, 9) != SQLITE_NULL && sqlite3_column_int64(st, 9) >= 0 &&
                      pdb_hta_stream(sqlite3_column_value(st, 8)) >= 0;
        int64_t t = kernel ? launch : ts;
        hta = (!kernel || has_launch) && (a->hta.round ? pdb_hta_ceil(t) : t) < a->hta.cutoff;
    }
    if (exact && dur > 0 && (has_bytes || has_arg)) {
        double bw = has_bytes ? (double)bytes / (double)dur : arg;
        kind_acc *k = kind_for(&a->kinds[EXACT], name);
        push(a, EXACT, k, ts, id, 0, bw);
        push(a, EXACT, k, ts + dur, id, 1, bw);
    }
    if (hta) {
        int64_t start = ts, end = ts + dur;
        if (a->hta.round)
            pdb_hta_round(ts, dur, &start, &end);
        if (end == start)
            end = start + PDB_HTA_US; /* HTA counts a 0 us event as 1 us */
        kind_acc *k = kind_for(&a->kinds[HTA], name);
        if (a->nevents == a->cap_events) {
            a->cap_events = a->cap_events ? a->cap_events * 2 : 64;
            a->events = pdb_xrealloc(a->events, a->cap_events * sizeof *a->events);
        }
        a->events[a->nevents++] = (hta_mem_event){id, start, end, has_arg ? arg : 0,
                                              (uint32_t)(k - a->kinds[HTA].v)};
    }
    if (!a->buffered)
        return PDB_OK;
    return finalize(a, EXACT, ts);
}

static int by_id(const void *x, const void *y)
{
    const hta_mem_event *p = x, *q = y;
    return p->id < q->id ? -1 : p->id > q->id;
}

/* hta mode: HTA's table (the starts of its memory events in trace order,
 * then their ends) sorted as pandas sorts it, and the running sum per kind
 * in that order (get_memory_bw_time_series' groupby and cumsum). */
static int hta_series(bw_state *a)
{
    size_t n = a->nevents;
    if (!n)
        return PDB_OK;
    qsort(a->events, n, sizeof *a->events, by_id);
    int64_t *key = pdb_xmalloc(2 * n * sizeof *key), *order = pdb_xmalloc(2 * n * sizeof *order);
    for (size_t i = 0; i < n; i++) {
        key[i] = a->events[i].start;
        key[n + i] = a->events[i].end;
    }
    pdb_np_argsort(key, order, 2 * n);
    int rc = PDB_OK;
    for (size_t i = 0; i < 2 * n && rc == PDB_OK; i++) {
        size_t j = (size_t)order[i];
        const hta_mem_event *e = &a->events[j < n ? j : j - n];
        kind_acc *k = &a->kinds[HTA].v[e->kind];
        k->value += j < n ? e->bw : -e->bw;
        rc = a->fn(a->arg, a->rank, k->name, key[j], k->value);
    }
    free(key);
    free(order);
    return rc;
}

int pdb_memory_bw(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, bool hta,
                  pdb_bw_fn fn, void *arg)
{
    bw_state a = {.db = db, .rank = rank, .min_t = {INT64_MAX, INT64_MAX}, .fn = fn,
                  .arg = arg};
    a.want[hta ? HTA : EXACT] = true;
    sqlite3_stmt *st;
    int rc = pdb_hta_settings(db, trace_id, &a.hta);
    if (rc == PDB_OK)
        rc = pdb_analyze_prepare(db, "bw_pass.events", &st);
    if (rc != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, rank);
    int s;
    while (rc == PDB_OK && (s = sqlite3_step(st)) == SQLITE_ROW)
        rc = add_event(&a, st);
    if (rc == PDB_OK && s != SQLITE_DONE)
        rc = pdb_db_fail(db, "memory bandwidth query failed");
    sqlite3_finalize(st);
    if (rc == PDB_OK)
        rc = finalize(&a, EXACT, INT64_MAX);
    if (rc == PDB_OK)
        rc = hta_series(&a);
    free(a.events);
    for (int m = 0; m < MODES; m++) {
        for (size_t i = 0; i < a.kinds[m].n; i++)
            free(a.kinds[m].v[i].buf);
        free(a.kinds[m].v);
    }
    return rc;
}
