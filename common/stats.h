/* stats.h: the statistics every layer shares: sorting, quantiles and the
 * median, the standard normal tail, and the Mann-Whitney U test with its
 * one exact p-value.
 *
 * One implementation, used by `profdb diff` and `profdb check`
 * (compare/), the straggler test of the ranks report (report/trace_sql.c)
 * and the trend summaries, so that the same two samples give the same
 * p-value wherever they are compared.
 *
 * The Mann-Whitney p-value. Exact when the two samples hold at most
 * PDB_MWU_EXACT_MAX values in all: the permutation distribution of the
 * observed mid-ranks (every way of choosing which na of the pooled values
 * are a's, counted per rank sum), so ties are handled exactly, not by a
 * correction. Above that, the normal approximation with the tie correction
 * of the variance and a continuity correction of 1/2. The two-sided
 * p-value, the convention `profdb diff` and `profdb check` print, is
 * min(1, 2 min(P(W >= w), P(W <= w))): twice the smaller tail, as R's
 * wilcox.test and scipy's mannwhitneyu compute it. */
#ifndef PDB_COMMON_STATS_H
#define PDB_COMMON_STATS_H

#include <stddef.h>

/* Sorts x ascending in place (NaNs are not allowed). */
void pdb_stats_sort(double *x, size_t n);
/* Quantile q in [0,1] of sorted x, linear interpolation between order
 * statistics (type 7, as numpy and R default). NAN for n = 0. */
double pdb_quantile_sorted(const double *sorted, size_t n, double q);
/* Median of x (unsorted; x is not changed). NAN for n = 0. */
double pdb_median(const double *x, size_t n);

/* Standard normal upper tail, P(Z > z). */
double pdb_normal_sf(double z);
/* Its inverse: the z with P(Z > z) = p, for 0 < p < 1 (NAN otherwise). */
double pdb_normal_isf(double p);

/* Samples of up to this many values in all get the exact p-value. */
#define PDB_MWU_EXACT_MAX 60

typedef struct pdb_mwu {
    double u;          /* U of the first sample: pairs a > b, plus half the ties */
    double z;          /* normal deviate of U (0 when exact); > 0: a tends larger */
    double p;          /* two-sided p-value */
    double p_greater;  /* one-sided: P(U >= u) under "no difference" (a tends larger) */
    double p_less;     /* one-sided: P(U <= u) (a tends smaller) */
    int exact;         /* 1: the exact permutation distribution, 0: normal approx. */
} pdb_mwu;

/* Mann-Whitney U test of a against b (see above). Returns -1 (and every p
 * NAN) when a sample is empty. Every value equal gives p = 1. */
int pdb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, pdb_mwu *out);

/* The one-sided p-value P(U >= u) from U alone, for a caller that has
 * counted U in SQL: u of sample 1 (n1 values) against sample 2 (n2), ties
 * = sum of t^3 - t over the groups of t equal pooled values. Exact (ranks
 * 1..n) when nothing ties and n1 + n2 <= PDB_MWU_EXACT_MAX, else the
 * normal approximation as above. NAN when a sample is empty. */
double pdb_mwu_p_greater_u(double u, long n1, long n2, double ties);

/* The smallest one-sided p any data can give with na against nb values:
 * 1 / C(na + nb, na) (6 against 6: 1/924); the smallest two-sided p is
 * twice that (at most 1). */
double pdb_mwu_min_p(size_t na, size_t nb);
double pdb_mwu_min_p2(size_t na, size_t nb);

/* Steps per side with which a two-sided Mann-Whitney test at alpha finds,
 * with the given power, a shift whose probability of superiority is theta
 * (P(a > b) + P(a = b) / 2, estimated by U / (na nb)): Noether's (1987)
 * sample size, n = (z_{alpha/2} + z_power)^2 / (6 (theta - 1/2)^2) per side,
 * and at least the smallest n whose smallest two-sided p is below alpha.
 * 0 when theta <= 1/2 (no shift to find); at most 10,000,000. */
long pdb_mwu_steps_needed(double theta, double alpha, double power);

/* Below this a p-value is printed as "< 1e-16" (pdb_format_p): a smaller
 * one is beyond the precision of doubles near 1, and 0 is never right. */
#define PDB_P_FLOOR 1e-16
/* "0.00216", "< 1e-16"; "-" for NAN. */
void pdb_format_p(double p, char *buf, size_t cap);

#endif
