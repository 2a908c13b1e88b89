/* diff_folder.c: `profdb diff BASE TEST --out DIR`: a folder a reviewer
 * reads, for a pull request or a CI job summary.
 *
 *   DIR/index.html      index.md as a page for a browser (render/html.h)
 *   DIR/index.md        the headline numbers (step time, throughput, GPU busy
 *                       and idle, the kernels and ops that changed most, with
 *                       their launches), the charts, and each comparison
 *                       that applies as a Markdown table (first rows)
 *   DIR/KIND.csv        each comparison in full
 *   DIR/NAME.{gp,dat}   before/after charts (and .png, .svg with gnuplot):
 *                       step-time distributions one over the other, and
 *                       paired bars with the change printed: phase medians,
 *                       GPU time by part, the kernels and ops (short names)
 *                       that changed most
 *
 * The biggest absolute impact comes first everywhere: a kernel that went
 * from 2.7 ms to 93 ms matters more than one that doubled from 2 us. The
 * queries are in compare/queries/diff_folder.sql. */
#include "compare/diff.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "compare/check.h"
#include "compare/compare.h"
#include "compare/queries.h"
#include "render/chart.h"
#include "render/files.h"
#include "render/html.h"
#include "render/text.h"
#include "report/trace_sql.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Rows of a comparison shown in index.md; the CSV has them all. */
#define MD_ROWS 20
/* Kernels and ops named in the summary, and drawn in the charts. */
#define SUMMARY_ROWS 5
#define CHART_ROWS 12

/* Text from data in index.md (render/text.h). */
static void md_text(FILE *md, const char *s)
{
    pdb_fput_md(md, s);
}

static void value_text(double v, const char *unit, char *buf, size_t cap)
{
    pdb_check_format_value(v, unit, buf, cap);
}

/* "+12.3%", or "new" / "gone" when one side is zero. */
static void change_text(double base, double test, char *buf, size_t cap)
{
    if (base == 0 && test == 0)
        snprintf(buf, cap, "0%%");
    else if (base == 0)
        snprintf(buf, cap, "new");
    else if (test == 0)
        snprintf(buf, cap, "gone");
    else
        snprintf(buf, cap, "%+.1f%%", 100.0 * (test - base) / base);
}

static pdb_metric_run side(const pdb_diff_ctx *ctx, bool test)
{
    return (pdb_metric_run){ctx->db, test ? ctx->test_schema : ctx->base_schema,
                            test ? ctx->test_id : ctx->base_id};
}

/* ---- summary ------------------------------------------------------------- */

/* One "- **label**: base -> test (change), ..." line from both runs'
 * samples of a metric; nothing when a run has none. dist: keep the step
 * times for the distribution chart. */
static int summary_metric(pdb_diff_ctx *ctx, FILE *md, const char *spec, const char *label,
                          bool dist)
{
    pdb_metric m;
    if (pdb_metric_parse(spec, &m) != PDB_OK)
        return PDB_ERR;
    pdb_metric_run b = side(ctx, false), t = side(ctx, true);
    pdb_samples sb, st;
    if (pdb_metric_samples(&b, &m, &sb) != PDB_OK)
        return PDB_ERR;
    int rc = pdb_metric_samples(&t, &m, &st);
    if (rc == PDB_OK && sb.n && st.n) {
        pdb_comparison c;
        pdb_compare_samples(&sb, &st, m.higher_is_worse, &c);
        const char *unit = m.unit ? m.unit : st.unit ? st.unit : "";
        char vb[48], vt[48];
        value_text(c.base_median, unit, vb, sizeof vb);
        value_text(c.test_median, unit, vt, sizeof vt);
        fprintf(md, "- **%s** (median of %zu vs %zu; ", label, c.nb, c.nt);
        md_text(md, st.source);
        fputs(", ", md);
        md_text(md, st.what);
        fputs("): ", md);
        md_text(md, vb);
        fputs(" → ", md);
        md_text(md, vt);
        fprintf(md, " (%+.1f%%; ratio 95%% CI %.3f to %.3f; Mann-Whitney p = %.3g)\n",
                c.change_pct, c.ci_lo, c.ci_hi, c.mwu.p);
    }
    sqlite3_stmt *ins = NULL;
    if (rc == PDB_OK && dist && sb.n && st.n)
        rc = pdb_compare_prepare(ctx->db, "diff_folder.add_dist", NULL, &ins);
    for (size_t i = 0; rc == PDB_OK && ins && i < sb.n + st.n; i++) {
        bool is_test = i >= sb.n;
        sqlite3_bind_int64(ins, 1, (int64_t)(is_test ? i - sb.n : i));
        sqlite3_bind_text(ins, 2, is_test ? "test" : "base", -1, SQLITE_STATIC);
        sqlite3_bind_double(ins, 3, 1e3 * (is_test ? st.v[i - sb.n] : sb.v[i]));
        rc = pdb_db_step_done(ctx->db, ins);
    }
    sqlite3_finalize(ins);
    pdb_samples_free(&sb);
    pdb_samples_free(&st);
    return rc;
}

static int summary_gpu(pdb_diff_ctx *ctx, FILE *md)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, "diff_folder.gpu_top", ctx->test_schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        double v[4];
        char txt[4][48], ch[2][16];
        for (int i = 0; i < 4; i++) {
            v[i] = sqlite3_column_double(st, i) * 1e-9;
            value_text(v[i], "s", txt[i], sizeof txt[i]);
        }
        change_text(v[0], v[1], ch[0], sizeof ch[0]);
        change_text(v[2], v[3], ch[1], sizeof ch[1]);
        fprintf(md, "- **GPU busy** (all ranks): %s → %s (%s); **GPU idle**: %s → %s (%s)\n",
                txt[0], txt[1], ch[0], txt[2], txt[3], ch[1]);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(ctx->db, "database error");
}

/* The kernels or ops that changed most, with their launches or calls. */
static int summary_top(pdb_diff_ctx *ctx, FILE *md, const char *query, const char *title,
                       const char *what, const char *calls)
{
    sqlite3_stmt *st;
    if (pdb_trace_sql_functions(ctx->db) != PDB_OK || /* name_shape() */
        pdb_compare_prepare(ctx->db, query, ctx->test_schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    sqlite3_bind_int64(st, 3, SUMMARY_ROWS);
    int rc, rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (rows++ == 0)
            fprintf(md, "\n**%s** (largest change of %s first):\n\n| %s | %s | %s | change |\n"
                        "| --- | ---: | ---: | ---: |\n", title, what, title, calls, what);
        double b = sqlite3_column_double(st, 3) * 1e-9, t = sqlite3_column_double(st, 4) * 1e-9;
        char vb[48], vt[48], ch[16];
        value_text(b, "s", vb, sizeof vb);
        value_text(t, "s", vt, sizeof vt);
        change_text(b, t, ch, sizeof ch);
        fputs("| ", md);
        md_text(md, (const char *)sqlite3_column_text(st, 0));
        fprintf(md, " | %lld → %lld | %s → %s | %s |\n", sqlite3_column_int64(st, 1),
                sqlite3_column_int64(st, 2), vb, vt, ch);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(ctx->db, "database error");
}

static bool applies(const char *const *kinds, int n, const char *kind)
{
    for (int i = 0; i < n; i++)
        if (strcmp(kinds[i], kind) == 0)
            return true;
    return false;
}

static int summary(pdb_diff_ctx *ctx, const char *const *kinds, int n, FILE *md)
{
    fputs("## Summary\n\n", md);
    int rc = pdb_compare_exec(ctx->db, "diff_folder.create_dist");
    if (rc == PDB_OK && applies(kinds, n, "steps"))
        rc = summary_metric(ctx, md, "step_time", "Step time", true);
    if (rc == PDB_OK && applies(kinds, n, "steps"))
        rc = summary_metric(ctx, md, "throughput", "Throughput", false);
    if (rc == PDB_OK && applies(kinds, n, "gpu"))
        rc = summary_gpu(ctx, md);
    if (rc == PDB_OK && applies(kinds, n, "kernels"))
        rc = summary_top(ctx, md, "diff_folder.kernels_top", "GPU kernels", "GPU time",
                         "launches");
    if (rc == PDB_OK && applies(kinds, n, "ops"))
        rc = summary_top(ctx, md, "diff_folder.ops_top", "CPU ops", "self time", "calls");
    return rc;
}

/* ---- charts -------------------------------------------------------------- */

typedef struct {
    pdb_chart_spec spec;
    const char *query;   /* diff_folder.NAME: ?1 base, ?2 test, ?3 rows */
    const char *needs;   /* the comparison that must apply */
} diff_chart;

static const diff_chart charts[] = {
    {{"step-dist", "Step time distribution, before and after", "step time (ms)",
      PDB_CHART_HIST, true, 2}, "diff_folder.dist_chart", "steps"},
    {{"phases", "Median time per phase, before and after", "milliseconds",
      PDB_CHART_PAIRED, false, 1}, "diff_folder.phases_chart", "steps"},
    {{"gpu", "GPU time by part (all ranks), before and after", "milliseconds",
      PDB_CHART_PAIRED, false, 1}, "diff_folder.gpu_chart", "gpu"},
    {{"kernels", "GPU kernels whose total time changed most", "milliseconds", PDB_CHART_PAIRED,
      false, 1}, "diff_folder.kernels_chart", "kernels"},
    {{"ops", "CPU ops whose self time changed most (annotations left out)", "milliseconds",
      PDB_CHART_PAIRED, false, 1},
     "diff_folder.ops_chart", "ops"},
};
enum { N_CHARTS = sizeof charts / sizeof charts[0] };

static int write_chart(pdb_diff_ctx *ctx, const diff_chart *d, const char *dir, bool *written)
{
    sqlite3_stmt *st;
    if (pdb_trace_sql_functions(ctx->db) != PDB_OK ||
        pdb_compare_prepare(ctx->db, d->query, ctx->test_schema, &st) != PDB_OK)
        return PDB_ERR;
    if (sqlite3_bind_parameter_count(st) >= 2) {
        sqlite3_bind_int64(st, 1, ctx->base_id);
        sqlite3_bind_int64(st, 2, ctx->test_id);
    }
    if (sqlite3_bind_parameter_count(st) >= 3)
        sqlite3_bind_int64(st, 3, CHART_ROWS);
    pdb_buf sub = PDB_BUF_INIT;
    pdb_buf_addf(&sub, "%s -> %s", ctx->base_name, ctx->test_name);
    int rc = pdb_chart_write(st, &d->spec, sub.p, dir, written);
    pdb_buf_free(&sub);
    sqlite3_finalize(st);
    return rc;
}

static int chart_section(pdb_diff_ctx *ctx, const char *const *kinds, int n, const char *dir,
                         FILE *md)
{
    pdb_chart made[N_CHARTS];
    int nmade = 0;
    for (int i = 0; i < N_CHARTS; i++) {
        bool written = false;
        if (!applies(kinds, n, charts[i].needs))
            continue;
        if (write_chart(ctx, &charts[i], dir, &written) != PDB_OK)
            return PDB_ERR;
        if (written) {
            snprintf(made[nmade].name, sizeof made[nmade].name, "%s", charts[i].spec.name);
            snprintf(made[nmade].title, sizeof made[nmade].title, "%s", charts[i].spec.title);
            nmade++;
        }
    }
    return pdb_chart_section(dir, made, nmade, "No chart applies to these runs.", md);
}

/* ---- tables ---------------------------------------------------------------- */

/* Runs one comparison into f in format, with at most top rows (-1: all);
 * with --save, the pass with every row (the CSV) is the one stored. */
static int run_kind(pdb_diff_ctx *ctx, const char *kind, FILE *f, pdb_out_format format,
                    long top)
{
    pdb_diff_ctx c = *ctx;
    c.out = f;
    c.render.format = format;
    c.titles = false;
    c.top = top;
    c.kind = pdb_diff_find(kind)->name;
    c.save = ctx->save && top < 0;
    return pdb_diff_find(kind)->run(&c);
}

static int write_csv(pdb_diff_ctx *ctx, const char *kind, const char *dir)
{
    FILE *f = pdb_out_create(dir, kind, "csv");
    if (!f)
        return PDB_ERR;
    int rc = run_kind(ctx, kind, f, PDB_OUT_CSV, -1);
    int closed = pdb_out_close(f, kind);
    return rc == PDB_OK ? closed : rc;
}

static int table_section(pdb_diff_ctx *ctx, const char *kind, const char *dir, FILE *md)
{
    fprintf(md, "\n## %s\n\n%s.\n\n", kind, pdb_diff_find(kind)->summary);
    if (run_kind(ctx, kind, md, PDB_OUT_MD, MD_ROWS) != PDB_OK)
        return PDB_ERR;
    fprintf(md, "\nFull table: [%s.csv](%s.csv)\n", kind, kind);
    return write_csv(ctx, kind, dir);
}

int pdb_diff_folder(pdb_diff_ctx *ctx, char **names, int nnames, const char *dir)
{
    const char *kinds[8];
    int n = 0;
    if (nnames > 8)
        return pdb_fail("too many comparisons named");
    for (int i = 0; i < nnames; i++) {
        if (!pdb_diff_find(names[i]))
            return pdb_fail("unknown diff kind '%s' (see 'profdb diff --help')", names[i]);
        kinds[n++] = names[i];
    }
    if (!nnames && pdb_diff_applicable(ctx, kinds, 8, &n) != PDB_OK)
        return PDB_ERR;
    if (n == 0)
        return pdb_fail("nothing to compare: runs '%s' and '%s' share no kind of data",
                        ctx->base_name, ctx->test_name);
    if (pdb_out_dir(dir) != PDB_OK)
        return PDB_ERR;
    FILE *md = pdb_out_create(dir, "index", "md");
    if (!md)
        return PDB_ERR;
    /* Run names as escaped text: a code span would show the escapes. */
    fputs("# profdb diff: ", md);
    md_text(md, ctx->base_name);
    fputs(" → ", md);
    md_text(md, ctx->test_name);
    fputs("\n\n", md);
    /* The steps table fills the temp table the phase chart reads. */
    int rc = applies(kinds, n, "steps") ? pdb_diff_steps_fill(ctx) : PDB_OK;
    if (rc == PDB_OK)
        rc = summary(ctx, kinds, n, md);
    if (rc == PDB_OK)
        rc = chart_section(ctx, kinds, n, dir, md);
    for (int i = 0; rc == PDB_OK && i < n; i++)
        rc = table_section(ctx, kinds[i], dir, md);
    int closed = pdb_out_close(md, "index.md");
    if (rc == PDB_OK && closed == PDB_OK) {
        pdb_buf title = PDB_BUF_INIT;
        pdb_buf_adds(&title, "profdb diff: ");
        pdb_text_term(&title, ctx->base_name);
        pdb_buf_adds(&title, " \xE2\x86\x92 ");
        pdb_text_term(&title, ctx->test_name);
        closed = pdb_html_page(dir, pdb_buf_str(&title));
        pdb_buf_free(&title);
    }
    if (rc == PDB_OK && closed == PDB_OK) {
        fputs("profdb: wrote ", stderr); /* a path from the command line */
        pdb_fput_term(stderr, dir);
        fputs("/index.md\n", stderr);
    }
    return rc == PDB_OK ? closed : rc;
}
