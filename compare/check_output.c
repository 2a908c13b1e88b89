/* check_output.c: how the verdicts of `profdb check` are written: the
 * one-line verdict, per-metric details, JUnit XML and Markdown (check.h).
 * The decisions themselves are made in check.c. */
#include "compare/check.h"
#include "common/stats.h"
#include "common/strbuf.h"
#include "render/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pdb_check_format_value(double v, const char *unit, char *buf, size_t cap)
{
    if (isnan(v)) {
        snprintf(buf, cap, "-");
        return;
    }
    if (strcmp(unit, "s") != 0) {
        snprintf(buf, cap, "%.4g %s", v, unit);
        return;
    }
    double a = fabs(v);
    if (a >= 1 || a == 0)
        snprintf(buf, cap, "%.4g s", v);
    else if (a >= 1e-3)
        snprintf(buf, cap, "%.4g ms", v * 1e3);
    else if (a >= 1e-6)
        snprintf(buf, cap, "%.4g us", v * 1e6);
    else
        snprintf(buf, cap, "%.4g ns", v * 1e9);
}

const char *pdb_check_verdict(const pdb_check_run *run)
{
    if (run->failed)
        return "REGRESSION";
    if (run->inconclusive)
        return "INCONCLUSIVE";
    return "PASS";
}

static const char *status_name(pdb_check_status s)
{
    return s == PDB_CHECK_FAIL ? "REGRESSION" : s == PDB_CHECK_INCONCLUSIVE ? "INCONCLUSIVE"
                                                                            : "pass";
}

/* "3 slow steps in test beyond 1.2 s (worst 5 s)", or "" */
static void outlier_text(const pdb_check_result *r, char *buf, size_t cap)
{
    const pdb_comparison *c = &r->cmp;
    buf[0] = '\0';
    if (!c->out_b && !c->out_t)
        return;
    char fence[48], worst[48];
    pdb_check_format_value(c->fence_t, r->metric.unit, fence, sizeof fence);
    pdb_check_format_value(c->worst_t, r->metric.unit, worst, sizeof worst);
    const char *dir = r->metric.higher_is_worse ? "beyond" : "below";
    if (c->out_t)
        snprintf(buf, cap, "outliers: %zu in test %s %s (worst %s), %zu in base", c->out_t, dir,
                 fence, worst, c->out_b);
    else
        snprintf(buf, cap, "outliers: 0 in test, %zu in base", c->out_b);
}

/* An inconclusive metric whose median is beyond its limit: the warning
 * every output carries, with the steps per side that would decide. */
static bool beyond(const pdb_check_result *r)
{
    return r->cmp.worse_pct > r->limit_pct;
}

/* A py-spy share is one value per run: no median, no interval, no steps. */
static bool is_share(const pdb_check_result *r)
{
    return r->metric.kind == PDB_METRIC_PYSPY;
}

static bool beyond_undecided(const pdb_check_result *r)
{
    return r->status == PDB_CHECK_INCONCLUSIVE && beyond(r);
}

/* "beyond the limit, not significant: 23 steps per side would decide" */
static const char *decide_text(const pdb_check_result *r)
{
    static char buf[160];
    if (is_share(r))
        snprintf(buf, sizeof buf, "share beyond the limit, not significantly: longer "
                 "profiles would decide");
    else if (r->gate.steps_needed)
        snprintf(buf, sizeof buf, "median beyond the limit, not significantly: about %ld "
                 "steps per side would decide", r->gate.steps_needed);
    else
        snprintf(buf, sizeof buf, "median beyond the limit, not significantly: the ranks "
                 "show no shift beyond it");
    return buf;
}

/* Names (runs, metrics) are data: terminal text (render/text.h), so the
 * verdict stays one line and no escape sequence reaches a terminal or log. */
void pdb_check_write_line(const pdb_check_run *run, FILE *out)
{
    fprintf(out, "%s: ", pdb_check_verdict(run));
    pdb_fput_term(out, run->base);
    fputs(" -> ", out);
    pdb_fput_term(out, run->test);
    fprintf(out, ": %d metrics, %d regressed, %d inconclusive (p: %s, against base as in "
                 "'profdb diff'; beyond: against base moved by the limit)", run->n, run->failed,
            run->inconclusive, PDB_CHECK_P_NAME);
    for (int i = 0; i < run->n; i++) {
        const pdb_check_result *r = &run->r[i];
        char o[200], p[32], pg[32];
        outlier_text(r, o, sizeof o);
        pdb_format_p(r->cmp.mwu.p, p, sizeof p);
        pdb_format_p(r->gate.p, pg, sizeof pg);
        fputs("; ", out);
        pdb_fput_term(out, r->metric.spec);
        fprintf(out, " %s %+.2f%% (limit %g%%, p=%s", status_name(r->status),
                r->cmp.change_pct, r->limit_pct, p);
        if (beyond(r))
            fprintf(out, ", beyond p=%s", pg);
        fprintf(out, ", %zu vs %zu", r->cmp.nb, r->cmp.nt);
        if (beyond_undecided(r))
            fprintf(out, ", %s", decide_text(r));
        fprintf(out, ")%s", o[0] ? ", " : "");
        pdb_fput_term(out, o);
    }
    fputc('\n', out);
}

void pdb_check_write_details(const pdb_check_run *run, FILE *out)
{
    for (int i = 0; i < run->n; i++) {
        const pdb_check_result *r = &run->r[i];
        char b[48], t[48], o[200];
        pdb_check_format_value(r->cmp.base_median, r->metric.unit, b, sizeof b);
        pdb_check_format_value(r->cmp.test_median, r->metric.unit, t, sizeof t);
        outlier_text(r, o, sizeof o);
        fprintf(out, "%-12s ", status_name(r->status));
        pdb_fput_term(out, r->metric.spec);
        if (is_share(r))
            fprintf(out, ": share %s -> %s, ratio %.4f, n %zu/%zu samples (", b, t, r->cmp.ratio,
                    r->cmp.nb, r->cmp.nt);
        else
            fprintf(out, ": median %s -> %s, ratio %.4f [95%% CI %.4f, %.4f], n %zu/%zu (", b,
                    t, r->cmp.ratio, r->cmp.ci_lo, r->cmp.ci_hi, r->cmp.nb, r->cmp.nt);
        pdb_fput_term(out, r->source ? r->source : "-");
        if (r->what[0]) {
            fputs(": ", out);
            pdb_fput_term(out, r->what);
        }
        char pb[32];
        pdb_format_p(r->cmp.mwu.p, pb, sizeof pb);
        fprintf(out, "), p against base %s (two-sided Mann-Whitney, as 'profdb diff'): ", pb);
        pdb_fput_term(out, r->reason);
        if (o[0]) {
            fputs("; ", out);
            pdb_fput_term(out, o);
        }
        fputc('\n', out);
    }
}

/* ---- JUnit XML ---------------------------------------------------------- */

static void junit_case(const pdb_check_run *run, const pdb_check_result *r, FILE *out)
{
    fputs("    <testcase classname=\"profdb.check\" name=\"", out);
    pdb_fput_xml(out, r->metric.spec);
    fputs("\" time=\"0\">\n", out);
    bool failure = r->status == PDB_CHECK_FAIL ||
                   (r->status == PDB_CHECK_INCONCLUSIVE && run->fail_inconclusive);
    if (failure) {
        fprintf(out, "      <failure type=\"%s\" message=\"",
                r->status == PDB_CHECK_FAIL ? "regression" : "inconclusive");
        pdb_fput_xml(out, r->reason);
        fputs("\"/>\n", out);
    } else if (r->status == PDB_CHECK_INCONCLUSIVE) {
        fputs("      <skipped message=\"", out);
        pdb_fput_xml(out, r->reason);
        fputs("\"/>\n", out);
    }
    if (beyond_undecided(r)) {
        /* JUnit has no warning element: CI servers show system-err beside
         * the test, so the warning goes there, whatever the exit status. */
        fputs("      <system-err>warning: ", out);
        pdb_fput_xml(out, r->metric.spec);
        fputs(": ", out);
        pdb_fput_xml(out, r->reason);
        fputs("</system-err>\n", out);
    }
    /* The details line carries the medians, interval and outliers. */
    pdb_check_run one = *run;
    one.r = (pdb_check_result *)r;
    one.n = 1;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem) {
        pdb_check_write_details(&one, mem);
        fclose(mem);
        fputs("      <system-out>", out);
        pdb_fput_xml(out, text);
        fputs("</system-out>\n", out);
        free(text);
    }
    fputs("    </testcase>\n", out);
}

void pdb_check_write_junit(const pdb_check_run *run, FILE *out)
{
    int failures = run->failed + (run->fail_inconclusive ? run->inconclusive : 0);
    int skipped = run->fail_inconclusive ? 0 : run->inconclusive;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out, "<testsuites name=\"profdb check\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
                 "skipped=\"%d\" time=\"0\">\n", run->n, failures, skipped);
    fputs("  <testsuite name=\"profdb check ", out);
    pdb_fput_xml(out, run->base);
    fputs(" -&gt; ", out);
    pdb_fput_xml(out, run->test);
    fprintf(out, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"0\">\n",
            run->n, failures, skipped);
    for (int i = 0; i < run->n; i++)
        junit_case(run, &run->r[i], out);
    fputs("  </testsuite>\n</testsuites>\n", out);
}

/* ---- Markdown ----------------------------------------------------------- */

void pdb_check_write_markdown(const pdb_check_run *run, FILE *out)
{
    fputs("## profdb check: ", out);
    fputs(pdb_check_verdict(run), out);
    /* Names in prose as code spans, in the table as escaped text (text.h). */
    fputs("\n\nBaseline ", out);
    pdb_fput_md_code(out, run->base);
    fputs(", test ", out);
    pdb_fput_md_code(out, run->test);
    fprintf(out, ": %d metrics, %d regressed, %d inconclusive (alpha %g, "
                 "at least %ld samples per side).\n\n",
            run->n, run->failed, run->inconclusive, run->alpha, run->min_samples);
    fputs("| metric | verdict | base median | test median | change | ratio 95% CI | p against "
          "base | p against base moved by the limit "
          "| n base/test | limit | outliers |\n", out);
    fputs("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |\n", out);
    for (int i = 0; i < run->n; i++) {
        const pdb_check_result *r = &run->r[i];
        char b[48], t[48];
        pdb_check_format_value(r->cmp.base_median, r->metric.unit, b, sizeof b);
        pdb_check_format_value(r->cmp.test_median, r->metric.unit, t, sizeof t);
        fputs("| ", out);
        pdb_fput_md(out, r->metric.spec);
        char pg[32], pb[32];
        /* The test against the moved base speaks only to a median beyond
         * the limit: within it, that p measures how much better TEST is. */
        if (beyond(r))
            pdb_format_p(r->gate.p, pg, sizeof pg);
        else
            snprintf(pg, sizeof pg, "-");
        pdb_format_p(r->cmp.mwu.p, pb, sizeof pb);
        char ci[64];
        if (is_share(r))
            snprintf(ci, sizeof ci, "- (a share)");
        else
            snprintf(ci, sizeof ci, "%.4f to %.4f", r->cmp.ci_lo, r->cmp.ci_hi);
        fprintf(out, " | %s | %s%s | %s%s | %+.2f%% | %s | %s | %s | %zu/%zu | %g%% | ",
                status_name(r->status), is_share(r) ? "share " : "", b,
                is_share(r) ? "share " : "", t, r->cmp.change_pct, ci, pb, pg, r->cmp.nb,
                r->cmp.nt, r->limit_pct);
        fprintf(out, "%zu test, %zu base |\n", r->cmp.out_t, r->cmp.out_b);
    }
    fputs("\n", out);
    for (int i = 0; i < run->n; i++) {
        char o[200];
        outlier_text(&run->r[i], o, sizeof o);
        fputs("- ", out);
        pdb_fput_md_code(out, run->r[i].metric.spec);
        fputs(": ", out);
        pdb_fput_md(out, run->r[i].reason);
        if (o[0]) {
            fputs("; ", out);
            pdb_fput_md(out, o);
        }
        fputs("\n", out);
    }
    for (int i = 0; i < run->n; i++) {
        const pdb_check_result *r = &run->r[i];
        if (!beyond_undecided(r))
            continue;
        fputs("\n> [!WARNING]\n> ", out);
        pdb_fput_md_code(out, r->metric.spec);
        fprintf(out, ": %s %+.2f%% is beyond the limit %g%% but not significantly; ",
                is_share(r) ? "share" : "median", r->cmp.change_pct, r->limit_pct);
        if (is_share(r))
            fputs("longer profiles would decide.\n", out);
        else if (r->gate.steps_needed)
            fprintf(out, "about %ld steps per side would decide.\n", r->gate.steps_needed);
        else
            fputs("the steps' ranks show no shift beyond the limit.\n", out);
    }
    fputs("\nA metric regresses when its median moved the bad way by more than its limit\n"
          "and a Mann-Whitney test of the test samples against the base samples moved by\n"
          "the limit gives p < alpha; with too few samples for that, when every test\n"
          "sample is worse than every moved base sample. A median beyond the limit\n"
          "without that is inconclusive, never a pass. Every p is " PDB_CHECK_P_NAME ";\n"
          "'p against base' is the one 'profdb diff' prints. Outliers (beyond Q3 + 3 IQR)\n"
          "are reported, not deciding.\n",
          out);
}
