/* critical_path.c: HTA's critical path analysis, reimplemented on demand for
 * one window of a trace (see critical_path.h).
 *
 * The steps follow HTA 0.6's critical_path_analysis() and CPGraph, each in a
 * function of the same name, so they can be read side by side:
 *   load_window          the clipped events: CPU events starting in the
 *                        window (with a duration), the GPU events whose
 *                        runtime call is one of them, and every "Stream
 *                        Wait Event" of the trace;
 *   create_event_nodes   a start and an end node per op, runtime call and
 *                        launched GPU event, sorted by (time, event);
 *   runtime_lock_edges   the CUDA runtime lock across threads;
 *   call_stack_edges     each CPU thread's call stack (HTA's event sort,
 *                        the backward thread merged into the forward one);
 *   kernel_edges         per stream in order: launch delay onto an empty
 *                        queue, else the gap after the previous kernel;
 *                        stream, context and event syncs; stream waits;
 *   longest_path         networkx 2.8's dag_longest_path with its order:
 *                        nodes in order of first appearance in an edge,
 *                        topological generations, the first best
 *                        predecessor, the first farthest node.
 * Edge additions keep networkx's semantics: adding an edge that exists
 * replaces its weight and type but keeps its place in both adjacency
 * orders, and the attribution map (HTA's edge_to_event_map) is never
 * cleared. In hta mode times are HTA's rounded microseconds and the event
 * set is HTA's (analyze/hta.h); in exact mode the same graph is built on the
 * trace as written, in ns. Sorts that are unstable in HTA (pandas' default
 * quicksort) are stable here: equal keys keep trace order. */
#include "analyze/ondemand/critical_path.h"
#include "analyze/hta.h"
#include "analyze/idmap.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "common/query.h"
#include "common/query_db.h"
#include "analyze/queries.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_KERNEL_DELAY_US 1500 /* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US */
#define NO_VALUE INT64_MIN          /* a queue length HTA has no row for (NaN) */

/* Names and categories the graph needs, by string id (0: absent). */
enum { S_CPU_OP, S_CUDA_RUNTIME, S_CUDA_DRIVER, S_CUDA_SYNC, S_USER_ANNOTATION, S_TRACE,
       S_EVENT_SYNC, S_CONTEXT_SYNC, S_STREAM_SYNC, S_STREAM_WAIT_EVENT, S_EVENT_RECORD,
       S_STREAM_WAIT_CALL, S_COUNT };
static const char *const symbol_text[S_COUNT] = {
    "cpu_op", "cuda_runtime", "cuda_driver", "cuda_sync", "user_annotation", "Trace",
    "Event Sync", "Context Sync", "Stream Sync", "Stream Wait Event", "cudaEventRecord",
    "cudaStreamWaitEvent"};

/* Name classes, cached per string id. */
enum { N_LOCK = 1,        /* CUDA_RUNTIME_EVENTS: cudaHostAlloc, cudaLaunchKernel, cudaMemcpyAsync */
       N_BLOCKING = 2,    /* CPGraph.BLOCKING_SYNC_CALLS */
       N_LAUNCH = 4,      /* get_runtime_launch_events_mask */
       N_FORWARD = 8,     /* contains "forward" */
       N_AUTOGRAD = 16,   /* contains "autograd" */
       N_COMM = 32 };     /* is_comm_kernel(shorten_name(name)) */

typedef struct {
    int64_t id, name, cat, ts, dur, corr, stream, ic, runtime_ts;
    int64_t wait_stream, wait_corr;   /* args; -1 when absent */
    sqlite3_value *pid, *tid;
    int thread;                       /* CPU thread index after the backward remap */
    int64_t q_own, q_runtime;         /* queue lengths, NO_VALUE: none */
    int64_t start_node, end_node;     /* -1: no nodes */
    int64_t parent;                   /* call-stack parent (event index), -1 root */
    int64_t first_child, next_sibling;
    int names;                        /* N_* */
} cp_ev;

typedef struct {
    int64_t ev, ts;                   /* event index */
    bool is_start, is_blocking;
} cp_node;

typedef struct {
    int64_t u, v, weight, graph_weight;
    int type;
} cp_edge;

typedef struct {
    int64_t *v;
    size_t n, cap;
} i64_list;

struct pdb_cp {
    sqlite3 *db;
    int64_t trace_id;
    bool hta;
    pdb_hta_mode mode;
    int64_t sym[S_COUNT];
    int has_wait_args;                /* the trace has wait_on_cuda_event_record_corr_id
                                       * (-1: not looked for yet) */
    int64_t queue_to, queue_base;     /* temp.cp_queue holds every point with t <= queue_to;
                                       * the first window's earliest point */
    pdb_idmap name_class;             /* string id -> N_* + 64 (0: not cached) */
    sqlite3_stmt *range, *by_corr, *name_of, *queue, *prev_launch, *next_launch;
    i64_list swe;                     /* the trace's Stream Wait Event slice ids */
    pdb_buf tmp;
    /* The links of large correlation groups (read_links), at most
     * LINK_CACHE of them: a correlation shared by many events (a trace
     * that gives every synchronisation correlation 0) was read whole by
     * every window that has one of its events. */
    struct cp_links {
        int64_t corr;
        cp_ev ev[2];
        size_t n;
    } *links;
    size_t nlinks;
    pdb_idmap links_ix;               /* correlation -> links index */
};

#define LINK_CACHE 64  /* large groups remembered */
#define LINK_LARGE 8   /* a group of more events is remembered */

/* The graph of one window. */
typedef struct {
    pdb_cp *c;
    const pdb_cp_window *w;
    cp_ev *ev;
    size_t nev, evcap;
    pdb_idmap ev_of;                  /* slice id -> event index */
    cp_node *node;
    size_t nnode;
    cp_edge *edge;
    size_t nedge, edgecap;
    pdb_idmap edge_of;                /* (u, v) -> edge index */
    pdb_idmap attributed;             /* edge index -> attributed event slice id */
    i64_list *succ, *pred;            /* per node, edge indexes in insertion order */
    i64_list graph_order;             /* nodes in order of first appearance in an edge */
    bool *in_graph;
    int nthreads;
} cp_graph;

/* Small helpers --------------------------------------------------------- */

static void push(i64_list *l, int64_t x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4;
        l->v = pdb_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = x;
}

const char *pdb_cp_edge_name(int type)
{
    static const char *const names[] = {"critical_path_operator", "critical_path_dependency",
                                        "critical_path_kernel_launch_delay",
                                        "critical_path_kernel_kernel_delay",
                                        "critical_path_sync_dependency"};
    return type >= 0 && type < PDB_CP_EDGE_TYPES ? names[type] : "";
}

const char *pdb_cp_bound_name(int bound)
{
    static const char *const names[] = {"", "cpu_bound", "data_loading", "gpu_compute_bound",
                                        "gpu_communication_bound", "gpu_kernel_launch_overhead",
                                        "gpu_kernel_kernel_overhead"};
    return bound >= 0 && bound < PDB_CP_BOUNDS ? names[bound] : "";
}

static int64_t us(const pdb_cp *c, int64_t n)
{
    return c->hta ? n * PDB_HTA_US : n * PDB_HTA_US; /* HTA's thresholds are in us */
}

static void free_evs(cp_ev *v, size_t n);

/* Opening a trace -------------------------------------------------------- */

static int lookup_symbols(pdb_cp *c)
{
    sqlite3_stmt *st;
    if (pdb_common_prepare(c->db, "strings.id", NULL, &st) != PDB_OK)
        return PDB_ERR;
    for (int i = 0; i < S_COUNT; i++) {
        sqlite3_bind_text(st, 1, symbol_text[i], -1, SQLITE_STATIC);
        c->sym[i] = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return PDB_OK;
}

static int name_class(pdb_cp *c, int64_t name_id)
{
    static const char *const lock[] = {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"};
    static const char *const blocking[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize",
                                           "cudaEventQuery", "cudaEventSynchronize",
                                           "cudaMemcpy", "cudaMemcpyAsync"};
    static const char *const launch[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
        "cudaMemcpyAsync", "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution",
        "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
        "hipMemcpyWithStream"};
    int64_t v;
    if (pdb_idmap_get(&c->name_class, name_id, &v))
        return (int)(v - 64);
    sqlite3_bind_int64(c->name_of, 1, name_id);
    const char *t = sqlite3_step(c->name_of) == SQLITE_ROW
                        ? (const char *)sqlite3_column_text(c->name_of, 0) : NULL;
    int k = 0;
    if (t) {
        for (size_t i = 0; i < sizeof lock / sizeof *lock; i++)
            k |= strcmp(t, lock[i]) == 0 ? N_LOCK : 0;
        for (size_t i = 0; i < sizeof blocking / sizeof *blocking; i++)
            k |= strcmp(t, blocking[i]) == 0 ? N_BLOCKING : 0;
        for (size_t i = 0; i < sizeof launch / sizeof *launch; i++)
            k |= strcmp(t, launch[i]) == 0 ? N_LAUNCH : 0;
        k |= strstr(t, "forward") ? N_FORWARD : 0;
        k |= strstr(t, "autograd") ? N_AUTOGRAD : 0;
        pdb_hta_shorten_name(t, &c->tmp);
        k |= pdb_hta_comm_name(pdb_buf_str(&c->tmp)) ? N_COMM : 0;
    }
    sqlite3_reset(c->name_of);
    pdb_idmap_put(&c->name_class, name_id, k + 64);
    return k;
}

/* The queue length at every launch and launched GPU event of the trace
 * (to: INT64_MAX), or at every one at or before HTA time to (the values
 * are the same: each sums the points before it), into temp.cp_queue
 * (critical_path.sql's queue and queue_until). */
static int build_queue(pdb_cp *c, int64_t to)
{
    sqlite3_stmt *st;
    bool all = to == INT64_MAX;
    if (pdb_analyze_exec(c->db, "critical_path.create_queue") != PDB_OK ||
        pdb_analyze_prepare(c->db, all ? "critical_path.queue" : "critical_path.queue_until",
                            &st) != PDB_OK)
        return pdb_db_fail(c->db, "critical path: queue lengths");
    sqlite3_bind_int64(st, 1, c->trace_id);
    sqlite3_bind_int64(st, 2, c->sym[S_TRACE]);
    sqlite3_bind_int(st, 3, c->hta && c->mode.round);
    sqlite3_bind_int(st, 4, c->hta && c->mode.drop_last);
    sqlite3_bind_int64(st, 5, c->mode.cutoff);
    if (!all)
        sqlite3_bind_int64(st, 6, to);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(c->db, "critical path: queue lengths");
    c->queue_to = to;
    return PDB_OK;
}

/* Makes temp.cp_queue hold every point up to need (HTA time, ns; first:
 * the window's earliest point). Each rebuild doubles the time covered from
 * the first window's start, so reading windows in order rebuilds
 * log(windows) times and reads about twice the events the last one needs. */
static int queue_until(pdb_cp *c, int64_t first, int64_t need)
{
    if (need <= c->queue_to)
        return PDB_OK;
    if (c->queue_to == INT64_MIN || first < c->queue_base)
        c->queue_base = first;
    int64_t span = need - c->queue_base;
    int64_t to = span > 0 && need <= INT64_MAX - span ? need + span : INT64_MAX - 1;
    return build_queue(c, to);
}

/* critical_path.sql's stream_waits: the trace's Stream Wait Events into
 * c->swe and has_wait_args; first: only whether there is any row (the
 * trace has no Stream Wait Event: a row is an event with the args). */
static int stream_waits(pdb_cp *c, bool first)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(c->db, "critical_path.stream_waits", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, c->trace_id);
    sqlite3_bind_int64(st, 2, c->sym[S_STREAM_WAIT_EVENT] ? c->sym[S_STREAM_WAIT_EVENT] : -1);
    sqlite3_bind_int64(st, 3, c->sym[S_TRACE]);
    int rc;
    c->has_wait_args = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int(st, 1))
            push(&c->swe, sqlite3_column_int64(st, 0));
        c->has_wait_args = 1; /* a Stream Wait Event carries the args too */
        if (first)
            break;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(c->db, "critical path: stream waits");
    return PDB_OK;
}

int pdb_cp_open(sqlite3 *db, int64_t trace_id, bool hta, bool few, pdb_cp **out)
{
    pdb_cp *c = pdb_xcalloc(1, sizeof *c);
    *c = (pdb_cp){.db = db, .trace_id = trace_id, .hta = hta, .has_wait_args = -1,
                  .queue_to = INT64_MIN};
    *out = c;
    if (pdb_hta_settings(db, trace_id, &c->mode) != PDB_OK || lookup_symbols(c) != PDB_OK ||
        pdb_hta_sql_functions(db) != PDB_OK)
        return PDB_ERR;
    /* A few windows: the queue lengths up to what they need, when they
     * need them (load_window); else the whole trace's, once. */
    if (few ? pdb_analyze_exec(db, "critical_path.create_queue") != PDB_OK
            : build_queue(c, INT64_MAX) != PDB_OK)
        return PDB_ERR;
    if (!hta)
        c->mode = (pdb_hta_mode){0};
    if (pdb_analyze_prepare(db, "critical_path.range", &c->range) != PDB_OK ||
        pdb_analyze_prepare(db, "critical_path.by_correlation", &c->by_corr) != PDB_OK ||
        pdb_common_prepare(db, "strings.text", NULL, &c->name_of) != PDB_OK ||
        pdb_analyze_prepare(db, "critical_path.queue_at", &c->queue) != PDB_OK ||
        pdb_analyze_prepare(db, "critical_path.prev_launch", &c->prev_launch) != PDB_OK ||
        pdb_analyze_prepare(db, "critical_path.next_launch", &c->next_launch) != PDB_OK)
        return PDB_ERR;
    /* The trace's stream waits (every window has them, as in HTA) and
     * whether it writes the event-record args at all: a scan of every
     * slice's args, so only when the trace names a Stream Wait Event;
     * else has_wait_args is looked for when a sync first needs it. */
    return c->sym[S_STREAM_WAIT_EVENT] ? stream_waits(c, false) : PDB_OK;
}

void pdb_cp_close(pdb_cp *c)
{
    if (!c)
        return;
    sqlite3_finalize(c->range);
    sqlite3_finalize(c->by_corr);
    sqlite3_finalize(c->name_of);
    sqlite3_finalize(c->queue);
    sqlite3_finalize(c->prev_launch);
    sqlite3_finalize(c->next_launch);
    pdb_idmap_free(&c->name_class);
    for (size_t i = 0; i < c->nlinks; i++)
        free_evs(c->links[i].ev, c->links[i].n);
    free(c->links);
    pdb_idmap_free(&c->links_ix);
    free(c->swe.v);
    pdb_buf_free(&c->tmp);
    pdb_analyze_exec(c->db, "critical_path.clear_queue");
    free(c);
}

/* Events as HTA reads them ----------------------------------------------- */

/* A row of critical_path.sql's ev_columns as HTA keeps it: false when HTA drops it (not X, no
 * category, the Trace span). Times rounded in hta mode; the drop of the
 * last step is the caller's. */
static bool read_ev(pdb_cp *c, sqlite3_stmt *st, cp_ev *e)
{
    if (sqlite3_column_type(st, 2) == SQLITE_NULL || strcmp((const char *)sqlite3_column_text(st, 3), "X") != 0 ||
        sqlite3_column_int64(st, 2) == c->sym[S_TRACE])
        return false;
    int64_t ts = sqlite3_column_int64(st, 6), dur = sqlite3_column_int64(st, 7);
    *e = (cp_ev){.id = sqlite3_column_int64(st, 0), .name = sqlite3_column_int64(st, 1),
                 .cat = sqlite3_column_int64(st, 2), .ts = ts, .dur = dur,
                 .corr = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1
                                                                  : sqlite3_column_int64(st, 9),
                 .stream = pdb_hta_stream(sqlite3_column_value(st, 8)),
                 .wait_stream = sqlite3_column_type(st, 10) == SQLITE_NULL
                                    ? -1 : sqlite3_column_int64(st, 10),
                 .wait_corr = sqlite3_column_type(st, 11) == SQLITE_NULL
                                  ? -1 : sqlite3_column_int64(st, 11),
                 .q_own = NO_VALUE, .q_runtime = NO_VALUE, .start_node = -1, .end_node = -1,
                 .parent = -1, .first_child = -1, .next_sibling = -1};
    if (c->hta && c->mode.round) {
        int64_t s, en;
        pdb_hta_round(ts, dur, &s, &en);
        e->ts = s;
        e->dur = en - s;
    }
    e->names = name_class(c, e->name);
    return true;
}

/* HTA's GPUKernelFilter: a stream >= 0 and a correlation >= 0, or a device
 * sync; the rest is CPUOperatorFilter. */
static bool gpu_filter(const pdb_cp *c, const cp_ev *e)
{
    return (e->stream >= 0 && e->corr >= 0) ||
           (e->name && (e->name == c->sym[S_EVENT_SYNC] || e->name == c->sym[S_CONTEXT_SYNC]));
}

/* Kept by HTA's drop of the last step: a CPU-side event starting before the
 * cut (GPU events are kept with a kept CPU event of their correlation). */
static bool kept_cpu(const pdb_cp *c, const cp_ev *e)
{
    return !c->hta || !c->mode.drop_last || e->ts < c->mode.cutoff;
}

/* The events of a correlation (HTA's parsed rows), by slice id; out owns
 * pid/tid values. Returns the number read. */
static int read_corr(pdb_cp *c, int64_t corr, cp_ev **out, size_t *n, size_t *cap)
{
    *n = 0;
    sqlite3_bind_int64(c->by_corr, 1, c->trace_id);
    sqlite3_bind_int64(c->by_corr, 2, corr);
    int rc;
    while ((rc = sqlite3_step(c->by_corr)) == SQLITE_ROW) {
        cp_ev e;
        if (!read_ev(c, c->by_corr, &e))
            continue;
        e.pid = sqlite3_value_dup(sqlite3_column_value(c->by_corr, 4));
        e.tid = sqlite3_value_dup(sqlite3_column_value(c->by_corr, 5));
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 8;
            *out = pdb_xrealloc(*out, *cap * sizeof **out);
        }
        (*out)[(*n)++] = e;
    }
    sqlite3_reset(c->by_corr);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(c->db, "critical path: correlation lookup");
}

static void free_evs(cp_ev *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_value_free(v[i].pid);
        sqlite3_value_free(v[i].tid);
    }
}

/* HTA's index_correlation of an event of a correlation group: a CPU-side
 * event links to the last GPU event of its correlation, a GPU event to the
 * last CPU-side one; 0 when there is none (a correlation < 0: itself). */
static int64_t link_of(const pdb_cp *c, const cp_ev *e, const cp_ev *group, size_t n)
{
    if (e->corr == -1)
        return -1;
    int64_t ic = e->corr < 0 ? e->corr : 0;
    bool gpu = gpu_filter(c, e);
    for (size_t i = 0; i < n; i++)
        if (group[i].corr != -1 && gpu_filter(c, &group[i]) != gpu)
            ic = group[i].id;
    return ic;
}

/* The links of a correlation group: its last GPU-side and last CPU-side
 * events, in trace order. link_of gives the same answer on them as on the
 * whole group (it names the last event of the other side), so callers that
 * only follow links (add_launched, launch_kernel) read these; a large group
 * is remembered, so each window does not read it again. out owns pid/tid
 * values. */
static int read_links(pdb_cp *c, int64_t corr, cp_ev **out, size_t *n, size_t *cap)
{
    int64_t slot;
    if (*cap < 2) {
        *cap = 2;
        *out = pdb_xrealloc(*out, *cap * sizeof **out);
    }
    if (pdb_idmap_get(&c->links_ix, corr, &slot)) {
        const struct cp_links *l = &c->links[slot];
        *n = l->n;
        for (size_t i = 0; i < l->n; i++) {
            (*out)[i] = l->ev[i];
            (*out)[i].pid = sqlite3_value_dup(l->ev[i].pid);
            (*out)[i].tid = sqlite3_value_dup(l->ev[i].tid);
        }
        return PDB_OK;
    }
    if (read_corr(c, corr, out, n, cap) != PDB_OK)
        return PDB_ERR;
    size_t all = *n;
    ptrdiff_t last_gpu = -1, last_cpu = -1;
    for (size_t i = 0; i < all; i++) {
        if (gpu_filter(c, &(*out)[i]))
            last_gpu = (ptrdiff_t)i;
        else
            last_cpu = (ptrdiff_t)i;
    }
    /* Keep the two (in trace order), free the rest. */
    cp_ev keep[2];
    size_t k = 0;
    for (size_t i = 0; i < all; i++) {
        if ((ptrdiff_t)i == last_gpu || (ptrdiff_t)i == last_cpu)
            keep[k++] = (*out)[i];
        else
            free_evs(&(*out)[i], 1);
    }
    memcpy(*out, keep, k * sizeof *keep);
    *n = k;
    if (all > LINK_LARGE) {
        if (c->nlinks == LINK_CACHE) {
            for (size_t i = 0; i < c->nlinks; i++)
                free_evs(c->links[i].ev, c->links[i].n);
            c->nlinks = 0;
            pdb_idmap_free(&c->links_ix);
        }
        if (!c->links)
            c->links = pdb_xmalloc(LINK_CACHE * sizeof *c->links);
        struct cp_links *l = &c->links[c->nlinks];
        l->corr = corr;
        l->n = k;
        for (size_t i = 0; i < k; i++) {
            l->ev[i] = keep[i];
            l->ev[i].pid = sqlite3_value_dup(keep[i].pid);
            l->ev[i].tid = sqlite3_value_dup(keep[i].tid);
        }
        pdb_idmap_put(&c->links_ix, corr, (int64_t)c->nlinks++);
    }
    return PDB_OK;
}

static int64_t add_ev(cp_graph *g, const cp_ev *e)
{
    int64_t i;
    if (pdb_idmap_get(&g->ev_of, e->id, &i))
        return -1;
    if (g->nev == g->evcap) {
        g->evcap = g->evcap ? g->evcap * 2 : 256;
        g->ev = pdb_xrealloc(g->ev, g->evcap * sizeof *g->ev);
    }
    i = (int64_t)g->nev++;
    g->ev[i] = *e;
    pdb_idmap_put(&g->ev_of, e->id, i);
    return i;
}

static int64_t queue_at(pdb_cp *c, int64_t id)
{
    sqlite3_bind_int64(c->queue, 1, id);
    int64_t q = sqlite3_step(c->queue) == SQLITE_ROW ? sqlite3_column_int64(c->queue, 0) : NO_VALUE;
    sqlite3_reset(c->queue);
    return q;
}

/* The GPU event a CPU event in the window links to (HTA joins GPU events
 * with the CPU events whose index_correlation names them), with its own
 * link (the last CPU event of the correlation) and that event's start. */
static int add_launched(cp_graph *g, int64_t cpu)
{
    pdb_cp *c = g->c;
    cp_ev *group = NULL;
    size_t n = 0, cap = 0;
    if (g->ev[cpu].corr == -1)
        return PDB_OK;
    if (read_links(c, g->ev[cpu].corr, &group, &n, &cap) != PDB_OK)
        return PDB_ERR;
    g->ev[cpu].ic = link_of(c, &g->ev[cpu], group, n);
    for (size_t i = 0; i < n; i++) {
        cp_ev *e = &group[i];
        if (e->id != g->ev[cpu].ic || e->stream == -1)
            continue;
        e->ic = link_of(c, e, group, n);
        for (size_t j = 0; j < n; j++)
            if (group[j].id == e->ic)
                e->runtime_ts = group[j].ts;
        if (add_ev(g, e) >= 0)
            e->pid = e->tid = NULL; /* moved */
    }
    free_evs(group, n);
    free(group);
    return PDB_OK;
}

/* A Stream Wait Event of the trace, with its link and runtime call. */
static int add_stream_wait(cp_graph *g, int64_t id)
{
    pdb_cp *c = g->c;
    cp_ev *group = NULL;
    size_t n = 0, cap = 0;
    sqlite3_stmt *st;
    int64_t corr = -1;
    if (pdb_analyze_prepare(c->db, "critical_path.correlation_of", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        corr = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (corr == -1 || read_corr(c, corr, &group, &n, &cap) != PDB_OK)
        return corr == -1 ? PDB_OK : PDB_ERR;
    for (size_t i = 0; i < n; i++) {
        cp_ev *e = &group[i];
        if (e->id != id || e->stream == -1)
            continue;
        e->ic = link_of(c, e, group, n);
        for (size_t j = 0; j < n; j++)
            if (group[j].id == e->ic)
                e->runtime_ts = group[j].ts;
        if (add_ev(g, e) >= 0)
            e->pid = e->tid = NULL;
    }
    free_evs(group, n);
    free(group);
    return PDB_OK;
}

static int cmp_ev_id(const void *x, const void *y)
{
    const cp_ev *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The clipped events of the window, in trace order. */
static int load_window(cp_graph *g)
{
    pdb_cp *c = g->c;
    const pdb_cp_window *w = g->w;
    int64_t from = w->whole ? INT64_MIN : w->start - PDB_HTA_US, to = w->whole ? INT64_MAX : w->end;
    sqlite3_bind_int64(c->range, 1, c->trace_id);
    sqlite3_bind_int64(c->range, 2, from);
    sqlite3_bind_int64(c->range, 3, to);
    int rc;
    size_t ncpu = 0;
    while ((rc = sqlite3_step(c->range)) == SQLITE_ROW) {
        cp_ev e;
        if (!read_ev(c, c->range, &e) || e.stream != -1 || e.dur <= 0 || !kept_cpu(c, &e))
            continue;
        if (!w->whole && (e.ts < w->start || e.ts > w->end))
            continue;
        e.ic = e.corr == -1 ? -1 : e.corr < 0 ? e.corr : 0;
        e.pid = sqlite3_value_dup(sqlite3_column_value(c->range, 4));
        e.tid = sqlite3_value_dup(sqlite3_column_value(c->range, 5));
        add_ev(g, &e);
        ncpu++;
    }
    sqlite3_reset(c->range);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(c->db, "critical path: reading the window");
    for (size_t i = 0; i < ncpu; i++)
        if (add_launched(g, (int64_t)i) != PDB_OK)
            return PDB_ERR;
    for (size_t i = 0; i < c->swe.n; i++)
        if (add_stream_wait(g, c->swe.v[i]) != PDB_OK)
            return PDB_ERR;
    /* Trace order, and the index rebuilt. */
    qsort(g->ev, g->nev, sizeof *g->ev, cmp_ev_id);
    pdb_idmap_free(&g->ev_of);
    if (c->queue_to != INT64_MAX) {
        int64_t first = INT64_MAX, need = INT64_MIN;
        for (size_t i = 0; i < g->nev; i++) {
            const cp_ev *e = &g->ev[i];
            if (e->stream == -1 || e->ic < 0)
                continue;
            first = e->ts < first ? e->ts : first;
            need = e->ts > need ? e->ts : need;
            if (e->ic > 0)
                need = e->runtime_ts > need ? e->runtime_ts : need;
        }
        if (w->whole ? build_queue(c, INT64_MAX) != PDB_OK
                     : need > INT64_MIN && queue_until(c, first, need) != PDB_OK)
            return PDB_ERR;
    }
    for (size_t i = 0; i < g->nev; i++) {
        pdb_idmap_put(&g->ev_of, g->ev[i].id, (int64_t)i);
        if (g->ev[i].stream != -1 && g->ev[i].ic >= 0) {
            g->ev[i].q_own = queue_at(c, g->ev[i].id);
            g->ev[i].q_runtime = g->ev[i].ic > 0 ? queue_at(c, g->ev[i].ic) : NO_VALUE;
        }
    }
    return PDB_OK;
}

/* Nodes and edges --------------------------------------------------------- */

static bool op_or_runtime(const pdb_cp *c, const cp_ev *e)
{
    return e->cat && (e->cat == c->sym[S_CPU_OP] || e->cat == c->sym[S_CUDA_RUNTIME] ||
                      e->cat == c->sym[S_CUDA_DRIVER]);
}

typedef struct {
    int64_t ts, ev_id, ev;
    bool is_start;
} node_key;

static int cmp_node(const void *x, const void *y)
{
    const node_key *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->ev_id != b->ev_id)
        return a->ev_id < b->ev_id ? -1 : 1;
    return (int)b->is_start - (int)a->is_start; /* starts first (concat order) */
}

static void create_event_nodes(cp_graph *g)
{
    node_key *k = pdb_xmalloc((2 * g->nev + 1) * sizeof *k);
    size_t n = 0;
    for (size_t i = 0; i < g->nev; i++) {
        cp_ev *e = &g->ev[i];
        if (!op_or_runtime(g->c, e) && !(e->stream != -1 && e->ic >= 0))
            continue;
        k[n++] = (node_key){e->ts, e->id, (int64_t)i, true};
        k[n++] = (node_key){e->ts + e->dur, e->id, (int64_t)i, false};
    }
    qsort(k, n, sizeof *k, cmp_node);
    g->node = pdb_xmalloc((n + 1) * sizeof *g->node);
    g->nnode = n;
    for (size_t i = 0; i < n; i++) {
        cp_ev *e = &g->ev[k[i].ev];
        g->node[i] = (cp_node){k[i].ev, k[i].ts, k[i].is_start,
                               (e->names & N_BLOCKING) != 0};
        if (k[i].is_start)
            e->start_node = (int64_t)i;
        else
            e->end_node = (int64_t)i;
    }
    free(k);
    g->succ = pdb_xcalloc(n + 1, sizeof *g->succ);
    g->pred = pdb_xcalloc(n + 1, sizeof *g->pred);
    g->in_graph = pdb_xcalloc(n + 1, sizeof *g->in_graph);
}

static void graph_node(cp_graph *g, int64_t u)
{
    if (!g->in_graph[u]) {
        g->in_graph[u] = true;
        push(&g->graph_order, u);
    }
}

/* networkx add_edge: a new edge goes last in both adjacencies; an existing
 * one keeps its place and takes the new weight and type. */
static int64_t add_edge(cp_graph *g, int64_t u, int64_t v, int type, bool zero_weight)
{
    assert(u != v);
    int64_t weight = type == PDB_CP_DEPENDENCY || type == PDB_CP_SYNC || zero_weight
                         ? 0 : g->node[v].ts - g->node[u].ts;
    int64_t key = pdb_idmap_pair(u, v), i;
    if (pdb_idmap_get(&g->edge_of, key, &i)) {
        g->edge[i].type = type;
        g->edge[i].weight = g->edge[i].graph_weight = weight;
        return i;
    }
    graph_node(g, u);
    graph_node(g, v);
    if (g->nedge == g->edgecap) {
        g->edgecap = g->edgecap ? g->edgecap * 2 : 256;
        g->edge = pdb_xrealloc(g->edge, g->edgecap * sizeof *g->edge);
    }
    i = (int64_t)g->nedge++;
    g->edge[i] = (cp_edge){u, v, weight, weight, type};
    pdb_idmap_put(&g->edge_of, key, i);
    push(&g->succ[u], i);
    push(&g->pred[v], i);
    return i;
}

/* HTA's _attribute_edge (operator and kernel-kernel edges only). */
static void attribute_edge(cp_graph *g, int64_t e, int64_t src_parent_id)
{
    cp_edge *ed = &g->edge[e];
    if (ed->type != PDB_CP_OPERATOR && ed->type != PDB_CP_KERNEL_KERNEL)
        return;
    const cp_node *src = &g->node[ed->u], *dest = &g->node[ed->v];
    int64_t ev;
    if (ed->type == PDB_CP_KERNEL_KERNEL || src->is_start)
        ev = g->ev[src->ev].id;
    else if (!dest->is_start)
        ev = g->ev[dest->ev].id;
    else
        ev = src_parent_id;
    pdb_idmap_put(&g->attributed, e, ev);
}

static bool lock_node(const cp_graph *g, const cp_node *n)
{
    return (g->ev[n->ev].names & N_LOCK) != 0;
}

static bool shares_lock(const cp_graph *g, const cp_node *a, const cp_node *b)
{
    return lock_node(g, a) && lock_node(g, b) && (a->is_start || !b->is_start);
}

/* HTA's _construct_graph_from_cuda_runtime_events. */
static void runtime_lock_edges(cp_graph *g)
{
    i64_list starts = {0};
    int64_t last = -1;
    for (size_t i = 0; i < g->nnode; i++) {
        const cp_node *n = &g->node[i];
        if (!lock_node(g, n))
            continue;
        if (n->is_start)
            push(&starts, (int64_t)i);
        else {
            while (starts.n) {
                int64_t p = starts.v[--starts.n];
                if (g->node[p].ev == n->ev)
                    attribute_edge(g, add_edge(g, p, (int64_t)i, PDB_CP_OPERATOR, false),
                                   g->ev[n->ev].id);
                else
                    add_edge(g, p, (int64_t)i, PDB_CP_DEPENDENCY, false);
            }
            if (last >= 0 && !g->node[last].is_start)
                add_edge(g, last, (int64_t)i, PDB_CP_DEPENDENCY, false);
        }
        last = (int64_t)i;
    }
    free(starts.v);
}

/* Call stacks -------------------------------------------------------------- */

/* HTA's tid of the forward (or backward) thread: the one thread of the
 * window's cpu_op and user_annotation events whose names contain the word. */
static int unique_tid(cp_graph *g, int flag, int64_t *ev)
{
    int found = 0;
    for (size_t i = 0; i < g->nev; i++) {
        cp_ev *e = &g->ev[i];
        if (!(e->names & flag) ||
            (e->cat != g->c->sym[S_CPU_OP] && e->cat != g->c->sym[S_USER_ANNOTATION]))
            continue;
        if (found && !pdb_value_equal(e->tid, g->ev[*ev].tid))
            return 2;
        if (!found)
            *ev = (int64_t)i;
        found = 1;
    }
    return found;
}

/* Threads: (pid, tid) with the backward tid mapped to the forward one,
 * numbered in order first seen under their whole values (hashed: a window
 * may hold many threads); sets each event's thread and their number. */
static void assign_threads(cp_graph *g)
{
    int64_t fwd = -1, bwd = -1;
    bool remap = unique_tid(g, N_FORWARD, &fwd) == 1 && unique_tid(g, N_AUTOGRAD, &bwd) == 1 &&
                 sqlite3_value_type(g->ev[fwd].tid) == sqlite3_value_type(g->ev[bwd].tid) &&
                 !pdb_value_equal(g->ev[fwd].tid, g->ev[bwd].tid);
    pdb_strmap *ix = pdb_strmap_new();
    pdb_buf key = PDB_BUF_INIT;
    int64_t n = 0;
    for (size_t i = 0; i < g->nev; i++) {
        cp_ev *e = &g->ev[i];
        sqlite3_value *tid = remap && pdb_value_equal(e->tid, g->ev[bwd].tid) ? g->ev[fwd].tid
                                                                               : e->tid;
        pdb_buf_reset(&key);
        pdb_value_key(&key, e->pid);
        pdb_value_key(&key, tid);
        int64_t j;
        if (!pdb_strmap_get(ix, key.p, key.len, &j)) {
            j = n++;
            pdb_strmap_put(ix, key.p, key.len, j);
        }
        e->thread = (int)j;
    }
    pdb_buf_free(&key);
    pdb_strmap_free(ix);
    g->nthreads = (int)n;
}

/* An end point of an event in HTA's call-stack sort (call_stack.py's
 * compare_events; durations below 0 count as 0). */
typedef struct {
    int64_t idx, time, dur, ev;
    int type; /* +1 start, -1 end */
} stack_point;

static int cmp_stack_point(const void *a, const void *b)
{
    const stack_point *x = a, *y = b;
    if (x->idx == y->idx)
        return x->type == 1 ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->type == y->type) {
        if (x->type == 1) {
            if (x->dur == y->dur)
                return x->idx < y->idx ? -1 : 1;
            return x->dur < y->dur ? 1 : -1;
        }
        if (x->dur == y->dur)
            return x->idx < y->idx ? 1 : -1;
        return x->dur < y->dur ? -1 : 1;
    }
    if (x->dur > 0 && y->dur > 0)
        return x->type == 1 ? 1 : -1;
    if (x->dur == 0 && y->dur == 0)
        return x->idx < y->idx ? -1 : 1;
    return x->type == 1 ? -1 : 1;
}

/* Builds the call stacks of the CPU threads (parent, children in start
 * order) and returns each thread's top-level events in order. */
static void build_stacks(cp_graph *g, i64_list *roots)
{
    /* The events grouped by thread (in index order within one), once: a
     * look at every event per thread made many threads quadratic. */
    size_t nt = (size_t)g->nthreads;
    size_t *start = pdb_xcalloc(nt + 1, sizeof *start);
    bool *cpu = pdb_xmalloc((nt ? nt : 1) * sizeof *cpu);
    for (size_t t = 0; t < nt; t++)
        cpu[t] = true;
    for (size_t i = 0; i < g->nev; i++) {
        start[g->ev[i].thread + 1]++;
        cpu[g->ev[i].thread] &= g->ev[i].stream < 0; /* a CPU thread: all on stream -1 */
    }
    for (size_t t = 0; t < nt; t++)
        start[t + 1] += start[t];
    int64_t *by_thread = pdb_xmalloc((g->nev ? g->nev : 1) * sizeof *by_thread);
    size_t *fill = pdb_xmalloc((nt ? nt : 1) * sizeof *fill);
    memcpy(fill, start, nt * sizeof *fill);
    for (size_t i = 0; i < g->nev; i++)
        by_thread[fill[g->ev[i].thread]++] = (int64_t)i;
    stack_point *p = pdb_xmalloc((2 * g->nev + 1) * sizeof *p);
    int64_t *last_child = pdb_xmalloc((g->nev + 1) * sizeof *last_child);
    i64_list stack = {0};
    for (size_t t = 0; t < nt; t++) {
        if (!cpu[t] || start[t] == start[t + 1])
            continue;
        size_t k = 0;
        for (size_t j = start[t]; j < start[t + 1]; j++) {
            int64_t i = by_thread[j];
            cp_ev *e = &g->ev[i];
            int64_t dur = e->dur > 0 ? e->dur : 0;
            p[k++] = (stack_point){e->id, e->ts, dur, i, 1};
            p[k++] = (stack_point){e->id, e->ts + dur, dur, i, -1};
        }
        qsort(p, k, sizeof *p, cmp_stack_point);
        stack.n = 0;
        int64_t last_root = -1;
        for (size_t i = 0; i < k; i++) {
            if (p[i].type == -1) {
                if (stack.n)
                    stack.n--;
                continue;
            }
            int64_t e = p[i].ev;
            last_child[e] = -1;
            if (stack.n) {
                int64_t par = stack.v[stack.n - 1];
                g->ev[e].parent = par;
                if (last_child[par] < 0)
                    g->ev[par].first_child = e;
                else
                    g->ev[last_child[par]].next_sibling = e;
                last_child[par] = e;
            } else {
                if (last_root < 0)
                    push(roots, e);
                else
                    g->ev[last_root].next_sibling = e;
                last_root = e;
            }
            push(&stack, e);
        }
    }
    free(stack.v);
    free(last_child);
    free(p);
    free(fill);
    free(by_thread);
    free(cpu);
    free(start);
}

/* HTA's _construct_graph_from_call_stack: a depth-first walk of one
 * thread's stack linking each op's start and end to the previous node. */
static void walk_stack(cp_graph *g, int64_t root)
{
    int64_t last = -1, last_parent = -1;
    int depth = 0;
    /* Explicit stack of (event, children visited). */
    i64_list st = {0};
    for (int64_t top = root; top >= 0; top = g->ev[top].next_sibling) {
        push(&st, top);
        bool entering = true;
        while (st.n) {
            int64_t e = st.v[st.n - 1];
            cp_ev *ev = &g->ev[e];
            if (entering) {
                if (ev->start_node >= 0 && ev->end_node >= 0) {
                    const cp_node *s = &g->node[ev->start_node];
                    if (last >= 0 && !shares_lock(g, &g->node[last], s)) {
                        int type = depth == 0 ? PDB_CP_DEPENDENCY : PDB_CP_OPERATOR;
                        attribute_edge(g, add_edge(g, last, ev->start_node, type, false),
                                       last_parent);
                    }
                    last = ev->start_node;
                    last_parent = ev->parent >= 0 ? g->ev[ev->parent].id : -1;
                    depth++;
                }
                if (ev->first_child >= 0) {
                    push(&st, ev->first_child);
                    continue;
                }
            }
            /* Exit e. */
            if (ev->start_node >= 0 && ev->end_node >= 0) {
                const cp_node *en = &g->node[ev->end_node];
                if (last >= 0 && !shares_lock(g, &g->node[last], en)) {
                    bool zero = g->node[ev->start_node].is_blocking;
                    attribute_edge(g, add_edge(g, last, ev->end_node, PDB_CP_OPERATOR, zero),
                                   last_parent);
                }
                last = ev->end_node;
                last_parent = ev->parent >= 0 ? g->ev[ev->parent].id : -1;
                depth--;
            }
            st.n--;
            if (st.n && ev->next_sibling >= 0) {
                push(&st, ev->next_sibling);
                entering = true;
            } else
                entering = false;
        }
    }
    free(st.v);
}

static void call_stack_edges(cp_graph *g)
{
    assign_threads(g);
    i64_list roots = {0};
    build_stacks(g, &roots);
    for (size_t i = 0; i < roots.n; i++)
        walk_stack(g, roots.v[i]);
    free(roots.v);
}

/* Kernels ------------------------------------------------------------------ */

/* A launch-named, kept CPU event's GPU kernel, as HTA's runtime-calls
 * table joins them: the correlation's last GPU event, on a stream, linking
 * back to a CPU event. Returns its id (0: none) and its pid, stream. */
static int launch_kernel(pdb_cp *c, const cp_ev *l, int64_t *kernel, sqlite3_value **pid,
                         int64_t *stream)
{
    cp_ev *group = NULL;
    size_t n = 0, cap = 0;
    *kernel = 0;
    if (l->corr == -1 || read_links(c, l->corr, &group, &n, &cap) != PDB_OK)
        return l->corr == -1 ? PDB_OK : PDB_ERR;
    int64_t k = link_of(c, l, group, n);
    for (size_t i = 0; i < n; i++)
        if (group[i].id == k && group[i].stream != -1 && link_of(c, &group[i], group, n) > 0) {
            *kernel = k;
            *stream = group[i].stream;
            *pid = sqlite3_value_dup(group[i].pid);
        }
    free_evs(group, n);
    free(group);
    return PDB_OK;
}

static bool same_value(sqlite3_value *a, sqlite3_value *b)
{
    return pdb_value_equal(a, b);
}

/* The launch before (dir -1: the latest at or before t) or after (dir +1:
 * the first after t) on a GPU stream, from a CPU thread (thread_pid/tid, or
 * any when NULL) to a device (gpu, or any when NULL). Sets *launch and
 * *kernel (0: none). HTA finds them by sorting every launch of the trace;
 * here the trace is read from t outwards until one matches. */
static int find_launch(pdb_cp *c, int dir, int64_t t, sqlite3_value *gpu, int64_t stream,
                       sqlite3_value *thread_pid, sqlite3_value *thread_tid, int64_t *launch,
                       int64_t *kernel)
{
    sqlite3_stmt *st = dir < 0 ? c->prev_launch : c->next_launch;
    *launch = *kernel = 0;
    sqlite3_bind_int64(st, 1, c->trace_id);
    sqlite3_bind_int64(st, 2, dir < 0 ? t + PDB_HTA_US : t - PDB_HTA_US);
    int rc = PDB_OK;
    while (rc == PDB_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t name = sqlite3_column_int64(st, 5);
        if (!(name_class(c, name) & N_LAUNCH))
            continue;
        cp_ev l = {.id = sqlite3_column_int64(st, 0), .name = name,
                   .ts = sqlite3_column_int64(st, 1),
                   .corr = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1
                                                                     : sqlite3_column_int64(st, 4),
                   .stream = -1};
        if (c->hta && c->mode.round)
            l.ts = pdb_hta_ceil(l.ts);
        if ((dir < 0 && l.ts > t) || (dir > 0 && l.ts <= t) || !kept_cpu(c, &l))
            continue;
        if (thread_pid && (!same_value(sqlite3_column_value(st, 2), thread_pid) ||
                           !same_value(sqlite3_column_value(st, 3), thread_tid)))
            continue;
        int64_t k, s = -1;
        sqlite3_value *p = NULL;
        rc = launch_kernel(c, &l, &k, &p, &s);
        bool match = rc == PDB_OK && k > 0 && s == stream && (!gpu || same_value(p, gpu));
        sqlite3_value_free(p);
        if (match) {
            *launch = l.id;
            *kernel = k;
            break;
        }
    }
    sqlite3_reset(st);
    return rc;
}

/* HTA's index_previous_launch of an Event Sync or Stream Wait Event: the
 * launch before the cudaEventRecord it waits on, on the recorded stream. */
static int previous_launch(cp_graph *g, const cp_ev *sync, int64_t *kernel)
{
    pdb_cp *c = g->c;
    *kernel = 0;
    if (!c->sym[S_EVENT_RECORD] || sync->wait_corr == -1 || sync->wait_stream <= -1)
        return PDB_OK;
    if (c->has_wait_args < 0 && stream_waits(c, true) != PDB_OK)
        return PDB_ERR;
    if (!c->has_wait_args)
        return PDB_OK;
    cp_ev *group = NULL;
    size_t n = 0, cap = 0;
    if (read_corr(c, sync->wait_corr, &group, &n, &cap) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (size_t i = 0; i < n && rc == PDB_OK; i++)
        if (group[i].name == c->sym[S_EVENT_RECORD]) {
            int64_t launch;
            rc = find_launch(c, -1, group[i].ts, sync->pid, sync->wait_stream, NULL, NULL,
                             &launch, kernel);
        }
    free_evs(group, n);
    free(group);
    return rc;
}

/* The kernel of the first launch after a cudaStreamWaitEvent on its thread
 * and the stream it waits on (HTA's index_next_launch). */
static int next_launch(cp_graph *g, const cp_ev *wait, int64_t *kernel)
{
    pdb_cp *c = g->c;
    sqlite3_stmt *st;
    *kernel = 0;
    if (pdb_analyze_prepare(c->db, "critical_path.place_of", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, wait->ic);
    int rc = PDB_OK;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int64_t ts = sqlite3_column_int64(st, 0), launch;
        if (c->hta && c->mode.round)
            ts = pdb_hta_ceil(ts);
        sqlite3_value *pid = sqlite3_value_dup(sqlite3_column_value(st, 1));
        sqlite3_value *tid = sqlite3_value_dup(sqlite3_column_value(st, 2));
        rc = find_launch(c, +1, ts, NULL, wait->stream, pid, tid, &launch, kernel);
        sqlite3_value_free(pid);
        sqlite3_value_free(tid);
    }
    sqlite3_finalize(st);
    return rc;
}

static int64_t node_of(const cp_graph *g, int64_t slice_id, bool end)
{
    int64_t i;
    if (!pdb_idmap_get(&g->ev_of, slice_id, &i))
        return -1;
    return end ? g->ev[i].end_node : g->ev[i].start_node;
}

typedef struct {
    int64_t ev, key;
} kernel_key;

static int cmp_kernel(const void *x, const void *y)
{
    const kernel_key *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->ev < b->ev ? -1 : a->ev > b->ev;
}

/* Last node per stream, in order of first use (Context Sync walks them). */
typedef struct {
    int64_t *stream, *node;
    size_t n;
} last_nodes;

static int64_t *last_for(last_nodes *l, int64_t stream, bool create)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->stream[i] == stream)
            return &l->node[i];
    if (!create)
        return NULL;
    l->stream = pdb_xrealloc(l->stream, (l->n + 1) * sizeof *l->stream);
    l->node = pdb_xrealloc(l->node, (l->n + 1) * sizeof *l->node);
    l->stream[l->n] = stream;
    l->node[l->n] = -1;
    return &l->node[l->n++];
}

/* HTA's handle_cuda_sync. */
static int cuda_sync(cp_graph *g, const cp_ev *row, last_nodes *last, pdb_idmap *kernel_sync)
{
    pdb_cp *c = g->c;
    if (row->name == c->sym[S_STREAM_WAIT_EVENT] || row->name == c->sym[S_EVENT_SYNC]) {
        int64_t src;
        if (previous_launch(g, row, &src) != PDB_OK)
            return PDB_ERR;
        if (src <= 0)
            return PDB_OK;
        if (row->name == c->sym[S_STREAM_WAIT_EVENT]) {
            int64_t dest;
            if (next_launch(g, row, &dest) != PDB_OK)
                return PDB_ERR;
            if (dest > 0)
                pdb_idmap_put(kernel_sync, dest, src);
            return PDB_OK;
        }
        int64_t gpu_end = node_of(g, src, true), cpu_end = node_of(g, row->ic, true);
        if (gpu_end >= 0 && cpu_end >= 0)
            add_edge(g, gpu_end, cpu_end, PDB_CP_SYNC, false);
        return PDB_OK;
    }
    if (row->name != c->sym[S_STREAM_SYNC] && row->name != c->sym[S_CONTEXT_SYNC])
        return PDB_OK;
    int64_t cpu_end = node_of(g, row->ic, true);
    if (row->name == c->sym[S_CONTEXT_SYNC]) {
        for (size_t i = 0; i < last->n; i++)
            if (last->node[i] >= 0 && cpu_end >= 0)
                add_edge(g, last->node[i], cpu_end, PDB_CP_SYNC, false);
    } else {
        int64_t *n = last_for(last, row->stream, false);
        if (n && *n >= 0 && cpu_end >= 0)
            add_edge(g, *n, cpu_end, PDB_CP_SYNC, false);
    }
    return PDB_OK;
}

/* HTA's _construct_graph_from_kernels. */
static int kernel_edges(cp_graph *g, const char **why)
{
    pdb_cp *c = g->c;
    kernel_key *k = pdb_xmalloc((g->nev + 1) * sizeof *k);
    size_t n = 0;
    for (size_t i = 0; i < g->nev; i++) {
        cp_ev *e = &g->ev[i];
        bool sync_name = e->name && (e->name == c->sym[S_EVENT_SYNC] ||
                                     e->name == c->sym[S_CONTEXT_SYNC]);
        if ((e->stream != -1 || sync_name) && e->ic >= 0)
            k[n++] = (kernel_key){(int64_t)i, e->cat == c->sym[S_CUDA_SYNC] && c->sym[S_CUDA_SYNC]
                                                  ? e->ts + e->dur : e->ts};
    }
    qsort(k, n, sizeof *k, cmp_kernel);
    last_nodes last = {0};
    pdb_idmap kernel_sync = {0};
    int rc = PDB_OK;
    for (size_t i = 0; i < n && rc == PDB_OK; i++) {
        cp_ev *e = &g->ev[k[i].ev];
        if (c->sym[S_CUDA_SYNC] && e->cat == c->sym[S_CUDA_SYNC]) {
            rc = cuda_sync(g, e, &last, &kernel_sync);
            continue;
        }
        if (e->start_node < 0 || e->end_node < 0)
            continue;
        const cp_node *start = &g->node[e->start_node];
        attribute_edge(g, add_edge(g, e->start_node, e->end_node, PDB_CP_OPERATOR, false), -1);
        int64_t sync_src, sync_end = -1;
        bool has_sync = pdb_idmap_get(&kernel_sync, e->id, &sync_src) && sync_src != 0;
        bool edge_added = false, launch_added = false;
        if (has_sync) {
            sync_end = node_of(g, sync_src, true);
            if (sync_end < 0)
                has_sync = false;
            else {
                add_edge(g, sync_end, e->start_node, PDB_CP_SYNC, false);
                edge_added = true;
            }
            pdb_idmap_put(&kernel_sync, e->id, 0);
        }
        int64_t *prev = last_for(&last, e->stream, true);
        int64_t runtime_start = node_of(g, e->ic, false);
        if (e->q_runtime == 1 && e->q_own == 0 &&
            (*prev < 0 || g->node[*prev].ts < e->runtime_ts) &&
            (!has_sync || g->node[sync_end].ts < e->runtime_ts)) {
            if (runtime_start < 0) {
                *why = "Could not find runtime index (HTA's assertion)";
                rc = PDB_ERR + 1;
                break;
            }
            add_edge(g, runtime_start, e->start_node, PDB_CP_LAUNCH, false);
            edge_added = launch_added = true;
        } else if (*prev >= 0 && start->ts - g->node[*prev].ts < us(c, KERNEL_KERNEL_DELAY_US) &&
                   (!has_sync || g->node[sync_end].ts < g->node[*prev].ts)) {
            attribute_edge(g, add_edge(g, *prev, e->start_node, PDB_CP_KERNEL_KERNEL, false), -1);
            edge_added = true;
        }
        (void)edge_added;
        if (g->w->zero_weight_launch && !launch_added && runtime_start >= 0)
            add_edge(g, runtime_start, e->start_node, PDB_CP_LAUNCH, true);
        *prev = e->end_node;
    }
    free(last.stream);
    free(last.node);
    pdb_idmap_free(&kernel_sync);
    free(k);
    return rc;
}

/* Validation and the longest path ------------------------------------------ */

/* HTA's _validate_graph: negative weights count 0 (HTA: -1 us, from
 * rounding), a sync between kernels of one stream or a cycle fails. */
static const char *validate(cp_graph *g)
{
    for (size_t i = 0; i < g->nedge; i++) {
        cp_edge *e = &g->edge[i];
        if (e->weight < 0)
            e->graph_weight = 0;
        if (e->type == PDB_CP_SYNC) {
            int64_t s = g->ev[g->node[e->u].ev].stream, d = g->ev[g->node[e->v].ev].stream;
            if (s != -1 && s == d)
                return "a CUDA sync between kernels on one stream";
        }
    }
    return NULL;
}

/* networkx's topological_generations then dag_longest_path. */
static const char *longest_path(cp_graph *g, i64_list *path)
{
    size_t n = g->graph_order.n;
    int64_t *indeg = pdb_xcalloc(g->nnode + 1, sizeof *indeg);
    int64_t *dist = pdb_xmalloc((g->nnode + 1) * sizeof *dist);
    int64_t *from = pdb_xmalloc((g->nnode + 1) * sizeof *from);
    i64_list topo = {0}, gen = {0}, next = {0};
    for (size_t i = 0; i < g->nedge; i++)
        indeg[g->edge[i].v]++;
    for (size_t i = 0; i < n; i++)
        if (!indeg[g->graph_order.v[i]])
            push(&gen, g->graph_order.v[i]);
    while (gen.n) {
        next.n = 0;
        for (size_t i = 0; i < gen.n; i++) {
            int64_t u = gen.v[i];
            push(&topo, u);
            for (size_t j = 0; j < g->succ[u].n; j++) {
                int64_t v = g->edge[g->succ[u].v[j]].v;
                if (--indeg[v] == 0)
                    push(&next, v);
            }
        }
        i64_list t = gen;
        gen = next;
        next = t;
    }
    const char *why = NULL;
    if (topo.n != n)
        why = "the graph has a cycle";
    int64_t best_v = -1;
    for (size_t i = 0; !why && i < topo.n; i++) {
        int64_t v = topo.v[i];
        dist[v] = 0;
        from[v] = v;
        bool any = false;
        int64_t best = 0, best_u = v;
        for (size_t j = 0; j < g->pred[v].n; j++) {
            const cp_edge *e = &g->edge[g->pred[v].v[j]];
            int64_t d = dist[e->u] + e->graph_weight;
            if (!any || d > best) {
                best = d;
                best_u = e->u;
                any = true;
            }
        }
        if (any && best >= 0) {
            dist[v] = best;
            from[v] = best_u;
        }
        if (best_v < 0 || dist[v] > dist[best_v])
            best_v = v;
    }
    if (!why && best_v >= 0) {
        for (int64_t v = best_v;; v = from[v]) {
            push(path, v);
            if (from[v] == v)
                break;
        }
        for (size_t i = 0, j = path->n - 1; i < j; i++, j--) {
            int64_t t = path->v[i];
            path->v[i] = path->v[j];
            path->v[j] = t;
        }
    }
    free(indeg);
    free(dist);
    free(from);
    free(topo.v);
    free(gen.v);
    free(next.v);
    return why;
}

static int bound_of(const cp_graph *g, int64_t edge)
{
    const cp_edge *e = &g->edge[edge];
    switch (e->type) {
    case PDB_CP_KERNEL_KERNEL:
        return PDB_CP_KERNEL_KERNEL_OVERHEAD;
    case PDB_CP_LAUNCH:
        return PDB_CP_LAUNCH_OVERHEAD;
    case PDB_CP_DEPENDENCY:
    case PDB_CP_SYNC:
        return PDB_CP_UNBOUND;
    }
    int64_t id, i;
    if (!pdb_idmap_get(&g->attributed, edge, &id) || !pdb_idmap_get(&g->ev_of, id, &i))
        return PDB_CP_UNBOUND;
    const cp_ev *ev = &g->ev[i];
    if (ev->stream < 0)
        return PDB_CP_CPU;
    return ev->names & N_COMM ? PDB_CP_GPU_COMM : PDB_CP_GPU_COMPUTE;
}

static void free_graph(cp_graph *g)
{
    free_evs(g->ev, g->nev);
    free(g->ev);
    pdb_idmap_free(&g->ev_of);
    free(g->node);
    free(g->edge);
    pdb_idmap_free(&g->edge_of);
    pdb_idmap_free(&g->attributed);
    for (size_t i = 0; i < g->nnode + 1 && g->succ; i++) {
        free(g->succ[i].v);
        free(g->pred[i].v);
    }
    free(g->succ);
    free(g->pred);
    free(g->graph_order.v);
    free(g->in_graph);
}

static int report_path(cp_graph *g, const i64_list *path, pdb_cp_result *res,
                       pdb_cp_step_fn step, void *arg)
{
    pdb_idmap events = {0};
    res->path_nodes = (int64_t)path->n;
    res->first_ts = g->node[path->v[0]].ts;
    res->last_ts = g->node[path->v[path->n - 1]].ts;
    for (size_t i = 0; i < path->n; i++) {
        int64_t u = path->v[i], seen;
        const cp_node *n = &g->node[u];
        int64_t id = g->ev[n->ev].id;
        if (!pdb_idmap_get(&events, id, &seen)) {
            pdb_idmap_put(&events, id, 1);
            res->critical_events++;
        }
        pdb_cp_step s = {u, id, n->ts, n->is_start, -1, 0, -1, PDB_CP_UNBOUND};
        if (i + 1 < path->n) {
            int64_t e;
            pdb_idmap_get(&g->edge_of, pdb_idmap_pair(u, path->v[i + 1]), &e);
            const cp_edge *ed = &g->edge[e];
            int64_t att;
            s.edge_type = ed->type;
            s.weight_ns = ed->weight;
            s.edge_slice_id = pdb_idmap_get(&g->attributed, e, &att) &&
                                      (ed->type == PDB_CP_OPERATOR || ed->type == PDB_CP_KERNEL_KERNEL)
                                  ? att : -1;
            s.bound = bound_of(g, e);
            res->length_ns += ed->graph_weight;
            res->object_length_ns += ed->weight;
            res->bound_ns[s.bound] += ed->weight;
            res->bound_edges[s.bound]++;
            res->type_ns[ed->type] += ed->weight;
            res->type_edges[ed->type]++;
        }
        if (step && step(arg, &s) != PDB_OK) {
            pdb_idmap_free(&events);
            return PDB_ERR;
        }
    }
    pdb_idmap_free(&events);
    return PDB_OK;
}

int pdb_cp_run(pdb_cp *c, const pdb_cp_window *w, pdb_cp_result *res, pdb_cp_step_fn step,
               void *arg)
{
    cp_graph g = {.c = c, .w = w};
    *res = (pdb_cp_result){0};
    int rc = load_window(&g);
    const char *why = NULL;
    if (rc == PDB_OK) {
        res->clipped = (int64_t)g.nev;
        create_event_nodes(&g);
        runtime_lock_edges(&g);
        call_stack_edges(&g);
        int k = kernel_edges(&g, &why);
        rc = k == PDB_ERR ? PDB_ERR : PDB_OK;
    }
    if (rc == PDB_OK) {
        res->nodes = (int64_t)g.nnode;
        res->graph_nodes = (int64_t)g.graph_order.n;
        res->edges = (int64_t)g.nedge;
        i64_list path = {0};
        if (!why)
            why = validate(&g);
        if (!why)
            why = longest_path(&g, &path);
        if (!why && path.n < 2)
            why = "no path: the window has no events";
        res->ok = why == NULL;
        res->why = why;
        if (res->ok)
            rc = report_path(&g, &path, res, step, arg);
        free(path.v);
    }
    free_graph(&g);
    return rc;
}
