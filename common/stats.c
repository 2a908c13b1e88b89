/* stats.c: quantiles, the normal tail and the Mann-Whitney U test, shared
 * by every layer (see stats.h). */
#include "common/stats.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void pdb_stats_sort(double *x, size_t n)
{
    if (n > 1)
        qsort(x, n, sizeof *x, cmp_double);
}

double pdb_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return NAN;
    double h = q * (double)(n - 1);
    size_t i = (size_t)floor(h);
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

double pdb_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = pdb_xmalloc(n * sizeof *c);
    memcpy(c, x, n * sizeof *c);
    pdb_stats_sort(c, n);
    double m = pdb_quantile_sorted(c, n, 0.5);
    free(c);
    return m;
}

double pdb_normal_sf(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

double pdb_normal_isf(double p)
{
    if (!(p > 0 && p < 1))
        return NAN;
    /* Bisection on the monotone tail: 200 halvings of [-40, 40] reach the
     * last bit; called a few times per check, so speed does not matter. */
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 0; i++) {
        double mid = 0.5 * (lo + hi);
        if (mid == lo || mid == hi)
            break;
        if (pdb_normal_sf(mid) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* ---- Mann-Whitney --------------------------------------------------------- */

typedef struct {
    double v;
    int from_a;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    return cmp_double(&((const ranked *)a)->v, &((const ranked *)b)->v);
}

/* Doubled mid-ranks (integers: 2 x the mean of the tied 1-based positions)
 * of the pooled sample into rank2, their sum over a's values into *wa2,
 * and the tie term sum(t^3 - t). */
static void doubled_ranks(const double *a, size_t na, const double *b, size_t nb, int *rank2,
                          long *wa2, double *ties)
{
    size_t n = na + nb;
    ranked *r = pdb_xmalloc(n * sizeof *r);
    for (size_t i = 0; i < na; i++)
        r[i] = (ranked){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (ranked){b[i], 0};
    qsort(r, n, sizeof *r, cmp_ranked);
    *wa2 = 0;
    *ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].v == r[i].v)
            j++;
        for (size_t k = i; k < j; k++) {
            rank2[k] = (int)(i + 1 + j);
            if (r[k].from_a)
                *wa2 += rank2[k];
        }
        double t = (double)(j - i);
        *ties += t * t * t - t;
        i = j;
    }
    free(r);
}

/* The exact p-value, the one place it is computed: P(W <= w2) and
 * P(W >= w2), W the sum of k of the n doubled ranks drawn without
 * replacement, over all C(n, k) choices. Counted per sum by a knapsack over
 * the ranks (Mann and Whitney's recurrence, on the observed ranks so that
 * ties are exact); the smaller side is counted (a table of min(k, n - k) x
 * sum of ranks). Counts are doubles: exact integers while C(n, k) < 2^53 (up
 * to 56 values), within a relative 1e-16 above. */
static void exact_tails(const int *rank2, size_t n, size_t k, long w2, double *le, double *ge)
{
    long total = 0;
    for (size_t i = 0; i < n; i++)
        total += rank2[i];
    int complement = k > n - k;
    if (complement) {         /* the other side's sum is total - w2 */
        k = n - k;
        w2 = total - w2;
    }
    size_t width = (size_t)total + 1;
    double *cnt = pdb_xcalloc((k + 1) * width, sizeof *cnt);
    cnt[0] = 1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = (i + 1 < k ? i + 1 : k); j >= 1; j--)
            for (long s = total; s >= rank2[i]; s--)
                cnt[j * width + (size_t)s] += cnt[(j - 1) * width + (size_t)(s - rank2[i])];
    double all = 0, lo = 0, hi = 0;
    for (long s = 0; s <= total; s++) {
        double c = cnt[k * width + (size_t)s];
        all += c;
        lo += s <= w2 ? c : 0;
        hi += s >= w2 ? c : 0;
    }
    free(cnt);
    *le = (complement ? hi : lo) / all;
    *ge = (complement ? lo : hi) / all;
}

static double clip1(double p)
{
    return p > 1.0 ? 1.0 : p;
}

/* The normal approximation of both tails of U, tie and continuity
 * corrected; false when the variance is 0 (every value equal). */
static int normal_tails(double u, double n1, double n2, double ties, double *z, double *ge,
                        double *le)
{
    double n = n1 + n2, mu = n1 * n2 / 2.0;
    double var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)));
    if (!(var > 0))
        return 0;
    double sd = sqrt(var);
    *z = (u - mu) / sd;
    *ge = clip1(pdb_normal_sf((u - mu - 0.5) / sd));
    *le = clip1(pdb_normal_sf((mu - u - 0.5) / sd));
    return 1;
}

int pdb_mann_whitney(const double *a, size_t na, const double *b, size_t nb, pdb_mwu *out)
{
    memset(out, 0, sizeof *out);
    out->p = out->p_greater = out->p_less = NAN;
    if (na == 0 || nb == 0)
        return -1;
    size_t n = na + nb;
    int *rank2 = pdb_xmalloc(n * sizeof *rank2);
    long wa2;
    double ties;
    doubled_ranks(a, na, b, nb, rank2, &wa2, &ties);
    double n1 = (double)na, n2 = (double)nb;
    out->u = (double)wa2 / 2.0 - n1 * (n1 + 1) / 2.0;
    if (n <= PDB_MWU_EXACT_MAX) {
        exact_tails(rank2, n, na, wa2, &out->p_less, &out->p_greater);
        out->exact = 1;
    } else if (!normal_tails(out->u, n1, n2, ties, &out->z, &out->p_greater, &out->p_less)) {
        out->p_greater = out->p_less = 1.0; /* every value equal: no evidence of a shift */
    }
    free(rank2);
    out->p = clip1(2.0 * fmin(out->p_greater, out->p_less));
    return 0;
}

double pdb_mwu_p_greater_u(double u, long n1, long n2, double ties)
{
    if (n1 < 1 || n2 < 1)
        return NAN;
    if (ties == 0 && n1 + n2 <= PDB_MWU_EXACT_MAX) {
        size_t n = (size_t)(n1 + n2);
        int *rank2 = pdb_xmalloc(n * sizeof *rank2);
        for (size_t i = 0; i < n; i++)
            rank2[i] = 2 * (int)(i + 1);
        /* Rank sum of sample 1 = U + n1 (n1 + 1) / 2; U from SQL may carry
         * rounding, so it is rounded to the integer it must be. */
        long w2 = 2 * (long)llround(u) + n1 * (n1 + 1);
        double le, ge;
        exact_tails(rank2, n, (size_t)n1, w2, &le, &ge);
        free(rank2);
        return ge;
    }
    double z, ge, le;
    if (!normal_tails(u, (double)n1, (double)n2, ties, &z, &ge, &le))
        return 1.0; /* every value equal: no evidence either way */
    return ge;
}

double pdb_mwu_min_p(size_t na, size_t nb)
{
    double ways = 1;
    for (size_t i = 1; i <= na; i++)
        ways = ways * (double)(nb + i) / (double)i;
    return 1.0 / ways;
}

double pdb_mwu_min_p2(size_t na, size_t nb)
{
    return clip1(2.0 * pdb_mwu_min_p(na, nb));
}

long pdb_mwu_steps_needed(double theta, double alpha, double power)
{
    const long cap = 10000000;
    if (!(theta > 0.5) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
        return 0;
    long reach = 1;
    while (reach < cap && !(pdb_mwu_min_p2((size_t)reach, (size_t)reach) < alpha))
        reach++;
    double z = pdb_normal_isf(alpha / 2) + pdb_normal_isf(1 - power);
    double d = theta - 0.5, n = ceil(z * z / (6 * d * d));
    if (!(n < (double)cap))
        return cap;
    return (long)n > reach ? (long)n : reach;
}

void pdb_format_p(double p, char *buf, size_t cap)
{
    if (isnan(p))
        snprintf(buf, cap, "-");
    else if (p < PDB_P_FLOOR)
        snprintf(buf, cap, "< 1e-16");
    else
        snprintf(buf, cap, "%.3g", p);
}
