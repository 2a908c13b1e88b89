/* compare.h: what `profdb diff` and `profdb check` share: opening the two
 * runs (one database, two databases, or a stored baseline), the metric
 * names check understands, the per-step (or per-call) samples behind a
 * metric, and the statistical comparison of two samples.
 *
 * Metrics (docs/compare.md):
 *   step_time       seconds per step (step log 'step_time' point values,
 *                   else trace ProfilerStep durations)
 *   throughput      steps per second, 1 / step_time of each step
 *   phase:NAME      a step-log phase (point values, e.g. phase:forward), or a
 *                   trace step category (kernel, memcpy, memset, runtime,
 *                   dataloader, cpu_exec, other)
 *   op:NAME         durations of each call of CPU op NAME in the traces
 *   kernel:NAME     durations of each launch of GPU kernel NAME */
#ifndef PDB_COMPARE_H
#define PDB_COMPARE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
} pdb_cmp_open_opts;

int pdb_cmp_open(const pdb_cmp_open_opts *o, const char *base_name, const char *test_name,
                 pdb_cmp_run *base, pdb_cmp_run *test);
void pdb_cmp_close(pdb_cmp_run *base, pdb_cmp_run *test);

typedef enum {
    PDB_METRIC_STEP_TIME, PDB_METRIC_THROUGHPUT, PDB_METRIC_PHASE, PDB_METRIC_OP,
    PDB_METRIC_KERNEL
} pdb_metric_kind;

typedef struct pdb_metric {
    pdb_metric_kind kind;
    const char *name;      /* phase, op or kernel name (points into the spec) */
    const char *spec;      /* as given: "phase:forward" */
    bool higher_is_worse;  /* times: yes; throughput: no */
    const char *unit;      /* "s" or "/s" */
} pdb_metric;

/* Parses a metric name (see above). */
int pdb_metric_parse(const char *spec, pdb_metric *m);

typedef struct pdb_samples {
    double *v;
    size_t n;
    const char *source;   /* "step log", "trace steps", "trace ops", "trace kernels" */
    double total;         /* sum of the samples */
} pdb_samples;

/* Reads the samples of metric m in run r (seconds, or 1/s for throughput).
 * No sample is not an error here: n = 0. */
int pdb_metric_samples(const pdb_cmp_run *r, const pdb_metric *m, pdb_samples *out);
void pdb_samples_free(pdb_samples *s);

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
