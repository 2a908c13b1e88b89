/* compare.h: what `profdb diff` and `profdb check` share: opening the two
 * runs (one database, two databases, or a stored baseline) and the
 * statistical comparison of two samples. The metrics and their samples are
 * in metrics.h (docs/compare.md lists them). */
#ifndef PDB_COMPARE_H
#define PDB_COMPARE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare/metrics.h"
#include "compare/stats.h"

/* One side of a comparison: a run in a schema of the connection ("main",
 * or "tdb" for the database attached with --db-test). */
typedef struct pdb_cmp_run {
    sqlite3 *db;
    const char *schema;
    const char *name;
    int64_t run_id;
    char *owned_name;   /* the newest run's name when none was given; freed by close */
} pdb_cmp_run;

/* Where the two runs live. baseline_db (an open connection holding the
 * baseline, e.g. inputs the CLI ingested into memory; owned by the runs from
 * here on) and test_db may be NULL. Sets the schema of each side; BASE may be
 * NULL with baseline_db (the newest run there). Missing runs and files are
 * errors (exit 2). */
typedef struct pdb_cmp_open_opts {
    const char *db_path;       /* --db */
    const char *test_db;       /* --db-test, or NULL */
    sqlite3 *baseline_db;      /* --baseline-from, or NULL */
    bool write;                /* open --db for writing (diff --save); else read-only */
} pdb_cmp_open_opts;

int pdb_cmp_open(const pdb_cmp_open_opts *o, const char *base_name, const char *test_name,
                 pdb_cmp_run *base, pdb_cmp_run *test);
void pdb_cmp_close(pdb_cmp_run *base, pdb_cmp_run *test);

/* The metrics' reader for one side of a comparison. */
static inline pdb_metric_run pdb_cmp_metric_run(const pdb_cmp_run *r)
{
    return (pdb_metric_run){r->db, r->schema, r->run_id};
}

/* Two samples compared: medians, their ratio (test / base) with a seeded
 * bootstrap 95% interval, the Mann-Whitney p-value, and far-out outliers on
 * the worse side of each sample. */
typedef struct pdb_comparison {
    size_t nb, nt;
    double base_median, test_median;
    double ratio, ci_lo, ci_hi;   /* NAN when not computable */
    double change_pct;            /* (test - base) / base of the medians, in % */
    double worse_pct;             /* change in the bad direction, in % */
    pdb_mwu mwu;                  /* p = NAN when a sample is empty */
    size_t out_b, out_t;          /* outliers */
    double fence_b, fence_t;      /* their fences */
    double worst_t;               /* the most extreme test outlier */
} pdb_comparison;

#define PDB_BOOTSTRAP_ITERS 2000
#define PDB_BOOTSTRAP_SEED 20240601u
/* The significance level of the rank test: a shift with p below it is
 * significant (diff's `significant` column; check's default --alpha). */
#define PDB_ALPHA 0.01

void pdb_compare_samples(const pdb_samples *b, const pdb_samples *t, bool higher_is_worse,
                         pdb_comparison *c);

#endif
