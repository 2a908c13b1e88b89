/* stats.h: the statistics behind `profdb diff` and `profdb check`.
 *
 * Comparisons of two runs look at distributions of per-step (or per-call)
 * samples: medians and quantiles, a bootstrap confidence interval of the
 * ratio of the medians (seeded, so the same inputs give the same interval),
 * the Mann-Whitney U rank test, and Tukey's far-out outliers. Medians and
 * ranks, not means, so that a few very slow steps (a checkpoint save, a
 * compile) do not decide a comparison. */
#ifndef PDB_STATS_H
#define PDB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Sorts x ascending in place (NaNs are not allowed). */
void pdb_stats_sort(double *x, size_t n);
/* Quantile q in [0,1] of sorted x, linear interpolation between order
 * statistics (type 7, as numpy and R default). NAN for n = 0. */
double pdb_quantile_sorted(const double *sorted, size_t n, double q);
/* Median of x (unsorted; x is not changed). NAN for n = 0. */
double pdb_median(const double *x, size_t n);

typedef struct pdb_mwu {
    double u;        /* U of the first sample: pairs a > b, plus half the ties */
    double z;        /* normal deviate (0 when the exact test was used) */
    double p;        /* two-sided p-value */
    int exact;       /* 1: exact distribution (small samples without ties) */
} pdb_mwu;

/* Two-sided Mann-Whitney U test of a against b. Exact when both samples
 * have fewer than 8 values and no ties (as scipy's method='auto'), else the
 * normal approximation with tie correction and continuity correction.
 * Returns -1 when a sample is empty. */
int pdb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, pdb_mwu *out);

/* The gate's test (check.c): one-sided Mann-Whitney test that a tends to
 * be larger than b; returns p = P(U >= u observed) under "no difference".
 * Exact (the permutation distribution of the observed mid-ranks, so ties
 * are handled exactly) when na + nb <= PDB_MWU_EXACT_MAX, else the normal
 * approximation with tie and continuity correction; *exact says which.
 * NAN when a sample is empty. */
#define PDB_MWU_EXACT_MAX 60
double pdb_mwu_greater(const double *a, size_t na, const double *b, size_t nb, int *exact);
/* The smallest one-sided p any data can give with na against nb values:
 * 1 / C(na + nb, na) (6 against 6: 1/924). */
double pdb_mwu_min_p(size_t na, size_t nb);

/* Percentile bootstrap 95% interval of median(test) / median(base): iters
 * resamples of each sample with a xorshift generator seeded by seed.
 * Returns -1 when a sample is empty or a resampled base median is 0. */
int pdb_bootstrap_median_ratio(const double *base, size_t nb, const double *test, size_t nt,
                               int iters, uint64_t seed, double *lo, double *hi);

/* Counts values beyond Tukey's far-out fence of x itself: above
 * Q3 + 3 IQR when high is set, else below Q1 - 3 IQR. */
size_t pdb_outliers(const double *x, size_t n, int high, double *fence);

/* Standard normal upper tail, P(Z > z). */
double pdb_normal_sf(double z);

#endif
