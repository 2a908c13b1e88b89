/* trend_output.c: how a trend is shown: its runs and change points as
 * result sets in every format, the verdict line of --check, and the
 * `trend --out DIR` folder (see trend.h).
 *
 *   DIR/index.html            index.md as a page for a browser (render/html.h)
 *   DIR/index.md              per metric: the current level, the verdict,
 *                             the change points; the charts
 *   DIR/trend-N.csv           the runs of metric N (in the order given)
 *   DIR/trend-N-changes.csv   its change points
 *   DIR/trend-N.{gp,dat}      its chart: the median per run, the
 *                             interquartile band, the level of each segment
 *                             and the change points (.png, .svg with gnuplot)
 *
 * Rows go through temp tables and compare/queries/trend.sql, so they render
 * like every other result set; names from the data reach Markdown escaped
 * and gnuplot only through the data file. */
#include "compare/trend.h"
#include "common/db.h"
#include "common/error.h"
#include "common/stats.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "compare/changepoint.h"
#include "compare/check.h"
#include "compare/queries.h"
#include "render/chart.h"
#include "render/html.h"
#include "render/files.h"
#include "render/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Change points shown in index.md; the CSV has them all. */
#define MD_CHANGES 20

static bool is_time(const pdb_trend *t)
{
    return strcmp(t->unit, "s") == 0;
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

/* A p-value in a result set, never 0: in tables for people as text
 * ("0.00216", "< 1e-16"; the renderer's three decimals would print 0), in
 * CSV, TSV and JSON as a number, one below PDB_P_FLOOR as that bound. */
static void bind_p(sqlite3_stmt *st, int i, double p, bool text)
{
    if (text && !isnan(p)) {
        char buf[32];
        pdb_format_p(p, buf, sizeof buf);
        sqlite3_bind_text(st, i, buf, -1, SQLITE_TRANSIENT);
    } else {
        bind_real(st, i, isnan(p) ? p : fmax(p, PDB_P_FLOOR));
    }
}

/* "up 10.3% (worse)"; "up from 0" when the level before was 0. Words,
 * not a sign: a CSV cell starting with + or - is guarded as a formula. */
static void change_text(const pdb_trend_change *c, char *buf, size_t cap)
{
    const char *dir = c->after > c->before ? "up" : "down";
    if (isnan(c->change_pct))
        snprintf(buf, cap, "%s from 0 (%s)", dir, c->worse ? "worse" : "better");
    else
        snprintf(buf, cap, "%s %.1f%% (%s)", dir, fabs(c->change_pct),
                 c->worse ? "worse" : "better");
}

/* ---- the temp tables ------------------------------------------------------ */

static int add_runs(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o, bool text)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(db, "trend.add_run", NULL, &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (size_t i = 0; rc == PDB_OK && i < t->n; i++) {
        const pdb_trend_point *p = &t->pt[i];
        sqlite3_bind_int64(st, 1, (int64_t)i + 1);
        sqlite3_bind_text(st, 2, p->run, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, p->order, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, (int64_t)p->samples);
        bind_real(st, 5, p->median);
        bind_real(st, 6, p->q1);
        bind_real(st, 7, p->q3);
        bind_real(st, 8, p->median != 0 ? 100 * (p->q3 - p->q1) / fabs(p->median) : NAN);
        bind_real(st, 9, p->level);
        if (p->change >= 0) {
            char change[32];
            change_text(&t->ch[p->change], change, sizeof change);
            sqlite3_bind_text(st, 10, change, -1, SQLITE_TRANSIENT);
            bind_p(st, 11, t->ch[p->change].p, text);
        } else {
            sqlite3_bind_text(st, 10, "", -1, SQLITE_STATIC);
            sqlite3_bind_null(st, 11);
        }
        sqlite3_bind_text(st, 12, o->by ? p->order : p->run, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 13, p->change >= 0);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

static int add_changes(sqlite3 *db, const pdb_trend *t, bool text)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(db, "trend.add_change", NULL, &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (size_t i = 0; rc == PDB_OK && i < t->nch; i++) {
        const pdb_trend_change *c = &t->ch[i];
        sqlite3_bind_int64(st, 1, (int64_t)i + 1);
        sqlite3_bind_text(st, 2, t->pt[c->at].run, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, t->pt[c->at].order, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, t->pt[c->at - 1].run, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, (int64_t)(c->at - c->from));
        sqlite3_bind_int64(st, 6, (int64_t)(c->to - c->at));
        bind_real(st, 7, c->before);
        bind_real(st, 8, c->after);
        bind_real(st, 9, round(c->change_pct * 100) / 100);
        sqlite3_bind_text(st, 10, c->worse ? "worse" : "better", -1, SQLITE_STATIC);
        bind_p(st, 11, c->p, text);
        sqlite3_bind_text(st, 12, c->tail ? "newest runs" : "split", -1, SQLITE_STATIC);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* text: p-values as text, for the table and Markdown formats. */
static int fill(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o, bool text)
{
    if (pdb_compare_exec(db, "trend.create_tables") != PDB_OK ||
        add_runs(db, t, o, text) != PDB_OK)
        return PDB_ERR;
    return add_changes(db, t, text);
}

/* Renders the runs or the change points of the filled tables. */
static int render(sqlite3 *db, const pdb_trend *t, bool changes, const pdb_render_opts *r,
                  FILE *out)
{
    const char *q = changes ? (is_time(t) ? "trend.changes_time" : "trend.changes_value")
                            : (is_time(t) ? "trend.runs_time" : "trend.runs_value");
    sqlite3_stmt *st;
    if (pdb_compare_prepare(db, q, NULL, &st) != PDB_OK)
        return PDB_ERR;
    if (!is_time(t))
        sqlite3_bind_text(st, 1, t->unit, -1, SQLITE_STATIC);
    int rc = pdb_render_stmt(st, r, out);
    sqlite3_finalize(st);
    return rc;
}

/* ---- text ------------------------------------------------------------------ */

/* s as one line of printable text (names come from users and data). */
static void clean(pdb_buf *b, const char *s)
{
    pdb_text_term(b, s);
}

/* "30 runs ordered by label 'date'; per-step values from the step log; 1
 * change point (false-alarm rate 0.01 per history)" */
static void describe(const pdb_trend *t, const pdb_trend_opts *o, pdb_buf *b)
{
    const pdb_trend_point *last = &t->pt[t->n - 1];
    pdb_buf_addf(b, "%zu run%s ordered by ", t->n, t->n == 1 ? "" : "s");
    if (o->by) {
        pdb_buf_adds(b, "label '");
        clean(b, o->by);
        pdb_buf_adds(b, "'");
    } else {
        pdb_buf_adds(b, "ingest time");
    }
    pdb_buf_addf(b, "; %s from the %s", last->what, last->source);
    pdb_buf_addf(b, "; %zu change point%s (false-alarm rate %g per history)", t->nch,
                 t->nch == 1 ? "" : "s", o->alpha);
}

/* Runs left out, and runs measured differently from the newest: said on
 * stderr, so no format hides them. */
static void notes(const pdb_trend *t, const pdb_trend_opts *o)
{
    pdb_buf b = PDB_BUF_INIT;
    clean(&b, t->spec);
    if (t->without)
        fprintf(stderr, "profdb: %s: %zu run%s without samples left out\n", pdb_buf_str(&b),
                t->without, t->without == 1 ? "" : "s");
    if (t->unlabelled)
        fprintf(stderr, "profdb: %s: %zu run%s without the label of --by left out\n",
                pdb_buf_str(&b), t->unlabelled, t->unlabelled == 1 ? "" : "s");
    if (t->older)
        fprintf(stderr, "profdb: %s: %zu older run%s left out (--last %ld)\n", pdb_buf_str(&b),
                t->older, t->older == 1 ? "" : "s", o->last);
    if (t->mixed)
        fprintf(stderr, "profdb: warning: %s: %zu run%s measured with other values than the "
                        "newest (%s from the %s): the trend compares unlike numbers\n",
                pdb_buf_str(&b), t->mixed, t->mixed == 1 ? "" : "s",
                t->pt[t->n - 1].what, t->pt[t->n - 1].source);
    pdb_buf_free(&b);
}

int pdb_trend_print(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o,
                    const pdb_render_opts *r, bool changes_only, FILE *out)
{
    notes(t, o);
    bool text = r->format == PDB_OUT_TABLE || r->format == PDB_OUT_MD;
    if (fill(db, t, o, text) != PDB_OK)
        return PDB_ERR;
    if (!text)
        return render(db, t, changes_only, r, out);
    bool md = r->format == PDB_OUT_MD;
    pdb_buf b = PDB_BUF_INIT;
    if (md)
        pdb_text_md(&b, t->spec);
    else
        clean(&b, t->spec);
    fprintf(out, md ? "\n### %s\n\n" : "\n== %s ==\n", pdb_buf_str(&b));
    pdb_buf_reset(&b);
    describe(t, o, &b);
    if (md) {
        pdb_buf e = PDB_BUF_INIT;
        pdb_text_md(&e, pdb_buf_str(&b));
        fprintf(out, "%s\n\n", pdb_buf_str(&e));
        pdb_buf_free(&e);
    } else {
        fprintf(out, "%s\n\n", pdb_buf_str(&b));
    }
    pdb_buf_free(&b);
    int rc = changes_only ? PDB_OK : render(db, t, false, r, out);
    if (rc == PDB_OK && t->nch) {
        fprintf(out, md ? "\nChange points:\n\n" : "\nchange points:\n");
        rc = render(db, t, true, r, out);
    } else if (rc == PDB_OK && changes_only) {
        fputs("no change points\n", out);
    }
    return rc;
}

/* ---- the verdict ------------------------------------------------------------ */

static const char *verdict_word(const pdb_trend_verdict *v, bool upper)
{
    return v->regression ? "REGRESSION" : v->inconclusive ? "INCONCLUSIVE" : upper ? "PASS" : "pass";
}

void pdb_trend_write_verdict(const pdb_trend *t, const pdb_trend_verdict *v, FILE *out)
{
    pdb_buf b = PDB_BUF_INIT;
    clean(&b, t->spec);
    char from[48], to[48];
    pdb_check_format_value(v->from, t->unit, from, sizeof from);
    pdb_check_format_value(v->to, t->unit, to, sizeof to);
    fprintf(out, "%s: %s", verdict_word(v, true), pdb_buf_str(&b));
    if (!isnan(v->change_pct))
        fprintf(out, " %+.2f%% (%s -> %s)", v->change_pct, from, to);
    fputs(": ", out);
    pdb_fput_term(out, v->reason);
    fputc('\n', out);
    pdb_buf_free(&b);
}

/* ---- the folder --------------------------------------------------------------- */

static void md_text(FILE *md, const char *s)
{
    pdb_fput_md(md, s);
}

/* A title "METRIC over N runs" as escaped Markdown in cap bytes: the name is
 * shortened until its escaped form fits, so no escape is ever cut. */
static void md_title(const pdb_trend *t, char *out, size_t cap)
{
    char suffix[48], cut[256];
    snprintf(suffix, sizeof suffix, " over %zu runs", t->n);
    for (size_t width = 40; width >= 4; width /= 2) {
        pdb_ellipsize(t->spec, width, cut, sizeof cut);
        pdb_buf b = PDB_BUF_INIT;
        pdb_text_md(&b, cut);
        bool fits = b.len + strlen(suffix) < cap;
        if (fits)
            snprintf(out, cap, "%s%s", pdb_buf_str(&b), suffix);
        pdb_buf_free(&b);
        if (fits)
            return;
    }
    snprintf(out, cap, "metric%s", suffix);
}

static int write_csv(sqlite3 *db, const pdb_trend *t, bool changes, const char *dir,
                     const char *name)
{
    FILE *f = pdb_out_create(dir, name, "csv");
    if (!f)
        return PDB_ERR;
    pdb_render_opts r = PDB_RENDER_DEFAULTS;
    r.format = PDB_OUT_CSV;
    int rc = render(db, t, changes, &r, f);
    int closed = pdb_out_close(f, name);
    return rc == PDB_OK ? closed : rc;
}

/* The chart's axis: milliseconds for times, else the unit. */
static const char *axis_of(const pdb_trend *t)
{
    if (is_time(t))
        return "milliseconds";
    if (strcmp(t->unit, "/s") == 0)
        return "per second";
    return t->unit[0] ? t->unit : "value";
}

/* Whether the spread of a run's samples is noise around one value, which
 * a quartile band shows: times, rates and percentages are measured again
 * at each step. A step-log metric of any other unit (a loss, a gradient
 * norm, a learning rate, allocated bytes) moves through the run: its
 * quartiles span the run's progress (a falling loss), not its noise. */
static bool spread_is_noise(const pdb_trend *t)
{
    return t->metric.kind != PDB_METRIC_STEPLOG || strcmp(t->unit, "s") == 0 ||
           strcmp(t->unit, "/s") == 0 || strcmp(t->unit, "%") == 0;
}

static int write_chart(sqlite3 *db, const pdb_trend *t, const char *name, const char *dir,
                       bool *written)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(db, "trend.chart", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_double(st, 1, is_time(t) ? 1e3 : 1);
    sqlite3_bind_int(st, 2, spread_is_noise(t));
    pdb_chart_spec spec = {name, "Median per run", axis_of(t), PDB_CHART_TREND, false, 1};
    int rc = pdb_chart_write(st, &spec, t->spec, dir, written);
    sqlite3_finalize(st);
    return rc;
}

/* The headline of one metric: where it stands, the verdict, the change points. */
static void md_metric(FILE *md, const pdb_trend *t, const pdb_trend_opts *o,
                      const pdb_trend_verdict *v, const char *name)
{
    char level[48];
    pdb_buf b = PDB_BUF_INIT;
    fputs("\n## ", md);
    md_text(md, t->spec);
    describe(t, o, &b);
    fputs("\n\n", md);
    md_text(md, pdb_buf_str(&b));
    pdb_buf_free(&b);
    const pdb_trend_point *last = &t->pt[t->n - 1];
    size_t since = t->nch ? t->ch[t->nch - 1].at : 0;
    pdb_check_format_value(last->level, t->unit, level, sizeof level);
    fprintf(md, ".\n\n- **Now**: %s (", level);
    if (since == t->n - 1)
        fputs("the newest run alone", md);
    else
        fprintf(md, "the median of the medians of the %zu runs since ", t->n - since);
    if (since && since != t->n - 1)
        md_text(md, t->pt[since].run);
    else if (since != t->n - 1)
        fputs("the first", md);
    fputs(")\n", md);
    if (v && !isnan(v->limit_pct)) {
        fprintf(md, "- **Check** (limit %g%%): **%s**: ", v->limit_pct,
                verdict_word(v, false));
        md_text(md, v->reason);
        fputc('\n', md);
    }
    if (!t->nch) {
        fputs("- No change points.\n", md);
    } else {
        fputs("\n| run | before | after | change | runs before / after | p | test |\n"
              "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n", md);
        size_t first = t->nch > MD_CHANGES ? t->nch - MD_CHANGES : 0;
        for (size_t i = first; i < t->nch; i++) {
            const pdb_trend_change *c = &t->ch[i];
            char before[48], after[48], ch[32], p[32];
            pdb_format_p(c->p, p, sizeof p);
            pdb_check_format_value(c->before, t->unit, before, sizeof before);
            pdb_check_format_value(c->after, t->unit, after, sizeof after);
            change_text(c, ch, sizeof ch);
            fputs("| ", md);
            md_text(md, t->pt[c->at].run);
            fprintf(md, " | %s | %s | %s | %zu / %zu | %s | %s |\n", before, after, ch,
                    c->at - c->from, c->to - c->at, p, c->tail ? "newest runs" : "split");
        }
        if (first)
            fprintf(md, "\n(the last %d of %zu)\n", MD_CHANGES, t->nch);
    }
    fprintf(md, "\nAll runs: [%s.csv](%s.csv) · change points: [%s-changes.csv](%s-changes.csv)\n",
            name, name, name, name);
}

int pdb_trend_folder(sqlite3 *db, const pdb_trend *t, int n, const pdb_trend_opts *o,
                     const pdb_trend_verdict *verdicts, const char *dir)
{
    if (pdb_out_dir(dir) != PDB_OK)
        return PDB_ERR;
    FILE *md = pdb_out_create(dir, "index", "md");
    if (!md)
        return PDB_ERR;
    fprintf(md, "# profdb trend\n\nChange points: binary segmentation with a permutation test, "
                "and a test of the newest runs; on a history without a shift, at most a share "
                "%g of histories shows one (docs/compare.md).\n", o->alpha);
    pdb_chart *charts = pdb_xcalloc((size_t)n, sizeof *charts);
    int nchart = 0, rc = PDB_OK;
    for (int i = 0; rc == PDB_OK && i < n; i++) {
        char name[32], changes[48];
        snprintf(name, sizeof name, "trend-%d", i + 1);
        snprintf(changes, sizeof changes, "%s-changes", name);
        notes(&t[i], o);
        rc = fill(db, &t[i], o, false);
        if (rc == PDB_OK)
            md_metric(md, &t[i], o, verdicts ? &verdicts[i] : NULL, name);
        if (rc == PDB_OK)
            rc = write_csv(db, &t[i], false, dir, name);
        if (rc == PDB_OK)
            rc = write_csv(db, &t[i], true, dir, changes);
        bool written = false;
        if (rc == PDB_OK)
            rc = write_chart(db, &t[i], name, dir, &written);
        if (rc == PDB_OK && written) {
            snprintf(charts[nchart].name, sizeof charts[nchart].name, "%s", name);
            md_title(&t[i], charts[nchart].title, sizeof charts[nchart].title);
            nchart++;
        }
    }
    if (rc == PDB_OK)
        rc = pdb_chart_section(dir, charts, nchart, "No chart: no run has samples.", md);
    free(charts);
    int closed = pdb_out_close(md, "index.md");
    if (rc == PDB_OK && closed == PDB_OK)
        closed = pdb_html_page(dir, "profdb trend");
    if (rc == PDB_OK && closed == PDB_OK) {
        fputs("profdb: wrote ", stderr); /* a path from the command line */
        pdb_fput_term(stderr, dir);
        fputs("/index.md\n", stderr);
    }
    return rc == PDB_OK ? closed : rc;
}
