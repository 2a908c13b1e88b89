/* check_share.c: `profdb check -m pyspy:FUNCTION=PCT`, the gate on a
 * sampled function's share.
 *
 * A py-spy profile has no steps: what it measures is the share of samples
 * whose stack holds FUNCTION. The limit is relative, like every limit of
 * check: 10% lets a share of 20% grow to 22%. The gate asks the same
 * question as for step samples ("is TEST worse than BASE moved by the
 * limit?") with the same p-value convention, two-sided Mann-Whitney, on
 * the samples as 0/1 values (1: the stack holds the function), the base's
 * count moved by the limit: the test of two proportions (pdb_share_p). It
 * measures sampling noise within the two profiles, treating samples as
 * independent draws, and the reasons say so. Verdicts as check.c's:
 * beyond the limit and significant fails, beyond and not significant is
 * inconclusive, within passes. */
#include "compare/check.h"
#include "compare/diff.h"
#include "common/error.h"
#include "common/stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int read_counts(pdb_cmp_run *side, const pdb_metric *m, pdb_pyspy_counts *c)
{
    pdb_metric_run mr = pdb_cmp_metric_run(side);
    if (pdb_metric_pyspy_counts(&mr, m->name, c) != PDB_OK)
        return PDB_ERR;
    if (c->samples == 0)
        return pdb_fail("run '%s' has no samples of metric '%s': it holds no py-spy samples",
                        side->name, m->spec);
    return PDB_OK;
}

/* r->cmp and r->gate from the counts: shares in percent where check's
 * outputs print medians. */
static void compare_shares(const pdb_pyspy_counts *b, const pdb_pyspy_counts *t,
                           const pdb_check_run *run, pdb_check_result *r)
{
    double nb = (double)b->samples, nt = (double)t->samples;
    double pb = (double)b->holding / nb, pt = (double)t->holding / nt;
    pdb_comparison *c = &r->cmp;
    memset(c, 0, sizeof *c);
    c->nb = (size_t)b->samples;
    c->nt = (size_t)t->samples;
    c->base_median = 100 * pb;
    c->test_median = 100 * pt;
    c->ratio = pb > 0 ? pt / pb : NAN;
    c->ci_lo = c->ci_hi = NAN;
    c->change_pct = pb > 0 ? 100 * (pt - pb) / pb : pt > 0 ? INFINITY : 0;
    c->worse_pct = c->change_pct;
    c->mwu.p = b->weighted ? NAN : pdb_share_p((double)b->holding, nb, (double)t->holding, nt);
    double moved = fmin(nb, (double)b->holding * (1 + r->limit_pct / 100));
    pdb_gate_stats *g = &r->gate;
    memset(g, 0, sizeof *g);
    g->p = b->weighted ? NAN : pdb_share_p(moved, nb, (double)t->holding, nt);
    g->toward_worse = pt > moved / nb;
    g->min_p = 0;
    (void)run;
}

static void decide_shares(const pdb_check_run *run, const pdb_pyspy_counts *b,
                          const pdb_pyspy_counts *t, pdb_check_result *r)
{
    const pdb_comparison *c = &r->cmp;
    char p[32], pd[32], n[96], files[96] = "";
    pdb_format_p(r->gate.p, p, sizeof p);
    pdb_format_p(c->mwu.p, pd, sizeof pd);
    snprintf(n, sizeof n, "%lld vs %lld samples", (long long)b->samples, (long long)t->samples);
    if (!strstr(r->metric.name, " (") && (b->files > 1 || t->files > 1))
        snprintf(files, sizeof files, "; a frame of that name is in %lld files",
                 (long long)(b->files > t->files ? b->files : t->files));
    bool beyond = c->worse_pct > r->limit_pct;
    bool significant = r->gate.p < run->alpha && r->gate.toward_worse;
    if (b->weighted) { /* open/close events timed: no sampling noise to test */
        r->status = beyond ? PDB_CHECK_FAIL : PDB_CHECK_PASS;
        snprintf(r->reason, sizeof r->reason,
                 "%sshare of time %.2f%% -> %.2f%% (%+.2f%%, limit %g%%): time-weighted "
                 "profiles (speedscope evented: open/close events timed, not sampled) have no "
                 "sampling noise to test%s",
                 beyond ? "regression: " : "", c->base_median, c->test_median, c->change_pct,
                 r->limit_pct, files);
        return;
    }
    const char *how = "two-sided Mann-Whitney on the samples holding it, i.e. two proportions; "
                      "sampling noise only";
    if ((long)c->nb < run->min_samples || (long)c->nt < run->min_samples) {
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "too few samples (%s, --min-samples %ld); share %.2f%% -> %.2f%% (%+.2f%%, "
                 "limit %g%%)%s", n, run->min_samples, c->base_median, c->test_median,
                 c->change_pct, r->limit_pct, files);
    } else if (beyond && significant) {
        r->status = PDB_CHECK_FAIL;
        snprintf(r->reason, sizeof r->reason,
                 "regression: share %.2f%% -> %.2f%% (%+.2f%%) > limit %g%%; above the base "
                 "share moved by the limit with p = %s < %g (%s, %s)%s", c->base_median,
                 c->test_median, c->change_pct, r->limit_pct, p, run->alpha, n, how, files);
    } else if (beyond) {
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "share %.2f%% -> %.2f%% (%+.2f%%) beyond the limit %g%%, but not "
                 "significantly (p = %s >= %g against the base moved by the limit; %s, %s): "
                 "longer profiles would decide%s", c->base_median, c->test_median,
                 c->change_pct, r->limit_pct, p, run->alpha, n, how, files);
    } else {
        r->status = PDB_CHECK_PASS;
        snprintf(r->reason, sizeof r->reason,
                 "share %.2f%% -> %.2f%% (%+.2f%%, limit %g%%): within the limit (p = %s "
                 "against base; %s, %s)%s", c->base_median, c->test_median, c->change_pct,
                 r->limit_pct, pd, n, how, files);
    }
}

int pdb_check_share(pdb_cmp_run *base, pdb_cmp_run *test, pdb_check_run *run,
                    pdb_check_result *r)
{
    pdb_pyspy_counts b, t;
    if (read_counts(base, &r->metric, &b) != PDB_OK || read_counts(test, &r->metric, &t) != PDB_OK)
        return PDB_ERR;
    if (b.weighted != t.weighted)
        return pdb_fail("metric '%s': run '%s' holds %s and run '%s' %s: the shares are of "
                        "different things", r->metric.spec, base->name,
                        b.weighted ? "time-weighted (evented) profiles" : "sample counts",
                        test->name, t.weighted ? "time-weighted (evented) profiles"
                                               : "sample counts");
    if (b.files == 0 && t.files == 0)
        return pdb_fail("metric '%s': neither run '%s' nor run '%s' sampled a function '%s' "
                        "(a name, or 'NAME (FILE)'; see 'profdb report pyspy')", r->metric.spec,
                        base->name, test->name, r->metric.name);
    r->source = "py-spy";
    snprintf(r->what, sizeof r->what, "share of the run's samples");
    r->metric.unit = "%";
    compare_shares(&b, &t, run, r);
    decide_shares(run, &b, &t, r);
    run->failed += r->status == PDB_CHECK_FAIL;
    run->inconclusive += r->status == PDB_CHECK_INCONCLUSIVE;
    run->passed += r->status == PDB_CHECK_PASS;
    return PDB_OK;
}
