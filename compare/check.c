/* check.c: the decisions of `profdb check`: limits as given on the command
 * line, each metric's samples on both sides compared, and the verdict.
 *
 * Decision rule: a metric regresses when the median moved in the bad
 * direction by more than its limit AND the Mann-Whitney test says the shift
 * is significant (p < alpha). Medians and ranks make a few very slow steps
 * harmless; they are counted as outliers and reported, never deciding. */
#include "compare/check.h"
#include "common/error.h"
#include "common/opts.h"
#include "common/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "METRIC=PCT" (split at the last '=': op names may hold one). */
int pdb_check_parse_limit(const char *arg, pdb_check_result *r)
{
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg)
        return pdb_fail("--max-regression: expected METRIC=PCT, got '%s'", arg);
    char *spec = pdb_xstrndup(arg, (size_t)(eq - arg));
    memset(r, 0, sizeof *r);
    int rc = pdb_metric_parse(spec, &r->metric);
    r->metric.spec = spec;   /* owned: freed by cmd_check, also on failure */
    if (rc != PDB_OK)
        return PDB_ERR;
    if (pdb_parse_double("--max-regression", eq + 1, &r->limit_pct) != PDB_OK)
        return PDB_ERR;
    if (r->limit_pct < 0)
        return pdb_fail("--max-regression: the percentage must not be negative ('%s')", arg);
    return PDB_OK;
}

/* Both sizes must reach --min-samples, and the rank test must be able to
 * reach alpha at all: with the exact test the smallest two-sided p is
 * 2 / C(nb + nt, nb) (2 steps against 2: 1/3). */
static bool too_few(const pdb_check_run *run, const pdb_comparison *c)
{
    if ((long)c->nb < run->min_samples || (long)c->nt < run->min_samples)
        return true;
    if (c->mwu.exact) {
        double ways = 1;
        for (size_t i = 1; i <= c->nb; i++)
            ways = ways * (double)(c->nt + i) / (double)i;
        return 2.0 / ways >= run->alpha;
    }
    return false;
}

void pdb_check_decide(const pdb_check_run *run, pdb_check_result *r)
{
    const pdb_comparison *c = &r->cmp;
    bool significant = !isnan(c->mwu.p) && c->mwu.p < run->alpha;
    if (too_few(run, c)) {
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "too few samples to decide: base %zu, test %zu (--min-samples %ld, alpha %g); "
                 "median change %+.2f%%", c->nb, c->nt, run->min_samples, run->alpha,
                 c->change_pct);
    } else if (c->worse_pct > r->limit_pct && significant) {
        r->status = PDB_CHECK_FAIL;
        snprintf(r->reason, sizeof r->reason,
                 "regression: median %+.2f%% (limit %g%%), significant (p = %.3g < %g)",
                 c->change_pct, r->limit_pct, c->mwu.p, run->alpha);
    } else {
        r->status = PDB_CHECK_PASS;
        const char *why = c->worse_pct > r->limit_pct ? "beyond the limit but not significant"
                          : significant && c->worse_pct < 0 ? "significant improvement"
                          : significant ? "significant but within the limit"
                                        : "not significant";
        snprintf(r->reason, sizeof r->reason, "median %+.2f%% (limit %g%%), p = %.3g: %s",
                 c->change_pct, r->limit_pct, c->mwu.p, why);
    }
}

/* Samples of one metric on both sides, compared and decided. */
int pdb_check_metric(pdb_cmp_run *base, pdb_cmp_run *test, pdb_check_run *run,
                        pdb_check_result *r)
{
    pdb_samples sb, st;
    if (pdb_metric_samples(base, &r->metric, &sb) != PDB_OK)
        return PDB_ERR;
    if (pdb_metric_samples(test, &r->metric, &st) != PDB_OK) {
        pdb_samples_free(&sb);
        return PDB_ERR;
    }
    int rc = PDB_OK;
    if (!sb.n || !st.n)
        rc = pdb_fail("run '%s' has no samples of metric '%s'", !sb.n ? base->name : test->name,
                      r->metric.spec);
    else {
        r->source = st.source;
        pdb_compare_samples(&sb, &st, r->metric.higher_is_worse, &r->cmp);
        pdb_check_decide(run, r);
        run->failed += r->status == PDB_CHECK_FAIL;
        run->inconclusive += r->status == PDB_CHECK_INCONCLUSIVE;
        run->passed += r->status == PDB_CHECK_PASS;
    }
    pdb_samples_free(&sb);
    pdb_samples_free(&st);
    return rc;
}

