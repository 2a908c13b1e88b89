/* steps_pass.c: each ProfilerStep's wall time split into the TensorBoard
 * profiler's overview categories (see analysis_steps in the schema).
 *
 * The step windows come from trace_steps (copied at ingest). The scan feeds
 * every slice in start order; each is clipped to the windows it overlaps and
 * added to that step's sweep, whose priority split gives kernel, memcpy, ...
 * cpu_exec; other is what nothing covers. Clipped starts stay sorted because
 * slices starting before a window all come before those starting inside it. */
#include "analyze/scan.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { C_KERNEL, C_MEMCPY, C_MEMSET, C_RUNTIME, C_DATALOADER, C_CPU_EXEC, C_COUNT, C_NONE = -1 };

typedef struct {
    char *name;
    int64_t num;        /* N of ProfilerStep#N */
    int64_t ts, end;
    pdb_sweep w;
    int64_t family[PDB_FAMILY_COUNT]; /* outermost copy and sync calls starting here */
} step;

struct pdb_steps_acc {
    step *v;
    int n, first;
    int at;         /* pdb_steps_acc_step_at's cursor: the last window started so far */
};

/* CPU-side ProfilerStep#N annotations (not the GPU-side copies Kineto adds). */
int pdb_steps_acc_new(sqlite3 *db, int64_t trace_id, pdb_steps_acc **out)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db,
                       "SELECT name, ts, dur FROM trace_steps WHERE trace_id = ?1"
                       " AND name GLOB 'ProfilerStep#*' AND coalesce(cat, '') NOT LIKE 'gpu\\_%' ESCAPE '\\'"
                       " AND (stream IS NULL OR coalesce(cat, '') IN " PDB_CPU_CATEGORIES ")"
                       " ORDER BY ts",
                       &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    pdb_steps_acc *a = pdb_xcalloc(1, sizeof *a);
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (a->n == cap) {
            cap = cap ? cap * 2 : 16;
            a->v = pdb_xrealloc(a->v, (size_t)cap * sizeof *a->v);
        }
        step *s = &a->v[a->n++];
        *s = (step){0};
        s->name = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
        s->num = atoll(s->name + strlen("ProfilerStep#"));
        s->ts = sqlite3_column_int64(st, 1);
        s->end = s->ts + sqlite3_column_int64(st, 2);
        pdb_sweep_init(&s->w, C_COUNT);
    }
    sqlite3_finalize(st);
    *out = a;
    return PDB_OK;
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
    if (c == C_NONE || a->n == 0)
        return;
    int64_t ts = r->ts, end = r->ts + r->dur;
    while (a->first < a->n && a->v[a->first].end <= ts)
        a->first++;
    for (int i = a->first; i < a->n && a->v[i].ts < end; i++) {
        int64_t lo = ts > a->v[i].ts ? ts : a->v[i].ts;
        int64_t hi = end < a->v[i].end ? end : a->v[i].end;
        if (lo < hi)
            pdb_sweep_add(&a->v[i].w, c, lo, hi);
    }
}

bool pdb_steps_acc_step_at(pdb_steps_acc *a, int64_t ts, int64_t *num)
{
    while (a->at + 1 < a->n && a->v[a->at + 1].ts <= ts)
        a->at++;
    if (a->n == 0 || a->v[a->at].ts > ts || ts >= a->v[a->at].end)
        return false;
    *num = a->v[a->at].num;
    return true;
}

void pdb_steps_acc_family(pdb_steps_acc *a, int64_t num, int family, int64_t dur)
{
    /* The op started in the window pdb_steps_acc_step_at found last or an
     * earlier one: a few steps back at most. */
    for (int i = a->at; i >= 0 && i < a->n; i--)
        if (a->v[i].num == num) {
            pdb_sum(&a->v[i].family[family], dur);
            return;
        }
}

int pdb_steps_acc_write(pdb_steps_acc *a, sqlite3 *db, int64_t run_id, int rank)
{
    if (a->n == 0)
        return PDB_OK;
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT OR REPLACE INTO analysis_steps VALUES"
                           " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int i = 0; i < a->n && rc == PDB_OK; i++) {
        step *s = &a->v[i];
        pdb_sweep_finish(&s->w);
        int64_t by[C_COUNT];
        pdb_sweep_by_priority(&s->w, by);
        int64_t dur = s->end - s->ts, covered = pdb_sweep_union(&s->w, (1u << C_COUNT) - 1);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, rank);
        sqlite3_bind_text(st, 3, s->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, s->num);
        sqlite3_bind_int64(st, 5, s->ts);
        sqlite3_bind_int64(st, 6, dur);
        for (int c = 0; c < C_COUNT; c++)
            sqlite3_bind_int64(st, 7 + c, by[c]);
        sqlite3_bind_int64(st, 7 + C_COUNT, dur - covered);
        sqlite3_bind_int64(st, 8 + C_COUNT, s->family[PDB_FAMILY_COPY]);
        sqlite3_bind_int64(st, 9 + C_COUNT, s->family[PDB_FAMILY_SYNC]);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

void pdb_steps_acc_free(pdb_steps_acc *a)
{
    if (!a)
        return;
    for (int i = 0; i < a->n; i++)
        free(a->v[i].name);
    free(a->v);
    free(a);
}
