/* chart_forms.c: the form a chart takes for its data, and its plot
 * commands (chart.c writes the data file and the script around them).
 *
 * A chart has to read at a glance at its default size, so the data chooses
 * the form (chart.h): 4 step times are dots on a strip, not a histogram
 * with ticks at 0.5; one rank is a horizontal bar with its percentages
 * printed; 2000 steps are stacked areas, not 2000 columns. Bars carry their
 * names above them, across the whole width, and their values at their
 * ends. Colours mean the same thing in every chart (pdb_chart_color);
 * before is always the light or open mark and after the solid one. Only
 * numbers computed here and profdb's own words reach the script; names
 * from data stay in the data file, except series and class names in a
 * legend entry, which go through pdb_gp_quote like run names. */
#include "common/strbuf.h"
#include "render/chart_int.h"
#include "render/gnuplot.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- colours --------------------------------------------------------------- */

#define BLUE "#4e79a7"
#define RED "#e15759"
#define UP_TEXT "#c0392b"   /* a time that grew */
#define DOWN_TEXT "#2e7d32" /* a time that shrank */
#define NEUTRAL "#7f7f7f"

static const struct {
    const char *name, *rgb;
} meanings[] = {
    /* GPU work by kind: kernel types, the GPU breakdown, kernel classes. */
    {"compute", BLUE},
    {"COMPUTATION", BLUE},
    {"kernel", BLUE},
    {"communication", "#f28e2b"},
    {"COMMUNICATION", "#f28e2b"},
    {"memory", "#59a14f"},
    {"MEMORY", "#59a14f"},
    {"memcpy", "#59a14f"},
    {"memset", "#8cd17d"},
    {"compute + communication", "#c49c6c"},
    {"compute + memory", "#86bcb6"},
    {"communication + memory", "#b6992d"},
    {"compute + communication + memory", "#c9b3d6"},
    {"non-compute", "#b07aa1"},
    {"idle", "#d4d4d4"},
    {"other", "#9d9d9d"},
    /* The CPU side of a step, and classes of CPU ops. */
    {"runtime", "#9c755f"},
    {"cpu_exec", "#edc948"},
    {"CPU op", "#edc948"},
    {"dataloader", "#ff9da7"},
    {"annotation", "#bab0ac"},
    {"python", "#d4a6c8"},
    /* What bounds the critical path: the CPU, the GPU's work by kind, and
     * waiting (on a launch, as the runtime; between kernels, as idle). */
    {"CPU-bound", "#edc948"},
    {"GPU compute", BLUE},
    {"GPU communication", "#f28e2b"},
    {"waiting: launch", "#9c755f"},
    {"waiting: kernel gap", "#d4d4d4"},
    /* Step-log phases (steplog_metric_rules): compute in blues, waiting on
     * data in pinks, communication orange, copies green. */
    {"forward", BLUE},
    {"backward", "#a0cbe8"},
    {"forward_backward", "#6a9bc3"},
    {"backward_inner", "#a0cbe8"},
    {"training", BLUE},
    {"optimizer", "#76b7b2"},
    {"ema", "#499894"},
    {"sync", "#f28e2b"},
    {"gather", "#f28e2b"},
    {"data", "#ff9da7"},
    {"data_generation", "#ff9da7"},
    {"batch_wait", "#fabfd2"},
    {"transfer", "#59a14f"},
    {"validation", "#d4a6c8"},
    {"sampling", "#d4a6c8"},
    {"generation", "#d4a6c8"},
    {"metrics", "#bab0ac"},
    {"checkpoint", "#79706e"},
    {"step_time", BLUE},
};

const char *pdb_chart_color(const char *name)
{
    for (size_t i = 0; i < sizeof meanings / sizeof meanings[0]; i++)
        if (strcmp(meanings[i].name, name) == 0)
            return meanings[i].rgb;
    return NULL;
}

/* Tableau 10, for series and classes without a meaning. */
static const char *const palette[] = {BLUE,      "#f28e2b", RED,       "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

/* The colour of a name: its meaning, else the next palette colour no
 * other name of the chart has taken (used: colours so far, *nused). */
static const char *pick_color(const char *name, const char **used, int *nused, int cap)
{
    const char *c = pdb_chart_color(name);
    for (size_t p = 0; !c && p < sizeof palette / sizeof palette[0]; p++) {
        bool taken = false;
        for (int i = 0; i < *nused; i++)
            taken = taken || strcmp(used[i], palette[p]) == 0;
        if (!taken)
            c = palette[p];
    }
    if (!c)
        c = palette[*nused % 10];
    if (*nused < cap)
        used[(*nused)++] = c;
    return c;
}

static long rgb_value(const char *hex)
{
    return strtol(hex + 1, NULL, 16);
}

/* Text on a colour: white on dark ones, near-black on light ones. */
static const char *text_on(const char *hex)
{
    long v = rgb_value(hex);
    double lum = 0.299 * (double)((v >> 16) & 255) + 0.587 * (double)((v >> 8) & 255) +
                 0.114 * (double)(v & 255);
    return lum < 150 ? "#ffffff" : "#222222";
}

/* ---- numbers ------------------------------------------------------------- */

/* 3 significant digits, 2 below 1 ("0.52"); times in s, ms or us. */
void pdb_chart_value_text(double v, const char *unit, char *buf, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "-");
        return;
    }
    /* Times in the unit that keeps 1 to 4 digits before the point. */
    if (strcmp(unit, "ms") == 0 && fabs(v) >= 10000) {
        v /= 1000;
        unit = "s";
    } else if (strcmp(unit, "ms") == 0 && fabs(v) < 1 && v != 0) {
        v *= 1000;
        unit = "\xC2\xB5s";
    }
    double a = fabs(v);
    char num[32];
    if (a == 0)
        snprintf(num, sizeof num, "0");
    else if (a < 1)
        snprintf(num, sizeof num, "%#.2g", v);
    else
        snprintf(num, sizeof num, "%.*f", a >= 100 ? 0 : a >= 10 ? 1 : 2, v);
    snprintf(buf, cap, "%s%s%s", num, *unit && strcmp(unit, "%") != 0 ? " " : "", unit);
}

static void share_text(double pct, char *buf, size_t cap)
{
    if (pct < 0.1)
        snprintf(buf, cap, "<0.1%%");
    else
        snprintf(buf, cap, "%.*f%%", pct >= 10 ? 0 : 1, pct);
}

/* "+12.3%", "new" or "gone" (one side zero), "same". */
static void change_text(double base, double test, char *buf, size_t cap)
{
    if (base == test)
        snprintf(buf, cap, "same");
    else if (base == 0)
        snprintf(buf, cap, "new");
    else if (test == 0)
        snprintf(buf, cap, "gone");
    else {
        double pct = 100.0 * (test - base) / base;
        snprintf(buf, cap, "%+.*f%%", fabs(pct) >= 100 ? 0 : 1, pct);
    }
}

static double value(const chart_grid *g, int x, int s)
{
    return s < g->ns ? g->v[x * g->ns + s] : NAN;
}

/* The sum of a row's series (missing as 0). */
static double row_total(const chart_grid *g, int x)
{
    double t = 0;
    for (int s = 0; s < g->ns; s++)
        if (isfinite(value(g, x, s)))
            t += value(g, x, s);
    return t;
}

/* A part of a share bar: "compute 84%" (its share of the bar). */
static void part_text(const chart_grid *g, int x, int s, pdb_buf *out)
{
    char c[32];
    share_text(100 * value(g, x, s) / row_total(g, x), c, sizeof c);
    pdb_buf_addf(out, "%s %s", g->series[s], c);
}

/* Whether the part's text fits inside it at the chart's x range (before
 * the range is known, share_xmax 0: every part fits). About 7 pixels a
 * code point at the chart's font, and some room at either end. */
static bool part_fits(const chart_grid *g, int x, int s)
{
    if (g->share_xmax <= 0)
        return true;
    pdb_buf t = PDB_BUF_INIT;
    part_text(g, x, s, &t);
    size_t n = 0;
    for (const char *p = pdb_buf_str(&t); *p; p++)
        n += ((unsigned char)*p & 0xC0) != 0x80;
    pdb_buf_free(&t);
    return 7.0 * (double)n + 10 <= value(g, x, s) / g->share_xmax * g->share_plot_px;
}

/* A part with time in it: drawn, and labelled inside or after the bar. */
static bool part_shown(const chart_grid *g, int x, int s)
{
    return s < CHART_MAX_SERIES && g->drawn[s] && isfinite(value(g, x, s)) &&
           value(g, x, s) > 0;
}

/* A share bar's texts: inside each part its name and share where they
 * fit; after the bar its total and, in parentheses, the parts that did not
 * fit ("66.1 ms  (memory 5.0%, compute + memory 0.3%)"): every part
 * labelled, no legend to look up. */
static void share_bar_text(const chart_grid *g, int x, int col, pdb_buf *out)
{
    if (col >= g->col_inside && col < g->col_inside + g->ns) {
        int s = col - g->col_inside;
        if (part_shown(g, x, s) && part_fits(g, x, s))
            part_text(g, x, s, out);
        return;
    }
    char a[48];
    pdb_chart_value_text(row_total(g, x), g->unit, a, sizeof a);
    pdb_buf_adds(out, a);
    int n = 0;
    for (int s = 0; s < g->ns; s++)
        if (part_shown(g, x, s) && !part_fits(g, x, s)) {
            pdb_buf_adds(out, n++ ? ", " : "  (");
            part_text(g, x, s, out);
        }
    if (n)
        pdb_buf_addc(out, ')');
}

void pdb_chart_row_text(const chart_grid *g, int x, int col, pdb_buf *out)
{
    char a[48], b[48], c[32];
    double v0 = value(g, x, 0), v1 = value(g, x, 1);
    if (g->form == FORM_SHARE_BARS) {
        share_bar_text(g, x, col, out);
    } else if (g->form == FORM_PAIRED) {
        pdb_chart_value_text(col == g->col_text ? v0 : v1, g->unit, a, sizeof a);
        pdb_buf_adds(out, a);
        if (col == g->col_text2) {
            change_text(isfinite(v0) ? v0 : 0, isfinite(v1) ? v1 : 0, c, sizeof c);
            pdb_buf_addf(out, "  %s", c);
        }
    } else if (g->form == FORM_BARS && g->nested) {
        /* The part, then the whole: "tottime 185 ms · cumtime 580 ms". */
        pdb_chart_value_text(v1, g->unit, a, sizeof a);
        pdb_chart_value_text(v0, g->unit, b, sizeof b);
        pdb_buf_addf(out, "%s %s \xC2\xB7 %s %s", g->series[1], a, g->series[0], b);
    } else if (g->form == FORM_BARS) {
        pdb_chart_value_text(col == g->col_text ? v0 : v1, g->unit, a, sizeof a);
        pdb_buf_adds(out, a);
        if (g->share && isfinite(g->share[x])) {
            share_text(g->share[x], c, sizeof c);
            pdb_buf_addf(out, " (%s)", c);
        }
    } else if (g->form == FORM_COLUMNS) {
        pdb_chart_value_text(row_total(g, x), g->unit, a, sizeof a);
        pdb_buf_adds(out, a);
    } else {
        pdb_chart_value_text(v0, g->unit, a, sizeof a);
        pdb_buf_adds(out, a);
    }
}

/* rgb mixed with white: share of the colour kept. */
static long tint(long rgb, double share)
{
    long out = 0;
    for (int shift = 16; shift >= 0; shift -= 8) {
        double c = (double)((rgb >> shift) & 255);
        out |= (long)lround(255 - (255 - c) * share) << shift;
    }
    return out;
}

#define LIGHT 0.4 /* the tint of before and whole bars */

long pdb_chart_row_color(const chart_grid *g, int x, bool light)
{
    long rgb = g->row_rgb ? g->row_rgb[x] : rgb_value(BLUE);
    return light ? tint(rgb, LIGHT) : rgb;
}

/* ---- the plan ------------------------------------------------------------ */

static void unit_of(const char *axis, char *unit, size_t cap)
{
    if (strstr(axis, "millisecond") || strstr(axis, "(ms)"))
        snprintf(unit, cap, "ms");
    else if (strstr(axis, "(%)"))
        snprintf(unit, cap, "%%");
    else
        snprintf(unit, cap, "%s", "");
}

static int samples(const chart_grid *g, int s)
{
    int n = 0;
    for (int x = 0; x < g->nx; x++)
        n += isfinite(value(g, x, s));
    return n;
}

static int max_samples(const chart_grid *g)
{
    int most = 0;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++)
        if (samples(g, s) > most)
            most = samples(g, s);
    return most;
}

/* Whether every value of series 1 is within series 0 (a part of it). */
static bool second_within_first(const chart_grid *g)
{
    for (int x = 0; x < g->nx; x++)
        if (isfinite(value(g, x, 1)) && !(value(g, x, 1) <= value(g, x, 0) * (1 + 1e-9)))
            return false;
    return true;
}

static chart_form form_of(const chart_grid *g)
{
    switch (g->spec->kind) {
    case PDB_CHART_STACKED:
        return g->nx > 40 ? FORM_AREAS : FORM_COLUMNS;
    case PDB_CHART_SHARES:
        return g->nx > 16 ? FORM_COLUMNS : FORM_SHARE_BARS;
    case PDB_CHART_HBAR:
        return FORM_BARS;
    case PDB_CHART_PAIRED:
        return g->ns >= 2 ? FORM_PAIRED : FORM_BARS;
    case PDB_CHART_RANKS:
        return FORM_RANKS;
    case PDB_CHART_HIST:
        return max_samples(g) <= 40 ? FORM_STRIP : FORM_HIST;
    case PDB_CHART_GROUPED:
        return FORM_GROUPED;
    case PDB_CHART_TREND:
        return FORM_TREND;
    case PDB_CHART_TIMELINE:
        return FORM_TIMELINE;
    case PDB_CHART_LINES:
        break;
    }
    return FORM_LINES;
}

/* Series worth a colour and a legend entry: stacked forms skip series that
 * are zero everywhere (a trace without memsets has no memset band). */
static void choose_series(chart_grid *g)
{
    bool stacked = g->form == FORM_COLUMNS || g->form == FORM_AREAS ||
                   g->form == FORM_SHARE_BARS;
    const char *used[CHART_MAX_SERIES];
    int nused = 0;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        g->drawn[s] = false;
        for (int x = 0; x < g->nx && !g->drawn[s]; x++)
            g->drawn[s] = isfinite(value(g, x, s)) && (!stacked || value(g, x, s) != 0);
        if (g->form == FORM_TREND)
            g->drawn[s] = true;
    }
    /* Known colours first, so the palette keeps clear of them. */
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++)
        if (pdb_chart_color(g->series[s]))
            g->color[s] = pick_color(g->series[s], used, &nused, CHART_MAX_SERIES);
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++)
        if (!g->color[s])
            g->color[s] = pick_color(g->series[s], used, &nused, CHART_MAX_SERIES);
    /* Before and after of one quantity: one colour, two fills. */
    if ((g->form == FORM_STRIP || g->form == FORM_HIST) && g->ns == 2)
        g->color[1] = g->color[0];
}

static void choose_columns(chart_grid *g)
{
    int next = 2 + g->ns;
    if (g->share)
        g->col_share = next++;
    if (g->cls)
        g->col_class = next++;
    if (g->form == FORM_BARS || g->form == FORM_PAIRED)
        g->col_color = next++;
    if (g->form == FORM_PAIRED || (g->form == FORM_BARS && g->nested))
        g->col_light = next++;
    bool totals = (g->form == FORM_COLUMNS && g->spec->kind == PDB_CHART_STACKED && g->nx <= 16) ||
                  g->form == FORM_SHARE_BARS;
    if (g->form == FORM_BARS || g->form == FORM_PAIRED || totals ||
        (g->form == FORM_RANKS && g->nx <= 12))
        g->col_text = next++;
    if (g->form == FORM_PAIRED || (g->form == FORM_BARS && g->ns >= 2 && !g->nested))
        g->col_text2 = next++;
    if (g->form == FORM_PAIRED)
        g->col_up = next++;
    if (g->form == FORM_SHARE_BARS) {
        g->col_inside = next;
        next += g->ns;
    }
}

static bool has_key(const chart_grid *g);
static bool trend_has(const chart_grid *g, bool band);
static int key_rows(const chart_grid *g);

static void choose_size(chart_grid *g)
{
    g->w = 900;
    int key = has_key(g) ? 10 + 17 * key_rows(g) : 0;
    g->h = 500;
    switch (g->form) {
    case FORM_BARS:
        g->h = 100 + key + 30 * g->nx + (g->ns >= 2 && !g->nested ? 12 * g->nx : 0);
        break;
    case FORM_PAIRED:
        g->h = 110 + key + 46 * g->nx;
        break;
    case FORM_SHARE_BARS:
        g->h = 140 + key + 44 * g->nx;
        break;
    case FORM_STRIP:
        g->h = 150 + 80 * g->ns;
        break;
    case FORM_RANKS:
        g->h = g->nx <= 8 ? 380 : 450;
        /* fall through */
    case FORM_COLUMNS:
        if (g->nx > 40)
            g->w = g->nx * 16 + 200 > 1800 ? 1800 : g->nx * 16 + 200;
        break;
    case FORM_AREAS:
        g->w = 1000;
        g->h = 450;
        break;
    case FORM_TIMELINE:
        g->h = g->npanels >= 2 ? 90 + 170 * g->npanels : 450;
        break;
    case FORM_HIST:
    case FORM_LINES:
        g->h = 450;
        break;
    case FORM_TREND:
        if (g->nx > 40)
            g->w = 1200;
        break;
    case FORM_GROUPED:
        break;
    }
    g->h = g->h < 180 ? 180 : g->h; /* one bar still gets room around it */
}

/* The row classes: the distinct ones in order of first appearance (the
 * first CHART_MAX_CLASSES; rows of further classes are grey), each with its
 * colour, known ones by meaning, the others from the palette; and each
 * row's colour. Linear in the rows. */
static void choose_row_colors(chart_grid *g)
{
    if (!g->cls)
        return;
    const char *used[CHART_MAX_CLASSES];
    int nused = 0;
    long rgb[CHART_MAX_CLASSES];
    g->row_rgb = calloc((size_t)g->nx, sizeof *g->row_rgb);
    if (!g->row_rgb)
        abort();
    g->classes_own = true;
    for (int x = 0; x < g->nx; x++) {
        const char *c = g->cls[x];
        g->classes_own = g->classes_own && c && strcmp(c, g->labels[x]) == 0;
        int k = 0;
        while (c && k < g->nclasses && strcmp(g->cls[g->class_row[k]], c) != 0)
            k++;
        if (c && k == g->nclasses && k < CHART_MAX_CLASSES) {
            g->class_row[g->nclasses++] = x;
            rgb[k] = rgb_value(pick_color(c, used, &nused, CHART_MAX_CLASSES));
        }
        g->row_rgb[x] = !c ? rgb_value(BLUE) : k < g->nclasses ? rgb[k] : rgb_value(NEUTRAL);
    }
}

static double bars_xmax(const chart_grid *g, double plot_px, double longest);
static size_t widest_label(const chart_grid *g);

/* The x range of share bars: the longest bar and the text after it fit
 * the plot. That text holds the parts whose names do not fit inside them,
 * which depends on the range: three rounds settle it (a wider range only
 * moves more parts out). */
static void share_range(chart_grid *g)
{
    double longest = 0;
    for (int x = 0; x < g->nx; x++)
        longest = fmax(longest, row_total(g, x));
    g->share_plot_px = g->w - 70 - 7.0 * (double)widest_label(g);
    g->share_xmax = 0;
    for (int round = 0; round < 3; round++)
        g->share_xmax = bars_xmax(g, g->share_plot_px, longest);
}

void pdb_chart_plan(chart_grid *g)
{
    unit_of(g->spec->axis, g->unit, sizeof g->unit);
    g->form = form_of(g);
    g->nested = g->form == FORM_BARS && g->ns >= 2 && second_within_first(g);
    choose_series(g);
    choose_row_colors(g);
    choose_columns(g);
    choose_size(g);
    g->top_px = 38 + (has_key(g) && g->form != FORM_TREND ? 6 + 17 * key_rows(g) : 0);
    if (g->form == FORM_SHARE_BARS)
        share_range(g);
}

/* ---- shared pieces ------------------------------------------------------- */

static int drawn_count(const chart_grid *g)
{
    int n = 0;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++)
        n += g->drawn[s];
    return n;
}

/* Distinct classes of the rows; at least two make a legend, unless each
 * row is its own class (phases coloured by name need no legend). */
static int class_count(const chart_grid *g)
{
    return g->classes_own ? 0 : g->nclasses;
}

/* A legend only for more than one series (or class, or before and after). */
static bool has_key(const chart_grid *g)
{
    switch (g->form) {
    case FORM_BARS:
        return g->ns >= 2 || class_count(g) >= 2;
    case FORM_PAIRED:
        return true;
    case FORM_RANKS:
    case FORM_STRIP:
    case FORM_SHARE_BARS: /* the parts are named on the bars */
        return false;
    case FORM_TREND:
        return trend_has(g, true) || trend_has(g, false);
    case FORM_TIMELINE:
        return g->npanels < 2 && drawn_count(g) >= 2; /* panels have their own */
    default:
        return drawn_count(g) >= 2;
    }
}

/* Legend entries of a chart, and the longest title among them. */
static int key_entries(const chart_grid *g, size_t *longest)
{
    int n = 0;
    *longest = 4;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++)
        if (g->drawn[s] || g->form == FORM_BARS || g->form == FORM_PAIRED) {
            n++;
            *longest = strlen(g->series[s]) > *longest ? strlen(g->series[s]) : *longest;
        }
    if (g->form == FORM_BARS && g->ns < 2)
        n = 0;
    if (g->form == FORM_PAIRED)
        n = 2;
    for (int k = 0; k < g->nclasses; k++)
        if (strlen(g->cls[g->class_row[k]]) > *longest)
            *longest = strlen(g->cls[g->class_row[k]]);
    if (g->form == FORM_BARS || g->form == FORM_PAIRED)
        n += class_count(g) >= 2 ? class_count(g) : 0;
    return n;
}

/* Rows the legend takes across the chart (gnuplot gives each entry the
 * width of the longest title). */
static int key_rows(const chart_grid *g)
{
    size_t longest;
    int n = key_entries(g, &longest);
    int per_row = (g->w - 60) / (int)((longest + 8) * 8.5);
    per_row = per_row < 1 ? 1 : per_row;
    return n ? (n + per_row - 1) / per_row : 0;
}

/* The legend in rows between the title and the plot (g->top_px leaves
 * room for them): it takes no width from the plot. gnuplot's own "outside
 * top" would put it above the title. */
static void key_above(FILE *f, const chart_grid *g)
{
    if (!has_key(g)) {
        fputs("set key off\n", f);
        return;
    }
    fprintf(f, "set key at screen 0.5, screen %.4f center top horizontal samplen 1.5 width 1\n",
            1 - 30.0 / g->h);
}

static void axis_label(FILE *f, const char *which, const char *text)
{
    fprintf(f, "set %s ", which);
    pdb_gp_quote_file(f, text);
    fputc('\n', f);
}

/* "($2+$3)": the sum of series [from, to) as a gnuplot expression. */
static void sum_expr(pdb_buf *b, int from, int to)
{
    pdb_buf_adds(b, "(0");
    for (int s = from; s < to; s++)
        pdb_buf_addf(b, "+$%d", s + 2);
    pdb_buf_addc(b, ')');
}

/* The data file of a plot clause: named in the first, '' after it. */
static void source(FILE *f, const chart_grid *g, bool first)
{
    if (first)
        fprintf(f, "'%s.dat'", g->spec->name);
    else
        fputs(", \\\n     ''", f);
}

/* A legend entry that is no data: a box of colour fill, titled title. */
static void key_entry(FILE *f, const char *fill, const char *color, const char *title)
{
    fprintf(f, ", \\\n     keyentry with boxes lc rgb '%s' fs %s title ", color, fill);
    pdb_gp_quote_file(f, title);
}

/* Tick labels every so many rows, at most ~40 of them. */
static int tick_every(const chart_grid *g)
{
    return g->nx > 40 ? (g->nx + 39) / 40 : 1;
}

static size_t widest_label(const chart_grid *g)
{
    size_t w = 0;
    for (int x = 0; x < g->nx; x++)
        if (strlen(g->labels[x]) > w)
            w = strlen(g->labels[x]);
    return w;
}

/* Slanted x tick labels when side by side they would not fit. */
static void x_ticks(FILE *f, const chart_grid *g)
{
    size_t shown = (size_t)((g->nx + tick_every(g) - 1) / tick_every(g));
    bool slant = shown * (widest_label(g) + 2) * 7 > (size_t)(g->w - 120);
    fprintf(f, "set xtics scale 0%s\n", slant ? " rotate by 45 right" : "");
}

/* Pixels the widest printed text of a column takes (about 7 per character
 * at the chart's font size), so bars leave room for it. */
static double text_px(const chart_grid *g, int col)
{
    size_t most = 0;
    pdb_buf t = PDB_BUF_INIT;
    for (int x = 0; x < g->nx; x++) {
        pdb_buf_reset(&t);
        pdb_chart_row_text(g, x, col, &t);
        size_t n = 0;
        for (const char *p = pdb_buf_str(&t); *p; p++)
            n += ((unsigned char)*p & 0xC0) != 0x80; /* code points */
        if (n > most)
            most = n;
    }
    pdb_buf_free(&t);
    return 7.0 * (double)most + 12;
}

/* The x range of horizontal bars: the longest bar plus its text fit in
 * plot_px pixels. */
static double bars_xmax(const chart_grid *g, double plot_px, double longest)
{
    double room = plot_px - text_px(g, g->col_text2 ? g->col_text2 : g->col_text);
    if (room < plot_px / 3)
        room = plot_px / 3;
    return longest > 0 ? longest * plot_px / room : 1;
}

static double max_value(const chart_grid *g, int s_from, int s_to)
{
    double m = 0;
    for (int x = 0; x < g->nx; x++)
        for (int s = s_from; s < s_to && s < g->ns; s++)
            if (isfinite(value(g, x, s)) && value(g, x, s) > m)
                m = value(g, x, s);
    return m;
}

/* ---- the forms ------------------------------------------------------------- */

/* Columns per label, series stacked bottom up, totals printed on top when
 * there are few columns. */
static void plot_columns(FILE *f, const chart_grid *g)
{
    bool dense = g->nx > 30; /* many columns: no outlines, or they are all one sees */
    fprintf(f, "set style data histograms\nset style histogram rowstacked\n"
               "set style fill solid 0.9 %s\nset boxwidth %s relative\n"
               "set grid ytics\nset yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n",
            dense ? "noborder" : "border rgb '#ffffff'", dense ? "1" : "0.7");
    x_ticks(f, g);
    key_above(f, g);
    axis_label(f, "ylabel", g->spec->axis);
    fputs("plot ", f);
    bool first = true;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        if (!g->drawn[s])
            continue;
        source(f, g, first);
        fprintf(f, " using %d", s + 2);
        if (first)
            fprintf(f, ":xtic(int(column(0)) %% %d == 0 ? strcol(1) : '')", tick_every(g));
        fprintf(f, " lc rgb '%s' title columnheader(%d)", g->color[s], s + 2);
        first = false;
    }
    if (g->col_text) {
        pdb_buf sum = PDB_BUF_INIT;
        sum_expr(&sum, 0, g->ns);
        fprintf(f, ", \\\n     '' using 0:%s:%d with labels offset 0,0.7 notitle",
                pdb_buf_str(&sum), g->col_text);
        pdb_buf_free(&sum);
    }
    fputc('\n', f);
}

/* Many steps: each series a band stacked on the ones below, the total the
 * line on top. */
static void plot_areas(FILE *f, const chart_grid *g)
{
    fputs("set style fill solid 0.9 noborder\nset grid ytics\nset yrange [0:*]\n", f);
    fprintf(f, "set xrange [0:%d]\n", g->nx - 1);
    x_ticks(f, g);
    key_above(f, g);
    axis_label(f, "ylabel", g->spec->axis);
    fputs("plot ", f);
    bool first = true;
    pdb_buf lo = PDB_BUF_INIT, hi = PDB_BUF_INIT;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        if (!g->drawn[s])
            continue;
        pdb_buf_reset(&lo);
        pdb_buf_reset(&hi);
        sum_expr(&lo, 0, s);
        sum_expr(&hi, 0, s + 1);
        source(f, g, first);
        fprintf(f, " using 0:%s:%s", pdb_buf_str(&lo), pdb_buf_str(&hi));
        if (first)
            fprintf(f, ":xtic(int(column(0)) %% %d == 0 ? strcol(1) : '')", tick_every(g));
        fprintf(f, " with filledcurves lc rgb '%s' title columnheader(%d)", g->color[s], s + 2);
        first = false;
    }
    pdb_buf_reset(&hi);
    sum_expr(&hi, 0, g->ns);
    fprintf(f, ", \\\n     '' using 0:%s with lines lc rgb '#333333' lw 1 notitle\n",
            pdb_buf_str(&hi));
    pdb_buf_free(&lo);
    pdb_buf_free(&hi);
}

/* One horizontal bar per label, its parts stacked left to right with their
 * percentages (where a part is wide enough to hold one), the total at the
 * end. */
static void plot_share_bars(FILE *f, const chart_grid *g)
{
    fprintf(f, "set yrange [%d.5:-0.5]\nset xrange [0:%.6g]\nset ytics scale 0\n"
               "set grid xtics\nset style fill solid 0.95 border rgb '#ffffff'\n",
            g->nx - 1, g->share_xmax);
    key_above(f, g);
    axis_label(f, "xlabel", g->spec->axis);
    fputs("plot ", f);
    bool first = true;
    pdb_buf lo = PDB_BUF_INIT, hi = PDB_BUF_INIT, all = PDB_BUF_INIT;
    sum_expr(&all, 0, g->ns);
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        if (!g->drawn[s])
            continue;
        pdb_buf_reset(&lo);
        pdb_buf_reset(&hi);
        sum_expr(&lo, 0, s);
        sum_expr(&hi, 0, s + 1);
        source(f, g, first);
        fprintf(f, " using %s:0:%s:%s:($0-0.32):($0+0.32)%s with boxxyerror lc rgb '%s'"
                   " title columnheader(%d)", pdb_buf_str(&lo), pdb_buf_str(&lo),
                pdb_buf_str(&hi), first ? ":ytic(1)" : "", g->color[s], s + 2);
        first = false;
    }
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        if (!g->drawn[s])
            continue;
        pdb_buf_reset(&lo);
        sum_expr(&lo, 0, s);
        /* The part's name and share inside it, where they fit (the data
         * file's text is empty where not: those are named after the bar). */
        fprintf(f, ", \\\n     '' using (%s+$%d/2):0:%d with labels tc rgb '%s' notitle",
                pdb_buf_str(&lo), s + 2, g->col_inside + s, text_on(g->color[s]));
    }
    fprintf(f, ", \\\n     '' using %s:0:%d with labels left offset 0.6,0 notitle\n",
            pdb_buf_str(&all), g->col_text);
    pdb_buf_free(&lo);
    pdb_buf_free(&hi);
    pdb_buf_free(&all);
}

/* Legend entries for the row classes, in order of first appearance. */
static void class_keys(FILE *f, const chart_grid *g)
{
    if (class_count(g) < 2)
        return;
    for (int k = 0; k < g->nclasses; k++) {
        char hex[8];
        snprintf(hex, sizeof hex, "#%06lx", pdb_chart_row_color(g, g->class_row[k], false));
        key_entry(f, "solid 0.9", hex, g->cls[g->class_row[k]]);
    }
}

/* The name of each row above its bar, from the left edge. */
static void row_names(FILE *f, double y)
{
    fprintf(f, ", \\\n     '' using (0):($0%+.2f):1 with labels left offset 0.2,0 notitle", y);
}

/* Horizontal bars, largest first: the name above each bar, the value (and
 * share) at its end, coloured by class. Two series: the second inside the
 * first when it is a part of it, else beside it. */
static void plot_bars(FILE *f, const chart_grid *g)
{
    bool two = g->ns >= 2;
    double plot_px = g->w - 60;
    fprintf(f, "set yrange [%d.5:-0.75]\nset xrange [0:%.6g]\nunset ytics\nset border 1\n"
               "set grid xtics\nset style fill solid 0.9 noborder\n",
            g->nx - 1, bars_xmax(g, plot_px, max_value(g, 0, two ? 2 : 1)));
    key_above(f, g);
    axis_label(f, "xlabel", g->spec->axis);
    fprintf(f, "plot '%s.dat' ", g->spec->name);
    if (!two) {
        fprintf(f, "using (0):0:(0):2:($0-0.08):($0+0.38):%d with boxxyerror lc rgb variable"
                   " notitle", g->col_color);
        row_names(f, -0.33);
        fprintf(f, ", \\\n     '' using 2:($0+0.15):%d with labels left offset 0.5,0 notitle",
                g->col_text);
    } else if (g->nested) {
        fprintf(f, "using (0):0:(0):2:($0-0.06):($0+0.36):%d with boxxyerror"
                   " lc rgb variable notitle, \\\n"
                   "     '' using (0):0:(0):3:($0+0.02):($0+0.28):%d with boxxyerror"
                   " lc rgb variable notitle",
                g->col_light, g->col_color);
        row_names(f, -0.32);
        fprintf(f, ", \\\n     '' using 2:($0+0.15):%d with labels left offset 0.5,0 notitle",
                g->col_text);
    } else {
        fprintf(f, "using (0):0:(0):2:($0-0.08):($0+0.14) with boxxyerror lc rgb '%s'"
                   " notitle, \\\n     '' using (0):0:(0):3:($0+0.16):($0+0.38) with boxxyerror"
                   " lc rgb '%s' notitle",
                g->color[0], g->color[1]);
        row_names(f, -0.34);
        fprintf(f, ", \\\n     '' using 2:($0+0.03):%d with labels left offset 0.5,0 notitle"
                   ", \\\n     '' using 3:($0+0.27):%d with labels left offset 0.5,0 notitle",
                g->col_text, g->col_text2);
    }
    if (two) {
        char light[8];
        snprintf(light, sizeof light, "#%06lx", tint(rgb_value(BLUE), LIGHT));
        key_entry(f, "solid 0.9", g->nested ? light : g->color[0], g->series[0]);
        key_entry(f, "solid 0.9", g->nested ? BLUE : g->color[1], g->series[1]);
    }
    class_keys(f, g);
    fputc('\n', f);
}

/* Before and after per row: the name above, the base bar light, the test
 * bar solid in the row's colour, values at the ends and the change after
 * the test value, red when it grew, green when it shrank, grey when the
 * same. */
static void plot_paired(FILE *f, const chart_grid *g)
{
    double plot_px = g->w - 60;
    fprintf(f, "set yrange [%d.5:-0.75]\nset xrange [0:%.6g]\nunset ytics\nset border 1\n"
               "set grid xtics\nset style fill solid 0.9 noborder\n",
            g->nx - 1, bars_xmax(g, plot_px, max_value(g, 0, 2)));
    key_above(f, g);
    axis_label(f, "xlabel", g->spec->axis);
    fprintf(f, "plot '%s.dat' using (0):0:(0):2:($0-0.13):($0+0.09):%d with boxxyerror"
               " lc rgb variable notitle, \\\n"
               "     '' using (0):0:(0):3:($0+0.13):($0+0.35):%d with boxxyerror"
               " lc rgb variable notitle",
            g->spec->name, g->col_light, g->col_color);
    row_names(f, -0.35);
    fprintf(f, ", \\\n     '' using 2:($0-0.02):%d with labels left offset 0.5,0 tc rgb '%s'"
               " notitle", g->col_text, NEUTRAL);
    static const struct {
        int up;
        const char *rgb;
    } signs[] = {{1, UP_TEXT}, {-1, DOWN_TEXT}, {0, NEUTRAL}};
    for (int i = 0; i < 3; i++)
        fprintf(f, ", \\\n     '' using 3:($0+0.24):($%d == %d ? strcol(%d) : '') with labels"
                   " left offset 0.5,0 tc rgb '%s' notitle",
                g->col_up, signs[i].up, g->col_text2, signs[i].rgb);
    char light[8];
    snprintf(light, sizeof light, "#%06lx", tint(rgb_value(NEUTRAL), LIGHT));
    key_entry(f, "solid 0.9", light, g->series[0]);
    key_entry(f, "solid 0.9", NEUTRAL, g->series[1]);
    class_keys(f, g);
    fputc('\n', f);
}

/* One column per rank, its value on top; a straggler red and labelled. */
static void plot_ranks(FILE *f, const chart_grid *g)
{
    fputs("set style fill solid 0.9 noborder\nset boxwidth 0.6\nset yrange [0:*]\n"
          "set grid ytics\nset key off\nset offsets 0, 0, graph 0.12, 0\n", f);
    x_ticks(f, g);
    axis_label(f, "ylabel", g->spec->axis);
    fprintf(f, "plot '%s.dat' using 0:2:($3 > 0 ? 0x%06lx : 0x%06lx):xtic(1) with boxes"
               " lc rgb variable notitle, \\\n"
               "     '' using 0:($3 > 0 ? $2 : NaN):('straggler') with labels offset 0,%s"
               " tc rgb '%s' notitle",
            g->spec->name, rgb_value(RED), rgb_value(BLUE), g->col_text ? "1.8" : "0.8", RED);
    if (g->col_text)
        fprintf(f, ", \\\n     '' using 0:2:%d with labels offset 0,0.7 notitle", g->col_text);
    fputc('\n', f);
}

/* ---- distributions --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorted finite values of series s; *n of them (free the result). */
static double *sorted(const chart_grid *g, int s, int *n)
{
    double *v = malloc(((size_t)g->nx + 1) * sizeof *v);
    if (!v)
        abort();
    *n = 0;
    for (int x = 0; x < g->nx; x++)
        if (isfinite(value(g, x, s)))
            v[(*n)++] = value(g, x, s);
    qsort(v, (size_t)*n, sizeof *v, cmp_double);
    return v;
}

static double quantile(const double *v, int n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

/* The range of all drawn series, padded (and widened around one value). */
static void value_range(const chart_grid *g, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int x = 0; x < g->nx; x++)
        for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++)
            if (isfinite(value(g, x, s))) {
                *lo = fmin(*lo, value(g, x, s));
                *hi = fmax(*hi, value(g, x, s));
            }
    if (!(*hi > *lo)) {
        double pad = isfinite(*hi) && fabs(*hi) > 0 ? fabs(*hi) * 0.05 : 0.5;
        *lo = isfinite(*lo) ? *lo - pad : 0;
        *hi = isfinite(*hi) ? *hi + pad : 1;
    }
}

/* Which series a distribution draws (the first CHART_MAX_SERIES). */
static int dist_series(const chart_grid *g)
{
    return g->ns < CHART_MAX_SERIES ? g->ns : CHART_MAX_SERIES;
}

/* What a distribution's samples are: steps, or ranks in a chart named for
 * them (rank-hist: the ranks' mean step times). */
static const char *counted(const chart_grid *g)
{
    return strstr(g->spec->name, "rank") ? "ranks" : "steps";
}

/* The median of each series: a mark and its value, "median 612 ms". In a
 * strip the mark crosses the series' row, with the count of samples; in a
 * histogram the whole plot. */
static void medians(FILE *f, const chart_grid *g, bool strip)
{
    int ns = dist_series(g);
    for (int s = 0; s < ns; s++) {
        int n;
        double *v = sorted(g, s, &n);
        double m = quantile(v, n, 0.5);
        free(v);
        if (!isfinite(m))
            continue;
        char txt[48];
        pdb_chart_value_text(m, g->unit, txt, sizeof txt);
        if (strip)
            fprintf(f, "set arrow from %.9g, %.2f to %.9g, %.2f nohead lw 2 lc rgb '#333333'"
                       " front\nset label 'median %s, %d %s' at %.9g, %.2f center front\n",
                    m, s - 0.36, m, s + 0.36, txt, n,
                    counted(g), m, s - 0.5);
        else
            fprintf(f, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead lw 1.5 dt %d"
                       " lc rgb '#333333' front\nset label '%smedian %s' at %.9g, graph %.2f"
                       " left offset 0.5,0 front\n",
                    m, m, ns > 1 && s == 0 ? 2 : 1, ns > 1 ? (s == 0 ? "before: " : "after: ") : "",
                    txt, m, 0.96 - 0.05 * s);
    }
}

/* Few samples: every one a dot on its series' row (spread a little up and
 * down so equal values stay visible), the median marked. Two series:
 * before open circles, after filled dots. */
static void plot_strip(FILE *f, const chart_grid *g)
{
    int ns = dist_series(g);
    double lo, hi;
    value_range(g, &lo, &hi);
    double pad = (hi - lo) * 0.08;
    fprintf(f, "set xrange [%.9g:%.9g]\nset yrange [%d.6:-0.75]\nset grid xtics\n"
               "set border 1\nset key off\n"
               "jitter(n) = ((int(n) * 7) %% 9 - 4) * 0.06\n",
            lo - pad, hi + pad, ns - 1);
    if (ns < 2)
        fputs("unset ytics\n", f);
    else {
        fputs("set ytics scale 0 (", f);
        for (int s = 0; s < ns; s++) {
            fputs(s ? ", " : "", f);
            pdb_gp_quote_file(f, g->series[s]);
            fprintf(f, " %d", s);
        }
        fputs(")\nset border 3\n", f);
    }
    axis_label(f, "xlabel", g->spec->axis);
    medians(f, g, true);
    fputs("plot ", f);
    for (int s = 0; s < ns; s++) {
        source(f, g, s == 0);
        fprintf(f, " using %d:(%d + jitter($0)) with points pt %d ps 1.6 lc rgb '%s' notitle",
                s + 2, s, ns == 2 && s == 0 ? 6 : 7, g->color[s]);
    }
    fputc('\n', f);
}

/* Bins by the Freedman-Diaconis rule (8 to 40), and the most samples one
 * bin holds, for integer count ticks. */
static void bins_of(const chart_grid *g, double lo, double hi, int *bins, int *most)
{
    int ns = dist_series(g);
    *bins = 20;
    for (int s = 0; s < ns; s++) {
        int n;
        double *v = sorted(g, s, &n);
        double iqr = quantile(v, n, 0.75) - quantile(v, n, 0.25);
        free(v);
        if (n > 0 && iqr > 0) {
            double width = 2 * iqr / cbrt((double)n);
            int b = (int)ceil((hi - lo) / width);
            *bins = b < 8 ? 8 : b > 40 ? 40 : b;
            break;
        }
    }
    *most = 0;
    for (int s = 0; s < ns; s++) {
        int *count = calloc((size_t)*bins, sizeof *count);
        if (!count)
            abort();
        for (int x = 0; x < g->nx; x++)
            if (isfinite(value(g, x, s))) {
                int b = (int)((value(g, x, s) - lo) / (hi - lo) * *bins);
                b = b < 0 ? 0 : b >= *bins ? *bins - 1 : b;
                if (++count[b] > *most)
                    *most = count[b];
            }
        free(count);
    }
}

/* Many samples: a histogram with whole-number counts and the median; two
 * series overlaid on the same bins, before open, after filled. */
static void plot_hist(FILE *f, const chart_grid *g)
{
    int ns = dist_series(g), bins, most;
    double lo, hi;
    value_range(g, &lo, &hi);
    bins_of(g, lo, hi, &bins, &most);
    fputs("set yrange [0:*]\nset offsets 0, 0, graph 0.12, 0\nset grid ytics\n", f);
    if (most <= 10)
        fputs("set ytics 1\n", f);
    key_above(f, g);
    fprintf(f, "set ylabel '%s'\n", counted(g));
    axis_label(f, "xlabel", g->spec->axis);
    medians(f, g, false);
    fputs("plot ", f);
    for (int s = 0; s < ns; s++) {
        const char *fill = ns == 1 ? "solid 0.9 border rgb '#ffffff'"
                           : s == 0 && ns == 2 ? "transparent solid 0.15 border lw 1.5"
                                               : "transparent solid 0.55 noborder";
        source(f, g, s == 0);
        fprintf(f, " using %d bins=%d binrange [%.9g:%.9g] with boxes fs %s lc rgb '%s'"
                   " title columnheader(%d)", s + 2, bins, lo, hi, fill, g->color[s], s + 2);
    }
    fputc('\n', f);
}

/* ---- the rest ---------------------------------------------------------------- */

/* Bars per label, one per series side by side. */
static void plot_grouped(FILE *f, const chart_grid *g)
{
    fputs("set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.9 noborder\nset grid ytics\nset yrange [0:*]\n", f);
    x_ticks(f, g);
    key_above(f, g);
    axis_label(f, "ylabel", g->spec->axis);
    fputs("plot ", f);
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        source(f, g, s == 0);
        fprintf(f, " using %d%s lc rgb '%s' title columnheader(%d)", s + 2,
                s ? "" : ":xtic(1)", g->color[s], s + 2);
    }
    fputc('\n', f);
}

/* Series over time; percentages on their whole scale (11% utilisation
 * must not fill the plot). */
static void plot_lines(FILE *f, const chart_grid *g)
{
    bool pct = strcmp(g->unit, "%") == 0 && max_value(g, 0, g->ns) <= 100;
    fprintf(f, "set grid\nset yrange [0:%s]\nset xlabel 'seconds since the first sample'\n",
            pct ? "100" : "*");
    key_above(f, g);
    axis_label(f, "ylabel", g->spec->axis);
    fputs("plot ", f);
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        source(f, g, s == 0);
        fprintf(f, " using 1:%d with lines lw 1.5 lc rgb '%s' title columnheader(%d)", s + 2,
                g->color[s], s + 2);
    }
    fputc('\n', f);
}

/* Whether series s marks peaks of the others: drawn as points. */
static bool peak_series(const chart_grid *g, int s)
{
    return strncmp(g->series[s], "peak", 4) == 0;
}

/* The plot command of the drawn series of panel p (-1: all series). */
static void timeline_plot(FILE *f, const chart_grid *g, int p)
{
    fputs("plot ", f);
    int first = 1;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++) {
        if (!g->drawn[s] || (p >= 0 && g->panel[s] != p))
            continue;
        source(f, g, first);
        first = 0;
        if (peak_series(g, s))
            fprintf(f, " using 1:%d with points pt 7 ps 1.4 lc rgb '%s' title columnheader(%d)",
                    s + 2, pdb_chart_color(g->series[s]) ? g->color[s] : RED, s + 2);
        else
            fprintf(f, " using 1:%d with steps lw 1.5 lc rgb '%s' title columnheader(%d)", s + 2,
                    g->color[s], s + 2);
    }
    fputc('\n', f);
}

/* Drawn series of panel p. */
static int panel_series(const chart_grid *g, int p)
{
    int n = 0;
    for (int s = 0; s < g->ns && s < CHART_MAX_SERIES; s++)
        n += g->drawn[s] && g->panel[s] == p;
    return n;
}

/* Panels one above the other, each with its own y axis and its name above
 * it, a legend in it when it holds several series; one x range for all,
 * its ticks and label under the last. */
static void plot_panels(FILE *f, const chart_grid *g)
{
    double xmax = 0;
    for (int x = 0; x < g->nx; x++)
        xmax = fmax(xmax, strtod(g->labels[x], NULL));
    double top = 1 - (double)g->top_px / g->h, bottom = 48.0 / g->h;
    double slot = (top - bottom) / g->npanels, head = 20.0 / g->h;
    fprintf(f, "set grid\nset yrange [0:*]\nset xrange [0:%.9g]\nset lmargin 10\n"
               "set rmargin 3\nset key off\n", xmax > 0 ? xmax : 1);
    axis_label(f, "ylabel", g->spec->axis);
    fputs("set multiplot\n", f);
    for (int p = 0; p < g->npanels; p++) {
        bool last = p == g->npanels - 1;
        fprintf(f, "set tmargin at screen %.4f\nset bmargin at screen %.4f\n",
                top - p * slot - head, top - (p + 1) * slot + (last ? 0 : 6.0 / g->h));
        fputs("set label 2 ", f);
        pdb_gp_quote_file(f, g->panels[p]);
        fputs(" at graph 0, graph 1 left offset 0,0.9 font ',10'\n", f);
        if (last)
            fputs("set format x '% h'\nset xlabel 'milliseconds from the start'\n", f);
        else
            fputs("set format x ''\nunset xlabel\n", f);
        if (panel_series(g, p) >= 2)
            fputs("set key inside top right horizontal samplen 1.5 opaque\n", f);
        else
            fputs("set key off\n", f);
        if (panel_series(g, p) > 0)
            timeline_plot(f, g, p);
    }
    fputs("unset multiplot\nunset label 2\n", f);
}

/* Series over time (ms from the start) as step lines: each value holds
 * until the next point; series named "peak..." as marked points, red
 * unless their name has a colour. */
static void plot_timeline(FILE *f, const chart_grid *g)
{
    if (g->npanels >= 2) {
        plot_panels(f, g);
        return;
    }
    fputs("set grid\nset yrange [0:*]\nset xlabel 'milliseconds from the start'\n", f);
    key_above(f, g);
    axis_label(f, "ylabel", g->spec->axis);
    timeline_plot(f, g, -1);
}

/* Whether the trend has a run with a quartile band (series 1 and 2: the
 * query leaves them out where a run has no spread), and a change point
 * (series 4 non-zero). */
static bool trend_has(const chart_grid *g, bool band)
{
    for (int x = 0; x < g->nx; x++)
        if (band ? isfinite(value(g, x, 1)) && isfinite(value(g, x, 2))
                 : isfinite(value(g, x, 4)) && value(g, x, 4) > 0)
            return true;
    return false;
}

/* A metric over runs, x = the run's position: the median per run with the
 * x labels; the quartiles of each run that has a spread, as a box around
 * its median (no band where a run has none: a constant, or a metric whose
 * spread is its progress); with change points, the level of each segment
 * (a step at each) and a mark on each. A legend only with several series. */
static void plot_trend(FILE *f, const chart_grid *g)
{
    int every = tick_every(g);
    bool band = trend_has(g, true), change = trend_has(g, false);
    /* Slanted when the labels side by side would not fit (~110 characters). */
    bool slant = g->nx > 8 || (size_t)g->nx * widest_label(g) > 110;
    /* A full border: histeps ends with a drop at each side, on the border. */
    fprintf(f, "%s\nset border 15\nset grid ytics\nset xtics scale 0%s\n"
               "set offsets 0.5, 0.5, graph 0.05, graph 0.05\n",
            band || change ? "set key below" : "set key off", slant ? " rotate by 45 right" : "");
    axis_label(f, "ylabel", g->spec->axis);
    fprintf(f, "plot '%s.dat' ", g->spec->name);
    if (band)
        fprintf(f, "using 0:2:($0-0.3):($0+0.3):3:4 with boxxyerror lc rgb '%s'"
                   " fs transparent solid 0.2 noborder title 'interquartile range of the run', "
                   "\\\n     '' ", BLUE);
    if (change)
        fputs("using 0:5 with histeps lc rgb '#59a14f' dt 2 lw 1.5 title 'level', \\\n     '' ",
              f);
    fprintf(f, "using 0:2:xtic(int(column(0)) %% %d == 0 ? strcol(1) : '')"
               " with linespoints lc rgb '%s' lw 1.5 pt 7 ps 0.5 title 'median'", every, BLUE);
    if (change)
        fprintf(f, ", \\\n     '' using 0:($6 > 0 ? $2 : NaN) with points lc rgb '%s' pt 9 ps 2"
                   " title 'change point'", RED);
    fputc('\n', f);
}

void pdb_chart_plot(FILE *f, const chart_grid *g)
{
    assert(g->ns > 0 && g->nx > 0);
    switch (g->form) {
    case FORM_COLUMNS:
        plot_columns(f, g);
        break;
    case FORM_AREAS:
        plot_areas(f, g);
        break;
    case FORM_SHARE_BARS:
        plot_share_bars(f, g);
        break;
    case FORM_BARS:
        plot_bars(f, g);
        break;
    case FORM_PAIRED:
        plot_paired(f, g);
        break;
    case FORM_RANKS:
        plot_ranks(f, g);
        break;
    case FORM_STRIP:
        plot_strip(f, g);
        break;
    case FORM_HIST:
        plot_hist(f, g);
        break;
    case FORM_GROUPED:
        plot_grouped(f, g);
        break;
    case FORM_LINES:
        plot_lines(f, g);
        break;
    case FORM_TIMELINE:
        plot_timeline(f, g);
        break;
    case FORM_TREND:
        plot_trend(f, g);
        break;
    }
}
