/* compare.c: opening two runs for a comparison, and the statistical
 * comparison of two samples (see compare.h); the samples come from
 * metrics.c. The queries are
 * in compare/queries/compare.sql. */
#include "compare/compare.h"
#include "compare/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"

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

/* Run id of name in schema (NULL name: the newest run there, and its name). */
static int find_run(pdb_cmp_run *r)
{
    bool found;
    if (!r->name) {
        if (pdb_run_newest(r->db, r->schema, &r->run_id, &r->owned_name) != PDB_OK)
            return PDB_ERR;
        r->name = r->owned_name;
        found = r->name != NULL;
    } else if (pdb_run_find(r->db, r->schema, r->name, &r->run_id, &found) != PDB_OK) {
        return PDB_ERR;
    }
    if (found)
        return PDB_OK;
    if (r->name)
        return pdb_run_unknown(r->db, r->schema, r->name,
                               strcmp(r->schema, "tdb") == 0 ? " in the --db-test database"
                                                             : "");
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
    if ((test_path && pdb_db_check_user_path(test_path, "--db-test") != PDB_OK) ||
        ((!o->baseline_db || !test_path) && pdb_db_check_user_path(o->db_path, "--db") != PDB_OK))
        return PDB_ERR;
    if (o->baseline_db) {
        db = o->baseline_db;
        rc = PDB_OK;
        if (!test_path)
            test_path = o->db_path;   /* the test run is in --db */
    } else {
        rc = pdb_db_open(o->db_path, o->write ? 0 : PDB_DB_READONLY, &db);
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
    } else if (c->test_median != 0) {
        /* From nothing to something (a kernel the base never launched). */
        c->change_pct = c->test_median > 0 ? INFINITY : -INFINITY;
        c->worse_pct = higher_is_worse ? c->change_pct : -c->change_pct;
    } else {
        c->ratio = 1;
        c->change_pct = c->worse_pct = 0;
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
