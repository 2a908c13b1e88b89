/* check.c: the decisions of `profdb check`: limits as given on the command
 * line, each metric's samples on both sides compared, and the verdict.
 *
 * The question a gate asks is not "did anything change?" but "is TEST worse
 * than BASE by more than the limit?", so that is what is tested: each base
 * sample is moved by the limit (a time x 1.05 for a 5% limit, a throughput
 * x 0.95) and a Mann-Whitney test compares the test samples with those. Its
 * p-value is two-sided, the one convention `profdb diff` uses too
 * (common/stats.h: exact for up to 60 samples, ties included); it counts
 * when the ranks put the test samples on the worse side.
 *
 * The gate never passes a median beyond the limit:
 *
 *   regression    the median is worse by more than the limit and p < alpha;
 *                 or, when the sample sizes cannot reach alpha at all (3
 *                 steps against 3: the smallest two-sided p is 1/10), every
 *                 test sample is worse than every moved base sample (at
 *                 least 2 on each side): a change both large and consistent;
 *   inconclusive  the median is worse by more than the limit but not
 *                 significantly (or too few samples to tell): the reason
 *                 says how many steps per side would decide (Noether's
 *                 sample size at the shift seen, 80% power); also fewer
 *                 than --min-samples on a side, or too few samples to
 *                 reach alpha with a test sample worse than the base's
 *                 worst moved by the limit;
 *   pass          the median is within the limit (with too few samples to
 *                 reach alpha, also no test sample worse than the base's
 *                 worst moved by the limit).
 *
 * Medians and ranks make a few very slow steps harmless: they are counted as
 * outliers and reported, never deciding. */
#include "compare/check.h"
#include "common/error.h"
#include "common/opts.h"
#include "common/xalloc.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A limit as people write it: "5%", "+5%", "5" (all five percent),
 * "0.5%". A bare number below 1 is refused: "0.05" may mean 5% (a
 * fraction) or 0.05%, and guessing wrong either fails every build or none. */
int pdb_check_parse_pct(const char *text, double *pct)
{
    const char *s = text;
    if (*s == '+')
        s++;
    size_t n = strlen(s);
    bool percent = n > 0 && s[n - 1] == '%';
    char num[64];
    bool starts_number = n > 0 && (isdigit((unsigned char)s[0]) || s[0] == '.');
    if (!starts_number || n - percent >= sizeof num)
        return pdb_fail("--max-regression: expected a percentage such as 5%% or 5, got '%s'",
                        text);
    memcpy(num, s, n - percent);
    num[n - percent] = '\0';
    char *end;
    *pct = strtod(num, &end);
    if (*end || !isfinite(*pct))
        return pdb_fail("--max-regression: expected a percentage such as 5%% or 5, got '%s'",
                        text);
    if (!percent && *pct > 0 && *pct < 1)
        return pdb_fail("--max-regression: '%s' is ambiguous (a fraction or a percentage?): "
                        "write %g%% for %g percent, or %g%% for the fraction", text, *pct,
                        *pct, *pct * 100);
    return PDB_OK;
}

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
    return pdb_check_parse_pct(eq + 1, &r->limit_pct);
}

int pdb_check_add_limits(pdb_check_run *run, const char *const *specs, int n)
{
    run->r = pdb_xcalloc(2 * (size_t)n, sizeof *run->r);
    run->n = 0;
    for (int i = 0; i < n; i++) {
        pdb_check_result *r = &run->r[run->n++];
        if (pdb_check_parse_limit(specs[i], r) != PDB_OK)
            return PDB_ERR;
        char *companion = pdb_metric_companion(&r->metric);
        if (!companion)
            continue;
        pdb_check_result *c = &run->r[run->n++];
        *c = (pdb_check_result){.limit_pct = r->limit_pct};
        int rc = pdb_metric_parse(companion, &c->metric);
        c->metric.spec = companion;   /* owned, as parse_limit's */
        assert(rc == PDB_OK);
        (void)rc;
    }
    return PDB_OK;
}

/* The base samples moved by the limit in the bad direction. */
static double *shifted_base(const pdb_samples *b, bool higher_is_worse, double limit_pct)
{
    double f = higher_is_worse ? 1 + limit_pct / 100 : 1 - limit_pct / 100;
    double *v = pdb_xmalloc((b->n ? b->n : 1) * sizeof *v);
    for (size_t i = 0; i < b->n; i++)
        v[i] = b->v[i] * f;
    return v;
}

/* Whether every test sample is worse than every value of moved. */
static bool all_worse(const pdb_samples *t, const double *moved, size_t nb, bool higher_is_worse)
{
    for (size_t i = 0; i < t->n; i++)
        for (size_t j = 0; j < nb; j++)
            if (higher_is_worse ? !(t->v[i] > moved[j]) : !(t->v[i] < moved[j]))
                return false;
    return nb > 0 && t->n > 0;
}

/* Whether no test sample is worse than the base's worst sample moved by
 * the limit. */
static bool none_worse_than_worst(const pdb_samples *b, const pdb_samples *t,
                                  bool higher_is_worse, double limit_pct)
{
    if (!b->n || !t->n)
        return false;
    double worst = b->v[0];
    for (size_t i = 1; i < b->n; i++)
        worst = higher_is_worse ? fmax(worst, b->v[i]) : fmin(worst, b->v[i]);
    double bound = worst * (higher_is_worse ? 1 + limit_pct / 100 : 1 - limit_pct / 100);
    for (size_t i = 0; i < t->n; i++)
        if (higher_is_worse ? t->v[i] > bound : t->v[i] < bound)
            return false;
    return true;
}

void pdb_check_gate_stats(const pdb_samples *b, const pdb_samples *t, bool higher_is_worse,
                          double limit_pct, double alpha, pdb_gate_stats *g)
{
    memset(g, 0, sizeof *g);
    double *moved = shifted_base(b, higher_is_worse, limit_pct);
    pdb_mwu m;
    /* "test worse" is "test larger" for times; for rates, negate both. */
    if (higher_is_worse) {
        pdb_mann_whitney(t->v, t->n, moved, b->n, &m);
    } else {
        double *nt = pdb_xmalloc((t->n ? t->n : 1) * sizeof *nt);
        double *nm = pdb_xmalloc((b->n ? b->n : 1) * sizeof *nm);
        for (size_t i = 0; i < t->n; i++)
            nt[i] = -t->v[i];
        for (size_t i = 0; i < b->n; i++)
            nm[i] = -moved[i];
        pdb_mann_whitney(nt, t->n, nm, b->n, &m);
        free(nt);
        free(nm);
    }
    g->p = m.p;
    g->toward_worse = m.p_greater < m.p_less;
    g->exact = m.exact;
    g->min_p = pdb_mwu_min_p2(t->n, b->n);
    g->theta = t->n && b->n ? m.u / ((double)t->n * (double)b->n) : NAN;
    g->steps_needed = pdb_mwu_steps_needed(g->theta, alpha, PDB_CHECK_POWER);
    if (g->steps_needed) {
        /* Never fewer than there are: these did not decide. */
        long have = (long)(t->n > b->n ? t->n : b->n);
        if (g->steps_needed <= have)
            g->steps_needed = have + 1;
    }
    g->separated = all_worse(t, moved, b->n, higher_is_worse);
    g->contained = none_worse_than_worst(b, t, higher_is_worse, limit_pct);
    free(moved);
}

/* "about 23 steps per side would decide (80% power at the shift seen)", or
 * what is known when the ranks show no shift beyond the limit. */
static void steps_text(const pdb_gate_stats *g, char *buf, size_t cap)
{
    if (g->steps_needed)
        snprintf(buf, cap, "about %ld steps per side would decide (%.0f%% power at the shift "
                 "seen)", g->steps_needed, 100 * PDB_CHECK_POWER);
    else
        snprintf(buf, cap, "the steps' ranks show no shift beyond the limit, so no number of "
                 "steps can be estimated to decide");
}

void pdb_check_decide(const pdb_check_run *run, pdb_check_result *r)
{
    const pdb_comparison *c = &r->cmp;
    const pdb_gate_stats *g = &r->gate;
    bool beyond = c->worse_pct > r->limit_pct;
    bool reachable = g->min_p < run->alpha;
    bool significant = reachable && g->p < run->alpha && g->toward_worse;
    char n[64], p[32], steps[160];
    snprintf(n, sizeof n, "%zu vs %zu samples", c->nb, c->nt);
    pdb_format_p(g->p, p, sizeof p);
    steps_text(g, steps, sizeof steps);
    if ((long)c->nb < run->min_samples || (long)c->nt < run->min_samples) {
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "too few samples (%s, --min-samples %ld); median %+.2f%% (limit %g%%)%s%s", n,
                 run->min_samples, c->change_pct, r->limit_pct, beyond ? ": " : "",
                 beyond ? steps : "");
    } else if (beyond && significant) {
        r->status = PDB_CHECK_FAIL;
        snprintf(r->reason, sizeof r->reason,
                 "regression: median %+.2f%% > limit %g%%; worse than the limit with p = %s "
                 "< %g (%s, two-sided Mann-Whitney against base moved by the limit, %s)",
                 c->change_pct, r->limit_pct, p, run->alpha, n,
                 g->exact ? "exact" : "normal approx.");
    } else if (beyond && !reachable && g->separated && c->nb >= 2 && c->nt >= 2) {
        r->status = PDB_CHECK_FAIL;
        snprintf(r->reason, sizeof r->reason,
                 "regression: median %+.2f%% > limit %g%%; every test sample is worse than every "
                 "base sample by more than the limit (%s: too few for p < %g, consistent "
                 "enough to decide)", c->change_pct, r->limit_pct, n, run->alpha);
    } else if (beyond && !reachable) {
        /* The gate never passes a median beyond the limit. */
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "median %+.2f%% beyond the limit %g%%, but %s cannot decide (the smallest "
                 "possible p is %.3g >= alpha %g) and the samples overlap: %s", c->change_pct,
                 r->limit_pct, n, g->min_p, run->alpha, steps);
    } else if (beyond) {
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "median %+.2f%% beyond the limit %g%%, but not significantly (p = %s >= %g, %s, "
                 "two-sided Mann-Whitney against base moved by the limit): %s", c->change_pct,
                 r->limit_pct, p, run->alpha, n, steps);
    } else if (!reachable && !g->contained) {
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "cannot decide with %s: the smallest possible p is %.3g >= alpha %g, and a "
                 "test sample is worse than the base's worst by more than the limit; median "
                 "%+.2f%% (limit %g%%)", n, g->min_p, run->alpha, c->change_pct, r->limit_pct);
    } else if (!reachable) {
        r->status = PDB_CHECK_PASS;
        snprintf(r->reason, sizeof r->reason,
                 "median %+.2f%% (limit %g%%); too few samples for a test (%s), but the median "
                 "is within the limit and no test sample is worse than the base's worst by "
                 "more than the limit", c->change_pct, r->limit_pct, n);
    } else {
        r->status = PDB_CHECK_PASS;
        char pb[32];
        pdb_format_p(c->mwu.p, pb, sizeof pb);
        if (c->worse_pct < 0 && c->mwu.p < run->alpha)
            snprintf(r->reason, sizeof r->reason,
                     "median %+.2f%% (limit %g%%): a significant improvement (p = %s against "
                     "base, two-sided Mann-Whitney; %s)", c->change_pct, r->limit_pct, pb, n);
        else
            snprintf(r->reason, sizeof r->reason,
                     "median %+.2f%% (limit %g%%): within the limit (p = %s against base, "
                     "two-sided Mann-Whitney; %s)", c->change_pct, r->limit_pct, pb, n);
    }
}

/* The error for a side without samples, with what that run does hold. */
static int no_samples(const pdb_cmp_run *side, const pdb_metric *m)
{
    char have[600];
    pdb_metric_run mr = pdb_cmp_metric_run(side);
    if (pdb_metric_available(&mr, have, sizeof have) != PDB_OK)
        return PDB_ERR;
    return pdb_fail("run '%s' has no samples of metric '%s': %s", side->name, m->spec, have);
}

/* Compares the two sides' samples and decides; samples of different kinds
 * (per-step values against interval means) are not comparable. */
static void compare_and_decide(const pdb_samples *sb, const pdb_samples *st, pdb_check_run *run,
                               pdb_check_result *r)
{
    r->source = st->source;
    snprintf(r->what, sizeof r->what, "%s", st->what);
    if (!r->metric.unit && st->unit)
        r->metric.unit = st->unit;
    if (!r->metric.unit)
        r->metric.unit = "";
    pdb_compare_samples(sb, st, r->metric.higher_is_worse, &r->cmp);
    pdb_check_gate_stats(sb, st, r->metric.higher_is_worse, r->limit_pct, run->alpha, &r->gate);
    pdb_check_decide(run, r);
    if (strcmp(sb->what, st->what) != 0) {
        r->status = PDB_CHECK_INCONCLUSIVE;
        snprintf(r->reason, sizeof r->reason,
                 "the runs measure it differently (base: %s, %s; test: %s, %s); median %+.2f%%",
                 sb->source, sb->what, st->source, st->what, r->cmp.change_pct);
    }
}

int pdb_check_metric(pdb_cmp_run *base, pdb_cmp_run *test, pdb_check_run *run,
                     pdb_check_result *r)
{
    if (r->metric.kind == PDB_METRIC_PYSPY) /* counts, not per-step samples */
        return pdb_check_share(base, test, run, r);
    pdb_samples sb, st;
    pdb_metric_run mb = pdb_cmp_metric_run(base), mt = pdb_cmp_metric_run(test);
    if (pdb_metric_samples(&mb, &r->metric, &sb) != PDB_OK)
        return PDB_ERR;
    if (pdb_metric_samples(&mt, &r->metric, &st) != PDB_OK) {
        pdb_samples_free(&sb);
        return PDB_ERR;
    }
    int rc = PDB_OK;
    if (!sb.n || !st.n) {
        rc = no_samples(!sb.n ? base : test, &r->metric);
    } else if (strcmp(sb.source ? sb.source : "", st.source ? st.source : "") != 0) {
        /* Not "inconclusive" (exit 0): a run whose step log went missing
         * would pass on its trace's ProfilerSteps. */
        rc = pdb_fail("metric '%s': run '%s' has samples of it only from %s (%s), run '%s' only "
                      "from %s (%s): nothing comparable to gate; ingest the inputs the run lacks "
                      "(--replace)", r->metric.spec, test->name, st.source, st.what, base->name,
                      sb.source, sb.what);
    } else if (sb.absent && st.absent) {
        rc = pdb_fail("metric '%s': neither run '%s' nor run '%s' has a call of '%s' in its "
                      "ProfilerSteps (names must match exactly; see 'profdb report kernels' "
                      "or 'ops')", r->metric.spec, base->name, test->name, r->metric.name);
    } else {
        compare_and_decide(&sb, &st, run, r);
        run->failed += r->status == PDB_CHECK_FAIL;
        run->inconclusive += r->status == PDB_CHECK_INCONCLUSIVE;
        run->passed += r->status == PDB_CHECK_PASS;
    }
    pdb_samples_free(&sb);
    pdb_samples_free(&st);
    return rc;
}
