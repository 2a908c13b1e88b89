/* chart.c: one gnuplot chart from a result set: NAME.dat and NAME.gp
 * (see chart.h).
 *
 * The query returns a label column and numbers, either wide (one column per
 * series) or long (label, series, value; pivoted here). The data file holds
 * a header row of series names and one row per label, labels escaped by
 * pdb_gp_data_label; the script refers to the data only by column, so no
 * data text is ever part of a gnuplot command. */
#include "render/chart.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "render/files.h"
#include "render/gnuplot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int load_grid(sqlite3_stmt *st, const pdb_chart_spec *d, grid *g)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        (d->long_form ? add_long_row : add_wide_row)(g, st);
    return rc == SQLITE_DONE ? PDB_OK
                             : pdb_db_fail(sqlite3_db_handle(st), "chart query failed");
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

/* Header row of series names, then one row per label. Missing cells are
 * 0 in stacked charts (nothing of that series) and '?' elsewhere. */
static int write_data(const char *dir, const pdb_chart_spec *d, const grid *g)
{
    FILE *f = pdb_out_create(dir, d->name, "dat");
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
        if (d->kind == PDB_CHART_LINES || d->kind == PDB_CHART_TIMELINE)
            pdb_buf_addf(&b, "%.9g", strtod(g->labels[x], NULL)); /* a number, never text */
        else
            pdb_gp_data_label(&b, g->labels[x], 70);
        fputs(b.p, f);
        for (int s = 0; s < g->ns; s++) {
            double v = g->v[x * g->ns + s];
            if (isfinite(v))
                fprintf(f, " %.9g", v);
            else
                fputs(d->kind == PDB_CHART_STACKED ? " 0" : " ?", f);
        }
        fputc('\n', f);
    }
    pdb_buf_free(&b);
    return pdb_out_close(f, d->name);
}

/* The plot commands of each kind; the data file is "NAME.dat". */
static void plot_stacked(FILE *f, const pdb_chart_spec *d, const grid *g)
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

static void plot_hbar(FILE *f, const pdb_chart_spec *d, const grid *g)
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

static void plot_ranks(FILE *f, const pdb_chart_spec *d)
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

/* The range of every series' values, padded when they are all equal
 * (gnuplot draws nothing over an empty range); *bins is set to suit. */
static void hist_range(const grid *g, double *lo, double *hi, int *bins)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int x = 0; x < g->nx; x++)
        for (int s = 0; s < g->ns; s++)
            if (isfinite(g->v[x * g->ns + s])) {
                *lo = fmin(*lo, g->v[x * g->ns + s]);
                *hi = fmax(*hi, g->v[x * g->ns + s]);
            }
    *bins = g->nx < 20 ? g->nx : 20;
    if (g->ns > 1) /* before and after: finer bins, so two close shapes separate */
        *bins = g->nx * 2 < 10 ? 10 : g->nx * 2 > 30 ? 30 : g->nx * 2;
    if (!(*hi > *lo)) {
        double pad = isfinite(*hi) && fabs(*hi) > 0 ? fabs(*hi) * 0.05 : 0.5;
        *lo = isfinite(*lo) ? *lo - pad : 0;
        *hi = isfinite(*hi) ? *hi + pad : 1;
        *bins = 5; /* odd: the value sits in the middle bin, not on an edge */
    }
}

/* One series: a histogram. Several (before and after): overlaid on the
 * same bins, half transparent, so the shift shows. */
static void plot_hist(FILE *f, const pdb_chart_spec *d, const grid *g)
{
    double lo, hi;
    int bins;
    hist_range(g, &lo, &hi, &bins);
    if (g->ns == 1) {
        fputs("set style fill solid 0.85 border -1\nset yrange [0:*]\nset grid ytics\n"
              "set key off\nset ylabel 'steps'\nset xlabel ", f);
        pdb_gp_quote_file(f, d->axis);
        fprintf(f, "\nplot '%s.dat' using 2 bins=%d binrange [%.9g:%.9g] with boxes"
                   " lc rgb '#4e79a7' title columnheader(2)\n", d->name, bins, lo, hi);
        return;
    }
    fputs("set datafile missing '?'\nset style fill transparent solid 0.5 border -1\n"
          "set yrange [0:*]\nset grid ytics\nset key outside right top\n"
          "set ylabel 'steps'\nset xlabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot for [i=2:%d] '%s.dat' using i bins=%d binrange [%.9g:%.9g] with boxes"
               " title columnheader(i)\n", g->ns + 1, d->name, bins, lo, hi);
}

/* Bars per label, one per series side by side (base and test per phase). */
static void plot_grouped(FILE *f, const pdb_chart_spec *d, const grid *g)
{
    fprintf(f, "set datafile missing '?'\nset style data histograms\n"
               "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
               "set key outside right top\nset grid ytics\nset yrange [0:*]\n"
               "set xtics scale 0%s\n", g->nx > 8 ? " rotate by -45" : "");
    fputs("set ylabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot for [i=2:%d] '%s.dat' using i:xtic(1) title columnheader(i)\n",
            g->ns + 1, d->name);
}

/* Step lines; series named "peak..." as points. Styles are chosen here from
 * the series names, which stay in the data file. */
static void plot_timeline(FILE *f, const pdb_chart_spec *d, const grid *g)
{
    fputs("set datafile missing '?'\nset key outside right top\nset grid\n"
          "set xlabel 'milliseconds from the start'\nset ylabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fputs("\nplot", f);
    for (int i = 0; i < g->ns; i++) {
        bool peak = strncmp(g->series[i], "peak", 4) == 0;
        fprintf(f, "%s '%s.dat' using 1:%d %s title columnheader(%d)", i ? "," : "", d->name,
                i + 2, peak ? "with points pt 7 ps 1.6 lc rgb '#e15759'" : "with steps lw 1.5",
                i + 2);
    }
    fputc('\n', f);
}

static void plot_lines(FILE *f, const pdb_chart_spec *d, const grid *g)
{
    fputs("set datafile missing '?'\nset key outside right top\nset grid\nset yrange [0:*]\n"
          "set xlabel 'seconds since the first sample'\nset ylabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot for [i=2:%d] '%s.dat' using 1:i with lines lw 1.5"
               " title columnheader(i)\n", g->ns + 1, d->name);
}

/* A metric over runs, x = the run's position: the band between the
 * quartiles, the level of each segment (a step at each change point), the
 * median per run with the x labels, and a mark on each change point. */
static void plot_trend(FILE *f, const pdb_chart_spec *d, const grid *g)
{
    int every = g->nx > 40 ? (g->nx + 39) / 40 : 1; /* at most ~40 tick labels */
    size_t widest = 0;
    for (int x = 0; x < g->nx; x++)
        if (strlen(g->labels[x]) > widest)
            widest = strlen(g->labels[x]);
    /* Slanted when the labels side by side would not fit (~110 characters). */
    bool slant = g->nx > 8 || (size_t)g->nx * widest > 110;
    fprintf(f, "set datafile missing '?'\nset key autotitle columnheader\nset key below\n"
               "set grid ytics\nset xtics scale 0%s\n"
               "set offsets 0.5, 0.5, graph 0.05, graph 0.05\n",
            slant ? " rotate by 45 right" : "");
    fputs("set ylabel ", f);
    pdb_gp_quote_file(f, d->axis);
    fprintf(f, "\nplot '%s.dat' using 0:3:4 with filledcurves lc rgb '#4e79a7'"
               " fs transparent solid 0.2 noborder title 'interquartile range', \\\n"
               "     '' using 0:5 with histeps lc rgb '#59a14f' dt 2 lw 1.5 title 'level', \\\n"
               "     '' using 0:2:xtic(int(column(0)) %% %d == 0 ? strcol(1) : '')"
               " with linespoints lc rgb '#4e79a7' lw 1.5 pt 7 ps 0.5 title 'median', \\\n"
               "     '' using 0:($6 > 0 ? $2 : NaN) with points lc rgb '#e15759' pt 9 ps 2"
               " title 'change point'\n", d->name, every);
}

static void chart_size(const pdb_chart_spec *d, const grid *g, int *w, int *h)
{
    *w = 900;
    *h = 500;
    if (d->kind == PDB_CHART_HBAR) {
        *w = 1100;
        *h = 140 + 22 * g->nx;
    } else if (d->kind == PDB_CHART_STACKED && g->nx > 30) {
        *w = g->nx * 16 + 200 > 1800 ? 1800 : g->nx * 16 + 200;
    } else if (d->kind == PDB_CHART_TREND && g->nx > 40) {
        *w = 1200;
    }
}

static int write_script(const char *dir, const pdb_chart_spec *d, const grid *g,
                        const char *subtitle)
{
    FILE *f = pdb_out_create(dir, d->name, "gp");
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
    pdb_buf_addf(&t, "%s%s%s", d->title, subtitle ? " - " : "", subtitle ? subtitle : "");
    pdb_gp_quote_file(f, t.p);
    pdb_buf_free(&t);
    fputc('\n', f);
    if (d->kind == PDB_CHART_STACKED)
        plot_stacked(f, d, g);
    else if (d->kind == PDB_CHART_HBAR)
        plot_hbar(f, d, g);
    else if (d->kind == PDB_CHART_RANKS)
        plot_ranks(f, d);
    else if (d->kind == PDB_CHART_HIST)
        plot_hist(f, d, g);
    else if (d->kind == PDB_CHART_GROUPED)
        plot_grouped(f, d, g);
    else if (d->kind == PDB_CHART_TREND)
        plot_trend(f, d, g);
    else if (d->kind == PDB_CHART_TIMELINE)
        plot_timeline(f, d, g);
    else
        plot_lines(f, d, g);
    fprintf(f, "set terminal svg noenhanced size %d,%d font 'sans,9' background '#ffffff'\n"
               "set output '%s.svg'\nreplot\nunset output\n", w, h, d->name);
    return pdb_out_close(f, d->name);
}

int pdb_chart_write(sqlite3_stmt *st, const pdb_chart_spec *d, const char *subtitle,
                    const char *dir, bool *written)
{
    grid g = {0};
    *written = false;
    int rc = load_grid(st, d, &g);
    if (rc == PDB_OK && g.nx >= d->min_rows && g.ns > 0) {
        rc = write_data(dir, d, &g);
        if (rc == PDB_OK)
            rc = write_script(dir, d, &g, subtitle);
        *written = rc == PDB_OK;
    }
    free_grid(&g);
    return rc;
}

/* Runs gnuplot on dir/NAME.gp, removing old images first (gnuplot writes
 * them itself, and must not write through a link planted there). */
static int draw(const char *gnuplot, const char *dir, const char *name)
{
    char script[48];
    snprintf(script, sizeof script, "%s.gp", name);
    if (pdb_out_clear(dir, name, "png") != PDB_OK || pdb_out_clear(dir, name, "svg") != PDB_OK)
        return PDB_ERR;
    return pdb_gp_run(gnuplot, dir, script);
}

int pdb_chart_section(const char *dir, const pdb_chart *charts, int n, const char *none,
                      FILE *md)
{
    char gnuplot[4096];
    bool have = pdb_gp_find(gnuplot, sizeof gnuplot);
    int rc = PDB_OK;
    fputs("\n## Charts\n\n", md);
    if (!n)
        fprintf(md, "%s\n", none);
    else if (!have) {
        fputs("gnuplot was not found: render the charts with `gnuplot NAME.gp` in this folder.\n",
              md);
        pdb_warn("gnuplot not found: charts written as scripts; render them with: "
                 "cd %s && for f in *.gp; do gnuplot \"$f\"; done", dir);
    }
    for (int i = 0; i < n; i++) {
        const pdb_chart *ch = &charts[i];
        if (have && rc == PDB_OK)
            rc = draw(gnuplot, dir, ch->name);
        fprintf(md, "### %s\n\n", ch->title);
        if (have)
            fprintf(md, "![%s](%s.png)\n\n[SVG](%s.svg) · ", ch->title, ch->name, ch->name);
        fprintf(md, "[gnuplot script](%s.gp) · [data](%s.dat)\n\n", ch->name, ch->name);
    }
    return rc;
}
