/* check.h: the verdicts of `profdb check` and how they are written: one
 * line for the terminal, a JUnit XML file for CI test reports (one testcase
 * per metric) and a Markdown summary for a CI job page. */
#ifndef PDB_CHECK_H
#define PDB_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "compare/compare.h"

typedef enum { PDB_CHECK_PASS, PDB_CHECK_FAIL, PDB_CHECK_INCONCLUSIVE } pdb_check_status;

/* The gate's own test of one metric (check.c): TEST against BASE moved by
 * the limit in the bad direction. Its p-value follows the one convention
 * of `profdb diff` and `profdb check`: two-sided Mann-Whitney
 * (common/stats.h). */
typedef struct pdb_gate_stats {
    double p;          /* two-sided p of TEST against BASE moved by the limit */
    bool toward_worse; /* the ranks put TEST on the worse side of the moved BASE */
    bool exact;        /* exact permutation distribution (else normal approximation) */
    double min_p;      /* the smallest two-sided p these sample sizes can give */
    bool separated;    /* every TEST sample worse than every moved BASE sample */
    bool contained;    /* no TEST sample worse than BASE's worst moved by the limit */
    double theta;      /* P(TEST sample worse than a moved BASE sample), ties 1/2 */
    long steps_needed; /* per side, to decide at alpha with PDB_CHECK_POWER (0: unknown) */
} pdb_gate_stats;

/* The p-value convention, named in every output of check and diff. */
#define PDB_CHECK_P_NAME "two-sided Mann-Whitney"

/* The power at which check says how many steps per side would decide. */
#define PDB_CHECK_POWER 0.8

typedef struct pdb_check_result {
    pdb_metric metric;
    double limit_pct;          /* --max-regression METRIC=PCT */
    const char *source;        /* where the samples came from */
    char what[96];             /* which values: "per-step values", "launches per ProfilerStep" */
    pdb_comparison cmp;
    pdb_gate_stats gate;
    pdb_check_status status;
    char reason[640];          /* one sentence: why this verdict */
} pdb_check_result;

typedef struct pdb_check_run {
    const char *base, *test;   /* run names */
    double alpha;
    long min_samples;
    bool fail_inconclusive;    /* inconclusive counts as a failure */
    pdb_check_result *r;
    int n;
    int failed, inconclusive, passed;
} pdb_check_run;

/* Parses "METRIC=PCT" (split at the last '=': op names may hold one) into r;
 * r->metric.spec is malloc'd, also on failure (the caller frees it). */
int pdb_check_parse_limit(const char *arg, pdb_check_result *r);
/* Reads the samples of r's metric on both sides, compares and decides them,
 * and counts the verdict in run. No samples on a side is an error. */
int pdb_check_metric(pdb_cmp_run *base, pdb_cmp_run *test, pdb_check_run *run,
                     pdb_check_result *r);
/* pdb_check_metric for pyspy:FUNCTION (check_share.c): the share of
 * samples holding the function, tested as two proportions. */
int pdb_check_share(pdb_cmp_run *base, pdb_cmp_run *test, pdb_check_run *run,
                    pdb_check_result *r);
/* Parses the --max-regression specs into run->r (run->n results): each
 * metric, and after kernel:NAME and op:NAME their calls per step
 * (kernel-calls:NAME, op-calls:NAME) with the same limit. Every spec in
 * run->r is malloc'd, also on failure (the caller frees them and r). */
int pdb_check_add_limits(pdb_check_run *run, const char *const *specs, int n);
/* Parses a limit: "5%", "+5%" or "5" (five percent); a bare number below 1
 * is refused as ambiguous. */
int pdb_check_parse_pct(const char *text, double *pct);
/* The gate's test of t against b moved by limit_pct (see check.c); alpha
 * for the steps that would decide. */
void pdb_check_gate_stats(const pdb_samples *b, const pdb_samples *t, bool higher_is_worse,
                          double limit_pct, double alpha, pdb_gate_stats *g);
/* Decides r->status and r->reason from r->cmp, r->gate and the run's settings. */
void pdb_check_decide(const pdb_check_run *run, pdb_check_result *r);
/* "PASS", "REGRESSION" or "INCONCLUSIVE" for the whole run. */
const char *pdb_check_verdict(const pdb_check_run *run);

void pdb_check_write_line(const pdb_check_run *run, FILE *out);
void pdb_check_write_details(const pdb_check_run *run, FILE *out);
void pdb_check_write_junit(const pdb_check_run *run, FILE *out);
void pdb_check_write_markdown(const pdb_check_run *run, FILE *out);

/* A value with a readable unit: seconds as s/ms/us/ns, rates as /s. */
void pdb_check_format_value(double v, const char *unit, char *buf, size_t cap);

#endif
