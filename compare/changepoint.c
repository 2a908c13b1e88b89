/* changepoint.c: change points of a series of runs (see changepoint.h for
 * the method and docs/compare.md for its false-alarm rates).
 *
 * Why this method. A nightly history is short (tens of runs), its noise is
 * not normal (a run on a busy machine, a cold cache) and its users need to
 * know how often it cries wolf. A permutation test gives that rate for any
 * noise distribution, which asv's penalised step fit and the BIC-style
 * penalties of PELT do not state; the clipped standardised CUSUM keeps the
 * magnitudes (a rank statistic cannot tell a 10% shift in 5 runs from an
 * unlucky ordering as well) while bounding what one run can contribute.
 * E-divisive's statistic is quadratic in the segment length per ordering; the
 * CUSUM is linear, so a thousand runs with 999 orderings per test stay well
 * inside the 0.2 s budget. */
#include "compare/changepoint.h"
#include "common/xalloc.h"
#include "compare/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- randomness ----------------------------------------------------------- */

/* splitmix64: turns the seed and a segment's bounds into a good start state. */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* xorshift64*, as stats.c's bootstrap: the same stream on every platform. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static void shuffle(double *v, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_rand(s) % i);
        double t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* ---- test 1: the best split of a segment ---------------------------------- */

/* The segment's values scaled by a robust standard deviation around their
 * median and clipped at PDB_CP_CLIP of them. The scale is 1.4826 MAD, or,
 * when more than half the values are equal (MAD = 0), the mean absolute
 * deviation (1.2533 of it: the same scale for normal data). Returns false
 * when every value is equal, to PDB_CP_RESOLUTION of the median: nothing
 * can have shifted. */
static bool standardise(const double *x, size_t m, double *z)
{
    memcpy(z, x, m * sizeof *z);
    pdb_stats_sort(z, m);
    double med = pdb_quantile_sorted(z, m, 0.5);
    for (size_t i = 0; i < m; i++)
        z[i] = fabs(x[i] - med);
    pdb_stats_sort(z, m);
    double scale = 1.4826 * pdb_quantile_sorted(z, m, 0.5);
    if (!(scale > 0)) {
        double sum = 0;
        for (size_t i = 0; i < m; i++)
            sum += z[i];
        scale = 1.2533 * sum / (double)m;
    }
    if (!(scale > PDB_CP_RESOLUTION * fabs(med)))
        return false; /* constant up to rounding: its last bits are no shift */
    for (size_t i = 0; i < m; i++) {
        double v = (x[i] - med) / scale;
        z[i] = v > PDB_CP_CLIP ? PDB_CP_CLIP : v < -PDB_CP_CLIP ? -PDB_CP_CLIP : v;
    }
    return true;
}

/* The largest k (m - k) / m (mean of z[0..k) - mean of z[k..m))^2 over the
 * splits with PDB_CP_MIN_SEGMENT values on each side, and its k. This is
 * the standardised CUSUM; for each k it is a monotone function of the two
 * samples' t statistic, so the best split is the likeliest single shift. */
static double split_stat(const double *z, size_t m, size_t *at)
{
    double total = 0, left = 0, best = -1;
    for (size_t i = 0; i < m; i++)
        total += z[i];
    for (size_t k = 1; k + PDB_CP_MIN_SEGMENT <= m; k++) {
        left += z[k - 1];
        if (k < PDB_CP_MIN_SEGMENT)
            continue;
        double d = (double)m * left - (double)k * total;
        double b = d * d / ((double)m * (double)k * (double)(m - k));
        if (b > best) {
            best = b;
            *at = k;
        }
    }
    return best;
}

double pdb_cp_split_test(const double *x, size_t n, int permutations, uint64_t seed,
                         double stop_above, size_t *at)
{
    *at = 0;
    if (n < 2 * PDB_CP_MIN_SEGMENT || permutations < 1)
        return 1.0;
    double *z = pdb_xmalloc(2 * n * sizeof *z), *w = z + n;
    if (!standardise(x, n, z)) {
        free(z);
        return 1.0;
    }
    double observed = split_stat(z, n, at);
    /* Orderings as extreme as the observed one, with room for rounding: sums
     * of the same values in another order differ in the last bits. */
    double bar = observed * (1 - 1e-9);
    memcpy(w, z, n * sizeof *w);
    uint64_t s = mix(seed) | 1;
    long count = 0;
    for (int i = 0; i < permutations; i++) {
        shuffle(w, n, &s);
        size_t k;
        if (split_stat(w, n, &k) >= bar)
            count++;
        /* The p-value can no longer fall below stop_above, whatever the
         * remaining orderings give (Besag and Clifford's sequential test):
         * a segment without a shift stops after a few dozen orderings. */
        if ((double)(count + 1) / (permutations + 1.0) >= stop_above)
            break;
    }
    free(z);
    return (double)(count + 1) / (permutations + 1.0);
}

/* A segment's seed: the same segment of the same series is always tested
 * with the same orderings. */
static uint64_t segment_seed(uint64_t seed, size_t a, size_t b)
{
    return mix(seed ^ mix((uint64_t)a * 0x9E3779B97F4A7C15ULL ^ (uint64_t)b));
}

static int by_index(const void *a, const void *b)
{
    size_t x = ((const pdb_change_point *)a)->at, y = ((const pdb_change_point *)b)->at;
    return (x > y) - (x < y);
}

/* Binary segmentation: test the whole series, split where significant, test
 * both sides again; an explicit stack keeps the depth off the C stack. */
static size_t segment(const double *x, size_t n, const pdb_cp_opts *o, pdb_change_point *out)
{
    size_t nout = 0, top = 0;
    size_t(*stack)[2] = pdb_xmalloc((n + 1) * sizeof *stack);
    stack[top][0] = 0;
    stack[top++][1] = n;
    while (top) {
        top--;
        size_t a = stack[top][0], b = stack[top][1], k;
        double p = pdb_cp_split_test(x + a, b - a, o->permutations, segment_seed(o->seed, a, b),
                                     o->alpha, &k);
        if (!(p < o->alpha))
            continue;
        assert(k >= PDB_CP_MIN_SEGMENT && b - a - k >= PDB_CP_MIN_SEGMENT);
        assert(nout < n / PDB_CP_MIN_SEGMENT);
        out[nout++] = (pdb_change_point){a + k, p, false};
        stack[top][0] = a;
        stack[top++][1] = a + k;
        stack[top][0] = a + k;
        stack[top++][1] = b;
        assert(top <= n + 1);
    }
    free(stack);
    qsort(out, nout, sizeof *out, by_index);
    return nout;
}

/* The longest tail the newest-runs test covers in a last segment of len
 * runs: the tails whose split the ordering test can hardly resolve, those
 * of a runs with fewer than PDB_CP_TAIL_ORDERINGS / alpha distinct orderings
 * (even a perfect split then has p >= alpha / 10). In 30 runs that is the
 * newest two; in 12, every tail up to half. */
static size_t tail_reach(size_t len, double alpha)
{
    size_t reach = 1;
    double ways = (double)len; /* C(len, 1) */
    for (size_t a = 2; a <= len / 2; a++) {
        ways = ways * (double)(len - a + 1) / (double)a;
        if (ways >= PDB_CP_TAIL_ORDERINGS / alpha)
            break;
        reach = a;
    }
    return reach;
}

/* Test 2: each tail of the last segment the ordering test cannot resolve
 * (the newest j runs, j up to tail_reach) against the segment's earlier
 * runs; the smallest p-value times the number of tails tested (Bonferroni). */
static bool tail_test(const double *x, size_t n, size_t start, double alpha,
                      pdb_change_point *cp)
{
    double best = 1;
    size_t best_j = 0, reach = tail_reach(n - start, alpha);
    int tests = 0;
    for (size_t j = 1; j <= reach && n - j >= start + PDB_CP_MIN_HISTORY; j++) {
        tests++;
        double p = pdb_cp_tail_p(x + start, n - j - start, x + n - j, j);
        if (p < best) {
            best = p;
            best_j = j;
        }
    }
    best *= tests;
    if (!tests || !(best < alpha))
        return false;
    *cp = (pdb_change_point){n - best_j, best, true};
    return true;
}

size_t pdb_change_points(const double *x, size_t n, const pdb_cp_opts *o,
                         pdb_change_point *out)
{
    for (size_t i = 0; i < n; i++)
        assert(isfinite(x[i]));
    /* Half the false-alarm budget for each test, so both together keep it. */
    pdb_cp_opts half = *o;
    half.alpha = o->alpha / 2;
    size_t nout = segment(x, n, &half, out);
    size_t start = nout ? out[nout - 1].at : 0;
    if (n && tail_test(x, n, start, half.alpha, &out[nout]))
        nout++;
    return nout;
}

/* ---- test 2: the newest runs ------------------------------------------------ */

double pdb_cp_tail_p(const double *x, size_t m, const double *tail, size_t j)
{
    if (m < 2 || j < 1)
        return 1.0;
    double mean = 0, ss = 0, tmean = 0;
    for (size_t i = 0; i < m; i++)
        mean += x[i];
    mean /= (double)m;
    for (size_t i = 0; i < m; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    for (size_t i = 0; i < j; i++)
        tmean += tail[i];
    tmean /= (double)j;
    double sd = sqrt(ss / (double)(m - 1));
    double size = fmax(fabs(mean), fabs(tmean));
    if (!(fabs(tmean - mean) > PDB_CP_RESOLUTION * size))
        return 1.0; /* the same level, up to rounding */
    if (!(sd > PDB_CP_RESOLUTION * size))
        return 0.0; /* a constant history: any other level is a change */
    double t = (tmean - mean) / (sd * sqrt(1 / (double)j + 1 / (double)m));
    double p = 2 * pdb_student_sf(fabs(t), (double)(m - 1));
    return p > 1 ? 1 : p;
}

/* One term of the continued fraction below: d and c advance, returns d c. */
static double lentz_step(double num, double *c, double *d)
{
    const double tiny = 1e-300;
    *d = 1 + num * *d;
    *d = 1 / (fabs(*d) < tiny ? tiny : *d);
    *c = 1 + num / *c;
    if (fabs(*c) < tiny)
        *c = tiny;
    return *d * *c;
}

/* The continued fraction of the incomplete beta function, evaluated by the
 * modified Lentz method (Numerical Recipes, betacf). */
static double beta_fraction(double a, double b, double x)
{
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        h *= lentz_step(even, &c, &d);
        double delta = lentz_step(odd, &c, &d);
        h *= delta;
        if (fabs(delta - 1) < 1e-15)
            break;
    }
    return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double pdb_student_sf(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? tail : 1 - tail;
}
