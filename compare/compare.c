/* compare.c: opening two runs for a comparison, metric samples, and the
 * statistical comparison of two samples (see compare.h). The queries are
 * in compare/queries/compare.sql. */
#include "compare/compare.h"
#include "compare/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- opening ----------------------------------------------------------- */

/* Checks path is a profdb database, then attaches it as schema "tdb". The
 * file name reaches SQLite as a bound parameter. */
static int attach_test(sqlite3 *db, const char *path)
{
    sqlite3 *probe;
    if (pdb_db_open(path, PDB_DB_READONLY, &probe) != PDB_OK)
        return PDB_ERR;
    pdb_db_close(probe);
    sqlite3_stmt *st;
    if (pdb_compare_prepare(db, "compare.attach_test", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

/* Run id of name in schema (NULL name: the newest run there). */
static int find_run(pdb_cmp_run *r)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(r->db, r->name ? "compare.run_by_name" : "compare.newest_run",
                            r->schema, &st) != PDB_OK)
        return PDB_ERR;
    if (r->name)
        sqlite3_bind_text(st, 1, r->name, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        r->run_id = sqlite3_column_int64(st, 0);
        if (!r->name)
            r->name = r->owned_name = pdb_xstrdup((const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    if (step == SQLITE_ROW)
        return PDB_OK;
    if (step != SQLITE_DONE)
        return pdb_db_fail(r->db, "database error");
    if (r->name)
        return pdb_fail("no run named '%s'%s (see 'profdb runs')", r->name,
                        strcmp(r->schema, "tdb") == 0 ? " in the --db-test database" : "");
    return pdb_fail("the baseline holds no run");
}

int pdb_cmp_open(const pdb_cmp_open_opts *o, const char *base_name, const char *test_name,
                 pdb_cmp_run *base, pdb_cmp_run *test)
{
    memset(base, 0, sizeof *base);
    memset(test, 0, sizeof *test);
    sqlite3 *db = NULL;
    const char *test_path = o->test_db;
    int rc;
    if (o->baseline_db) {
        db = o->baseline_db;
        rc = PDB_OK;
        if (!test_path)
            test_path = o->db_path;   /* the test run is in --db */
    } else {
        rc = pdb_db_open(o->db_path, PDB_DB_READONLY, &db);
    }
    if (rc == PDB_OK && test_path)
        rc = attach_test(db, test_path);
    *base = (pdb_cmp_run){db, "main", base_name, 0, NULL};
    *test = (pdb_cmp_run){db, test_path ? "tdb" : "main", test_name, 0, NULL};
    if (rc == PDB_OK)
        rc = find_run(base);
    if (rc == PDB_OK)
        rc = find_run(test);
    if (rc != PDB_OK)
        pdb_cmp_close(base, test);
    return rc;
}

void pdb_cmp_close(pdb_cmp_run *base, pdb_cmp_run *test)
{
    pdb_db_close(base->db);
    base->db = test->db = NULL;
    free(base->owned_name);
    base->owned_name = NULL;
}

/* ---- metrics ------------------------------------------------------------ */

/* Trace step categories: phase name -> column of compare.trace_step_samples. */
static const char *const trace_phases[][2] = {
    {"kernel", "kernel_ns"}, {"memcpy", "memcpy_ns"}, {"memset", "memset_ns"},
    {"runtime", "runtime_ns"}, {"dataloader", "dataloader_ns"},
    {"cpu_exec", "cpu_exec_ns"}, {"other", "other_ns"}, {NULL, NULL},
};

static const char *trace_phase_column(const char *name)
{
    for (int i = 0; trace_phases[i][0]; i++)
        if (strcmp(trace_phases[i][0], name) == 0)
            return trace_phases[i][1];
    return NULL;
}

int pdb_metric_parse(const char *spec, pdb_metric *m)
{
    static const struct { const char *prefix; pdb_metric_kind kind; } named[] = {
        {"phase:", PDB_METRIC_PHASE}, {"op:", PDB_METRIC_OP}, {"kernel:", PDB_METRIC_KERNEL},
    };
    *m = (pdb_metric){.spec = spec, .name = spec, .higher_is_worse = true, .unit = "s"};
    if (strcmp(spec, "step_time") == 0) {
        m->kind = PDB_METRIC_STEP_TIME;
        return PDB_OK;
    }
    if (strcmp(spec, "throughput") == 0) {
        m->kind = PDB_METRIC_THROUGHPUT;
        m->higher_is_worse = false;
        m->unit = "/s";
        return PDB_OK;
    }
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t len = strlen(named[i].prefix);
        if (strncmp(spec, named[i].prefix, len) == 0 && spec[len]) {
            m->kind = named[i].kind;
            m->name = spec + len;
            return PDB_OK;
        }
    }
    return pdb_fail("unknown metric '%s' (step_time, throughput, phase:NAME, op:NAME, "
                    "kernel:NAME)", spec);
}

/* The result column called name, or -1 (a query and its caller disagree). */
static int column_index(sqlite3_stmt *st, const char *name)
{
    for (int c = 0; c < sqlite3_column_count(st); c++)
        if (strcmp(sqlite3_column_name(st, c), name) == 0)
            return c;
    assert(!"the query has no such column");
    return -1;
}

/* Runs the compare query called query on r (?1 run id, ?2 name) and
 * collects its column called column (NULL: the first) times scale. */
static int collect(const pdb_cmp_run *r, const char *query, const char *name,
                   const char *column, double scale, pdb_samples *out)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(r->db, query, r->schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, r->run_id);
    if (name && sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    int c = column ? column_index(st, column) : 0;
    if (c < 0) {
        sqlite3_finalize(st);
        return pdb_fail("internal error: query %s has no column %s", query, column);
    }
    size_t cap = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, c) == SQLITE_NULL)
            continue;
        if (out->n == cap) {
            cap = cap ? 2 * cap : 64;
            out->v = pdb_xrealloc(out->v, cap * sizeof *out->v);
        }
        out->v[out->n] = sqlite3_column_double(st, c) * scale;
        out->total += out->v[out->n++];
    }
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(r->db, "database error");
}

/* A step-time-like metric: the step log if it has it, else the trace
 * steps' trace_column (NULL: none). */
static int step_samples(const pdb_cmp_run *r, const char *steplog_metric,
                        const char *trace_column, pdb_samples *out)
{
    if (collect(r, "compare.steplog_samples", steplog_metric, NULL, 1.0, out) != PDB_OK)
        return PDB_ERR;
    if (out->n) {
        out->source = "step log";
        return PDB_OK;
    }
    if (!trace_column)
        return PDB_OK;
    int rc = collect(r, "compare.trace_step_samples", NULL, trace_column, 1e-9, out);
    out->source = "trace steps";
    return rc;
}

int pdb_metric_samples(const pdb_cmp_run *r, const pdb_metric *m, pdb_samples *out)
{
    memset(out, 0, sizeof *out);
    switch (m->kind) {
    case PDB_METRIC_STEP_TIME:
        return step_samples(r, "step_time", "dur_ns", out);
    case PDB_METRIC_THROUGHPUT: {
        if (step_samples(r, "step_time", "dur_ns", out) != PDB_OK)
            return PDB_ERR;
        size_t k = 0;
        out->total = 0;
        for (size_t i = 0; i < out->n; i++)
            if (out->v[i] > 0) {
                out->v[k] = 1.0 / out->v[i];
                out->total += out->v[k++];
            }
        out->n = k;
        return PDB_OK;
    }
    case PDB_METRIC_PHASE:
        return step_samples(r, m->name, trace_phase_column(m->name), out);
    case PDB_METRIC_OP:
        out->source = "trace ops";
        return collect(r, "compare.op_samples", m->name, NULL, 1e-9, out);
    case PDB_METRIC_KERNEL:
        out->source = "trace kernels";
        return collect(r, "compare.kernel_samples", m->name, NULL, 1e-9, out);
    }
    return PDB_OK;
}

void pdb_samples_free(pdb_samples *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* ---- comparison --------------------------------------------------------- */

void pdb_compare_samples(const pdb_samples *b, const pdb_samples *t, bool higher_is_worse,
                         pdb_comparison *c)
{
    memset(c, 0, sizeof *c);
    c->nb = b->n;
    c->nt = t->n;
    c->base_median = pdb_median(b->v, b->n);
    c->test_median = pdb_median(t->v, t->n);
    c->ratio = c->ci_lo = c->ci_hi = c->change_pct = c->worse_pct = NAN;
    c->mwu.p = NAN;
    c->fence_b = c->fence_t = c->worst_t = NAN;
    if (!b->n || !t->n)
        return;
    if (c->base_median != 0) {
        c->ratio = c->test_median / c->base_median;
        c->change_pct = 100.0 * (c->ratio - 1.0);
        c->worse_pct = higher_is_worse ? c->change_pct : -c->change_pct;
    }
    pdb_bootstrap_median_ratio(b->v, b->n, t->v, t->n, PDB_BOOTSTRAP_ITERS,
                               PDB_BOOTSTRAP_SEED, &c->ci_lo, &c->ci_hi);
    pdb_mann_whitney(t->v, t->n, b->v, b->n, &c->mwu);
    c->out_b = pdb_outliers(b->v, b->n, higher_is_worse, &c->fence_b);
    c->out_t = pdb_outliers(t->v, t->n, higher_is_worse, &c->fence_t);
    for (size_t i = 0; i < t->n && c->out_t; i++) {
        double v = t->v[i];
        bool beyond = higher_is_worse ? v > c->fence_t : v < c->fence_t;
        if (beyond && (isnan(c->worst_t) || (higher_is_worse ? v > c->worst_t : v < c->worst_t)))
            c->worst_t = v;
    }
}
