/* stats.h: the statistics behind `profdb diff` and `profdb check`.
 *
 * Comparisons of two runs look at distributions of per-step (or per-call)
 * samples: medians and quantiles and the Mann-Whitney U rank test
 * (common/stats.h), and here a bootstrap confidence interval of the ratio
 * of the medians (seeded, so the same inputs give the same interval) and
 * Tukey's far-out outliers. Medians and
 * ranks, not means, so that a few very slow steps (a checkpoint save, a
 * compile) do not decide a comparison. */
#ifndef PDB_STATS_H
#define PDB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Medians, quantiles and the Mann-Whitney test are one layer down, shared
 * with report/ (common/stats.h). */
#include "common/stats.h"

/* Percentile bootstrap 95% interval of median(test) / median(base): iters
 * resamples of each sample with a xorshift generator seeded by seed.
 * Returns -1 when a sample is empty or a resampled base median is 0. */
int pdb_bootstrap_median_ratio(const double *base, size_t nb, const double *test, size_t nt,
                               int iters, uint64_t seed, double *lo, double *hi);

/* Counts values beyond Tukey's far-out fence of x itself: above
 * Q3 + 3 IQR when high is set, else below Q1 - 3 IQR. */
size_t pdb_outliers(const double *x, size_t n, int high, double *fence);

#endif
