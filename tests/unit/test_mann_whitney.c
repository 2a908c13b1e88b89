/* test_mann_whitney.c: the straggler test's p-values (report/trace_sql.c)
 * against a brute-force count: every way of splitting n1 + n2 distinct
 * values into the two samples is enumerated and U counted directly. */
#include "check.h"
#include "report/trace_sql.h"

#include <math.h>

/* P(U >= u) by enumerating the subsets of {0..n-1} of size n1 (sample 1). */
static double brute(long u, int n1, int n2)
{
    int n = n1 + n2;
    long hits = 0, total = 0;
    for (unsigned m = 0; m < (1u << n); m++) {
        if (__builtin_popcount(m) != n1)
            continue;
        long pairs = 0; /* pairs (x in sample 1, y in sample 2) with x > y */
        for (int x = 0; x < n; x++)
            if (m & (1u << x))
                for (int y = 0; y < x; y++)
                    pairs += !(m & (1u << y));
        total++;
        hits += pairs >= u;
    }
    return (double)hits / (double)total;
}

int main(void)
{
    for (int n1 = 1; n1 <= 6; n1++)
        for (int n2 = 1; n2 <= 6; n2++)
            for (long u = 0; u <= (long)n1 * n2; u++)
                CHECK(fabs(pdb_mann_whitney_p((double)u, n1, n2, 0) - brute(u, n1, n2)) < 1e-12);
    /* The smallest p of two samples of two: 1 / C(4, 2). */
    CHECK(fabs(pdb_mann_whitney_p(4, 2, 2, 0) - 1.0 / 6) < 1e-12);
    /* Normal approximation (ties, or more than 40 values): at the mean plus
     * the continuity half, one half; smaller above; never above one. */
    CHECK(fabs(pdb_mann_whitney_p(50 * 50 / 2.0 + 0.5, 50, 50, 6) - 0.5) < 1e-12);
    double last = 1.0;
    for (double u = 0; u <= 2500; u += 100) {
        double p = pdb_mann_whitney_p(u, 50, 50, 0);
        CHECK(p <= last + 1e-15 && p >= 0 && p <= 1);
        last = p;
    }
    CHECK(pdb_mann_whitney_p(2500, 50, 50, 0) < 1e-15);
    CHECK(isnan(pdb_mann_whitney_p(0, 0, 3, 0)));
    return check_report();
}
