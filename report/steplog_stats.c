/* steplog_stats.c: distributions of per-step phase times (see steplog_stats.h;
 * the values are read by report/queries/steplog_stats.sql).
 *
 * Two passes over the values, so memory holds one record per group, not the
 * values (a 10-million-line log took 157 MB): the first, in log order, sums
 * each group; the second reads them sorted within each group (SQLite sorts,
 * in bounded memory) and picks the order statistics at their ranks. */
#include "report/steplog_stats.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "report/queries.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *split, *loader, *metric, *agg;
    size_t n;       /* values */
    size_t seen;    /* values of the sorted pass so far */
    double min, p50, p90, p99, max;
    double vsum;    /* sum of the values as logged */
    double ss;      /* their squared deviations from their mean, in value order */
    int64_t window; /* the window when all values share one, else 0 */
    bool mixed_window;
    double wtotal;  /* sum of value x steps it stands for */
    double wsteps;  /* steps the values stand for */
} group;

typedef struct {
    group *g;
    size_t n, cap;
    pdb_strmap *index;
} groups;

static void sqrt_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    double x = sqlite3_value_double(argv[0]);
    if (x < 0)
        sqlite3_result_null(ctx);
    else
        sqlite3_result_double(ctx, sqrt(x));
}

void pdb_steplog_sql_functions(sqlite3 *db)
{
    sqlite3_create_function(db, "sqrt", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sqrt_fn,
                            NULL, NULL);
}

static const char *col(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? (const char *)t : "";
}

static group *group_for(groups *gs, sqlite3_stmt *st)
{
    pdb_buf key = PDB_BUF_INIT;
    pdb_buf_addf(&key, "%s\x1f%s\x1f%s\x1f%s", col(st, 0), col(st, 1), col(st, 2), col(st, 3));
    int64_t idx;
    if (!pdb_strmap_get(gs->index, key.p, key.len, &idx)) {
        if (gs->n == gs->cap) {
            gs->cap = gs->cap ? gs->cap * 2 : 16;
            gs->g = pdb_xrealloc(gs->g, gs->cap * sizeof *gs->g);
        }
        group *g = &gs->g[gs->n];
        memset(g, 0, sizeof *g);
        g->split = pdb_xstrdup(col(st, 0));
        g->loader = pdb_xstrdup(col(st, 1));
        g->metric = pdb_xstrdup(col(st, 2));
        g->agg = pdb_xstrdup(col(st, 3));
        g->window = sqlite3_column_int64(st, 4);
        idx = (int64_t)gs->n++;
        pdb_strmap_put(gs->index, key.p, key.len, idx);
    }
    pdb_buf_free(&key);
    return &gs->g[idx];
}

/* Nearest-rank percentile: the smallest value with at least p% of the
 * values at or below it is the one of this rank (1-based). */
static size_t percentile_rank(size_t n, double p)
{
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    return rank < 1 ? 1 : rank;
}

/* Time the values stand for: a mean over a 10-step window is ten steps'
 * time, not one's. */
static double total_of(const group *g)
{
    return g->wtotal;
}

/* The steps a value stands for: its window for interval means, derived
 * means and window medians (1 when the log does not say), else 1. */
static double weight_of(const char *agg, sqlite3_stmt *st)
{
    bool windowed = strcmp(agg, "interval_mean") == 0 || strcmp(agg, "derived") == 0 ||
                    strcmp(agg, "window_median") == 0;
    int64_t w = sqlite3_column_int64(st, 4);
    return windowed && w > 0 ? (double)w : 1.0;
}

static const group *step_group(const groups *gs, const group *g)
{
    for (size_t i = 0; i < gs->n; i++) {
        const group *s = &gs->g[i];
        if (strcmp(s->metric, "step_time") == 0 && strcmp(s->split, g->split) == 0 &&
            strcmp(s->loader, g->loader) == 0 && strcmp(s->agg, g->agg) == 0)
            return s;
    }
    return NULL;
}

/* Sum of the phase totals (not step_time) sharing g's split/loader/agg. */
static double phases_total(const groups *gs, const group *g)
{
    double t = 0;
    for (size_t i = 0; i < gs->n; i++) {
        const group *s = &gs->g[i];
        if (strcmp(s->metric, "step_time") != 0 && strcmp(s->split, g->split) == 0 &&
            strcmp(s->loader, g->loader) == 0 && strcmp(s->agg, g->agg) == 0)
            t += total_of(s);
    }
    return t;
}

static int insert_group(sqlite3 *db, sqlite3_stmt *ins, const groups *gs, group *g)
{
    double total = total_of(g), mean = total / g->wsteps, ss = g->ss;
    const group *step = step_group(gs, g);
    double denom = step ? total_of(step) : phases_total(gs, g);
    sqlite3_bind_text(ins, 1, g->split, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 2, g->loader, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 3, g->metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 4, g->agg, -1, SQLITE_STATIC);
    if (g->mixed_window || g->window <= 0)
        sqlite3_bind_null(ins, 5);
    else
        sqlite3_bind_int64(ins, 5, g->window);
    sqlite3_bind_int64(ins, 6, (int64_t)llround(g->wsteps));
    double vals[] = {total, mean, sqrt(ss / (double)g->n), g->min, g->p50, g->p90, g->p99,
                     g->max};
    for (int i = 0; i < 8; i++)
        sqlite3_bind_double(ins, 7 + i, vals[i]);
    if (denom > 0)
        sqlite3_bind_double(ins, 15, 100.0 * total / denom);
    else
        sqlite3_bind_null(ins, 15);
    return pdb_db_step_done(db, ins);
}

/* The "other/overhead" row: step time not covered by the phases. */
static int insert_other(sqlite3 *db, sqlite3_stmt *ins, const groups *gs, const group *step)
{
    double st = total_of(step), ph = phases_total(gs, step);
    if (ph <= 0)
        return PDB_OK;
    sqlite3_bind_text(ins, 1, step->split, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 2, step->loader, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 3, "other/overhead", -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 4, step->agg, -1, SQLITE_STATIC);
    sqlite3_bind_null(ins, 5);
    sqlite3_bind_int64(ins, 6, (int64_t)llround(step->wsteps));
    sqlite3_bind_double(ins, 7, st - ph);
    sqlite3_bind_double(ins, 8, (st - ph) / step->wsteps);
    for (int i = 9; i <= 14; i++)
        sqlite3_bind_null(ins, i);
    sqlite3_bind_double(ins, 15, 100.0 * (st - ph) / st);
    return pdb_db_step_done(db, ins);
}

static int collect(sqlite3 *db, int64_t run_id, long skip_first, groups *gs)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "steplog_stats.phase_values", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, skip_first);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        group *g = group_for(gs, st);
        double v = sqlite3_column_double(st, 5), w = weight_of(g->agg, st);
        g->n++;
        g->wtotal += v * w;
        g->wsteps += w;
        g->vsum += v;
        if (sqlite3_column_int64(st, 4) != g->window)
            g->mixed_window = true;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "phase statistics");
}

/* The second pass: each group's values in ascending order. */
static int order_statistics(sqlite3 *db, int64_t run_id, long skip_first, groups *gs)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "steplog_stats.phase_values_sorted", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, skip_first);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        group *g = group_for(gs, st);
        /* std is of the values as logged (docs/steplogs.md), so around
         * their own mean, not the steps-weighted mean printed as 'mean' */
        double v = sqlite3_column_double(st, 5), mean = g->vsum / (double)g->n;
        size_t rank = ++g->seen;
        if (rank == 1)
            g->min = v;
        if (rank == percentile_rank(g->n, 50))
            g->p50 = v;
        if (rank == percentile_rank(g->n, 90))
            g->p90 = v;
        if (rank == percentile_rank(g->n, 99))
            g->p99 = v;
        g->max = v;
        g->ss += (v - mean) * (v - mean);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(db, "phase statistics");
    for (size_t i = 0; i < gs->n; i++)
        if (gs->g[i].seen != gs->g[i].n)
            return pdb_fail("phase statistics: the step log changed while it was read");
    return PDB_OK;
}

int pdb_steplog_phase_stats(sqlite3 *db, int64_t run_id, long skip_first)
{
    if (pdb_db_exec(db, pdb_report_sql("steplog_stats.create_phase_stats")) != PDB_OK)
        return PDB_ERR;
    groups gs = {.index = pdb_strmap_new()};
    int rc = collect(db, run_id, skip_first, &gs);
    if (rc == PDB_OK)
        rc = order_statistics(db, run_id, skip_first, &gs);
    sqlite3_stmt *ins = NULL;
    if (rc == PDB_OK)
        rc = pdb_report_prepare(db, "steplog_stats.insert_phase_stat", &ins);
    for (size_t i = 0; rc == PDB_OK && i < gs.n; i++) {
        rc = insert_group(db, ins, &gs, &gs.g[i]);
        if (rc == PDB_OK && strcmp(gs.g[i].metric, "step_time") == 0)
            rc = insert_other(db, ins, &gs, &gs.g[i]);
    }
    sqlite3_finalize(ins);
    for (size_t i = 0; i < gs.n; i++) {
        free(gs.g[i].split);
        free(gs.g[i].loader);
        free(gs.g[i].metric);
        free(gs.g[i].agg);
    }
    free(gs.g);
    pdb_strmap_free(gs.index);
    return rc;
}
