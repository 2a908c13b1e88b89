/* steps_pass.c: each ProfilerStep's wall time split into the TensorBoard
 * profiler's overview categories (see analysis_steps in the schema).
 *
 * One pass over the rank's slices in start order: every slice is clipped to
 * the step windows it overlaps and fed to that step's sweep, whose priority
 * split gives kernel, memcpy, ... cpu_exec; other is what nothing covers.
 * Clipped starts stay sorted because slices starting before a window all
 * come before those starting inside it. */
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { C_KERNEL, C_MEMCPY, C_MEMSET, C_RUNTIME, C_DATALOADER, C_CPU_EXEC, C_COUNT, C_NONE = -1 };

typedef struct {
    char *name;
    int64_t ts, end;
    pdb_sweep w;
} step;

static int load_steps(sqlite3 *db, int64_t trace_id, step **out, int *n)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db,
                       "SELECT n.value, s.ts, s.dur FROM slices s JOIN strings n ON n.id = s.name"
                       " WHERE s.trace_id = ?1 AND NOT " PDB_IS_GPU("s")
                       " AND n.value GLOB 'ProfilerStep#*' ORDER BY s.ts",
                       &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            *out = pdb_xrealloc(*out, (size_t)cap * sizeof **out);
        }
        step *s = &(*out)[(*n)++];
        s->name = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
        s->ts = sqlite3_column_int64(st, 1);
        s->end = s->ts + sqlite3_column_int64(st, 2);
        pdb_sweep_init(&s->w, C_COUNT);
    }
    sqlite3_finalize(st);
    return PDB_OK;
}

static int category(const char *name, const char *cat, bool gpu)
{
    if (gpu) {
        switch (pdb_kernel_type_of(name)) {
        case PDB_KT_MEMORY:
            return strstr(name, "Memset") ? C_MEMSET : C_MEMCPY;
        case PDB_KT_OTHER:
            return C_NONE; /* waits, not work */
        default:
            return C_KERNEL;
        }
    }
    if (cat && (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0 ||
                strcmp(cat, "hip_runtime") == 0))
        return C_RUNTIME;
    if (strncmp(name, "ProfilerStep#", 13) == 0)
        return C_NONE;
    if (cat && (strcmp(cat, "Trace") == 0 || strncmp(cat, "gpu_", 4) == 0))
        return C_NONE;
    if (strstr(name, "DataLoader"))
        return C_DATALOADER;
    return C_CPU_EXEC;
}

/* Adds [ts, end) to every step window it overlaps; *first is the first step
 * that can still overlap anything (slices come in start order). */
static void add_slice(step *steps, int n, int *first, int c, int64_t ts, int64_t end)
{
    while (*first < n && steps[*first].end <= ts)
        (*first)++;
    for (int i = *first; i < n && steps[i].ts < end; i++) {
        int64_t a = ts > steps[i].ts ? ts : steps[i].ts;
        int64_t b = end < steps[i].end ? end : steps[i].end;
        if (a < b)
            pdb_sweep_add(&steps[i].w, c, a, b);
    }
}

static int feed(sqlite3 *db, int64_t trace_id, step *steps, int n)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db,
                       "SELECT s.ts, s.dur, n.value, c.value, " PDB_IS_GPU("s")
                       " FROM slices s LEFT JOIN strings n ON n.id = s.name"
                       " LEFT JOIN strings c ON c.id = s.cat"
                       " WHERE s.trace_id = ?1 AND s.ts < ?2 ORDER BY s.ts",
                       &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int64(st, 2, steps[n - 1].end);
    int first = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 2);
        int c = category(name ? name : "", (const char *)sqlite3_column_text(st, 3),
                         sqlite3_column_int(st, 4));
        int64_t ts = sqlite3_column_int64(st, 0);
        if (c != C_NONE)
            add_slice(steps, n, &first, c, ts, ts + sqlite3_column_int64(st, 1));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "analysis query failed");
}

static int write_steps(sqlite3 *db, int64_t run_id, int rank, step *steps, int n)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT OR REPLACE INTO analysis_steps VALUES"
                           " (?,?,?,?,?,?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int i = 0; i < n && rc == PDB_OK; i++) {
        step *s = &steps[i];
        pdb_sweep_finish(&s->w);
        int64_t by[C_COUNT];
        pdb_sweep_by_priority(&s->w, by);
        int64_t dur = s->end - s->ts, covered = pdb_sweep_union(&s->w, (1u << C_COUNT) - 1);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, rank);
        sqlite3_bind_text(st, 3, s->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, atoll(s->name + 13));
        sqlite3_bind_int64(st, 5, s->ts);
        sqlite3_bind_int64(st, 6, dur);
        for (int c = 0; c < C_COUNT; c++)
            sqlite3_bind_int64(st, 7 + c, by[c]);
        sqlite3_bind_int64(st, 7 + C_COUNT, dur - covered);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

int pdb_analyze_steps(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank)
{
    step *steps = NULL;
    int n = 0;
    int rc = load_steps(db, trace_id, &steps, &n);
    if (rc == PDB_OK && n > 0)
        rc = feed(db, trace_id, steps, n);
    if (rc == PDB_OK && n > 0)
        rc = write_steps(db, run_id, rank, steps, n);
    for (int i = 0; i < n; i++)
        free(steps[i].name);
    free(steps);
    return rc;
}
