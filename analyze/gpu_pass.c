/* gpu_pass.c: GPU time per rank: temporal breakdown, kernel types and their
 * overlaps, per-kernel statistics.
 *
 * Streams the rank's GPU events ordered by start time into the sweep (see
 * sweep.c) and a per-name accumulator. In HTA mode the event set, rounding
 * and the dropped last profiler step follow HTA 0.6's loader, so the numbers
 * equal what HTA prints. */
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HTA's event set: X events with a category other than 'Trace'. */
#define HTA_KEPT "s.ph = 'X' AND s.cat IS NOT NULL" \
    " AND s.cat NOT IN (SELECT id FROM strings WHERE value = 'Trace')"

static const char *const exact_sql =
    "SELECT s.ts, s.dur, n.value FROM slices s LEFT JOIN strings n ON n.id = s.name"
    " WHERE s.trace_id = ?1 AND s.stream IS NOT NULL ORDER BY s.ts";

/* ?2: the last profiler step's start (ns, rounded like ts) or NULL to keep
 * everything; ?3: 1 when timestamps are rounded to whole microseconds. */
static const char *const hta_sql =
    "SELECT s.ts, s.dur, n.value FROM slices s LEFT JOIN strings n ON n.id = s.name"
    " WHERE s.trace_id = ?1 AND " HTA_KEPT " AND typeof(s.stream) = 'integer'"
    " AND (?2 IS NULL OR s.correlation IN (SELECT s.correlation FROM slices s"
    "   WHERE s.trace_id = ?1 AND " HTA_KEPT " AND typeof(s.stream) <> 'integer'"
    "   AND (CASE WHEN ?3 THEN (s.ts + 999) / 1000 * 1000 ELSE s.ts END) < ?2))"
    " ORDER BY s.ts";

static const char *const last_step_sql =
    "SELECT count(DISTINCT s.name), max(s.ts) FROM slices s JOIN strings n ON n.id = s.name"
    " WHERE s.trace_id = ?1 AND " HTA_KEPT " AND typeof(s.stream) <> 'integer'"
    " AND instr(n.value, 'ProfilerStep') > 0";

typedef struct {
    char *name;
    pdb_kernel_type type;
    int64_t count, total, min, max;
    double mean, m2; /* Welford's running mean and squared deviations */
} kernel_stat;

typedef struct {
    pdb_strmap *index;
    kernel_stat *v;
    int64_t n, cap;
} kernel_stats;

static void add_kernel(kernel_stats *ks, const char *name, pdb_kernel_type type, int64_t dur)
{
    int64_t i;
    size_t len = strlen(name);
    if (!pdb_strmap_get(ks->index, name, len, &i)) {
        if (ks->n == ks->cap) {
            ks->cap = ks->cap ? ks->cap * 2 : 64;
            ks->v = pdb_xrealloc(ks->v, (size_t)ks->cap * sizeof *ks->v);
        }
        i = ks->n++;
        ks->v[i] = (kernel_stat){pdb_xstrdup(name), type, 0, 0, dur, dur, 0, 0};
        pdb_strmap_put(ks->index, name, len, i);
    }
    kernel_stat *k = &ks->v[i];
    k->count++;
    k->total += dur;
    if (dur < k->min)
        k->min = dur;
    if (dur > k->max)
        k->max = dur;
    double delta = (double)dur - k->mean;
    k->mean += delta / (double)k->count;
    k->m2 += delta * ((double)dur - k->mean);
}

static void free_stats(kernel_stats *ks)
{
    for (int64_t i = 0; i < ks->n; i++)
        free(ks->v[i].name);
    free(ks->v);
    pdb_strmap_free(ks->index);
}

/* HTA rounds inward in floating point, as Python does: ceil(ts), floor(ts + dur). */
static void hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end)
{
    double t = (double)ts / 1000.0, d = (double)dur / 1000.0;
    *start = (int64_t)ceil(t) * 1000;
    *end = (int64_t)floor(t + d) * 1000;
}

typedef struct {
    bool hta;
    bool round;
    bool drop_last;
    int64_t cutoff;
} mode;

static int hta_settings(sqlite3 *db, int64_t trace_id, mode *m)
{
    int64_t float_ts;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT float_ts FROM traces WHERE trace_id = %lld",
             (long long)trace_id);
    if (pdb_db_query_int(db, sql, 0, &float_ts) != PDB_OK)
        return PDB_ERR;
    m->round = float_ts > 0;
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, last_step_sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) >= 2) {
        m->drop_last = true;
        int64_t last = sqlite3_column_int64(st, 1);
        m->cutoff = m->round ? (last + 999) / 1000 * 1000 : last;
    }
    sqlite3_finalize(st);
    return PDB_OK;
}

static int read_events(sqlite3 *db, int64_t trace_id, const mode *m, pdb_sweep *w,
                       kernel_stats *ks, int64_t *n)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, m->hta ? hta_sql : exact_sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    if (m->hta) {
        if (m->drop_last)
            sqlite3_bind_int64(st, 2, m->cutoff);
        sqlite3_bind_int(st, 3, m->round);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t ts = sqlite3_column_int64(st, 0), dur = sqlite3_column_int64(st, 1);
        const char *name = (const char *)sqlite3_column_text(st, 2);
        if (!name)
            name = "";
        int64_t start = ts, end = ts + dur;
        if (m->round)
            hta_round(ts, dur, &start, &end);
        pdb_kernel_type type = pdb_kernel_type_of(name);
        pdb_sweep_add(w, type, start, end);
        add_kernel(ks, name, type, end - start);
        (*n)++;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "analysis query failed");
}

static int write_gpu(sqlite3 *db, int64_t run_id, int rank, const char *mname,
                     const pdb_sweep *w, int64_t n)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT INTO analysis_gpu VALUES (?,?,?,?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    int64_t kernel_time = w->last_end - w->first_start;
    int64_t busy = pdb_sweep_union(w, PDB_KT_ALL), compute = pdb_sweep_union(w, 1u << PDB_KT_COMPUTATION);
    int64_t vals[] = {n, kernel_time, busy, kernel_time - busy, compute, busy - compute,
                      pdb_sweep_union(w, 1u << PDB_KT_COMMUNICATION),
                      pdb_sweep_together(w, (1u << PDB_KT_COMMUNICATION) | (1u << PDB_KT_COMPUTATION))};
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, mname, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, rank);
    for (int i = 0; i < 8; i++)
        sqlite3_bind_int64(st, 4 + i, vals[i]);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

static int write_kernel_types(sqlite3 *db, int64_t run_id, int rank, const char *mname,
                              const pdb_sweep *w)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT INTO analysis_kernel_types VALUES (?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    /* OTHER (sync) time is left out of the breakdown, as HTA does. */
    int64_t by_type[PDB_KT_BREAKDOWN + 1] = {0};
    for (unsigned m = 1; m <= PDB_KT_ALL; m++)
        by_type[m & PDB_KT_BREAKDOWN] += w->mask_time[m];
    int rc = PDB_OK;
    for (unsigned m = 1; m <= PDB_KT_BREAKDOWN && rc == PDB_OK; m++) {
        if (!by_type[m])
            continue;
        char name[128];
        pdb_kernel_mask_name(m, name, sizeof name);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, mname, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, rank);
        sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, by_type[m]);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int write_kernels(sqlite3 *db, int64_t run_id, int rank, const char *mname,
                         const kernel_stats *ks)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT INTO analysis_kernels VALUES (?,?,?,?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int64_t i = 0; i < ks->n && rc == PDB_OK; i++) {
        const kernel_stat *k = &ks->v[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, mname, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, rank);
        sqlite3_bind_text(st, 4, k->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, pdb_kernel_type_name(k->type), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, k->count);
        sqlite3_bind_int64(st, 7, k->total);
        sqlite3_bind_int64(st, 8, k->min);
        sqlite3_bind_int64(st, 9, k->max);
        sqlite3_bind_double(st, 10, (double)k->total / (double)k->count);
        if (k->count > 1)
            sqlite3_bind_double(st, 11, sqrt(k->m2 / (double)(k->count - 1)));
        else
            sqlite3_bind_null(st, 11);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

int pdb_analyze_gpu(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, bool hta)
{
    mode m = {.hta = hta};
    if (hta && hta_settings(db, trace_id, &m) != PDB_OK)
        return PDB_ERR;
    pdb_sweep w;
    pdb_sweep_init(&w);
    kernel_stats ks = {.index = pdb_strmap_new()};
    int64_t n = 0;
    const char *mname = hta ? "hta" : "exact";
    int rc = read_events(db, trace_id, &m, &w, &ks, &n);
    pdb_sweep_finish(&w);
    /* A rank without GPU events has no GPU breakdown (HTA fails there too). */
    if (rc == PDB_OK && n > 0)
        rc = write_gpu(db, run_id, rank, mname, &w, n);
    if (rc == PDB_OK && n > 0)
        rc = write_kernel_types(db, run_id, rank, mname, &w);
    if (rc == PDB_OK)
        rc = write_kernels(db, run_id, rank, mname, &ks);
    free_stats(&ks);
    return rc;
}
