/* trace_store.c: turns parsed trace events into rows.
 *
 * Counts every raw event by phase, pairs B/E per (pid, tid), interns names
 * and categories, and inserts through prepared statements (the session's
 * transaction is open). At the end it decides the trace's rank:
 * distributedInfo.rank, else a rank number in the file name, else the order
 * of the trace among the run's inputs.
 *
 * B/E pairing keeps each thread's open B events (deep copies) on a stack.
 * Real traces have a few open at a time; a hostile one can open millions
 * (a B on each of a million threads, then the E's). Past OPEN_IN_MEMORY
 * open events or OPEN_BYTES of them, every open event moves to a temporary
 * table keyed by (thread, depth) and pairing goes on there for the rest of
 * the file: the same stacks, the same pairs, bounded memory. */
#define _GNU_SOURCE /* memmem */
#include "ingest/trace/kineto_spellings.h"
#include "ingest/trace/trace_event.h"
#include "ingest/ingest.h"
#include "ingest/queries.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPEN_PER_THREAD 10000
#define SLICE_COLS 21                 /* trace.add_slice's values */
#define SLICE_ROWS 16                 /* X events stored by one statement (held ones) */
#define OPEN_IN_MEMORY 4096           /* open B events kept in memory... */
#define OPEN_BYTES (16 << 20)         /* ...and their bytes */

typedef struct {
    pdb_trace_event *v; /* deep copies of open B events */
    int n, cap;
    pdb_buf key;        /* (pid, tid) */
} b_stack;

struct pdb_trace_store {
    pdb_source *src;
    sqlite3 *db;
    int64_t trace_id;
    sqlite3_stmt *ins_slice, *ins_instant, *ins_counter, *ins_flow, *ins_mevent, *ins_meta,
        *rank_of, *ins_step;
    /* X events held (pdb_trace_store_hold) until SLICE_ROWS of them are
     * inserted by one statement, ins_slices: a row so costs about 1,500
     * instructions less. Their names and categories are interned when they
     * arrive, so strings get the same ids in the same order. */
    bool hold;
    sqlite3_stmt *ins_slices;
    int held;
    struct held_slice {
        const pdb_trace_event *ev;
        int64_t name, cat; /* interned ids, or -1 for NULL */
    } held_v[SLICE_ROWS];
    int64_t counts[128]; /* raw events per phase letter */
    int64_t other_phases;
    int64_t gpu;
    int64_t float_ts;
    bool rank_known;
    int64_t rank;
    pdb_strmap *stack_of; /* "pid\x1ftid" -> index into stacks */
    b_stack *stacks;
    int nstacks, stacks_cap;
    int64_t open, open_bytes; /* open B events in memory and their size */
    bool open_in_table;       /* pairing moved to temp.trace_open_b */
    sqlite3_stmt *b_top, *b_put, *b_del;
    pdb_trace_event popped;   /* a B event read back from the table */
    int64_t events;           /* events seen, stored or not */
    int64_t last_slice;       /* slices.id of the last slice stored */
    int64_t first_slice;      /* slices.id of the first event if HTA keeps it (schema), or 0 */
    int64_t *respelled_cat;   /* events per row of kineto_spellings.def's categories */
    int64_t respelled_arg[PDB_ARG_COUNT]; /* events per column filled from an older name */
    pdb_buf key, blob;
};

/* The statements prepared for each file, in pdb_trace_store_new's order
 * (trace.sql). */
static const char *const insert_queries[] = {
    "trace.add_slice", "trace.add_instant", "trace.add_counter",
    "trace.add_flow",  "trace.add_metadata_event", "trace.set_meta",
    "trace.rank_of",   "trace.add_step",
};

/* ---- binding helpers -------------------------------------------------- */

static void bind_val(sqlite3_stmt *st, int i, const pdb_trace_event *ev, const pdb_val *v)
{
    switch (v->type) {
    case PDB_V_INT: sqlite3_bind_int64(st, i, v->i); break;
    case PDB_V_REAL: sqlite3_bind_double(st, i, v->d); break;
    case PDB_V_TEXT: sqlite3_bind_text(st, i, pdb_ev_text(ev, v->off), (int)v->len, SQLITE_STATIC); break;
    default: sqlite3_bind_null(st, i);
    }
}

static int bind_interned(pdb_trace_store *s, sqlite3_stmt *st, int i, const pdb_trace_event *ev,
                         const pdb_val *v)
{
    if (v->type != PDB_V_TEXT) {
        sqlite3_bind_null(st, i);
        return PDB_OK;
    }
    int64_t id;
    if (pdb_intern(s->src, pdb_ev_text(ev, v->off), v->len, &id) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, i, id);
    return PDB_OK;
}

static void bind_args(sqlite3_stmt *st, int i, const pdb_trace_event *ev)
{
    if (ev->args_len)
        sqlite3_bind_text(st, i, pdb_ev_text(ev, ev->args_off), (int)ev->args_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

static int step(pdb_trace_store *s, sqlite3_stmt *st)
{
    return pdb_db_step_done(s->db, st);
}

/* ---- inserts per phase ------------------------------------------------- */

/* Whether the name holds "ProfilerStep": asked of every slice, so each 'P'
 * is found with memchr and compared there (glibc's memmem cost about 270
 * instructions a name). */
static bool is_step_annotation(const pdb_trace_event *ev)
{
    if (ev->name.type != PDB_V_TEXT || ev->name.len < 12)
        return false;
    const char *p = pdb_ev_text(ev, ev->name.off), *end = p + ev->name.len;
    while ((p = memchr(p, 'P', (size_t)(end - p) - 11)) != NULL) {
        if (memcmp(p + 1, "rofilerStep", 11) == 0)
            return true;
        if (++p > end - 12)
            return false;
    }
    return false;
}

/* Copies a ProfilerStep slice into trace_steps (see the schema). */
static int insert_step(pdb_trace_store *s, const pdb_trace_event *ev, const char *ph, int64_t dur)
{
    sqlite3_stmt *st = s->ins_step;
    sqlite3_bind_int64(st, 1, s->trace_id);
    sqlite3_bind_int64(st, 2, sqlite3_last_insert_rowid(s->db));
    sqlite3_bind_text(st, 3, ph, 1, SQLITE_TRANSIENT);
    bind_val(st, 4, ev, &ev->name);
    bind_val(st, 5, ev, &ev->cat);
    sqlite3_bind_int64(st, 6, ev->ts);
    sqlite3_bind_int64(st, 7, dur);
    bind_val(st, 8, ev, &ev->arg[PDB_ARG_STREAM]);
    return step(s, st);
}

static int intern_or_null(pdb_trace_store *s, const pdb_trace_event *ev, const pdb_val *v,
                          int64_t *id)
{
    *id = -1;
    return v->type == PDB_V_TEXT ? pdb_intern(s->src, pdb_ev_text(ev, v->off), v->len, id)
                                 : PDB_OK;
}

/* Binds one slice's values from parameter base + 1 on (trace.add_slice's
 * order). ph is 'X' or 'B'. */
static void bind_slice(pdb_trace_store *s, sqlite3_stmt *st, int base, const pdb_trace_event *ev,
                       char ph, int64_t dur, int64_t name, int64_t cat)
{
    sqlite3_bind_int64(st, base + 1, s->trace_id);
    sqlite3_bind_text(st, base + 2, ph == 'X' ? "X" : "B", 1, SQLITE_STATIC);
    if (name >= 0)
        sqlite3_bind_int64(st, base + 3, name);
    else
        sqlite3_bind_null(st, base + 3);
    if (cat >= 0)
        sqlite3_bind_int64(st, base + 4, cat);
    else
        sqlite3_bind_null(st, base + 4);
    bind_val(st, base + 5, ev, &ev->pid);
    bind_val(st, base + 6, ev, &ev->tid);
    sqlite3_bind_int64(st, base + 7, ev->ts);
    sqlite3_bind_int64(st, base + 8, dur);
    for (int a = 0; a < PDB_ARG_COUNT; a++)
        bind_val(st, base + 9 + a, ev, &ev->arg[a]);
    bind_args(st, base + 9 + PDB_ARG_COUNT, ev);
}

int pdb_trace_store_flush(pdb_trace_store *s)
{
    int n = s->held;
    if (n == 0)
        return PDB_OK;
    s->held = 0;
    if (n == SLICE_ROWS) {
        for (int i = 0; i < n; i++) {
            const struct held_slice *h = &s->held_v[i];
            bind_slice(s, s->ins_slices, i * SLICE_COLS, h->ev, 'X', h->ev->dur, h->name,
                       h->cat);
        }
        if (step(s, s->ins_slices) == PDB_OK)
            return PDB_OK;
        /* The statement's rows are undone: one at a time again, so that
         * the error names the event that failed, as on one thread; unless
         * the failure ended the transaction (an interrupt does), when
         * nothing more may be written: it would be committed at once. */
        if (sqlite3_get_autocommit(s->db)) {
            if (strstr(pdb_errmsg(), "byte ") == NULL)
                pdb_fail_at(s->src->path, s->held_v[0].ev->offset, "cannot store event: %s",
                            pdb_errmsg());
            return PDB_ERR;
        }
    }
    for (int i = 0; i < n; i++) {
        const struct held_slice *h = &s->held_v[i];
        bind_slice(s, s->ins_slice, 0, h->ev, 'X', h->ev->dur, h->name, h->cat);
        if (step(s, s->ins_slice) != PDB_OK) {
            if (strstr(pdb_errmsg(), "byte ") == NULL)
                pdb_fail_at(s->src->path, h->ev->offset, "cannot store event: %s",
                            pdb_errmsg());
            return PDB_ERR;
        }
    }
    return PDB_OK;
}

/* After a failure while X events are held: those came first, and on one
 * thread they would have been stored before it, so an error of theirs is
 * the one reported; else the failure's own. When the failure ended the
 * transaction (an interrupt rolls it back), they are dropped: anything
 * written now would be committed at once. */
static int fail_after_held(pdb_trace_store *s)
{
    if (s->held == 0)
        return PDB_ERR;
    if (sqlite3_get_autocommit(s->db)) { /* the failure ended the transaction */
        s->held = 0;
        return PDB_ERR;
    }
    char *msg = strdup(pdb_errmsg());
    if (pdb_trace_store_flush(s) == PDB_OK)
        pdb_fail("%s", msg ? msg : "out of memory");
    free(msg);
    return PDB_ERR;
}

void pdb_trace_store_hold(pdb_trace_store *s)
{
    s->hold = true;
}

/* held: ev may be kept until pdb_trace_store_flush (an X event the caller
 * keeps, see pdb_trace_store_hold); a ProfilerStep slice and the file's
 * first event are stored at once, as their slice ids are needed now. */
static int insert_slice(pdb_trace_store *s, const pdb_trace_event *ev, char ph, int64_t dur,
                        bool held)
{
    int64_t name, cat;
    if (intern_or_null(s, ev, &ev->name, &name) != PDB_OK ||
        intern_or_null(s, ev, &ev->cat, &cat) != PDB_OK)
        return PDB_ERR;
    bool step_slice = is_step_annotation(ev);
    if (held && s->hold && !step_slice && s->events != 1) {
        s->held_v[s->held++] = (struct held_slice){ev, name, cat};
        return s->held == SLICE_ROWS ? pdb_trace_store_flush(s) : PDB_OK;
    }
    if (pdb_trace_store_flush(s) != PDB_OK)
        return PDB_ERR;
    bind_slice(s, s->ins_slice, 0, ev, ph, dur, name, cat);
    if (step(s, s->ins_slice) != PDB_OK)
        return PDB_ERR;
    s->last_slice = sqlite3_last_insert_rowid(s->db);
    char phs[2] = {ph, 0};
    return step_slice ? insert_step(s, ev, phs, dur) : PDB_OK;
}

static int insert_instant(pdb_trace_store *s, const pdb_trace_event *ev)
{
    sqlite3_stmt *st = s->ins_instant;
    sqlite3_bind_int64(st, 1, s->trace_id);
    if (bind_interned(s, st, 2, ev, &ev->name) != PDB_OK ||
        bind_interned(s, st, 3, ev, &ev->cat) != PDB_OK)
        return PDB_ERR;
    bind_val(st, 4, ev, &ev->pid);
    bind_val(st, 5, ev, &ev->tid);
    if (ev->has_ts)
        sqlite3_bind_int64(st, 6, ev->ts);
    else
        sqlite3_bind_null(st, 6);
    bind_val(st, 7, ev, &ev->scope);
    bind_args(st, 8, ev);
    return step(s, st);
}

static int insert_counter(pdb_trace_store *s, const pdb_trace_event *ev)
{
    sqlite3_stmt *st = s->ins_counter;
    for (int k = 0; k < ev->nseries; k++) {
        sqlite3_bind_int64(st, 1, s->trace_id);
        if (bind_interned(s, st, 2, ev, &ev->name) != PDB_OK)
            return PDB_ERR;
        bind_val(st, 3, ev, &ev->pid);
        sqlite3_bind_int64(st, 4, ev->ts);
        sqlite3_bind_text(st, 5, pdb_ev_text(ev, ev->series[k].key_off),
                          (int)ev->series[k].key_len, SQLITE_STATIC);
        sqlite3_bind_double(st, 6, ev->series[k].value);
        if (step(s, st) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

static int insert_flow(pdb_trace_store *s, const pdb_trace_event *ev, char ph)
{
    sqlite3_stmt *st = s->ins_flow;
    char phs[2] = {ph, 0};
    sqlite3_bind_int64(st, 1, s->trace_id);
    sqlite3_bind_text(st, 2, phs, 1, SQLITE_TRANSIENT);
    bind_val(st, 3, ev, &ev->id);
    if (bind_interned(s, st, 4, ev, &ev->name) != PDB_OK ||
        bind_interned(s, st, 5, ev, &ev->cat) != PDB_OK)
        return PDB_ERR;
    bind_val(st, 6, ev, &ev->pid);
    bind_val(st, 7, ev, &ev->tid);
    sqlite3_bind_int64(st, 8, ev->ts);
    bind_val(st, 9, ev, &ev->bp);
    return step(s, st);
}

static int insert_metadata(pdb_trace_store *s, const pdb_trace_event *ev)
{
    sqlite3_stmt *st = s->ins_mevent;
    sqlite3_bind_int64(st, 1, s->trace_id);
    bind_val(st, 2, ev, &ev->name);
    bind_val(st, 3, ev, &ev->pid);
    bind_val(st, 4, ev, &ev->tid);
    bind_args(st, 5, ev);
    return step(s, st);
}

/* ---- B/E pairing ---------------------------------------------------------- */

/* A pid or tid as key bytes: a type letter, then the value (text with its
 * length first, so a pair of keys is unambiguous). */
static void val_key(pdb_buf *b, const pdb_trace_event *ev, const pdb_val *v)
{
    switch (v->type) {
    case PDB_V_INT: pdb_buf_addf(b, "i%lld", (long long)v->i); break;
    case PDB_V_REAL: pdb_buf_addf(b, "r%.17g", v->d); break;
    case PDB_V_TEXT:
        pdb_buf_addf(b, "s%zu:", v->len);
        pdb_buf_add(b, pdb_ev_text(ev, v->off), v->len);
        break;
    default: pdb_buf_addc(b, '-');
    }
}

static void thread_key(pdb_trace_store *s, const pdb_trace_event *ev)
{
    pdb_buf_reset(&s->key);
    val_key(&s->key, ev, &ev->pid);
    val_key(&s->key, ev, &ev->tid);
}

/* Drops the stacks left empty (a trace with a thread per event would keep
 * one per thread); called when the stacks have doubled since last time. */
static void drop_empty_stacks(pdb_trace_store *s)
{
    int kept = 0;
    pdb_strmap_free(s->stack_of);
    s->stack_of = pdb_strmap_new();
    for (int i = 0; i < s->nstacks; i++) {
        b_stack *bs = &s->stacks[i];
        if (bs->n == 0) {
            free(bs->v);
            pdb_buf_free(&bs->key);
            continue;
        }
        s->stacks[kept] = *bs;
        pdb_strmap_put(s->stack_of, bs->key.p, bs->key.len, kept);
        kept++;
    }
    s->nstacks = kept;
}

static b_stack *thread_stack(pdb_trace_store *s, const pdb_trace_event *ev)
{
    thread_key(s, ev);
    int64_t idx;
    if (!pdb_strmap_get(s->stack_of, s->key.p, s->key.len, &idx)) {
        if (s->nstacks == s->stacks_cap) {
            if (s->nstacks >= 1024 && s->nstacks > 2 * s->open)
                drop_empty_stacks(s);
            if (s->nstacks == s->stacks_cap) {
                s->stacks_cap = s->stacks_cap ? s->stacks_cap * 2 : 16;
                s->stacks = pdb_xrealloc(s->stacks, (size_t)s->stacks_cap * sizeof(b_stack));
            }
        }
        idx = s->nstacks++;
        s->stacks[idx] = (b_stack){0};
        pdb_buf_add(&s->stacks[idx].key, s->key.p, s->key.len);
        pdb_strmap_put(s->stack_of, s->key.p, s->key.len, idx);
    }
    return &s->stacks[idx];
}

/* An event as bytes: the struct up to its counter series in use, then the
 * arena its text points into. */
static size_t event_head(const pdb_trace_event *ev)
{
    return offsetof(pdb_trace_event, series) + (size_t)ev->nseries * sizeof(pdb_series);
}

static void event_to_blob(pdb_buf *b, const pdb_trace_event *ev)
{
    pdb_trace_event head = *ev;
    head.arena = (pdb_buf)PDB_BUF_INIT;
    pdb_buf_reset(b);
    pdb_buf_add(b, &head, event_head(ev));
    pdb_buf_add(b, ev->arena.p ? ev->arena.p : "", ev->arena.len);
}

static int event_from_blob(pdb_trace_event *ev, const unsigned char *p, size_t n)
{
    pdb_buf arena = ev->arena;
    if (n < offsetof(pdb_trace_event, series))
        return pdb_fail("open B event table: a record is too short");
    memcpy(ev, p, offsetof(pdb_trace_event, series));
    size_t head = event_head(ev);
    if (ev->nseries < 0 || ev->nseries > PDB_MAX_COUNTER_SERIES || n < head)
        return pdb_fail("open B event table: a record is damaged");
    memcpy(ev->series, p + offsetof(pdb_trace_event, series), head - offsetof(pdb_trace_event, series));
    pdb_buf_reset(&arena);
    pdb_buf_add(&arena, p + head, n - head);
    ev->arena = arena;
    return PDB_OK;
}

/* Moves every open B event into the table; pairing continues there. */
static int open_in_table(pdb_trace_store *s)
{
    pdb_bound_passed("open B events sent to a table");
    /* The table is temporary: no other statement of this ingest is running,
     * so creating it mid-file costs only a re-prepare of the inserts. */
    if (pdb_ingest_exec(s->db, "trace.create_open_b") != PDB_OK ||
        pdb_ingest_prepare(s->db, "trace.open_b_put", &s->b_put) != PDB_OK ||
        pdb_ingest_prepare(s->db, "trace.open_b_top", &s->b_top) != PDB_OK ||
        pdb_ingest_prepare(s->db, "trace.open_b_delete", &s->b_del) != PDB_OK)
        return PDB_ERR;
    s->open_in_table = true;
    for (int i = 0; i < s->nstacks; i++) {
        b_stack *bs = &s->stacks[i];
        for (int k = 0; k < bs->n; k++) {
            event_to_blob(&s->blob, &bs->v[k]);
            sqlite3_bind_blob(s->b_put, 1, bs->key.p, (int)bs->key.len, SQLITE_STATIC);
            sqlite3_bind_int(s->b_put, 2, k);
            sqlite3_bind_blob(s->b_put, 3, s->blob.p, (int)s->blob.len, SQLITE_STATIC);
            if (step(s, s->b_put) != PDB_OK)
                return PDB_ERR;
            pdb_buf_free(&bs->v[k].arena);
        }
        bs->n = 0;
    }
    s->open = s->open_bytes = 0;
    drop_empty_stacks(s);
    return PDB_OK;
}

/* The depth of the thread's innermost open B in the table (-1: none),
 * leaving its row on b_top when there is one. */
static int table_top(pdb_trace_store *s, int *depth)
{
    sqlite3_bind_blob(s->b_top, 1, s->key.p, (int)s->key.len, SQLITE_STATIC);
    int rc = sqlite3_step(s->b_top);
    *depth = rc == SQLITE_ROW ? sqlite3_column_int(s->b_top, 0) : -1;
    if (rc != SQLITE_ROW) {
        sqlite3_reset(s->b_top);
        if (rc != SQLITE_DONE)
            return pdb_db_fail(s->db, "database error");
    }
    return PDB_OK;
}

static int push_in_table(pdb_trace_store *s, const pdb_trace_event *ev)
{
    thread_key(s, ev);
    int depth;
    if (table_top(s, &depth) != PDB_OK)
        return PDB_ERR;
    sqlite3_reset(s->b_top);
    if (depth + 1 >= MAX_OPEN_PER_THREAD) {
        pdb_skip(s->src, "B event nested deeper than 10000 on one thread");
        return PDB_OK;
    }
    event_to_blob(&s->blob, ev);
    sqlite3_bind_blob(s->b_put, 1, s->key.p, (int)s->key.len, SQLITE_STATIC);
    sqlite3_bind_int(s->b_put, 2, depth + 1);
    sqlite3_bind_blob(s->b_put, 3, s->blob.p, (int)s->blob.len, SQLITE_STATIC);
    return step(s, s->b_put);
}

/* The thread's innermost open B from the table into s->popped (NULL: none). */
static int pop_from_table(pdb_trace_store *s, const pdb_trace_event *ev, pdb_trace_event **b)
{
    thread_key(s, ev);
    int depth;
    *b = NULL;
    if (table_top(s, &depth) != PDB_OK)
        return PDB_ERR;
    if (depth < 0)
        return PDB_OK;
    int rc = event_from_blob(&s->popped, sqlite3_column_blob(s->b_top, 1),
                             (size_t)sqlite3_column_bytes(s->b_top, 1));
    sqlite3_reset(s->b_top);
    if (rc != PDB_OK)
        return rc;
    sqlite3_bind_blob(s->b_del, 1, s->key.p, (int)s->key.len, SQLITE_STATIC);
    sqlite3_bind_int(s->b_del, 2, depth);
    if (step(s, s->b_del) != PDB_OK)
        return PDB_ERR;
    *b = &s->popped;
    return PDB_OK;
}

static int push_begin(pdb_trace_store *s, const pdb_trace_event *ev)
{
    if (!s->open_in_table &&
        (s->open >= pdb_bound(OPEN_IN_MEMORY, 4) ||
         s->open_bytes + (int64_t)ev->arena.len > pdb_bound(OPEN_BYTES, 1 << 16)) &&
        open_in_table(s) != PDB_OK)
        return PDB_ERR;
    if (s->open_in_table)
        return push_in_table(s, ev);
    b_stack *bs = thread_stack(s, ev);
    if (bs->n >= MAX_OPEN_PER_THREAD) {
        pdb_skip(s->src, "B event nested deeper than 10000 on one thread");
        return PDB_OK;
    }
    if (bs->n == bs->cap) {
        bs->cap = bs->cap ? bs->cap * 2 : 8;
        bs->v = pdb_xrealloc(bs->v, (size_t)bs->cap * sizeof *bs->v);
    }
    pdb_trace_event *copy = &bs->v[bs->n++];
    *copy = *ev;
    copy->arena = (pdb_buf)PDB_BUF_INIT;
    pdb_buf_add(&copy->arena, ev->arena.p ? ev->arena.p : "", ev->arena.len);
    s->open++;
    s->open_bytes += (int64_t)(sizeof *copy + ev->arena.len);
    return PDB_OK;
}

static int pop_end(pdb_trace_store *s, const pdb_trace_event *ev)
{
    pdb_trace_event *b = NULL;
    if (s->open_in_table) {
        if (pop_from_table(s, ev, &b) != PDB_OK)
            return PDB_ERR;
    } else {
        b_stack *bs = thread_stack(s, ev);
        if (bs->n > 0) {
            b = &bs->v[--bs->n];
            s->open--;
            s->open_bytes -= (int64_t)(sizeof *b + b->arena.len);
        }
    }
    if (!b) {
        pdb_skip(s->src, "E event without a matching B");
        return PDB_OK;
    }
    int rc = PDB_OK;
    if (ev->ts < b->ts)
        pdb_skip(s->src, "E event earlier than its B");
    else {
        /* Both times are within +-PDB_TIME_LIMIT_NS: the difference fits. */
        rc = insert_slice(s, b, 'B', ev->ts - b->ts, false);
        s->src->records++;
    }
    if (b != &s->popped)
        pdb_buf_free(&b->arena);
    return rc;
}

/* ---- events ----------------------------------------------------------------- */

static bool require_ts(pdb_trace_store *s, const pdb_trace_event *ev, const char *reason)
{
    if (!ev->has_ts)
        pdb_skip(s->src, reason);
    return ev->has_ts;
}

static int store_complete(pdb_trace_store *s, const pdb_trace_event *ev)
{
    if (ev->arg[PDB_ARG_STREAM].type != PDB_V_NONE)
        s->gpu++;
    if (!require_ts(s, ev, "X event without ts"))
        return PDB_OK;
    if (!ev->has_dur) {
        pdb_skip(s->src, "X event without dur");
        return PDB_OK;
    }
    if (ev->dur < 0) {
        pdb_skip(s->src, "X event with negative dur");
        return PDB_OK;
    }
    /* Both are below the limit, so the sum cannot overflow. */
    if (ev->ts + ev->dur >= PDB_TIME_LIMIT_NS) {
        pdb_skip(s->src, "X event ending out of range (ts + dur beyond 4.6e15 us)");
        return PDB_OK;
    }
    s->src->records++;
    if (insert_slice(s, ev, 'X', ev->dur, true) != PDB_OK)
        return PDB_ERR;
    if (s->events == 1 && ev->cat.type == PDB_V_TEXT &&
        !(ev->cat.len == 5 && memcmp(pdb_ev_text(ev, ev->cat.off), "Trace", 5) == 0))
        s->first_slice = s->last_slice;
    return PDB_OK;
}

static int dispatch(pdb_trace_store *s, const pdb_trace_event *ev, char ph)
{
    switch (ph) {
    case 'X': return store_complete(s, ev);
    case 'B': return require_ts(s, ev, "B event without ts") ? push_begin(s, ev) : PDB_OK;
    case 'E': return require_ts(s, ev, "E event without ts") ? pop_end(s, ev) : PDB_OK;
    case 'i':
    case 'I': s->src->records++; return insert_instant(s, ev);
    case 'C':
        if (!require_ts(s, ev, "C event without ts"))
            return PDB_OK;
        if (ev->nseries == 0) {
            pdb_skip(s->src, "C event without numeric args");
            return PDB_OK;
        }
        s->src->records++;
        return insert_counter(s, ev);
    case 's':
    case 't':
    case 'f':
        if (!require_ts(s, ev, "flow event without ts"))
            return PDB_OK;
        s->src->records++;
        return insert_flow(s, ev, ph);
    case 'M': s->src->records++; return insert_metadata(s, ev);
    default: {
        char reason[64];
        snprintf(reason, sizeof reason, "phase '%c' events are not stored", ph);
        pdb_skip(s->src, reason);
        return PDB_OK;
    }
    }
}

/* An older profiler's spelling of the category becomes today's, so every
 * pass matches one spelling; the store counts what the file wrote. */
static void respell(pdb_trace_store *s, pdb_trace_event *ev)
{
    for (int a = 0; a < PDB_ARG_COUNT; a++)
        s->respelled_arg[a] += (ev->respelled_args >> a) & 1;
    if (ev->cat.type != PDB_V_TEXT)
        return;
    char ph = ev->ph.type == PDB_V_TEXT ? pdb_ev_text(ev, ev->ph.off)[0] : 0;
    int row = pdb_cat_spelling(pdb_ev_text(ev, ev->cat.off), ev->cat.len,
                               ph == 's' || ph == 't' || ph == 'f');
    if (row < 0)
        return;
    s->respelled_cat[row]++;
    const char *today = pdb_cat_spelling_canonical(row);
    ev->cat.off = ev->arena.len;
    ev->cat.len = strlen(today);
    pdb_buf_add(&ev->arena, today, ev->cat.len + 1);
}

int pdb_trace_store_event(pdb_trace_store *s, pdb_trace_event *ev)
{
    s->events++;
    if (ev->ph.type != PDB_V_TEXT || ev->ph.len != 1) {
        s->other_phases++;
        pdb_skip(s->src, ev->ph.type == PDB_V_NONE ? "event without ph" : "event with a ph longer than one letter");
        return PDB_OK;
    }
    unsigned char ph = (unsigned char)pdb_ev_text(ev, ev->ph.off)[0];
    s->float_ts += ev->float_ts || !ev->has_ts;
    if (ph < 128 && ph >= 32)
        s->counts[ph]++;
    else
        s->other_phases++;
    respell(s, ev);
    int rc = PDB_OK;
    if (ev->skip)
        pdb_skip(s->src, ev->skip);
    else
        rc = dispatch(s, ev, (char)ph);
    pdb_progress(s->src, s->src->records);
    if (rc != PDB_OK && strstr(pdb_errmsg(), "byte ") == NULL)
        pdb_fail_at(s->src->path, ev->offset, "cannot store event: %s", pdb_errmsg());
    return rc == PDB_OK ? PDB_OK : fail_after_held(s);
}

/* ---- trace-level keys and rank ------------------------------------------- */

int pdb_trace_store_meta(pdb_trace_store *s, const char *key, size_t klen, const char *json,
                         size_t jlen)
{
    sqlite3_stmt *st = s->ins_meta;
    sqlite3_bind_int64(st, 1, s->trace_id);
    sqlite3_bind_text(st, 2, key, (int)klen, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, json, (int)jlen, SQLITE_STATIC);
    if (step(s, st) != PDB_OK)
        return fail_after_held(s);
    if (klen == 15 && memcmp(key, "distributedInfo", 15) == 0) {
        sqlite3_bind_text(s->rank_of, 1, json, (int)jlen, SQLITE_STATIC);
        if (sqlite3_step(s->rank_of) == SQLITE_ROW &&
            sqlite3_column_type(s->rank_of, 0) == SQLITE_INTEGER) {
            s->rank = sqlite3_column_int64(s->rank_of, 0);
            s->rank_known = true;
        }
        sqlite3_reset(s->rank_of);
    }
    return PDB_OK;
}

/* "trace_rank-3.json", "worker_rank3", "RANK_12": the number after the last
 * "rank" in the file's base name. */
static bool rank_from_filename(const char *path, int64_t *rank)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    bool found = false;
    for (const char *p = base; *p; p++) {
        if (strncasecmp(p, "rank", 4) != 0)
            continue;
        const char *q = p + 4;
        while (*q == '-' || *q == '_' || *q == '.')
            q++;
        if (!isdigit((unsigned char)*q))
            continue;
        int64_t r = 0;
        for (; isdigit((unsigned char)*q) && r < 100000000; q++)
            r = r * 10 + (*q - '0');
        *rank = r;
        found = true;
    }
    return found;
}

static int set_rank(pdb_trace_store *s)
{
    const char *from = "distributedInfo";
    int64_t rank = s->rank;
    if (!s->rank_known) {
        from = "filename";
        if (!rank_from_filename(s->src->path, &rank)) {
            from = "order";
            rank = s->src->trace_order;
        }
    }
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(s->db, "trace.set_rank", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, rank);
    sqlite3_bind_text(st, 2, from, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, s->float_ts);
    sqlite3_bind_int64(st, 4, s->trace_id);
    if (s->first_slice)
        sqlite3_bind_int64(st, 5, s->first_slice);
    else
        sqlite3_bind_null(st, 5);
    int rc = sqlite3_step(st);
    pdb_db_release(st);
    if (rc == SQLITE_CONSTRAINT)
        return pdb_fail("%s: rank %lld (from %s) is already in this run; ingest the file as a "
                        "run of its own",
                        s->src->path, (long long)rank, from);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(s->db, "database error");
    return PDB_OK;
}

static int write_counts(pdb_trace_store *s)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(s->db, "trace.add_count", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int c = 0; c < 128 && rc == PDB_OK; c++) {
        if (!s->counts[c])
            continue;
        char ph[2] = {(char)c, 0};
        sqlite3_bind_int64(st, 1, s->trace_id);
        sqlite3_bind_text(st, 2, ph, 1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 3, s->counts[c]);
        rc = pdb_db_step_done(s->db, st);
    }
    const char *extra[] = {"gpu", "other"};
    int64_t values[] = {s->gpu, s->other_phases};
    for (int k = 0; k < 2 && rc == PDB_OK; k++) {
        sqlite3_bind_int64(st, 1, s->trace_id);
        sqlite3_bind_text(st, 2, extra[k], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, values[k]);
        rc = pdb_db_step_done(s->db, st);
    }
    pdb_db_release(st);
    return rc;
}

static int add_spelling(pdb_trace_store *s, sqlite3_stmt *st, const char *kind,
                        const char *written, const char *today, int64_t events)
{
    sqlite3_bind_int64(st, 1, s->trace_id);
    sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, written, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, today, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, events);
    return pdb_db_step_done(s->db, st);
}

/* What the file spelt differently, in trace_spellings. */
static int write_spellings(pdb_trace_store *s)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(s->db, "trace.add_spelling", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int row = 0; row < pdb_cat_spellings() && rc == PDB_OK; row++)
        if (s->respelled_cat[row])
            rc = add_spelling(s, st, "cat", pdb_cat_spelling_written(row),
                              pdb_cat_spelling_canonical(row), s->respelled_cat[row]);
    for (int col = 0; col < PDB_ARG_COUNT && rc == PDB_OK; col++)
        if (s->respelled_arg[col])
            rc = add_spelling(s, st, "arg", pdb_arg_spelling_written(col),
                              pdb_arg_spelling_canonical(col),
                              s->respelled_arg[col]);
    pdb_db_release(st);
    return rc;
}

/* ---- lifetime ------------------------------------------------------------ */

pdb_trace_store *pdb_trace_store_new(pdb_source *src, const char *format)
{
    pdb_trace_store *s = pdb_xcalloc(1, sizeof *s);
    s->src = src;
    s->db = src->db;
    s->stack_of = pdb_strmap_new();
    s->respelled_cat = pdb_xcalloc((size_t)pdb_cat_spellings(), sizeof *s->respelled_cat);
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(s->db, "trace.add_trace", &st) != PDB_OK) {
        pdb_trace_store_free(s);
        return NULL;
    }
    /* A unique placeholder rank until the whole file has been read. */
    sqlite3_bind_int64(st, 1, src->run_id);
    sqlite3_bind_int64(st, 2, src->source_id);
    sqlite3_bind_int64(st, 3, -src->source_id);
    sqlite3_bind_text(st, 4, format, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(s->db, st);
    pdb_db_release(st);
    s->trace_id = sqlite3_last_insert_rowid(s->db);
    sqlite3_stmt **stmts[] = {&s->ins_slice, &s->ins_instant, &s->ins_counter, &s->ins_flow,
                              &s->ins_mevent, &s->ins_meta, &s->rank_of, &s->ins_step};
    for (size_t i = 0; i < sizeof stmts / sizeof stmts[0] && rc == PDB_OK; i++)
        rc = pdb_ingest_prepare(s->db, insert_queries[i], stmts[i]);
    if (rc == PDB_OK) {
        pdb_buf sql = PDB_BUF_INIT;
        pdb_query_rows(pdb_ingest_sql("trace.add_slice"), SLICE_ROWS, &sql);
        rc = pdb_db_prepare(s->db, pdb_buf_str(&sql), &s->ins_slices);
        pdb_buf_free(&sql);
    }
    if (rc != PDB_OK) {
        pdb_trace_store_free(s);
        return NULL;
    }
    return s;
}

int pdb_trace_store_finish(pdb_trace_store *s)
{
    if (pdb_trace_store_flush(s) != PDB_OK) {
        pdb_trace_store_free(s);
        return PDB_ERR;
    }
    for (int i = 0; i < s->nstacks; i++)
        for (int k = 0; k < s->stacks[i].n; k++)
            pdb_skip(s->src, "B event without a matching E");
    int rc = PDB_OK;
    if (s->open_in_table) {
        int64_t left = 0;
        rc = pdb_ingest_int(s->db, "trace.open_b_left", 0, &left);
        for (int64_t k = 0; k < left; k++)
            pdb_skip(s->src, "B event without a matching E");
        if (rc == PDB_OK)
            rc = pdb_ingest_exec(s->db, "trace.open_b_clear");
    }
    if (rc == PDB_OK)
        rc = write_counts(s);
    if (rc == PDB_OK)
        rc = write_spellings(s);
    if (rc == PDB_OK)
        rc = set_rank(s);
    pdb_trace_store_free(s);
    return rc;
}

void pdb_trace_store_free(pdb_trace_store *s)
{
    if (!s)
        return;
    sqlite3_stmt *stmts[] = {s->ins_slice, s->ins_instant, s->ins_counter, s->ins_flow,
                             s->ins_mevent, s->ins_meta, s->rank_of, s->ins_step};
    for (size_t i = 0; i < sizeof stmts / sizeof stmts[0]; i++)
        pdb_db_release(stmts[i]);
    pdb_db_release(s->ins_slices);
    for (int i = 0; i < s->nstacks; i++) {
        for (int k = 0; k < s->stacks[i].n; k++)
            pdb_buf_free(&s->stacks[i].v[k].arena);
        free(s->stacks[i].v);
        pdb_buf_free(&s->stacks[i].key);
    }
    free(s->stacks);
    free(s->respelled_cat);
    pdb_strmap_free(s->stack_of);
    sqlite3_stmt *pairing[] = {s->b_top, s->b_put, s->b_del};
    for (size_t i = 0; i < sizeof pairing / sizeof pairing[0]; i++)
        pdb_db_release(pairing[i]);
    pdb_buf_free(&s->popped.arena);
    pdb_buf_free(&s->key);
    pdb_buf_free(&s->blob);
    free(s);
}
