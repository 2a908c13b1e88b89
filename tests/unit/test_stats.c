/* test_stats.c: the shared statistics layer (common/stats.c: quantiles, the
 * one Mann-Whitney test and its exact p) and the comparison's bootstrap and
 * outliers (compare/stats.c), against values computed independently: by
 * hand, from scipy.stats.mannwhitneyu's documented example, and by brute
 * force in Python (fractions; every way of choosing which pooled values
 * are sample a's, U counted pairwise with ties 1/2):
 *
 *   def U(a, b): return sum(F(1) if x > y else F(1, 2) if x == y else 0
 *                           for x in a for y in b)
 *   def exact(a, b):
 *       pool = a + b; u = U(a, b); ge = le = tot = 0
 *       for idx in combinations(range(len(pool)), len(a)):
 *           ua = U([pool[i] for i in idx], [pool[i] for i in range(len(pool))
 *                                           if i not in idx])
 *           tot += 1; ge += ua >= u; le += ua <= u
 *       return u, ge / tot, le / tot, min(1, 2 * min(ge, le) / tot)
 *
 * and the normal approximation, Noether's sample size and the untied U
 * distribution (f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u), exact
 * integers) written in Python from their textbook formulas. */
#include "common/stats.h"
#include "compare/changepoint.h"
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
 * exact two-sided p = 0.1111 (= 14/126); one-sided P(U >= 17) = 7/126. */
static void test_mwu_scipy_example(void)
{
    double m[] = {19, 22, 16, 29, 24}, f[] = {20, 11, 17, 12};
    pdb_mwu r;
    CHECK_INT(pdb_mann_whitney(m, 5, f, 4, &r), 0);
    CHECK_NEAR(r.u, 17.0, 0);
    CHECK_INT(r.exact, 1);
    CHECK_NEAR(r.p, 0.1111111111111111, 1e-12);
    CHECK_NEAR(r.p_greater, 0.05555555555555555, 1e-12);
    CHECK_NEAR(r.p_less, 0.9682539682539683, 1e-12);
    /* The other direction: U2 = 20 - 17, same two-sided p, tails swapped. */
    CHECK_INT(pdb_mann_whitney(f, 4, m, 5, &r), 0);
    CHECK_NEAR(r.u, 3.0, 0);
    CHECK_NEAR(r.p, 0.1111111111111111, 1e-12);
    CHECK_NEAR(r.p_less, 0.05555555555555555, 1e-12);
}

typedef struct {
    const char *name;
    double a[8], b[8];
    size_t na, nb;
    double u, p_greater, p_less, p; /* the Python oracle's (see the top) */
} mwu_case;

/* Exact p-values with ties (the permutation distribution of the mid-ranks)
 * and without, both orders, every value equal; each against the oracle. */
static void test_mwu_exact_oracle(void)
{
    static const mwu_case cases[] = {
        {"ties", {1, 2, 2, 3, 5, 5}, {2, 3, 3, 4, 5, 6, 6}, 6, 7, 12.0, 0.9143356643356644,
         0.10664335664335664, 0.21328671328671328},
        {"ties reversed", {2, 3, 3, 4, 5, 6, 6}, {1, 2, 2, 3, 5, 5}, 7, 6, 30.0,
         0.10664335664335664, 0.9143356643356644, 0.21328671328671328},
        {"heavy ties", {2, 2, 2}, {2, 2, 1, 3, 2}, 3, 5, 7.5, 0.7321428571428571,
         0.7321428571428571, 1.0},
        {"6 vs 6 apart", {1.5, 1.6, 1.55, 1.7, 1.52, 1.58}, {1.0, 1.1, 1.2, 1.05, 1.15, 0.98}, 6,
         6, 36.0, 0.0010822510822510823, 1.0, 0.0021645021645021645},
        {"5 vs 5 apart", {6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}, 5, 5, 25.0, 0.003968253968253968, 1.0,
         0.007936507936507936},
        {"all equal", {3, 3, 3, 3}, {3, 3, 3}, 4, 3, 6.0, 1.0, 1.0, 1.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const mwu_case *c = &cases[i];
        pdb_mwu r;
        CHECK_INT(pdb_mann_whitney(c->a, c->na, c->b, c->nb, &r), 0);
        CHECK_INT(r.exact, 1);
        CHECK_NEAR(r.u, c->u, 1e-12);
        CHECK_NEAR(r.p_greater, c->p_greater, 1e-12);
        CHECK_NEAR(r.p_less, c->p_less, 1e-12);
        CHECK_NEAR(r.p, c->p, 1e-12);
    }
    /* The gate's comparison: eight steps 10% slower against the same steps
     * moved by a 5% limit (1.10 x against 1.05 x, as doubles). */
    double steps[] = {100, 103, 98, 101, 99, 104, 97, 102}, slow[8], moved[8];
    for (int i = 0; i < 8; i++) {
        slow[i] = 1.10 * steps[i];
        moved[i] = 1.05 * steps[i];
    }
    pdb_mwu r;
    pdb_mann_whitney(slow, 8, moved, 8, &r);
    CHECK_NEAR(r.u, 58.0, 0);
    CHECK_NEAR(r.p_greater, 0.002331002331002331, 1e-12);
    CHECK_NEAR(r.p, 0.004662004662004662, 1e-12);
    double one[] = {1};
    CHECK_INT(pdb_mann_whitney(one, 0, one, 1, &r), -1);
    CHECK(isnan(r.p));
}

/* The gate's p against an independent oracle in C as well: every split of
 * the pooled values, U counted pairwise (ties 1/2), both tails. */
static void brute_tails(const double *a, size_t na, const double *b, size_t nb, double *ge,
                        double *le)
{
    double pool[16];
    size_t n = na + nb;
    memcpy(pool, a, na * sizeof *a);
    memcpy(pool + na, b, nb * sizeof *b);
    double u_obs = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            u_obs += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    double hi = 0, lo = 0, all = 0;
    for (unsigned m = 0; m < 1u << n; m++) {
        if ((size_t)__builtin_popcount(m) != na)
            continue;
        double u = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if ((m >> i & 1) && !(m >> j & 1))
                    u += pool[i] > pool[j] ? 1 : pool[i] == pool[j] ? 0.5 : 0;
        all++;
        hi += u >= u_obs - 1e-9;
        lo += u <= u_obs + 1e-9;
    }
    *ge = hi / all;
    *le = lo / all;
}

static void test_mwu_brute_random(void)
{
    uint64_t s = 4242;
    for (int t = 0; t < 60; t++) {
        double a[8], b[8];
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t na = 1 + (s >> 33) % 7, nb = 1 + (s >> 45) % 7;
        for (size_t i = 0; i < 8; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            a[i] = (double)((s >> 33) % 5); /* a coarse grid: many ties */
            b[i] = (double)((s >> 50) % 6);
        }
        pdb_mwu r;
        double ge, le;
        pdb_mann_whitney(a, na, b, nb, &r);
        brute_tails(a, na, b, nb, &ge, &le);
        CHECK_NEAR(r.p_greater, ge, 1e-12);
        CHECK_NEAR(r.p_less, le, 1e-12);
        CHECK_NEAR(r.p, fmin(1.0, 2 * fmin(ge, le)), 1e-12);
    }
}

/* Above PDB_MWU_EXACT_MAX values: the normal approximation, against the
 * same formula written in Python (tie and continuity corrected):
 * U = 902.5, P(U >= u) = 0.015900130258076753, two-sided 0.031800260516153506.
 * And the values of an earlier test, one-sided 0.21418402905562176. */
static void test_mwu_normal(void)
{
    double a[] = {0.97, 1.05, 0.98, 0.97, 0.91, 0.98, 1.11, 1.04, 1.1,  1.02, 1.04, 1.02, 0.83, 1.09,
                  1.05, 1.05, 0.83, 0.83, 0.91, 0.95, 1.03, 1.0,  1.05, 0.94, 1.03, 1.04, 0.93, 1.17,
                  1.06, 1.12, 0.94, 0.93, 0.97, 0.99, 1.06, 1.02, 0.96, 0.9,  0.95, 1.12};
    double b[] = {0.89, 0.99, 1.01, 0.82, 0.97, 1.1,  0.77, 0.94, 0.96, 0.89, 1.02, 0.96,
                  0.82, 1.05, 1.04, 1.06, 1.11, 1.01, 0.98, 0.84, 1.03, 0.91, 0.92, 0.84,
                  0.87, 0.92, 1.1,  0.77, 0.82, 0.99, 1.11, 1.03, 0.78, 0.72, 1.01};
    pdb_mwu r;
    CHECK_INT(pdb_mann_whitney(a, 40, b, 35, &r), 0);
    CHECK_INT(r.exact, 0);
    CHECK_NEAR(r.u, 902.5, 0);
    CHECK_NEAR(r.p_greater, 0.015900130258076753, 1e-12);
    CHECK_NEAR(r.p, 0.031800260516153506, 1e-12);
    CHECK(r.z > 0);
    double big_a[] = {0.88, 0.89, 1.07, 0.77, 0.99, 0.77, 1.11, 1.02, 1.14, 0.95, 1.04, 0.97,
                      0.93, 1.01, 0.87, 0.96, 1.07, 1.01, 0.96, 1.22, 1.01, 0.94, 1.02, 0.95,
                      0.96, 0.96, 1.2, 1.0, 1.02, 1.07, 1.2, 0.98, 0.94, 1.25, 0.85, 0.96, 1.07,
                      1.23, 0.91, 0.76};
    double big_b[] = {1.02, 0.9, 0.91, 1.0, 0.97, 0.98, 0.91, 1.08, 1.1, 0.95, 0.9, 1.02, 1.0,
                      0.85, 0.9, 1.05, 0.94, 0.92, 0.97, 0.95, 0.95, 0.76, 1.12, 0.97, 0.86,
                      1.05, 0.98, 0.95, 1.05, 1.18, 1.01, 1.11, 1.17, 0.85, 0.9};
    pdb_mann_whitney(big_a, 40, big_b, 35, &r);
    CHECK_NEAR(r.p_greater, 0.21418402905562176, 1e-12);
    double same[70];
    for (int i = 0; i < 70; i++)
        same[i] = 2;
    pdb_mann_whitney(same, 35, same + 35, 35, &r);
    CHECK_NEAR(r.p, 1.0, 0);
}

/* The one-sided p from U alone (the straggler test's SQL function), exact
 * without ties up to 60 values, against the untied U distribution in
 * Python: P(U >= 17 | 5, 4) = 7/126, P(U >= 25 | 5, 5) = 1/252,
 * P(U >= 400 | 25, 25) = 0.0457770324864277, P(U >= 300 | 20, 30) =
 * 0.5039121813368869. */
static void test_mwu_from_u(void)
{
    CHECK_NEAR(pdb_mwu_p_greater_u(17, 5, 4, 0), 0.05555555555555555, 1e-12);
    CHECK_NEAR(pdb_mwu_p_greater_u(25, 5, 5, 0), 0.003968253968253968, 1e-12);
    CHECK_NEAR(pdb_mwu_p_greater_u(400, 25, 25, 0), 0.0457770324864277, 1e-12);
    CHECK_NEAR(pdb_mwu_p_greater_u(300, 20, 30, 0), 0.5039121813368869, 1e-12);
    CHECK_NEAR(pdb_mwu_p_greater_u(0, 3, 3, 0), 1.0, 1e-15);
    CHECK(isnan(pdb_mwu_p_greater_u(0, 0, 3, 0)));
    /* The smallest p: 1/C(12, 6) one-sided; two-sided 2/C(10, 5), 2/C(6, 3). */
    CHECK_NEAR(pdb_mwu_min_p(6, 6), 0.0010822510822510823, 1e-15);
    CHECK_NEAR(pdb_mwu_min_p2(5, 5), 0.007936507936507936, 1e-15);
    CHECK_NEAR(pdb_mwu_min_p2(3, 3), 0.1, 1e-15);
}

/* Noether's steps per side at alpha 0.01 and 80% power, from Python's
 * NormalDist (z = 2.5758293035489 + 0.8416212335729144): theta 0.6: 195,
 * 0.75: 32, 0.9: 13; 0.99: 9; 1: 8 (z^2 / 1.5), above the 5 that
 * any p < 0.01 needs (2/C(10, 5)). */
static void test_steps_needed(void)
{
    CHECK_NEAR(pdb_normal_isf(0.005), 2.5758293035489, 1e-9);
    CHECK_NEAR(pdb_normal_isf(0.2), 0.8416212335729144, 1e-9);
    CHECK_INT(pdb_mwu_steps_needed(0.6, 0.01, 0.8), 195);
    CHECK_INT(pdb_mwu_steps_needed(0.75, 0.01, 0.8), 32);
    CHECK_INT(pdb_mwu_steps_needed(0.9, 0.01, 0.8), 13);
    CHECK_INT(pdb_mwu_steps_needed(0.99, 0.01, 0.8), 9);
    CHECK_INT(pdb_mwu_steps_needed(1.0, 0.01, 0.8), 8); /* ceil(11.679 / 1.5) */
    CHECK_INT(pdb_mwu_steps_needed(0.5, 0.01, 0.8), 0);
    CHECK_INT(pdb_mwu_steps_needed(0.3, 0.01, 0.8), 0);
}

static void test_format_p(void)
{
    char buf[32];
    pdb_format_p(0.00216450216, buf, sizeof buf);
    CHECK(strcmp(buf, "0.00216") == 0);
    pdb_format_p(0, buf, sizeof buf);
    CHECK(strcmp(buf, "< 1e-16") == 0);
    pdb_format_p(3e-300, buf, sizeof buf);
    CHECK(strcmp(buf, "< 1e-16") == 0);
    pdb_format_p(NAN, buf, sizeof buf);
    CHECK(strcmp(buf, "-") == 0);
}

/* A series that does not change has no change point: exactly constant, or
 * constant up to rounding in the last bits (medians of the same steps
 * computed from other clock readings), whichever run is the odd one. */
static void test_constant_series(void)
{
    double x[40];
    pdb_change_point cp[40];
    pdb_cp_opts o = PDB_CP_OPTS_DEFAULT(0.01);
    for (int i = 0; i < 40; i++)
        x[i] = 0.103049;
    for (size_t n = 2; n <= 40; n++)
        CHECK_INT(pdb_change_points(x, n, &o, cp), 0);
    for (int odd = 0; odd < 10; odd++) {
        for (int i = 0; i < 10; i++)
            x[i] = 0.103049;
        x[odd] = nextafter(0.103049, 1);
        CHECK_INT(pdb_change_points(x, 10, &o, cp), 0);
        x[odd] = nextafter(nextafter(0.103049, 0), 0);
        CHECK_INT(pdb_change_points(x, 10, &o, cp), 0);
    }
    for (int i = 0; i < 10; i++)
        x[i] = 0.103049 * (1 + 1e-13 * (i % 3));
    CHECK_INT(pdb_change_points(x, 10, &o, cp), 0);
    /* A real shift after a constant history is still found; its p (0: no
     * spread to measure it against) is printed "< 1e-16", never "0". */
    for (int i = 0; i < 10; i++)
        x[i] = i < 9 ? 0.1 : 0.11;
    size_t k = pdb_change_points(x, 10, &o, cp);
    CHECK_INT(k, 1);
    CHECK(k == 1 && cp[0].at == 9 && cp[0].tail);
    char buf[32];
    pdb_format_p(cp[0].p, buf, sizeof buf);
    CHECK(strcmp(buf, "< 1e-16") == 0);
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
    test_mwu_exact_oracle();
    test_mwu_brute_random();
    test_mwu_normal();
    test_mwu_from_u();
    test_steps_needed();
    test_format_p();
    test_constant_series();
    test_bootstrap();
    test_bootstrap_same_as_sorting();
    test_outliers();
    return check_report();
}
