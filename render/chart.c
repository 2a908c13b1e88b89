/* chart.c: one gnuplot chart from a result set: NAME.dat and NAME.gp
 * (see chart.h); chart_forms.c chooses the chart's form and writes its
 * plot commands.
 *
 * The query returns a label column and numbers, either wide (one column per
 * series, maybe share_pct and class) or long (label, series, value; pivoted
 * here). The data file holds a header row of column names and one row per
 * label: labels, classes and the texts printed on bars are escaped by
 * pdb_gp_data_label; the script refers to the data only by column, so no
 * data text is ever part of a gnuplot command. */
#include "render/chart.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "render/files.h"
#include "render/chart_int.h"
#include "render/gnuplot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the data: labels x series ---------------------------------------- */

/* How each column of a wide row is read: a series, or a named extra. */
enum { COL_SHARE = -1, COL_CLASS = -2 };

typedef struct {
    chart_grid g;
    int *colmap; /* wide rows: per result column from 1, a series index or COL_* */
    int ncols;
} loader;

static int series_index(chart_grid *g, const char *name)
{
    for (int i = 0; i < g->ns; i++)
        if (strcmp(g->series[i], name) == 0)
            return i;
    return -1;
}

/* Re-lays the matrix for cap rows of ns series, keeping the rows so far. */
static void relayout(chart_grid *g, int cap, int ns)
{
    double *v = pdb_xmalloc((size_t)cap * (size_t)(ns ? ns : 1) * sizeof *v);
    for (int x = 0; x < cap; x++)
        for (int s = 0; s < ns; s++)
            v[x * ns + s] = x < g->nx && s < g->ns ? g->v[x * g->ns + s] : NAN;
    free(g->v);
    g->v = v;
    if (cap != g->capx) {
        g->labels = pdb_xrealloc(g->labels, (size_t)cap * sizeof *g->labels);
        if (g->share)
            g->share = pdb_xrealloc(g->share, (size_t)cap * sizeof *g->share);
        if (g->cls)
            g->cls = pdb_xrealloc(g->cls, (size_t)cap * sizeof *g->cls);
    }
    g->capx = cap;
}

static void add_series(chart_grid *g, const char *name)
{
    relayout(g, g->capx ? g->capx : 64, g->ns + 1);
    g->series = pdb_xrealloc(g->series, (size_t)(g->ns + 1) * sizeof *g->series);
    g->series[g->ns++] = pdb_xstrdup(name);
}

/* Adds a row (or, in long form, returns the last one when its label repeats). */
static int row_for(chart_grid *g, const char *label, bool reuse_last)
{
    if (reuse_last && g->nx && strcmp(g->labels[g->nx - 1], label) == 0)
        return g->nx - 1;
    if (g->nx == g->capx || !g->v)
        relayout(g, g->capx ? 2 * g->capx : 64, g->ns);
    g->labels[g->nx] = pdb_xstrdup(label);
    if (g->share)
        g->share[g->nx] = NAN;
    if (g->cls)
        g->cls[g->nx] = NULL;
    return g->nx++;
}

static const char *col_text(sqlite3_stmt *st, int c)
{
    const char *s = (const char *)sqlite3_column_text(st, c);
    return s ? s : "";
}

/* The panel of a new series s: the long row's fourth column, a panel
 * named before or a new one. */
static void add_panel(chart_grid *g, int s, const char *name)
{
    g->panel = pdb_xrealloc(g->panel, (size_t)g->ns * sizeof *g->panel);
    int p = 0;
    while (p < g->npanels && strcmp(g->panels[p], name) != 0)
        p++;
    if (p == g->npanels) {
        g->panels = pdb_xrealloc(g->panels, (size_t)(p + 1) * sizeof *g->panels);
        g->panels[g->npanels++] = pdb_xstrdup(name);
    }
    g->panel[s] = p;
}

static void add_long_row(chart_grid *g, sqlite3_stmt *st)
{
    const char *series = col_text(st, 1);
    int s = series_index(g, series);
    if (s < 0) {
        add_series(g, series);
        s = g->ns - 1;
        if (sqlite3_column_count(st) >= 4)
            add_panel(g, s, col_text(st, 3));
    }
    int x = row_for(g, col_text(st, 0), true);
    g->v[x * g->ns + s] = sqlite3_column_double(st, 2);
}

/* The first wide row: which columns are series and which are extras. */
static void map_columns(loader *l, sqlite3_stmt *st)
{
    chart_grid *g = &l->g;
    l->ncols = sqlite3_column_count(st);
    l->colmap = pdb_xcalloc((size_t)l->ncols, sizeof *l->colmap);
    for (int c = 1; c < l->ncols; c++) {
        const char *name = sqlite3_column_name(st, c);
        if (strcmp(name, "share_pct") == 0 && !g->share) {
            l->colmap[c] = COL_SHARE;
            g->share = pdb_xcalloc(64, sizeof *g->share);
        } else if (strcmp(name, "class") == 0 && !g->cls) {
            l->colmap[c] = COL_CLASS;
            g->cls = pdb_xcalloc(64, sizeof *g->cls);
        } else {
            l->colmap[c] = g->ns;
            add_series(g, name);
        }
    }
}

static void add_wide_row(loader *l, sqlite3_stmt *st)
{
    chart_grid *g = &l->g;
    if (!l->colmap)
        map_columns(l, st);
    int x = row_for(g, col_text(st, 0), false);
    for (int c = 1; c < l->ncols; c++) {
        bool null = sqlite3_column_type(st, c) == SQLITE_NULL;
        double v = null ? NAN : sqlite3_column_double(st, c);
        if (l->colmap[c] == COL_SHARE)
            g->share[x] = v;
        else if (l->colmap[c] == COL_CLASS)
            g->cls[x] = null ? NULL : pdb_xstrdup(col_text(st, c));
        else
            g->v[x * g->ns + l->colmap[c]] = v;
    }
}

static int load_grid(sqlite3_stmt *st, loader *l)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (l->g.spec->long_form)
            add_long_row(&l->g, st);
        else
            add_wide_row(l, st);
    return rc == SQLITE_DONE ? PDB_OK
                             : pdb_db_fail(sqlite3_db_handle(st), "chart query failed");
}

static void free_loader(loader *l)
{
    chart_grid *g = &l->g;
    for (int i = 0; i < g->nx; i++) {
        free(g->labels[i]);
        if (g->cls)
            free(g->cls[i]);
    }
    for (int i = 0; i < g->ns; i++)
        free(g->series[i]);
    for (int i = 0; i < g->npanels; i++)
        free(g->panels[i]);
    free(g->panels);
    free(g->panel);
    free(g->labels);
    free(g->series);
    free(g->v);
    free(g->share);
    free(g->cls);
    free(g->row_rgb);
    free(l->colmap);
}

/* ---- files --------------------------------------------------------------- */

/* Pixels a character takes at the charts' font (sans, 9 pt), roughly:
 * capitals and wide letters more than the rest. */
static double char_px(const unsigned char *c)
{
    if (c[0] == 0xE2 && c[1] == 0x80 && c[2] == 0xA6) /* … */
        return 9.0;
    if (*c == 'M' || *c == 'W' || *c == 'm' || *c == 'w')
        return 10.5;
    if ((*c >= 'A' && *c <= 'Z') || *c == '<' || *c == '>' || *c == '_')
        return 8.4;
    if (*c == 'i' || *c == 'l' || *c == 'j' || *c == '.' || *c == ',' || *c == ':' || *c == ' ' ||
        *c == '(' || *c == ')' || *c == '\'' || *c == '|' || *c == 'I' || *c == 't' || *c == 'f')
        return 4.0;
    return 7.0;
}

/* Code points of a label a data file keeps: bar names span the chart's
 * width (w - 60 pixels), as many characters as fit; tick labels 60. */
static size_t label_width(const chart_grid *g, const char *label)
{
    if (g->form != FORM_BARS && g->form != FORM_PAIRED)
        return 60;
    double room = g->w - 60, px = 0, ellipsis = 9;
    size_t points = 0, n = 0;
    for (const unsigned char *p = (const unsigned char *)label; *p; p++)
        if ((*p & 0xC0) != 0x80) {
            points++;
            px += char_px(p);
            if (px + ellipsis <= room)
                n = points;
        }
    return px <= room ? 0 : n; /* 0: never cut */
}

static void header_row(const chart_grid *g, pdb_buf *b)
{
    pdb_gp_data_label(b, "label", 0);
    for (int s = 0; s < g->ns; s++) {
        pdb_buf_addc(b, ' ');
        pdb_gp_data_label(b, g->series[s], 40);
    }
    static const char *const extra[] = {"share_pct", "class", "color", "color_light",
                                        "text",      "text2", "up"};
    const int cols[] = {g->col_share, g->col_class, g->col_color, g->col_light,
                        g->col_text,  g->col_text2, g->col_up};
    for (int i = 0; i < 7; i++)
        if (cols[i])
            pdb_buf_addf(b, " \"%s\"", extra[i]);
    for (int s = 0; g->col_inside && s < g->ns; s++)
        pdb_buf_addf(b, " \"inside %d\"", s + 1);
}

/* One data row: label, values, then the extras the form asked for. Missing
 * values are 0 in stacked forms (nothing of that series), '?' elsewhere. */
static void data_row(const chart_grid *g, int x, pdb_buf *b)
{
    if (g->form == FORM_LINES || g->form == FORM_TIMELINE)
        pdb_buf_addf(b, "%.9g", strtod(g->labels[x], NULL)); /* a number, never text */
    else
        pdb_gp_data_label(b, g->labels[x], label_width(g, g->labels[x]));
    bool zero_fill = g->form == FORM_COLUMNS || g->form == FORM_AREAS ||
                     g->form == FORM_SHARE_BARS;
    for (int s = 0; s < g->ns; s++) {
        double v = g->v[x * g->ns + s];
        if (isfinite(v))
            pdb_buf_addf(b, " %.9g", v);
        else
            pdb_buf_adds(b, zero_fill ? " 0" : " ?");
    }
    if (g->col_share)
        pdb_buf_addf(b, isfinite(g->share[x]) ? " %.4g" : " ?", g->share[x]);
    if (g->col_class) {
        pdb_buf_addc(b, ' ');
        pdb_gp_data_label(b, g->cls[x] ? g->cls[x] : "", 40);
    }
    if (g->col_color)
        pdb_buf_addf(b, " %ld", pdb_chart_row_color(g, x, false));
    if (g->col_light)
        pdb_buf_addf(b, " %ld", pdb_chart_row_color(g, x, true));
    pdb_buf t = PDB_BUF_INIT;
    const int texts[] = {g->col_text, g->col_text2};
    for (int i = 0; i < 2; i++)
        if (texts[i]) {
            pdb_buf_reset(&t);
            pdb_chart_row_text(g, x, texts[i], &t);
            pdb_buf_addc(b, ' ');
            pdb_gp_data_label(b, pdb_buf_str(&t), 0);
        }
    if (g->col_up) { /* 1: the time grew, -1: it shrank, 0: the same */
        double base = g->v[x * g->ns], test = g->v[x * g->ns + 1];
        base = isfinite(base) ? base : 0;
        test = isfinite(test) ? test : 0;
        pdb_buf_addf(b, " %d", (test > base) - (test < base));
    }
    for (int s = 0; g->col_inside && s < g->ns; s++) {
        pdb_buf_reset(&t);
        pdb_chart_row_text(g, x, g->col_inside + s, &t);
        if (t.len) {
            pdb_buf_addc(b, ' ');
            pdb_gp_data_label(b, pdb_buf_str(&t), 0);
        } else {
            pdb_buf_adds(b, " \" \""); /* nothing printed (an empty label reads "-") */
        }
    }
    pdb_buf_free(&t);
}

static int write_data(const char *dir, const chart_grid *g)
{
    FILE *f = pdb_out_create(dir, g->spec->name, "dat");
    if (!f)
        return PDB_ERR;
    pdb_buf b = PDB_BUF_INIT;
    fprintf(f, "# profdb chart data: %s (first row: column names; first column: labels)\n",
            g->spec->name);
    header_row(g, &b);
    fprintf(f, "%s\n", pdb_buf_str(&b));
    for (int x = 0; x < g->nx; x++) {
        pdb_buf_reset(&b);
        data_row(g, x, &b);
        fprintf(f, "%s\n", pdb_buf_str(&b));
    }
    pdb_buf_free(&b);
    return pdb_out_close(f, g->spec->name);
}

static int write_script(const char *dir, const chart_grid *g, const char *subtitle)
{
    const pdb_chart_spec *d = g->spec;
    FILE *f = pdb_out_create(dir, d->name, "gp");
    if (!f)
        return PDB_ERR;
    fprintf(f, "# profdb chart '%s': %s\n"
               "# Render in this folder: gnuplot %s.gp  (writes %s.png and %s.svg)\n"
               "# The data, labels included, is in %s.dat; restyle freely.\n",
            d->name, d->title, d->name, d->name, d->name, d->name);
    fprintf(f, "set terminal pngcairo noenhanced size %d,%d font 'sans,9'\n"
               "set output '%s.png'\n", g->w, g->h, d->name);
    /* Tableau 10 colours for what has no colour of its own (pdb_chart_color). */
    static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    for (int i = 0; i < 10; i++)
        fprintf(f, "set linetype %d lc rgb '%s'\n", i + 1, palette[i]);
    /* The title at a fixed place, the legend (if any) under it, then the
     * plot: gnuplot would move a title with the margin. */
    fputs("set label 1 ", f);
    pdb_buf t = PDB_BUF_INIT;
    pdb_buf_addf(&t, "%s%s%s", d->title, subtitle ? " - " : "", subtitle ? subtitle : "");
    pdb_gp_quote_file(f, t.p);
    pdb_buf_free(&t);
    fprintf(f, " at screen 0.5, screen %.4f center font ',10'\n"
               "set tmargin at screen %.4f\n", 1 - 16.0 / g->h, 1 - (double)g->top_px / g->h);
    /* Labels are UTF-8 (pdb_utf8_clean); the first row of the data names
     * the columns, for every plot. */
    fputs("set encoding utf8\nset datafile columnheaders\nset datafile missing '?'\n"
          "set border 3\nset tics nomirror\n", f);
    pdb_chart_plot(f, g);
    fprintf(f, "set terminal svg noenhanced size %d,%d font 'sans,9' background '#ffffff'\n"
               "set output '%s.svg'\n", g->w, g->h, d->name);
    if (g->npanels >= 2)
        pdb_chart_plot(f, g); /* replot repeats only a multiplot's last panel */
    else
        fputs("replot\n", f);
    fputs("unset output\n", f);
    return pdb_out_close(f, d->name);
}

int pdb_chart_write(sqlite3_stmt *st, const pdb_chart_spec *d, const char *subtitle,
                    const char *dir, bool *written)
{
    loader l = {.g = {.spec = d}};
    *written = false;
    int rc = load_grid(st, &l);
    chart_grid *g = &l.g;
    if (rc == PDB_OK && g->nx >= d->min_rows && g->ns > 0) {
        pdb_chart_plan(g);
        rc = write_data(dir, g);
        if (rc == PDB_OK)
            rc = write_script(dir, g, subtitle);
        *written = rc == PDB_OK;
    }
    free_loader(&l);
    return rc;
}

/* gnuplot runs at once for a folder's charts, at most: a trend folder may
 * have many. */
#define MAX_RUNNING 4

struct pdb_chart_draws {
    char gnuplot[4096];
    pdb_gp_job *jobs;
    int n, done;   /* jobs started; of them finished, in order */
    int rc;        /* the first failure, in chart order */
};

/* Finishes the oldest running job. */
static void finish_one(pdb_chart_draws *d)
{
    int r = pdb_gp_finish(d->gnuplot, &d->jobs[d->done++], d->rc == PDB_OK);
    if (d->rc == PDB_OK)
        d->rc = r;
}

/* Starts gnuplot on dir/NAME.gp, removing old images first (gnuplot writes
 * them itself, and must not write through a link planted there). */
static int draw(const char *gnuplot, const char *dir, const char *name, pdb_gp_job *job)
{
    char script[48];
    snprintf(script, sizeof script, "%s.gp", name);
    if (pdb_out_clear(dir, name, "png") != PDB_OK || pdb_out_clear(dir, name, "svg") != PDB_OK)
        return PDB_ERR;
    return pdb_gp_start(gnuplot, dir, script, job);
}

int pdb_chart_draws_wait(pdb_chart_draws *d)
{
    if (!d)
        return PDB_OK;
    /* Every started gnuplot is waited for; the first failure in chart order
     * is the one reported, as when they ran one after the other. */
    while (d->done < d->n)
        finish_one(d);
    int rc = d->rc;
    free(d->jobs);
    free(d);
    return rc;
}

int pdb_chart_section_start(const char *dir, const pdb_chart *charts, int n, const char *none,
                            FILE *md, pdb_chart_draws **draws)
{
    char gnuplot[4096];
    bool have = pdb_gp_find(gnuplot, sizeof gnuplot);
    pdb_chart_draws *d = NULL;
    *draws = NULL;
    fputs("\n## Charts\n\n", md);
    if (!n)
        fprintf(md, "%s\n", none);
    else if (!have) {
        fputs("gnuplot was not found: render the charts with `gnuplot NAME.gp` in this folder.\n",
              md);
        pdb_warn("gnuplot not found: charts written as scripts; render them with: "
                 "cd %s && for f in *.gp; do gnuplot \"$f\"; done", dir);
    }
    if (have && n) {
        d = pdb_xcalloc(1, sizeof *d);
        memcpy(d->gnuplot, gnuplot, sizeof gnuplot);
        d->jobs = pdb_xcalloc((size_t)n, sizeof *d->jobs);
        *draws = d;
    }
    for (int i = 0; i < n; i++) {
        const pdb_chart *ch = &charts[i];
        /* Charts render side by side (gnuplot runs are independent): nine
         * one after the other took a second of a report folder's time. */
        if (d && d->n - d->done >= MAX_RUNNING)
            finish_one(d);
        if (d && d->rc == PDB_OK) {
            d->rc = draw(gnuplot, dir, ch->name, &d->jobs[d->n]);
            if (d->rc == PDB_OK)
                d->n++;
        }
        fprintf(md, "### %s\n\n", ch->title);
        if (have)
            fprintf(md, "![%s](%s.png)\n\n[SVG](%s.svg) · ", ch->title, ch->name, ch->name);
        fprintf(md, "[gnuplot script](%s.gp) · [data](%s.dat)\n\n", ch->name, ch->name);
    }
    return PDB_OK;
}

int pdb_chart_section(const char *dir, const pdb_chart *charts, int n, const char *none,
                      FILE *md)
{
    pdb_chart_draws *d;
    if (pdb_chart_section_start(dir, charts, n, none, md, &d) != PDB_OK)
        return PDB_ERR;
    return pdb_chart_draws_wait(d);
}
