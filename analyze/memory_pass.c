/* memory_pass.c: the memory of a trace recorded with profile_memory=True,
 * from its "[memory]" instant events (analysis_memory_ops,
 * analysis_memory_peaks, analysis_memory_allocs).
 *
 * Per op, as torch's key_averages() counts it: an event's memory is the sum
 * of Bytes of the memory events whose time lies in [start, end] (ends
 * included, on any thread); its self memory is that minus its children's,
 * children being the events nested in it on its thread by torch's rule
 * (sorted by start, longest first; a child starts before the parent's end
 * and ends no later). CPU-side events count (ops, record_function ranges,
 * runtime calls), not python_function frames, the profiler's Trace span or
 * the few utility ops key_averages filters out. cpu_* columns count CPU
 * memory (c10 device types CPU, MKLDNN, IDEEP), device_* the rest (CUDA,
 * HIP, ...). Memory events inside no event form the name "[memory]", as in
 * key_averages().
 *
 * Per device: the peak of Total Allocated over the trace and per
 * ProfilerStep (events in [step start, step end]), with the innermost event
 * around it on its thread; and every allocation's lifetime (a positive
 * Bytes record, until the negative one of the same Addr), so the
 * allocations alive at a peak are a query.
 *
 * Streaming: the memory events are read in time order beside the scan;
 * before a slice starting at T, every memory event before T is taken. An
 * event's memory is a difference of the running sum of Bytes between its
 * start and its end, so each event waits, from its start until the memory
 * events pass its end, in a heap keyed by end: memory is the events open
 * at once, the live allocations and the distinct names. Traces without
 * memory events cost one lookup. */
#include "analyze/idmap.h"
#include "analyze/series.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "common/query.h"
#include "common/query_db.h"
#include "analyze/queries.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CPU, DEV };

/* An event waiting for the memory events to pass its end. */
typedef struct {
    int64_t end, seq, name;      /* name: index in names */
    int64_t base[2];             /* running sums at its start */
    int64_t child[2];            /* its children's memory */
    int64_t parent;              /* pool index of the parent, -1 */
} open_event;

typedef struct {
    int64_t end, idx;            /* idx: pool index (valid while end is ahead) */
} stack_entry;

typedef struct {
    stack_entry *v;
    size_t n, cap;
} thread_stack;

typedef struct {
    char *text;
    int64_t calls, mem[2], self[2];
} name_stat;

typedef struct {
    int64_t allocated, reserved_max, ts, seq, events;
    int64_t op;                  /* names index, -1 */
    bool any;
} peak;

typedef struct {
    int64_t type, id;
    peak whole;
    peak *steps;                 /* per step of the trace */
    pdb_idmap live;              /* addr -> index in allocs */
} device;

typedef struct {
    int64_t addr, bytes, ts, seq, op;
} alloc;

/* One memory event, as read. */
typedef struct {
    int64_t ts, bytes, allocated, reserved, type, id, addr, seq;
    bool has_addr;
    pdb_val pid, tid; /* owned */
} mem_event;

struct pdb_memory_acc {
    sqlite3 *db;
    int64_t run_id;
    int rank;
    bool active;
    sqlite3_stmt *cur, *ins_alloc, *text_of;
    bool has_next;
    mem_event next;
    int64_t seq;
    int64_t sum[2];              /* Bytes taken so far */
    int64_t max_end;             /* over events started so far */
    bool any_event;
    /* Open events: a pool and a heap of pool indexes by (end, later first). */
    open_event *pool;
    size_t npool, pool_cap;
    int64_t *free_ix;
    size_t nfree, free_cap;
    int64_t *heap;
    size_t nheap, heap_cap;
    int64_t next_seq;
    thread_stack *threads;
    size_t nthreads, threads_cap;
    pdb_strmap *thread_ix;       /* whole (pid, tid) key -> index into threads */
    pdb_buf key;                 /* the thread key being looked up */
    /* Names by string id. */
    pdb_idmap name_ix;
    name_stat *names;
    size_t nnames, names_cap;
    int64_t toplevel;            /* index of "[memory]" */
    /* Steps and devices. */
    int64_t *step_ts, *step_end, *step_num;
    size_t nsteps;
    device *devs;
    size_t ndevs;
    alloc *allocs;
    size_t nallocs, allocs_cap;
    int64_t *free_alloc;
    size_t nfree_alloc, free_alloc_cap;
};

static const char *const filtered[] = {"profiler::_record_function_enter",
                                       "profiler::_record_function_enter_new",
                                       "profiler::_record_function_exit", "aten::is_leaf",
                                       "aten::output_nr", "aten::_version"};

bool pdb_memory_filtered_name(const char *name)
{
    for (size_t i = 0; i < sizeof filtered / sizeof *filtered; i++)
        if (strcmp(name, filtered[i]) == 0)
            return true;
    return false;
}

/* Setup ------------------------------------------------------------------ */

static int load_steps(pdb_memory_acc *a, int64_t trace_id)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(a->db, "memory_pass.steps", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (a->nsteps == cap) {
            cap = cap ? cap * 2 : 16;
            a->step_ts = pdb_xrealloc(a->step_ts, cap * sizeof *a->step_ts);
            a->step_end = pdb_xrealloc(a->step_end, cap * sizeof *a->step_end);
            a->step_num = pdb_xrealloc(a->step_num, cap * sizeof *a->step_num);
        }
        a->step_ts[a->nsteps] = sqlite3_column_int64(st, 0);
        a->step_end[a->nsteps] = sqlite3_column_int64(st, 1);
        a->step_num[a->nsteps++] = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return PDB_OK;
}

/* A lasting copy of column i's value. */
static pdb_val column_val(sqlite3_stmt *s, int i)
{
    pdb_val v = pdb_val_of(sqlite3_column_value(s, i));
    return pdb_val_dup(&v);
}

static int read_next(pdb_memory_acc *a)
{
    pdb_val_free(&a->next.pid);
    pdb_val_free(&a->next.tid);
    int rc = sqlite3_step(a->cur);
    a->has_next = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(a->db, "reading memory events");
    sqlite3_stmt *s = a->cur;
    a->next = (mem_event){.ts = sqlite3_column_int64(s, 0),
                          .pid = column_val(s, 1),
                          .tid = column_val(s, 2),
                          .bytes = sqlite3_column_int64(s, 3),
                          .allocated = sqlite3_column_int64(s, 4),
                          .reserved = sqlite3_column_int64(s, 5),
                          .type = sqlite3_column_type(s, 6) == SQLITE_NULL
                                      ? -1 : sqlite3_column_int64(s, 6),
                          .id = sqlite3_column_type(s, 7) == SQLITE_NULL
                                    ? -1 : sqlite3_column_int64(s, 7),
                          .has_addr = sqlite3_column_type(s, 8) != SQLITE_NULL,
                          .addr = sqlite3_column_int64(s, 8),
                          .seq = a->seq++};
    return PDB_OK;
}

int pdb_memory_acc_new(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank,
                       pdb_memory_acc **out)
{
    pdb_memory_acc *a = pdb_xcalloc(1, sizeof *a);
    *a = (pdb_memory_acc){.db = db, .run_id = run_id, .rank = rank, .toplevel = -1};
    *out = a;
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "memory_pass.has_memory", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    int step = sqlite3_step(st);
    bool any = step == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (step != SQLITE_ROW)
        return pdb_db_fail(db, "database error");
    if (!any)
        return PDB_OK;
    a->active = true;
    if (pdb_analyze_prepare(db, "memory_pass.events", &a->cur) != PDB_OK ||
        pdb_analyze_prepare(db, "memory_pass.add_alloc", &a->ins_alloc) != PDB_OK ||
        pdb_common_prepare(db, "strings.text", NULL, &a->text_of) != PDB_OK ||
        load_steps(a, trace_id) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(a->cur, 1, trace_id);
    return read_next(a);
}

/* Names ------------------------------------------------------------------ */

/* The index of a name; text NULL: read from strings by name_id (rows carry
 * what the scan classified, not the text). */
static int64_t name_index(pdb_memory_acc *a, int64_t name_id, const char *text)
{
    int64_t i;
    if (pdb_idmap_get(&a->name_ix, name_id, &i))
        return i;
    if (!text) {
        sqlite3_bind_int64(a->text_of, 1, name_id);
        text = sqlite3_step(a->text_of) == SQLITE_ROW
                   ? (const char *)sqlite3_column_text(a->text_of, 0) : NULL;
        text = text ? text : "";
    }
    if (a->nnames == a->names_cap) {
        a->names_cap = a->names_cap ? a->names_cap * 2 : 64;
        a->names = pdb_xrealloc(a->names, a->names_cap * sizeof *a->names);
    }
    i = (int64_t)a->nnames++;
    a->names[i] = (name_stat){.text = pdb_xstrdup(text)};
    sqlite3_reset(a->text_of);
    pdb_idmap_put(&a->name_ix, name_id, i);
    return i;
}

/* Open events ------------------------------------------------------------ */

static bool heap_before(const pdb_memory_acc *a, int64_t x, int64_t y)
{
    const open_event *p = &a->pool[x], *q = &a->pool[y];
    return p->end < q->end || (p->end == q->end && p->seq > q->seq); /* children first */
}

static void heap_push(pdb_memory_acc *a, int64_t ix)
{
    if (a->nheap == a->heap_cap) {
        a->heap_cap = a->heap_cap ? a->heap_cap * 2 : 64;
        a->heap = pdb_xrealloc(a->heap, a->heap_cap * sizeof *a->heap);
    }
    size_t i = a->nheap++;
    a->heap[i] = ix;
    while (i > 0 && heap_before(a, a->heap[i], a->heap[(i - 1) / 2])) {
        int64_t t = a->heap[i];
        a->heap[i] = a->heap[(i - 1) / 2];
        a->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int64_t heap_pop(pdb_memory_acc *a)
{
    int64_t top = a->heap[0];
    a->heap[0] = a->heap[--a->nheap];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < a->nheap && heap_before(a, a->heap[l], a->heap[m]))
            m = l;
        if (r < a->nheap && heap_before(a, a->heap[r], a->heap[m]))
            m = r;
        if (m == i)
            break;
        int64_t t = a->heap[i];
        a->heap[i] = a->heap[m];
        a->heap[m] = t;
        i = m;
    }
    return top;
}

/* The memory events up to its end have been taken: its memory is known. */
static void close_event(pdb_memory_acc *a, int64_t ix)
{
    open_event *e = &a->pool[ix];
    name_stat *n = &a->names[e->name];
    for (int d = 0; d < 2; d++) {
        int64_t mem = a->sum[d] - e->base[d];
        n->mem[d] += mem;
        n->self[d] += mem - e->child[d];
        if (e->parent >= 0)
            a->pool[e->parent].child[d] += mem;
    }
    if (a->nfree == a->free_cap) {
        a->free_cap = a->free_cap ? a->free_cap * 2 : 64;
        a->free_ix = pdb_xrealloc(a->free_ix, a->free_cap * sizeof *a->free_ix);
    }
    a->free_ix[a->nfree++] = ix;
}

/* The stack of a thread, found by its whole pid and tid values (a prefix
 * would merge two threads that share it). */
static thread_stack *thread_for(pdb_memory_acc *a, const pdb_val *pid, const pdb_val *tid)
{
    pdb_buf_reset(&a->key);
    pdb_val_key(&a->key, pid);
    pdb_val_key(&a->key, tid);
    if (!a->thread_ix)
        a->thread_ix = pdb_strmap_new();
    int64_t i;
    if (pdb_strmap_get(a->thread_ix, a->key.p, a->key.len, &i))
        return &a->threads[i];
    if (a->nthreads == a->threads_cap) {
        a->threads_cap = a->threads_cap ? a->threads_cap * 2 : 8;
        a->threads = pdb_xrealloc(a->threads, a->threads_cap * sizeof *a->threads);
    }
    pdb_strmap_put(a->thread_ix, a->key.p, a->key.len, (int64_t)a->nthreads);
    thread_stack *t = &a->threads[a->nthreads++];
    *t = (thread_stack){0};
    return t;
}

/* Memory events ----------------------------------------------------------- */

static device *device_for(pdb_memory_acc *a, int64_t type, int64_t id)
{
    for (size_t i = 0; i < a->ndevs; i++)
        if (a->devs[i].type == type && a->devs[i].id == id)
            return &a->devs[i];
    a->devs = pdb_xrealloc(a->devs, (a->ndevs + 1) * sizeof *a->devs);
    device *d = &a->devs[a->ndevs++];
    *d = (device){.type = type, .id = id, .whole = {.op = -1}};
    d->steps = pdb_xcalloc(a->nsteps ? a->nsteps : 1, sizeof *d->steps);
    return d;
}

static void peak_add(peak *p, const mem_event *m, int64_t op)
{
    p->events++;
    if (!p->any || m->reserved > p->reserved_max)
        p->reserved_max = m->reserved;
    if (!p->any || m->allocated > p->allocated) {
        p->allocated = m->allocated;
        p->ts = m->ts;
        p->seq = m->seq;
        p->op = op;
    }
    p->any = true;
}

/* The innermost event around t on the thread (names index, -1). */
static int64_t innermost(pdb_memory_acc *a, const mem_event *m)
{
    thread_stack *t = thread_for(a, &m->pid, &m->tid);
    while (t->n > 0 && t->v[t->n - 1].end < m->ts)
        t->n--;
    return t->n > 0 ? a->pool[t->v[t->n - 1].idx].name : -1;
}

static int write_alloc(pdb_memory_acc *a, const device *d, const alloc *al, const mem_event *freed)
{
    sqlite3_stmt *s = a->ins_alloc;
    sqlite3_bind_int64(s, 1, a->run_id);
    sqlite3_bind_int(s, 2, a->rank);
    sqlite3_bind_int64(s, 3, d->type);
    sqlite3_bind_int64(s, 4, d->id);
    sqlite3_bind_int64(s, 5, al->addr);
    sqlite3_bind_int64(s, 6, al->bytes);
    sqlite3_bind_int64(s, 7, al->ts);
    sqlite3_bind_int64(s, 8, al->seq);
    if (freed) {
        sqlite3_bind_int64(s, 9, freed->ts);
        sqlite3_bind_int64(s, 10, freed->seq);
    } else {
        sqlite3_bind_null(s, 9);
        sqlite3_bind_null(s, 10);
    }
    if (al->op >= 0)
        sqlite3_bind_text(s, 11, a->names[al->op].text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 11);
    return pdb_db_step_done(a->db, s);
}

static int track_alloc(pdb_memory_acc *a, device *d, const mem_event *m, int64_t op)
{
    if (!m->has_addr || m->bytes == 0)
        return PDB_OK;
    int64_t i;
    if (m->bytes > 0) {
        if (pdb_idmap_get(&d->live, m->addr, &i)) { /* reused without a free: close it */
            if (write_alloc(a, d, &a->allocs[i], NULL) != PDB_OK)
                return PDB_ERR;
        } else if (a->nfree_alloc) {
            i = a->free_alloc[--a->nfree_alloc];
        } else {
            if (a->nallocs == a->allocs_cap) {
                a->allocs_cap = a->allocs_cap ? a->allocs_cap * 2 : 64;
                a->allocs = pdb_xrealloc(a->allocs, a->allocs_cap * sizeof *a->allocs);
            }
            i = (int64_t)a->nallocs++;
        }
        a->allocs[i] = (alloc){m->addr, m->bytes, m->ts, m->seq, op};
        pdb_idmap_put(&d->live, m->addr, i);
        return PDB_OK;
    }
    if (!pdb_idmap_get(&d->live, m->addr, &i))
        return PDB_OK; /* allocated before the trace began */
    int rc = write_alloc(a, d, &a->allocs[i], m);
    pdb_idmap_del(&d->live, m->addr);
    if (a->nfree_alloc == a->free_alloc_cap) {
        a->free_alloc_cap = a->free_alloc_cap ? a->free_alloc_cap * 2 : 64;
        a->free_alloc = pdb_xrealloc(a->free_alloc, a->free_alloc_cap * sizeof *a->free_alloc);
    }
    a->free_alloc[a->nfree_alloc++] = i;
    return rc;
}

/* Takes the memory events before t (t: INT64_MAX for all of them). */
static int take_until(pdb_memory_acc *a, int64_t t)
{
    while (a->has_next && a->next.ts < t) {
        mem_event *m = &a->next;
        while (a->nheap && a->pool[a->heap[0]].end < m->ts)
            close_event(a, heap_pop(a));
        bool cpu = m->type == 0 || m->type == 2 || m->type == 5; /* CPU, MKLDNN, IDEEP */
        a->sum[cpu ? CPU : DEV] += m->bytes;
        if (!a->any_event || a->max_end < m->ts) { /* inside no event: key_averages' [memory] */
            if (a->toplevel < 0)
                a->toplevel = name_index(a, -1, "[memory]");
            name_stat *n = &a->names[a->toplevel];
            n->calls++;
            n->mem[cpu ? CPU : DEV] += m->bytes;
            n->self[cpu ? CPU : DEV] += m->bytes;
        }
        int64_t op = innermost(a, m);
        device *d = device_for(a, m->type, m->id);
        peak_add(&d->whole, m, op);
        for (size_t s = 0; s < a->nsteps; s++)
            if (a->step_ts[s] <= m->ts && m->ts <= a->step_end[s])
                peak_add(&d->steps[s], m, op);
        if (track_alloc(a, d, m, op) != PDB_OK || read_next(a) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

/* Slices ----------------------------------------------------------------- */

static bool counted(const pdb_row *r)
{
    if (r->gpu || (r->cat && (r->cat->trace || r->cat->gpu_annotation || r->cat->python)))
        return false;
    return !r->name->memory_filtered;
}

int pdb_memory_acc_add(pdb_memory_acc *a, const pdb_row *r)
{
    if (!a->active)
        return PDB_OK;
    if (take_until(a, r->ts) != PDB_OK)
        return PDB_ERR;
    if (!counted(r))
        return PDB_OK;
    int64_t end = r->ts + r->dur, ix;
    if (a->nfree)
        ix = a->free_ix[--a->nfree];
    else {
        if (a->npool == a->pool_cap) {
            a->pool_cap = a->pool_cap ? a->pool_cap * 2 : 64;
            a->pool = pdb_xrealloc(a->pool, a->pool_cap * sizeof *a->pool);
        }
        ix = (int64_t)a->npool++;
    }
    /* torch's nesting: pop what cannot hold this event. */
    thread_stack *t = thread_for(a, &r->pid, &r->tid);
    while (t->n > 0 && (r->ts >= t->v[t->n - 1].end || end > t->v[t->n - 1].end))
        t->n--;
    int64_t name = name_index(a, r->name_id, NULL);
    a->names[name].calls++;
    a->pool[ix] = (open_event){.end = end, .seq = a->next_seq++, .name = name,
                               .base = {a->sum[CPU], a->sum[DEV]},
                               .parent = t->n > 0 ? t->v[t->n - 1].idx : -1};
    heap_push(a, ix);
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = pdb_xrealloc(t->v, t->cap * sizeof *t->v);
    }
    t->v[t->n++] = (stack_entry){end, ix};
    if (!a->any_event || end > a->max_end)
        a->max_end = end;
    a->any_event = true;
    return PDB_OK;
}

/* Writing ----------------------------------------------------------------- */

static int write_peak(pdb_memory_acc *a, sqlite3_stmt *st, const device *d, const peak *p,
                      const int64_t *step)
{
    if (!p->any)
        return PDB_OK;
    sqlite3_bind_int64(st, 1, a->run_id);
    sqlite3_bind_int(st, 2, a->rank);
    sqlite3_bind_int64(st, 3, d->type);
    sqlite3_bind_int64(st, 4, d->id);
    if (step)
        sqlite3_bind_int64(st, 5, *step);
    else
        sqlite3_bind_null(st, 5);
    sqlite3_bind_int64(st, 6, p->allocated);
    sqlite3_bind_int64(st, 7, p->ts);
    sqlite3_bind_int64(st, 8, p->seq);
    sqlite3_bind_int64(st, 9, p->reserved_max);
    if (p->op >= 0)
        sqlite3_bind_text(st, 10, a->names[p->op].text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 10);
    sqlite3_bind_int64(st, 11, p->events);
    return pdb_db_step_done(a->db, st);
}

int pdb_memory_acc_write(pdb_memory_acc *a)
{
    if (!a->active)
        return PDB_OK;
    if (take_until(a, INT64_MAX) != PDB_OK)
        return PDB_ERR;
    while (a->nheap)
        close_event(a, heap_pop(a));
    sqlite3_stmt *ops, *peaks;
    if (pdb_analyze_prepare(a->db, "memory_pass.add_op", &ops) != PDB_OK)
        return PDB_ERR;
    if (pdb_analyze_prepare(a->db, "memory_pass.add_peak", &peaks) != PDB_OK) {
        sqlite3_finalize(ops);
        return PDB_ERR;
    }
    int rc = PDB_OK;
    for (size_t i = 0; i < a->nnames && rc == PDB_OK; i++) {
        name_stat *n = &a->names[i];
        sqlite3_bind_int64(ops, 1, a->run_id);
        sqlite3_bind_int(ops, 2, a->rank);
        sqlite3_bind_text(ops, 3, n->text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ops, 4, n->calls);
        sqlite3_bind_int64(ops, 5, n->mem[CPU]);
        sqlite3_bind_int64(ops, 6, n->self[CPU]);
        sqlite3_bind_int64(ops, 7, n->mem[DEV]);
        sqlite3_bind_int64(ops, 8, n->self[DEV]);
        rc = pdb_db_step_done(a->db, ops);
    }
    for (size_t i = 0; i < a->ndevs && rc == PDB_OK; i++) {
        device *d = &a->devs[i];
        rc = write_peak(a, peaks, d, &d->whole, NULL);
        for (size_t s = 0; s < a->nsteps && rc == PDB_OK; s++)
            rc = write_peak(a, peaks, d, &d->steps[s], &a->step_num[s]);
        /* Allocations never freed in the trace. */
        for (size_t k = 0; k < d->live.cap && rc == PDB_OK; k++)
            if (d->live.used[k])
                rc = write_alloc(a, d, &a->allocs[d->live.vals[k]], NULL);
    }
    sqlite3_finalize(ops);
    sqlite3_finalize(peaks);
    return rc;
}

void pdb_memory_acc_free(pdb_memory_acc *a)
{
    if (!a)
        return;
    sqlite3_finalize(a->cur);
    sqlite3_finalize(a->ins_alloc);
    sqlite3_finalize(a->text_of);
    pdb_val_free(&a->next.pid);
    pdb_val_free(&a->next.tid);
    free(a->pool);
    free(a->free_ix);
    free(a->heap);
    for (size_t i = 0; i < a->nthreads; i++)
        free(a->threads[i].v);
    free(a->threads);
    pdb_strmap_free(a->thread_ix);
    pdb_buf_free(&a->key);
    for (size_t i = 0; i < a->nnames; i++)
        free(a->names[i].text);
    free(a->names);
    pdb_idmap_free(&a->name_ix);
    for (size_t i = 0; i < a->ndevs; i++) {
        free(a->devs[i].steps);
        pdb_idmap_free(&a->devs[i].live);
    }
    free(a->devs);
    free(a->allocs);
    free(a->free_alloc);
    free(a->step_ts);
    free(a->step_end);
    free(a->step_num);
    free(a);
}
