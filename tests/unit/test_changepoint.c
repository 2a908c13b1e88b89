/* test_changepoint.c: the change-point method of `profdb trend`
 * (compare/changepoint.c) against cases counted or computed by hand, the
 * Student t tail against closed forms and printed tables, and its
 * false-alarm rate and power measured on simulated histories. */
#include "compare/changepoint.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>

#define CHECK_NEAR(a, b, tol) CHECK(fabs((a) - (b)) <= (tol))

/* Student t with 3 degrees of freedom, closed form:
 * P(T > t) = 1/2 - (atan(a) + a / (1 + a^2)) / pi, a = t / sqrt(3). */
static double t3_sf(double t)
{
    double a = t / sqrt(3.0);
    return 0.5 - (atan(a) + a / (1 + a * a)) / M_PI;
}

/* Student t upper tail: df = 1 is the Cauchy distribution (sf(1) = 1/4);
 * df = 2 has the closed form (1 - t / sqrt(t^2 + 2)) / 2, df = 3 the one
 * above; the others are the two-sided 95% and 99% points of printed t
 * tables. */
static void test_student(void)
{
    CHECK_NEAR(pdb_student_sf(1.0, 1), 0.25, 1e-12);
    CHECK_NEAR(pdb_student_sf(0.0, 7), 0.5, 1e-12);
    for (double t = -3; t <= 6; t += 0.75)
        CHECK_NEAR(pdb_student_sf(t, 2), 0.5 * (1 - t / sqrt(t * t + 2)), 1e-12);
    for (double t = -2; t <= 40; t += 1.5)
        CHECK_NEAR(pdb_student_sf(t, 3), t3_sf(t), 1e-12);
    CHECK_NEAR(pdb_student_sf(2.228139, 10), 0.025, 1e-6);
    CHECK_NEAR(pdb_student_sf(4.032143, 5), 0.005, 1e-6);
    CHECK_NEAR(pdb_student_sf(2.045230, 29), 0.025, 1e-6);
    CHECK_NEAR(pdb_student_sf(-2.045230, 29), 0.975, 1e-6);
    CHECK(isnan(pdb_student_sf(NAN, 3)));
}

/* The newest-runs test by hand: history 1, 2, 3 (mean 2, sd 1), new value
 * 6: t = 4 / sqrt(1 + 1/3) = 3.4641 with 2 degrees of freedom, two-sided
 * p = 1 - t / sqrt(t^2 + 2) = 0.074180. Two new values 5 and 7: the same t
 * over sqrt(1/2 + 1/3). A constant history: any other value is certain. */
static void test_tail(void)
{
    double h[] = {1, 2, 3}, y[] = {6}, y2[] = {5, 7};
    double t = 4 / sqrt(1 + 1 / 3.0), t2 = 4 / sqrt(0.5 + 1 / 3.0);
    CHECK_NEAR(pdb_cp_tail_p(h, 3, y, 1), 1 - t / sqrt(t * t + 2), 1e-12);
    CHECK_NEAR(pdb_cp_tail_p(h, 3, y2, 2), 1 - t2 / sqrt(t2 * t2 + 2), 1e-12);
    double same[] = {4, 4, 4, 4}, other[] = {4.5}, four[] = {4};
    CHECK_NEAR(pdb_cp_tail_p(same, 4, other, 1), 0.0, 0);
    CHECK_NEAR(pdb_cp_tail_p(same, 4, four, 1), 1.0, 0);
    CHECK_NEAR(pdb_cp_tail_p(h, 1, y, 1), 1.0, 0); /* one value has no spread */
}

/* Permutation p-values counted by hand. Four values 0 0 1 1 allow one split
 * (two on each side); of the C(4,2) = 6 distinct orderings, 0011 and 1100
 * split as well as the observed one: p = 1/3. Eight values 0000 1111: of
 * C(8,4) = 70 orderings, 2 split perfectly at k = 4 and every other
 * ordering's best split is worse: p = 2/70. With many orderings the Monte
 * Carlo p-value is within a few standard errors of the count. */
static void test_split_exact(void)
{
    double four[] = {0, 0, 1, 1}, eight[] = {0, 0, 0, 0, 1, 1, 1, 1};
    size_t at;
    double p = pdb_cp_split_test(four, 4, 99999, 1, 1, &at);
    CHECK_INT(at, 2);
    CHECK_NEAR(p, 1 / 3.0, 4 * sqrt(1 / 3.0 * 2 / 3.0 / 99999));
    p = pdb_cp_split_test(eight, 8, 99999, 2, 1, &at);
    CHECK_INT(at, 4);
    CHECK_NEAR(p, 2 / 70.0, 4 * sqrt(2 / 70.0 * 68 / 70.0 / 99999));
    /* The same inputs and seed give the same p; stopping early only ever
     * says "not below stop_above". */
    CHECK(pdb_cp_split_test(eight, 8, 999, 7, 1, &at) ==
          pdb_cp_split_test(eight, 8, 999, 7, 1, &at));
    CHECK(pdb_cp_split_test(eight, 8, 999, 7, 0.01, &at) >= 0.01);
    /* Too short to split, or nothing varies: p = 1. */
    CHECK_NEAR(pdb_cp_split_test(four, 3, 999, 1, 1, &at), 1.0, 0);
    double flat[] = {3, 3, 3, 3, 3, 3};
    CHECK_NEAR(pdb_cp_split_test(flat, 6, 999, 1, 1, &at), 1.0, 0);
}

/* ---- simulated histories ------------------------------------------------ */

static uint64_t rng = 0x853c49e6748fea9bULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* n runs of level 1 with noise sigma (relative); from run `at` on (0:
 * never) the level is 1 + shift; with outliers, one run in 20 is 8 sigma
 * slow. */
static void history(double *x, size_t n, double sigma, size_t at, double shift, bool outliers)
{
    for (size_t i = 0; i < n; i++) {
        double e = gauss() + (outliers && uniform() < 0.05 ? 8 : 0);
        x[i] = (at && i >= at ? 1 + shift : 1) * (1 + sigma * e);
    }
}

/* Histories without a shift: the share with any change point stays within
 * alpha (binomial: 3 standard deviations over alpha would be a failure);
 * the split test alone stays within alpha / 2 whatever the noise. */
static void test_false_alarms(void)
{
    const int sims = 2000;
    const double alpha = 0.01;
    pdb_cp_opts o = PDB_CP_OPTS_DEFAULT(alpha);
    double x[30];
    pdb_change_point cp[32];
    int any = 0, split_outliers = 0;
    for (int s = 0; s < sims; s++) {
        history(x, 30, 0.02, 0, 0, false);
        any += pdb_change_points(x, 30, &o, cp) > 0;
        history(x, 30, 0.02, 0, 0, true);
        size_t n = pdb_change_points(x, 30, &o, cp);
        split_outliers += n > 0 && !cp[0].tail;
    }
    double bound = sims * alpha + 3 * sqrt(sims * alpha * (1 - alpha));
    double half = sims * alpha / 2 + 3 * sqrt(sims * alpha / 2 * (1 - alpha / 2));
    printf("false alarms in %d histories of 30 runs: %d (normal noise), %d split "
           "(5%% outlier runs); bounds %.0f, %.0f\n", sims, any, split_outliers, bound, half);
    CHECK(any <= bound);
    CHECK(split_outliers <= half);
}

/* A 10% shift in 1% noise is found at its run, and nowhere else, in nearly
 * every history; so are two shifts and a shift at the newest run. */
static void test_power(void)
{
    pdb_cp_opts o = PDB_CP_OPTS_DEFAULT(0.01);
    double x[60];
    pdb_change_point cp[64];
    const int sims = 200;
    int exact = 0, two = 0, newest = 0, newest_two = 0;
    for (int s = 0; s < sims; s++) {
        history(x, 30, 0.01, 15, 0.10, false);
        size_t n = pdb_change_points(x, 30, &o, cp);
        exact += n == 1 && cp[0].at == 15 && !cp[0].tail && cp[0].p < 0.005;
        history(x, 60, 0.01, 20, 0.10, false);
        for (size_t i = 40; i < 60; i++)
            x[i] /= 1.10 * 1.05; /* down 5% below the first level at run 40 */
        n = pdb_change_points(x, 60, &o, cp);
        two += n == 2 && cp[0].at == 20 && cp[1].at == 40;
        history(x, 30, 0.01, 29, 0.10, false);
        n = pdb_change_points(x, 30, &o, cp);
        newest += n == 1 && cp[0].at == 29 && cp[0].tail;
        history(x, 30, 0.01, 28, 0.10, false);
        n = pdb_change_points(x, 30, &o, cp);
        newest_two += n == 1 && cp[0].at == 28;
    }
    printf("exactly found in %d histories: one shift %d, two shifts %d, at the newest run %d, "
           "at the second newest %d\n", sims, exact, two, newest, newest_two);
    CHECK(exact >= sims * 95 / 100);
    CHECK(two >= sims * 95 / 100);
    CHECK(newest >= sims * 95 / 100);
    CHECK(newest_two >= sims * 90 / 100);
}

/* A short history: 4 runs at 1.00 and 4 at 1.20. No ordering of 8 runs can
 * reach alpha/2 (a perfect 4:4 split has p = 2/70), so the newest-runs test
 * finds it: the newest 4 against the first 4, t = 0.2 / (s sqrt(1/4 + 1/4))
 * with s the first four's standard deviation, 3 degrees of freedom, times
 * the 4 tails tested (1 to 4 runs). By hand: mean 1.0,
 * s = sqrt((1e-4 + 1e-4) / 3) = 0.008165, t = 34.64, one-sided tail
 * 2.645e-5, p = 4 * 2 * 2.645e-5 = 2.1e-4. */
static void test_short_history(void)
{
    pdb_cp_opts o = PDB_CP_OPTS_DEFAULT(0.01);
    pdb_change_point cp[8];
    double x[] = {1.00, 1.01, 0.99, 1.00, 1.20, 1.21, 1.19, 1.20};
    size_t at;
    CHECK(pdb_cp_split_test(x, 8, 999, 1, 1, &at) >= 2 / 70.0);
    CHECK_INT(pdb_change_points(x, 8, &o, cp), 1);
    CHECK_INT(cp[0].at, 4);
    CHECK(cp[0].tail);
    double s = sqrt(2e-4 / 3), t = 0.2 / (s * sqrt(0.5));
    CHECK_NEAR(cp[0].p, 4 * 2 * t3_sf(t), 1e-12);
    CHECK_NEAR(cp[0].p, 2.1158e-4, 1e-7);
}

/* Edge cases: nothing to find in short or flat series; a constant history
 * and a different newest value; the same series gives the same answer. */
static void test_edges(void)
{
    pdb_cp_opts o = PDB_CP_OPTS_DEFAULT(0.01);
    pdb_change_point cp[16];
    double flat[10] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    CHECK_INT(pdb_change_points(flat, 0, &o, cp), 0);
    CHECK_INT(pdb_change_points(flat, 3, &o, cp), 0);
    CHECK_INT(pdb_change_points(flat, 10, &o, cp), 0);
    flat[9] = 2.5;
    CHECK_INT(pdb_change_points(flat, 10, &o, cp), 1);
    CHECK_INT(cp[0].at, 9);
    CHECK(cp[0].tail);
    double x[40];
    history(x, 40, 0.01, 25, -0.2, false);
    pdb_change_point a[48], b[48];
    size_t na = pdb_change_points(x, 40, &o, a), nb = pdb_change_points(x, 40, &o, b);
    CHECK_INT(na, nb);
    CHECK_INT(na >= 1 ? a[0].at : 0, 25);
    for (size_t i = 0; i < na && i < nb; i++)
        CHECK(a[i].at == b[i].at && a[i].p == b[i].p);
}

int main(void)
{
    test_student();
    test_tail();
    test_split_exact();
    test_false_alarms();
    test_power();
    test_short_history();
    test_edges();
    return check_report();
}
