/* changepoint.h: where the level of a series of runs shifted (`profdb trend`).
 *
 * The series is one number per run in run order (each run's median of a
 * metric). Two tests find shifts; docs/compare.md states their false-alarm
 * rates:
 *
 *   1. Binary segmentation with a permutation test. A segment's statistic
 *      is the largest standardised difference of means over every split
 *      that leaves at least PDB_CP_MIN_SEGMENT runs on each side, computed
 *      on the values clipped to the segment's median +- PDB_CP_CLIP robust
 *      standard deviations (so one wild run cannot carry a split). Its
 *      p-value is the share of random orderings of the segment's values
 *      whose statistic is at least as large. A split with p < alpha is a
 *      change point and both sides are searched again. On a history
 *      without a shift, whatever the noise's distribution (runs only need
 *      to be exchangeable), a change point is reported with probability at
 *      most alpha: the first test must reject for any to be reported.
 *
 *   2. The newest runs. A shift that only the newest run shows cannot be
 *      told from one odd run by any ordering test (its p-value is at least
 *      2 / runs), nor can one in the newest a runs when there are few
 *      orderings of them (2 / C(runs, a)). So the newest j runs, for each
 *      j the ordering test cannot resolve (fewer than PDB_CP_TAIL_ORDERINGS
 *      / alpha orderings; j = 1, 2 in 30 runs, up to half of 12), are
 *      tested against the earlier runs of their segment (since the last
 *      change point): a Student t test of their mean against the earlier
 *      runs' mean, on the earlier runs' standard deviation (times
 *      sqrt(1/j + 1/m), m - 1 degrees of freedom; at least
 *      PDB_CP_MIN_HISTORY earlier runs); the smallest p-value times the
 *      number of tails tested. Its false-alarm rate is alpha when
 *      run-to-run noise is normal; heavier tails raise it.
 *
 * The permutations come from a xorshift generator seeded by the seed and
 * the segment's bounds, so the same series always gives the same answer,
 * and a segment is tested alike whatever else the series holds. */
#ifndef PDB_CHANGEPOINT_H
#define PDB_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs on each side of a split: a level seen in one run only is an odd run
 * until a second one confirms it (the newest run has its own test). */
#define PDB_CP_MIN_SEGMENT 2
/* Values beyond this many robust standard deviations (1.4826 MAD) of the
 * segment's median count as that far, no farther. */
#define PDB_CP_CLIP 3.0
/* Random orderings per test: p-values in steps of 1/1000. */
#define PDB_CP_PERMUTATIONS 999
#define PDB_CP_SEED 20240601u
/* Runs of its segment the newest runs are tested against, at least. */
#define PDB_CP_MIN_HISTORY 3
/* Tails with fewer than this many / alpha orderings go to the newest-runs
 * test, alpha being the test's own (half the trend's): a perfect split of
 * such a tail has p >= alpha / 10, too close to alpha to find shifts. */
#define PDB_CP_TAIL_ORDERINGS 40.0

/* Values closer than this, relative to their size, are equal: a series
 * constant up to rounding (the medians of the same steps computed from
 * other clock readings differ in the last bits) has no change point, and
 * a history constant to this resolution has no spread to test against. */
#define PDB_CP_RESOLUTION 1e-9

typedef struct pdb_cp_opts {
    double alpha;       /* significance of each test (check's PDB_ALPHA by default) */
    int permutations;   /* PDB_CP_PERMUTATIONS */
    uint64_t seed;      /* PDB_CP_SEED */
} pdb_cp_opts;

#define PDB_CP_OPTS_DEFAULT(alpha) {(alpha), PDB_CP_PERMUTATIONS, PDB_CP_SEED}

typedef struct pdb_change_point {
    size_t at;          /* index of the first value at the new level */
    double p;           /* the test's p-value */
    bool tail;          /* found by the newest-runs test (2), not a split (1) */
} pdb_change_point;

/* Finds the change points of x[0..n) (finite values), in index order, into
 * out (room for n / PDB_CP_MIN_SEGMENT + 1); returns how many. */
size_t pdb_change_points(const double *x, size_t n, const pdb_cp_opts *o,
                         pdb_change_point *out);

/* Test 1 on x[0..n) alone: the best split and its permutation p-value (1
 * when no split is possible or every value is equal, to PDB_CP_RESOLUTION).
 * seed as above. */
double pdb_cp_split_test(const double *x, size_t n, int permutations, uint64_t seed,
                         double stop_above, size_t *at);

/* Test 2: the two-sided p-value of tail[0..j) as j more draws of x[0..m)
 * (their mean against x's mean, on x's standard deviation). 1 when the
 * means are equal to PDB_CP_RESOLUTION; 0 when x is constant to it and the
 * tail is not (callers print such a p as "< 1e-16", never 0). */
double pdb_cp_tail_p(const double *x, size_t m, const double *tail, size_t j);

/* P(T > t) for Student's t with df degrees of freedom. */
double pdb_student_sf(double t, double df);

#endif
