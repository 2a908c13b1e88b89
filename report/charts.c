/* charts.c: chart definitions and the writer of their .gp and .dat files
 * (see charts.h).
 *
 * A chart is a query plus a plot kind. Every query returns a label column
 * and numbers, either wide (one column per series) or long (label, series,
 * value; pivoted here). The data file holds a header row of series names
 * and one row per label, labels escaped by pdb_gp_data_label; the script
 * refers to the data only by column, so no data text is ever part of a
 * gnuplot command. Times are drawn in milliseconds. */
#include "report/charts.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "render/gnuplot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { K_STACKED, K_HBAR, K_RANKS, K_HIST, K_LINES } chart_kind;

typedef struct {
    const char *name, *title, *axis;
    chart_kind kind;
    bool long_form;   /* rows are (label, series, value) */
    int min_rows;     /* fewer rows: the chart does not apply */
    const char *sql;  /* ?1 run_id, ?2 top */
} chart_def;

/* Summary-block values are not per-step numbers. */
#define PER_STEP_AGG "agg NOT IN ('total', 'mean', 'min', 'max', 'share', 'cumulative', 'epoch_total')"
#define STEPLOG_PHASES                                                                      \
    "p AS (SELECT step, coalesce(loader, '') AS loader, rank, metric, value, agg"             \
    "  FROM steplog_values WHERE run_id = ?1 AND step IS NOT NULL AND value IS NOT NULL"    \
    "  AND unit = 's' AND coalesce(split, 'train') = 'train' AND " PER_STEP_AGG               \
    "  AND metric IN (SELECT metric FROM steplog_metric_rules WHERE is_phase)),"              \
    " a AS (SELECT agg FROM p GROUP BY agg ORDER BY count(*) DESC LIMIT 1)"

static const chart_def charts[] = {
    {"steps", "Step time by category", "milliseconds", K_STACKED, false, 1,
     "SELECT CASE WHEN (SELECT count(DISTINCT rank) FROM analysis_steps WHERE run_id = ?1) > 1"
     " THEN 'r' || rank || ' ' ELSE '' END || coalesce('#' || step_num, step) AS step,"
     " kernel_ns / 1e6 AS kernel, memcpy_ns / 1e6 AS memcpy, memset_ns / 1e6 AS memset,"
     " runtime_ns / 1e6 AS runtime, dataloader_ns / 1e6 AS dataloader,"
     " cpu_exec_ns / 1e6 AS cpu_exec, other_ns / 1e6 AS other"
     " FROM analysis_steps WHERE run_id = ?1 ORDER BY rank, ts"},
    {"gpu", "GPU time breakdown per rank", "milliseconds", K_STACKED, false, 1,
     "SELECT 'rank ' || rank AS rank, compute_ns / 1e6 AS compute,"
     " non_compute_ns / 1e6 AS \"non-compute\", idle_ns / 1e6 AS idle"
     " FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact' ORDER BY rank"},
    {"kernel-types", "GPU time per kernel type", "milliseconds", K_STACKED, true, 1,
     "SELECT 'rank ' || rank, kernel_type, time_ns / 1e6 FROM analysis_kernel_types"
     " WHERE run_id = ?1 AND mode = 'exact'"
     " ORDER BY rank, sum(time_ns) OVER (PARTITION BY kernel_type) DESC, kernel_type"},
    {"top-kernels", "Top GPU kernels by total time (all ranks)", "milliseconds", K_HBAR, false, 1,
     "SELECT name AS kernel, sum(total_ns) / 1e6 AS \"total time\" FROM analysis_kernels"
     " WHERE run_id = ?1 AND mode = 'exact' GROUP BY name ORDER BY 2 DESC, name LIMIT ?2"},
    {"top-ops", "Top CPU ops by self time (all ranks)", "milliseconds", K_HBAR, false, 1,
     "SELECT name AS op, sum(self_ns) / 1e6 AS \"self time\" FROM analysis_ops"
     " WHERE run_id = ?1 AND name NOT GLOB 'ProfilerStep#*' GROUP BY name"
     " ORDER BY 2 DESC, name LIMIT ?2"},
    {"rank-steps", "Mean step time per rank (straggler in red)", "milliseconds", K_RANKS, false, 2,
     "WITH r AS (SELECT rank, avg(dur_ns) / 1e6 AS ms FROM analysis_steps WHERE run_id = ?1"
     " GROUP BY rank)"
     " SELECT 'rank ' || rank, ms AS \"mean step\", ms = max(ms) OVER () AS straggler"
     " FROM r ORDER BY rank"},
    {"step-hist", "Distribution of step times", "step time (ms)", K_HIST, false, 3,
     "SELECT step, dur_ns / 1e6 AS \"step time\" FROM analysis_steps WHERE run_id = ?1"
     " ORDER BY rank, ts"},
    {"top-functions", "Top Python functions (pstats) by cumulative time", "milliseconds", K_HBAR,
     false, 1,
     "SELECT std_name, ct * 1e3 AS cumtime, tt * 1e3 AS tottime FROM pstats_functions"
     " WHERE run_id = ?1 AND in_stats ORDER BY ct DESC, ord LIMIT ?2"},
    {"phase-steps", "Step-log phase times per step (mean over loaders and ranks)",
     "milliseconds", K_STACKED, true, 1,
     "WITH " STEPLOG_PHASES
     " SELECT step, metric, avg(value) * 1e3 FROM p WHERE agg = (SELECT agg FROM a)"
     " AND metric <> 'step_time' GROUP BY step, metric ORDER BY step, metric"},
    {"phase-hist", "Distribution of step times (step logs)", "step time (ms)", K_HIST, false, 3,
     "WITH " STEPLOG_PHASES ","
     " m AS (SELECT step, metric, avg(value) AS v FROM p WHERE agg = (SELECT agg FROM a)"
     "   GROUP BY step, metric)"
     " SELECT step, 1e3 * CASE WHEN EXISTS (SELECT 1 FROM m WHERE metric = 'step_time')"
     "   THEN max(CASE WHEN metric = 'step_time' THEN v END)"
     "   ELSE sum(v) END AS \"step time\""
     " FROM m GROUP BY step HAVING \"step time\" IS NOT NULL ORDER BY step"},
    {"phase-ranks", "Mean step time per rank, step logs (straggler in red)", "milliseconds",
     K_RANKS, false, 2,
     "WITH " STEPLOG_PHASES ","
     " m AS (SELECT rank, step, metric, avg(value) AS v FROM p WHERE agg = (SELECT agg FROM a)"
     "   AND rank IS NOT NULL GROUP BY rank, step, metric),"
     " s AS (SELECT rank, step, CASE WHEN EXISTS (SELECT 1 FROM m WHERE metric = 'step_time')"
     "   THEN max(CASE WHEN metric = 'step_time' THEN v END) ELSE sum(v) END AS t"
     "   FROM m GROUP BY rank, step),"
     " r AS (SELECT rank, avg(t) * 1e3 AS ms FROM s WHERE t IS NOT NULL GROUP BY rank)"
     " SELECT 'rank ' || rank, ms AS \"mean step\", ms = max(ms) OVER () AS straggler"
     " FROM r ORDER BY rank"},
    /* x is numeric (seconds), written unquoted: gnuplot reads no numbers
     * from quoted fields. */
    {"gpu-util", "GPU utilisation over time (nvidia-smi)", "utilisation (%)", K_LINES, true, 2,
     "WITH u AS (SELECT wall_time AS t, coalesce(rank, 0) AS gpu, value FROM steplog_values"
     "   WHERE run_id = ?1 AND metric = 'gpu_util' AND wall_time IS NOT NULL)"
     " SELECT printf('%.3f', t - (SELECT min(t) FROM u)), 'GPU ' || gpu, value FROM u"
     " ORDER BY t, gpu"},
};

/* ---- the data: labels x series ---------------------------------------- */

typedef struct {
    char **labels;
    int nx, capx;
    char **series;
    int ns;
    double *v;  /* capx * ns, row-major; NAN where a long-form row was missing */
} grid;

static int series_index(grid *g, const char *name)
{
    for (int i = 0; i < g->ns; i++)
        if (strcmp(g->series[i], name) == 0)
            return i;
    return -1;
}

/* Re-lays the matrix for cap rows of ns series, keeping the rows so far. */
static void relayout(grid *g, int cap, int ns)
{
    double *v = pdb_xmalloc((size_t)cap * (size_t)(ns ? ns : 1) * sizeof *v);
    for (int x = 0; x < cap; x++)
        for (int s = 0; s < ns; s++)
            v[x * ns + s] = x < g->nx && s < g->ns ? g->v[x * g->ns + s] : NAN;
    free(g->v);
    g->v = v;
    g->capx = cap;
}

static void add_series(grid *g, const char *name)
{
    relayout(g, g->capx ? g->capx : 64, g->ns + 1);
    g->series = pdb_xrealloc(g->series, (size_t)(g->ns + 1) * sizeof *g->series);
    g->series[g->ns++] = pdb_xstrdup(name);
}

/* Adds a row (or, in long form, returns the last one when its label repeats). */
static int row_for(grid *g, const char *label, bool reuse_last)
{
    if (reuse_last && g->nx && strcmp(g->labels[g->nx - 1], label) == 0)
        return g->nx - 1;
    if (g->nx == g->capx || !g->v)
        relayout(g, g->capx ? 2 * g->capx : 64, g->ns);
    g->labels = pdb_xrealloc(g->labels, (size_t)g->capx * sizeof *g->labels);
    g->labels[g->nx] = pdb_xstrdup(label);
    return g->nx++;
}

static const char *col_text(sqlite3_stmt *st, int c)
{
    const char *s = (const char *)sqlite3_column_text(st, c);
    return s ? s : "";
}

static void add_long_row(grid *g, sqlite3_stmt *st)
{
    const char *series = col_text(st, 1);
    int s = series_index(g, series);
    if (s < 0) {
        add_series(g, series);
        s = g->ns - 1;
    }
    int x = row_for(g, col_text(st, 0), true);
    g->v[x * g->ns + s] = sqlite3_column_double(st, 2);
}

static void add_wide_row(grid *g, sqlite3_stmt *st)
{
    if (!g->series)
        for (int s = 1; s < sqlite3_column_count(st); s++)
            add_series(g, sqlite3_column_name(st, s));
    int x = row_for(g, col_text(st, 0), false);
    for (int s = 0; s < g->ns; s++)
        g->v[x * g->ns + s] = sqlite3_column_type(st, s + 1) == SQLITE_NULL
                                  ? NAN : sqlite3_column_double(st, s + 1);
}

static int load_grid(sqlite3 *db, const chart_def *d, int64_t run_id, long top, grid *g)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, d->sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_int64(st, 2, top);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        (d->long_form ? add_long_row : add_wide_row)(g, st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "chart query failed");
}

static void free_grid(grid *g)
{
    for (int i = 0; i < g->nx; i++)
        free(g->labels[i]);
    for (int i = 0; i < g->ns; i++)
        free(g->series[i]);
    free(g->labels);
    free(g->series);
    free(g->v);
}

/* ---- files --------------------------------------------------------------- */

static FILE *open_in(const char *dir, const char *name, const char *ext)
{
    pdb_buf path = PDB_BUF_INIT;
    pdb_buf_addf(&path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path.p, "w");
    if (!f)
        pdb_fail("cannot write %s", path.p);
    pdb_buf_free(&path);
    return f;
}

static int close_checked(FILE *f, const char *name)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return pdb_fail("error writing chart %s", name);
    return PDB_OK;
}

/* Header row of series names, then one row per label. Missing cells are
 * 0 in stacked charts (nothing of that series) and '?' elsewhere. */
static int write_data(const char *dir, const chart_def *d, const grid *g)
{
    FILE *f = open_in(dir, d->name, "dat");
    if (!f)
        return PDB_ERR;
    pdb_buf b = PDB_BUF_INIT;
    fprintf(f, "# profdb chart data: %s (first row: series names; first column: labels)\n",
            d->name);
    pdb_gp_data_label(&b, "label", 0);
    for (int s = 0; s < g->ns; s++) {
        pdb_buf_addc(&b, ' ');
        pdb_gp_data_label(&b, g->series[s], 40);
    }
    fprintf(f, "%s\n", b.p);
    for (int x = 0; x < g->nx; x++) {
        pdb_buf_reset(&b);
        if (d->kind == K_LINES)
            pdb_buf_addf(&b, "%.9g", strtod(g->labels[x], NULL)); /* a number, never text */
        else
            pdb_gp_data_label(&b, g->labels[x], 70);
        fputs(b.p, f);
        for (int s = 0; s < g->ns; s++) {
            double v = g->v[x * g->ns + s];
            if (isfinite(v))
                fprintf(f, " %.9g", v);
            else
                fputs(d->kind == K_STACKED ? " 0" : " ?", f);
        }
        fputc('\n', f);
    }
    pdb_buf_free(&b);
    return close_checked(f, d->name);
}

/* The plot commands of each kind; the data file is "NAME.dat". */
static void plot_stacked(FILE *f, const chart_def *d, const grid *g)
{
    int every = g->nx > 40 ? (g->nx + 39) / 40 : 1; /* at most ~40 tick labels */
    /* Many bars: no outlines, no gaps, or the borders are all one sees. */
    bool dense = g->nx > 60;
    fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
               "set style fill solid 0.85 %s\nset boxwidth %s relative\n"
               "set key outside right top\nset grid ytics\nset yrange [0:*]\n"
               "set xtics scale 0%s\n",
            dense ? "noborder" : "border -1", dense ? "1" : "0.75",
            g->nx > 8 ? " rotate by -45" : "");
    fputs("set ylabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot for [i=2:%d] '%s.dat' using i:xtic(int(column(0)) %% %d == 0 ?"
               " strcol(1) : '') title columnheader(i)\n",
            g->ns + 1, d->name, every);
}

static void plot_hbar(FILE *f, const chart_def *d, const grid *g)
{
    static const char *const colors[] = {"#4e79a7", "#e15759"};
    fprintf(f, "set yrange [%d.5:-0.5]\nset xrange [0:*]\nset ytics scale 0\n"
               "set grid xtics\nset style fill solid 0.85 border -1\nset key below\n",
            g->nx - 1);
    fputs("set xlabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fputs("\nplot ", f);
    /* One series: a full-height bar; two: side by side within the row. */
    double h = g->ns > 1 ? 0.4 : 0.35;
    for (int s = 0; s < g->ns && s < 2; s++) {
        double lo = g->ns > 1 ? (s ? 0 : -h) : -h, hi = g->ns > 1 ? (s ? h : 0) : h;
        fprintf(f, "%s'%s.dat' using %d:0:(0):%d:($0%+.2f):($0%+.2f)%s with boxxyerror"
                   " lc rgb '%s' title columnheader(%d)",
                s ? ", \\\n     " : "", d->name, s + 2, s + 2, lo, hi, s ? "" : ":ytic(1)",
                colors[s], s + 2);
    }
    fputc('\n', f);
}

static void plot_ranks(FILE *f, const chart_def *d)
{
    fputs("set style fill solid 0.85 border -1\nset boxwidth 0.6\nset yrange [0:*]\n"
          "set grid ytics\nset key off\nset offsets 0, 0, graph 0.08, 0\n"
          "set key autotitle columnheader\nset ylabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot '%s.dat' using 0:2:($3 > 0 ? 0xe15759 : 0x4e79a7):xtic(1) with boxes"
               " lc rgb variable notitle, \\\n"
               "     '' using 0:($3 > 0 ? $2 : NaN):('straggler') with labels offset 0,0.8"
               " notitle\n", d->name);
}

static void plot_hist(FILE *f, const chart_def *d, const grid *g)
{
    int bins = g->nx < 20 ? g->nx : 20;
    /* An explicit range: gnuplot draws nothing when every value is equal. */
    double lo = INFINITY, hi = -INFINITY;
    for (int x = 0; x < g->nx; x++)
        if (isfinite(g->v[x * g->ns])) {
            lo = fmin(lo, g->v[x * g->ns]);
            hi = fmax(hi, g->v[x * g->ns]);
        }
    if (!(hi > lo)) {
        double pad = isfinite(hi) && fabs(hi) > 0 ? fabs(hi) * 0.05 : 0.5;
        lo = isfinite(lo) ? lo - pad : 0;
        hi = isfinite(hi) ? hi + pad : 1;
        bins = 5; /* odd: the value sits in the middle bin, not on an edge */
    }
    fputs("set style fill solid 0.85 border -1\nset yrange [0:*]\nset grid ytics\n"
          "set key off\nset ylabel 'steps'\nset xlabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot '%s.dat' using 2 bins=%d binrange [%.9g:%.9g] with boxes"
               " lc rgb '#4e79a7' title columnheader(2)\n", d->name, bins, lo, hi);
}

static void plot_lines(FILE *f, const chart_def *d, const grid *g)
{
    fputs("set datafile missing '?'\nset key outside right top\nset grid\nset yrange [0:*]\n"
          "set xlabel 'seconds since the first sample'\nset ylabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot for [i=2:%d] '%s.dat' using 1:i with lines lw 1.5"
               " title columnheader(i)\n", g->ns + 1, d->name);
}

static void chart_size(const chart_def *d, const grid *g, int *w, int *h)
{
    *w = 900;
    *h = 500;
    if (d->kind == K_HBAR) {
        *w = 1100;
        *h = 140 + 22 * g->nx;
    } else if (d->kind == K_STACKED && g->nx > 30) {
        *w = g->nx * 16 + 200 > 1800 ? 1800 : g->nx * 16 + 200;
    }
}

static int write_script(const char *dir, const chart_def *d, const grid *g,
                        const char *run_name, pdb_chart *out)
{
    FILE *f = open_in(dir, d->name, "gp");
    if (!f)
        return PDB_ERR;
    int w, h;
    chart_size(d, g, &w, &h);
    fprintf(f, "# profdb chart '%s': %s\n"
               "# Render in this folder: gnuplot %s.gp  (writes %s.png and %s.svg)\n"
               "# The data, labels included, is in %s.dat; restyle freely.\n",
            d->name, d->title, d->name, d->name, d->name, d->name);
    fprintf(f, "set terminal pngcairo noenhanced size %d,%d font 'sans,9'\n"
               "set output '%s.png'\n", w, h, d->name);
    /* Tableau 10 colours, in the order the series come. */
    static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    for (int i = 0; i < 10; i++)
        fprintf(f, "set linetype %d lc rgb '%s'\n", i + 1, palette[i]);
    fputs("set title ", f);
    pdb_buf t = PDB_BUF_INIT;
    pdb_buf_addf(&t, "%s%s%s", d->title, run_name ? " - run " : "", run_name ? run_name : "");
    pdb_gp_quote_file(f, t.p);
    snprintf(out->title, sizeof out->title, "%s", d->title);
    snprintf(out->name, sizeof out->name, "%s", d->name);
    pdb_buf_free(&t);
    fputc('\n', f);
    if (d->kind == K_STACKED)
        plot_stacked(f, d, g);
    else if (d->kind == K_HBAR)
        plot_hbar(f, d, g);
    else if (d->kind == K_RANKS)
        plot_ranks(f, d);
    else if (d->kind == K_HIST)
        plot_hist(f, d, g);
    else
        plot_lines(f, d, g);
    fprintf(f, "set terminal svg noenhanced size %d,%d font 'sans,9' background '#ffffff'\n"
               "set output '%s.svg'\nreplot\nunset output\n", w, h, d->name);
    return close_checked(f, d->name);
}

int pdb_charts_write(sqlite3 *db, int64_t run_id, const char *run_name, const char *dir,
                     long top, pdb_chart_list *made)
{
    size_t n = sizeof charts / sizeof charts[0];
    made->v = pdb_xcalloc(n, sizeof *made->v);
    made->n = 0;
    for (size_t i = 0; i < n; i++) {
        const chart_def *d = &charts[i];
        grid g = {0};
        int rc = load_grid(db, d, run_id, top > 0 ? top : 15, &g);
        if (rc == PDB_OK && g.nx >= d->min_rows && g.ns > 0) {
            rc = write_data(dir, d, &g);
            if (rc == PDB_OK)
                rc = write_script(dir, d, &g, run_name, &made->v[made->n]);
            if (rc == PDB_OK)
                made->n++;
        }
        free_grid(&g);
        if (rc != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

void pdb_chart_list_free(pdb_chart_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
