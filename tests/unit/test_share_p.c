/* test_share_p.c: the p-value of `profdb diff ... pyspy` (pdb_share_p,
 * compare/diff_pyspy.c): the two-sided Mann-Whitney p of two runs'
 * samples as 0/1 values, from four counts.
 *
 * Checked two ways: against the general test (pdb_mann_whitney, which
 * sorts and ranks) on the expanded 0/1 arrays, and against values written
 * in Python from the textbook formula (U with ties halved, the tie-corrected
 * variance, a continuity correction of 1/2, as common/stats.c does; the
 * statistic equals the "N-1" two-proportion z):
 *
 *   u = t1*b0 + (t1*b1 + t0*b0)/2;  mu = nb*nt/2;  N = nb + nt
 *   var = nb*nt/12 * ((N+1) - (K^3-K + M^3-M)/(N*(N-1)))   K ones, M zeros
 *   p = min(1, erfc(((|u-mu| - 1/2)/sqrt(var)) / sqrt(2)))
 */
#include "compare/diff.h"
#include "common/stats.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>

#define CHECK_NEAR(a, b, tol) CHECK(fabs((a) - (b)) <= (tol))

/* The general test on the expanded samples. */
static double expanded_p(int kb, int nb, int kt, int nt)
{
    double *b = calloc((size_t)nb, sizeof *b), *t = calloc((size_t)nt, sizeof *t);
    for (int i = 0; i < kb; i++)
        b[i] = 1;
    for (int i = 0; i < kt; i++)
        t[i] = 1;
    pdb_mwu r;
    pdb_mann_whitney(t, (size_t)nt, b, (size_t)nb, &r);
    free(b);
    free(t);
    return r.p;
}

static void test_against_general_test(void)
{
    static const int cases[][4] = {
        {10, 100, 20, 100}, {5, 50, 1, 60}, {0, 40, 40, 40}, {3, 200, 3, 200}, {90, 120, 60, 80},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const int *c = cases[i];
        CHECK_NEAR(pdb_share_p(c[0], c[1], c[2], c[3]), expanded_p(c[0], c[1], c[2], c[3]), 1e-12);
    }
}

static void test_python_values(void)
{
    CHECK_NEAR(pdb_share_p(10, 100, 20, 100), 0.04845424199625957, 1e-12);
    CHECK_NEAR(pdb_share_p(5, 50, 1, 60), 0.0574296330740644, 1e-12);
    CHECK_NEAR(pdb_share_p(413, 2456, 620, 2456), 4.2683153861811377e-13, 1e-20);
    CHECK_NEAR(pdb_share_p(7, 30, 7, 30), 1.0, 0);
    /* Symmetric in the direction of the change. */
    CHECK_NEAR(pdb_share_p(20, 100, 10, 100), pdb_share_p(10, 100, 20, 100), 1e-15);
}

static void test_edges(void)
{
    CHECK(isnan(pdb_share_p(0, 0, 1, 10)));
    CHECK(isnan(pdb_share_p(11, 10, 1, 10))); /* more holding samples than samples */
    CHECK_NEAR(pdb_share_p(0, 10, 0, 10), 1.0, 0); /* every sample alike: no evidence */
    CHECK_NEAR(pdb_share_p(50, 50, 50, 50), 1.0, 0);
}

int main(void)
{
    test_against_general_test();
    test_python_values();
    test_edges();
    return check_report();
}
