/* test_stats.c: the comparison statistics (compare/stats.c) against values
 * computed by hand and from scipy.stats.mannwhitneyu's documented example. */
#include "compare/stats.h"
#include "check.h"

#include <math.h>
#include <string.h>

#define CHECK_NEAR(a, b, tol) CHECK(fabs((a) - (b)) <= (tol))

static void test_quantiles(void)
{
    double x[] = {5, 1, 4, 2, 3};
    CHECK_NEAR(pdb_median(x, 5), 3.0, 0);
    CHECK_NEAR(x[0], 5.0, 0); /* the input is not reordered */
    double even[] = {4, 1, 3, 2};
    CHECK_NEAR(pdb_median(even, 4), 2.5, 1e-12);
    double s[] = {1, 2, 3, 4};
    CHECK_NEAR(pdb_quantile_sorted(s, 4, 0.25), 1.75, 1e-12); /* numpy: 1.75 */
    CHECK_NEAR(pdb_quantile_sorted(s, 4, 1.0), 4.0, 0);
    CHECK(isnan(pdb_median(x, 0)));
}

/* scipy docs: males [19,22,16,29,24] vs females [20,11,17,12]: U1 = 17,
 * exact two-sided p = 0.1111 (= 14/126), asymptotic p = 0.11134688653314041. */
static void test_mwu_scipy_example(void)
{
    double m[] = {19, 22, 16, 29, 24}, f[] = {20, 11, 17, 12};
    pdb_mwu r;
    CHECK_INT(pdb_mann_whitney(m, 5, f, 4, &r), 0);
    CHECK_NEAR(r.u, 17.0, 0);
    CHECK_INT(r.exact, 1);
    CHECK_NEAR(r.p, 0.1111111111111111, 1e-12);
    /* The other direction: U2 = 20 - 17, same p. */
    CHECK_INT(pdb_mann_whitney(f, 4, m, 5, &r), 0);
    CHECK_NEAR(r.u, 3.0, 0);
    CHECK_NEAR(r.p, 0.1111111111111111, 1e-12);
}

/* Normal approximation. 1..10 vs 11..20: U = 0, sigma^2 = 10*10*21/12,
 * z = (50 - 0.5) / 13.2288 = 3.7418, p = 2 P(Z > z) = 1.8267e-4.
 * With ties (1..10 vs 3..12, eight tied pairs): U = 32, tie term 8*6 = 48,
 * sigma^2 = 100/12 * (21 - 48/380), z = (68 - 50 - 0.5)/sigma, p = 0.18455. */
static void test_mwu_normal(void)
{
    double a[10], b[10], c[10];
    for (int i = 0; i < 10; i++) {
        a[i] = i + 1;
        b[i] = i + 11;
        c[i] = i + 3;
    }
    pdb_mwu r;
    pdb_mann_whitney(a, 10, b, 10, &r);
    CHECK_INT(r.exact, 0);
    CHECK_NEAR(r.u, 0.0, 0);
    CHECK_NEAR(r.p, 0.0001826717911095504, 1e-12);
    CHECK(r.z < 0);
    pdb_mann_whitney(a, 10, c, 10, &r);
    CHECK_NEAR(r.u, 32.0, 1e-12);
    CHECK_NEAR(r.p, 0.1845509394350114, 1e-12);
    double same[] = {2, 2, 2, 2, 2, 2, 2, 2};
    pdb_mann_whitney(same, 8, same, 8, &r);
    CHECK_NEAR(r.p, 1.0, 0);
    CHECK_INT(pdb_mann_whitney(a, 0, b, 10, &r), -1);
}

/* Exact small-sample p: 3 vs 3 completely separated: 2/20 = 0.1. */
static void test_mwu_exact_small(void)
{
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    pdb_mwu r;
    pdb_mann_whitney(a, 3, b, 3, &r);
    CHECK_INT(r.exact, 1);
    CHECK_NEAR(r.p, 0.1, 1e-12);
    double c[] = {1, 2}, d[] = {3, 4};
    pdb_mann_whitney(c, 2, d, 2, &r); /* 2/6: two steps per trace never reach 0.01 */
    CHECK_NEAR(r.p, 1.0 / 3.0, 1e-12);
}

/* The gate's one-sided test against an independent oracle: every way of
 * splitting the pooled values into groups of na and nb, U counted pairwise
 * (ties 1/2), p = the share of splits with U >= the observed U. */
static double brute_greater(const double *a, size_t na, const double *b, size_t nb)
{
    double pool[16];
    size_t n = na + nb;
    memcpy(pool, a, na * sizeof *a);
    memcpy(pool + na, b, nb * sizeof *b);
    double u_obs = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            u_obs += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    double hit = 0, all = 0;
    for (unsigned m = 0; m < 1u << n; m++) {
        if ((size_t)__builtin_popcount(m) != na)
            continue;
        double u = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if ((m >> i & 1) && !(m >> j & 1))
                    u += pool[i] > pool[j] ? 1 : pool[i] == pool[j] ? 0.5 : 0;
        all++;
        hit += u >= u_obs - 1e-9;
    }
    return hit / all;
}

static void test_mwu_greater_exact(void)
{
    int exact;
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    CHECK_NEAR(pdb_mwu_greater(b, 3, a, 3, &exact), 1.0 / 20.0, 1e-15);
    CHECK_INT(exact, 1);
    CHECK_NEAR(pdb_mwu_greater(a, 3, b, 3, &exact), 1.0, 1e-15);
    /* 6 against 6 completely separated: 1/924, below alpha 0.01. */
    double s6[] = {1.0, 1.1, 1.2, 1.05, 1.15, 0.98}, t6[] = {1.5, 1.6, 1.55, 1.7, 1.52, 1.58};
    CHECK_NEAR(pdb_mwu_greater(t6, 6, s6, 6, &exact), 1.0 / 924.0, 1e-15);
    CHECK_NEAR(pdb_mwu_min_p(6, 6), 1.0 / 924.0, 1e-15);
    CHECK_NEAR(pdb_mwu_min_p(3, 3), 1.0 / 20.0, 1e-15);
    /* Ties, unequal sizes, both orders (the smaller side is counted). */
    double c[] = {1, 2, 2, 3, 5, 5}, d[] = {2, 3, 3, 4, 5, 6, 6};
    CHECK_NEAR(pdb_mwu_greater(c, 6, d, 7, &exact), brute_greater(c, 6, d, 7), 1e-12);
    CHECK_NEAR(pdb_mwu_greater(d, 7, c, 6, &exact), brute_greater(d, 7, c, 6), 1e-12);
    double e[] = {2, 2, 2}, f[] = {2, 2, 1, 3, 2};
    CHECK_NEAR(pdb_mwu_greater(e, 3, f, 5, &exact), brute_greater(e, 3, f, 5), 1e-12);
    CHECK_NEAR(pdb_mwu_greater(f, 5, e, 3, &exact), brute_greater(f, 5, e, 3), 1e-12);
    CHECK(isnan(pdb_mwu_greater(a, 0, b, 3, &exact)));
}

/* Above PDB_MWU_EXACT_MAX values: the normal approximation, against the same
 * formula written in Python (tie and continuity corrected, one-sided). */
static void test_mwu_greater_normal(void)
{
    double big_a[] = {0.88, 0.89, 1.07, 0.77, 0.99, 0.77, 1.11, 1.02, 1.14, 0.95, 1.04, 0.97,
                      0.93, 1.01, 0.87, 0.96, 1.07, 1.01, 0.96, 1.22, 1.01, 0.94, 1.02, 0.95,
                      0.96, 0.96, 1.2, 1.0, 1.02, 1.07, 1.2, 0.98, 0.94, 1.25, 0.85, 0.96, 1.07,
                      1.23, 0.91, 0.76};
    double big_b[] = {1.02, 0.9, 0.91, 1.0, 0.97, 0.98, 0.91, 1.08, 1.1, 0.95, 0.9, 1.02, 1.0,
                      0.85, 0.9, 1.05, 0.94, 0.92, 0.97, 0.95, 0.95, 0.76, 1.12, 0.97, 0.86,
                      1.05, 0.98, 0.95, 1.05, 1.18, 1.01, 1.11, 1.17, 0.85, 0.9};
    int exact;
    CHECK_NEAR(pdb_mwu_greater(big_a, 40, big_b, 35, &exact), 0.21418402905562176, 1e-12);
    CHECK_INT(exact, 0);
}

static void test_bootstrap(void)
{
    double base[40], test[40];
    uint64_t s = 12345;
    for (int i = 0; i < 40; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double noise = (double)(s >> 40) / (double)(1ULL << 24); /* [0,1) */
        base[i] = 1.0 + 0.05 * noise;
        test[i] = 1.1 * (1.0 + 0.05 * noise);
    }
    double lo1, hi1, lo2, hi2;
    CHECK_INT(pdb_bootstrap_median_ratio(base, 40, test, 40, 2000, 7, &lo1, &hi1), 0);
    CHECK_INT(pdb_bootstrap_median_ratio(base, 40, test, 40, 2000, 7, &lo2, &hi2), 0);
    CHECK(lo1 == lo2 && hi1 == hi2);             /* same seed, same interval */
    CHECK(lo1 < 1.1 && hi1 > 1.1);               /* covers the true ratio */
    CHECK(lo1 > 1.05 && hi1 < 1.15);
    CHECK_INT(pdb_bootstrap_median_ratio(base, 40, test, 40, 2000, 8, &lo2, &hi2), 0);
    CHECK(lo2 != lo1 || hi2 != hi1);             /* the seed matters */
    double zero[] = {0, 0};
    CHECK_INT(pdb_bootstrap_median_ratio(zero, 2, test, 40, 100, 1, &lo2, &hi2), -1);
}

/* The bootstrap as it was written first: each resample sorted. The
 * counting version (stats.c) must give the same interval, bit for bit. */
static uint64_t ref_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static double ref_median(const double *x, size_t n, double *tmp, uint64_t *s)
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = x[ref_rand(s) % n];
    pdb_stats_sort(tmp, n);
    return pdb_quantile_sorted(tmp, n, 0.5);
}

static void ref_bootstrap(const double *b, size_t nb, const double *t, size_t nt, int iters,
                          uint64_t seed, double *lo, double *hi)
{
    uint64_t s = seed;
    double tmp[64], ratios[500];
    for (int i = 0; i < iters; i++) {
        double mb = ref_median(b, nb, tmp, &s);
        ratios[i] = ref_median(t, nt, tmp, &s) / mb;
    }
    pdb_stats_sort(ratios, (size_t)iters);
    *lo = pdb_quantile_sorted(ratios, (size_t)iters, 0.025);
    *hi = pdb_quantile_sorted(ratios, (size_t)iters, 0.975);
}

static void test_bootstrap_same_as_sorting(void)
{
    /* Odd and even sizes, one and two values, ties (values on a coarse grid). */
    static const size_t sizes[][2] = {{1, 1}, {2, 3}, {5, 4}, {7, 8}, {40, 33}, {64, 63}};
    uint64_t s = 99;
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        double b[64], t[64];
        for (size_t i = 0; i < 64; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = 1.0 + (double)((s >> 33) % 7) / 8;
            t[i] = 1.2 + (double)((s >> 45) % 13) / 16;
        }
        double lo, hi, rlo, rhi;
        CHECK_INT(pdb_bootstrap_median_ratio(b, sizes[c][0], t, sizes[c][1], 500, 11, &lo, &hi),
                  0);
        ref_bootstrap(b, sizes[c][0], t, sizes[c][1], 500, 11, &rlo, &rhi);
        CHECK(lo == rlo && hi == rhi);
    }
}

static void test_outliers(void)
{
    double x[] = {1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.02, 0.98, 6.0, 7.5};
    double fence;
    CHECK_INT(pdb_outliers(x, 10, 1, &fence), 2);
    CHECK(fence > 1.1 && fence < 6.0);
    CHECK_INT(pdb_outliers(x, 10, 0, &fence), 0);
    CHECK_INT(pdb_outliers(x, 3, 1, &fence), 0);
}

int main(void)
{
    test_quantiles();
    test_mwu_scipy_example();
    test_mwu_normal();
    test_mwu_exact_small();
    test_mwu_greater_exact();
    test_mwu_greater_normal();
    test_bootstrap();
    test_bootstrap_same_as_sorting();
    test_outliers();
    return check_report();
}
