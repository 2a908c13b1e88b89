/* steps_pass.c: each ProfilerStep's wall time split into the TensorBoard
 * profiler's overview categories (see analysis_steps in the schema).
 *
 * The step windows come from trace_steps (copied at ingest), read in start
 * order alongside the scan, which feeds every slice in start order; each
 * slice is clipped to the windows it overlaps and added to that window's
 * sweep, whose priority split gives kernel, memcpy, ... cpu_exec; other is
 * what nothing covers.
 *
 * Streaming. A window is opened when the scan reaches its start and closed
 * when the scan passes its end (no later slice can reach into it); closed
 * windows go to a temporary table and are copied to analysis_steps, in
 * start order, at the end. So memory holds the windows open at the scan's
 * time, not every step (100,000 steps took 310 MB). Slices that started
 * before a window opened reach into it clipped to its start, so for each
 * category only the latest end among them matters: the pass keeps that
 * per category and gives it to each window as it opens, before the
 * window's own slices, which keeps the sweep's start order. An op family's
 * time is added to its window when the op ends, which may be after the
 * window closed: then the table row is updated. */
#include "analyze/passes.h"
#include "analyze/sum.h"
#include "analyze/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { C_KERNEL, C_MEMCPY, C_MEMSET, C_RUNTIME, C_DATALOADER, C_CPU_EXEC, C_COUNT, C_NONE = -1 };

typedef struct {
    char *name;
    int64_t idx;        /* windows in start order: 0, 1, 2... */
    int64_t num;        /* N of ProfilerStep#N */
    int64_t ts, end;
    pdb_sweep w;
    int64_t family[PDB_FAMILY_COUNT]; /* outermost copy and sync calls starting here */
} step;

struct pdb_steps_acc {
    sqlite3 *db;
    sqlite3_stmt *windows;   /* the trace's windows in start order, read as the scan goes */
    bool next_ready, done;   /* a window read from it and not opened yet; none left */
    step next;
    step *open;              /* opened and not closed, in start order */
    int nopen, cap;
    int64_t count;           /* windows opened so far */
    int64_t latest_num, latest_end, latest_idx; /* the last window opened (step_at) */
    int64_t max_end[C_COUNT];/* latest end of the slices added so far, per category */
    bool any_end[C_COUNT];
    sqlite3_stmt *put, *add_family;
    int err;
};

/* CPU-side ProfilerStep#N annotations (not the GPU-side copies Kineto adds). */
int pdb_steps_acc_new(sqlite3 *db, int64_t trace_id, pdb_steps_acc **out)
{
    pdb_steps_acc *a = pdb_xcalloc(1, sizeof *a);
    *out = a;
    a->db = db;
    a->latest_idx = -1;
    if (pdb_analyze_exec(db, "steps_pass.create_steps") != PDB_OK ||
        pdb_analyze_prepare(db, "steps_pass.windows", &a->windows) != PDB_OK ||
        pdb_analyze_prepare(db, "steps_pass.put_step", &a->put) != PDB_OK ||
        pdb_analyze_prepare(db, "steps_pass.add_family", &a->add_family) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(a->windows, 1, trace_id);
    return PDB_OK;
}

/* Reads the next window into a->next (a->done when there is none). */
static void peek(pdb_steps_acc *a)
{
    if (a->next_ready || a->done)
        return;
    int rc = sqlite3_step(a->windows);
    if (rc != SQLITE_ROW) {
        if (rc != SQLITE_DONE && a->err == PDB_OK)
            a->err = pdb_db_fail(a->db, "reading the step windows");
        a->done = true;
        return;
    }
    step *s = &a->next;
    *s = (step){0};
    s->name = pdb_xstrdup((const char *)sqlite3_column_text(a->windows, 0));
    s->num = atoll(s->name + strlen("ProfilerStep#"));
    s->ts = sqlite3_column_int64(a->windows, 1);
    s->end = s->ts + sqlite3_column_int64(a->windows, 2);
    a->next_ready = true;
}

/* Opens the window read last: it starts with what earlier slices of each
 * category reach into it (see the file comment). */
static void open_next(pdb_steps_acc *a)
{
    if (a->nopen == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 8;
        a->open = pdb_xrealloc(a->open, (size_t)a->cap * sizeof *a->open);
    }
    step *s = &a->open[a->nopen++];
    *s = a->next;
    a->next_ready = false;
    s->idx = a->count++;
    pdb_sweep_init(&s->w, C_COUNT);
    for (int c = 0; c < C_COUNT; c++) {
        int64_t hi = a->max_end[c] < s->end ? a->max_end[c] : s->end;
        if (a->any_end[c] && s->ts < hi)
            pdb_sweep_add(&s->w, c, s->ts, hi);
    }
    a->latest_num = s->num;
    a->latest_end = s->end;
    a->latest_idx = s->idx;
}

/* Moves a window to the table: its sweep is final. */
static void close_window(pdb_steps_acc *a, step *s)
{
    pdb_sweep_finish(&s->w);
    int64_t by[C_COUNT];
    pdb_sweep_by_priority(&s->w, by);
    int64_t dur = s->end - s->ts, covered = pdb_sweep_union(&s->w, (1u << C_COUNT) - 1);
    sqlite3_stmt *st = a->put;
    sqlite3_bind_int64(st, 1, s->idx);
    sqlite3_bind_text(st, 2, s->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, s->num);
    sqlite3_bind_int64(st, 4, s->ts);
    sqlite3_bind_int64(st, 5, dur);
    for (int c = 0; c < C_COUNT; c++)
        sqlite3_bind_int64(st, 6 + c, by[c]);
    sqlite3_bind_int64(st, 6 + C_COUNT, dur - covered);
    sqlite3_bind_int64(st, 7 + C_COUNT, s->family[PDB_FAMILY_COPY]);
    sqlite3_bind_int64(st, 8 + C_COUNT, s->family[PDB_FAMILY_SYNC]);
    if (pdb_db_step_done(a->db, st) != PDB_OK && a->err == PDB_OK)
        a->err = PDB_ERR;
    free(s->name);
    s->name = NULL;
}

/* Closes the open windows that end at or before ts, keeping start order. */
static void close_before(pdb_steps_acc *a, int64_t ts)
{
    int j = 0;
    for (int i = 0; i < a->nopen; i++) {
        if (a->open[i].end <= ts)
            close_window(a, &a->open[i]);
        else if (j++ != i) /* a step is large: copied only to fill a gap */
            a->open[j - 1] = a->open[i];
    }
    a->nopen = j;
}

static int category(const pdb_row *r)
{
    if (r->gpu) {
        switch (r->name->kt) {
        case PDB_KT_MEMORY: return r->name->memset ? C_MEMSET : C_MEMCPY;
        case PDB_KT_OTHER: return C_NONE; /* waits, not work */
        default: return C_KERNEL;
        }
    }
    if (r->cat && r->cat->runtime)
        return C_RUNTIME;
    if (r->name->profiler_step || (r->cat && (r->cat->trace || r->cat->gpu_annotation)))
        return C_NONE;
    return r->name->dataloader ? C_DATALOADER : C_CPU_EXEC;
}

void pdb_steps_acc_add(pdb_steps_acc *a, const pdb_row *r)
{
    int c = category(r);
    if (c == C_NONE)
        return;
    int64_t ts = r->ts, end = r->ts + r->dur;
    for (int i = 0; i < a->nopen; i++) {
        step *s = &a->open[i];
        int64_t lo = ts > s->ts ? ts : s->ts;
        int64_t hi = end < s->end ? end : s->end;
        if (lo < hi)
            pdb_sweep_add(&s->w, c, lo, hi);
    }
    if (!a->any_end[c] || end > a->max_end[c]) {
        a->max_end[c] = end;
        a->any_end[c] = true;
    }
}

bool pdb_steps_acc_step_at(pdb_steps_acc *a, int64_t ts, int64_t *num, int64_t *idx)
{
    close_before(a, ts);
    for (peek(a); a->next_ready && a->next.ts <= ts; peek(a))
        open_next(a);
    if (a->latest_idx < 0 || ts >= a->latest_end)
        return false;
    *num = a->latest_num;
    *idx = a->latest_idx;
    return true;
}

void pdb_steps_acc_family(pdb_steps_acc *a, int64_t idx, int family, int64_t dur)
{
    for (int i = a->nopen - 1; i >= 0; i--)
        if (a->open[i].idx == idx) {
            pdb_sum(&a->open[i].family[family], dur);
            return;
        }
    /* The window closed before the op ended. */
    sqlite3_bind_int64(a->add_family, 1, idx);
    sqlite3_bind_int64(a->add_family, 2, dur);
    sqlite3_bind_int(a->add_family, 3, family);
    if (pdb_db_step_done(a->db, a->add_family) != PDB_OK && a->err == PDB_OK)
        a->err = PDB_ERR;
}

int pdb_steps_acc_write(pdb_steps_acc *a, sqlite3 *db, int64_t run_id, int rank)
{
    for (peek(a); a->next_ready; peek(a))
        open_next(a);
    close_before(a, INT64_MAX);
    if (a->err != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "steps_pass.write", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, rank);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

void pdb_steps_acc_free(pdb_steps_acc *a)
{
    if (!a)
        return;
    for (int i = 0; i < a->nopen; i++)
        free(a->open[i].name);
    if (a->next_ready)
        free(a->next.name);
    free(a->open);
    sqlite3_finalize(a->windows);
    sqlite3_finalize(a->put);
    sqlite3_finalize(a->add_family);
    free(a);
}
