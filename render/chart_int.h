/* chart_int.h: what chart.c (the data and the files) shares with
 * chart_forms.c (which form a chart takes, and its plot commands).
 * Private to render/chart*.c. */
#ifndef PDB_CHART_INT_H
#define PDB_CHART_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "common/strbuf.h"
#include "render/chart.h"

/* The drawing a kind takes for its data (chart.h says when). */
typedef enum {
    FORM_COLUMNS,    /* stacked columns (STACKED; SHARES with many labels) */
    FORM_AREAS,      /* stacked areas (STACKED with many labels) */
    FORM_SHARE_BARS, /* horizontal stacked bars with percentages (SHARES) */
    FORM_BARS,       /* horizontal bars, names above (HBAR) */
    FORM_PAIRED,     /* before and after bars with the change (PAIRED) */
    FORM_RANKS,      /* one column per rank (RANKS) */
    FORM_STRIP,      /* dots per sample (HIST with few samples) */
    FORM_HIST,       /* histogram (HIST) */
    FORM_GROUPED,
    FORM_LINES,
    FORM_TIMELINE,   /* step lines over time, peaks as points (TIMELINE) */
    FORM_TREND,
} chart_form;

/* Most series a chart draws; more are written to the data file only. */
#define CHART_MAX_SERIES 24
/* Most row classes with a colour of their own and a legend entry. */
#define CHART_MAX_CLASSES 12

typedef struct {
    const pdb_chart_spec *spec;
    char **labels;
    int nx, capx;
    char **series;
    int ns;
    double *v;     /* capx * ns, row-major; NAN where a value is missing */
    int *panel;    /* per series (ns): its panel, or NULL: one plot for all */
    char **panels; /* the panels' names, in order of first appearance */
    int npanels;
    double *share; /* per row (capx), or NULL: the query has no share_pct column */
    char **cls;    /* per row (capx), or NULL: no class column */
    long *row_rgb; /* per row (nx): its colour, by class; NULL without classes */
    int class_row[CHART_MAX_CLASSES]; /* the distinct classes: the first row of each */
    int nclasses;
    bool classes_own; /* every row's class is its own label (no legend needed) */
    /* Decided by pdb_chart_plan from the data: */
    chart_form form;
    char unit[4];                           /* printed after values: "ms", "%" or "" */
    bool nested;                            /* HBAR: series 2 drawn inside series 1 */
    bool drawn[CHART_MAX_SERIES];           /* series with a value: in the plot and key */
    const char *color[CHART_MAX_SERIES];    /* each series' "#rrggbb" */
    int col_share, col_class, col_color, col_light, col_text, col_text2, col_up; /* data
                                               file columns, 1-based; 0 when absent */
    int col_inside;                         /* SHARE_BARS: the first of ns columns, each
                                               series' name and share printed inside
                                               its part (empty where it does not fit) */
    int w, h;                               /* image size in pixels */
    int top_px;                             /* above the plot: title and legend */
    double share_xmax, share_plot_px;       /* SHARE_BARS: the x range and the plot's
                                               width, which parts' names fit in */
} chart_grid;

/* Chooses the form, colours, extra data columns and size (chart_forms.c). */
void pdb_chart_plan(chart_grid *g);

/* The text of data column col (one of the text columns) for row x. */
void pdb_chart_row_text(const chart_grid *g, int x, int col, pdb_buf *out);

/* The row's colour (col_color) as 0xRRGGBB; light: its tint for "before"
 * and "whole" bars (col_light; a tint, not transparency, which not every
 * SVG viewer draws). */
long pdb_chart_row_color(const chart_grid *g, int x, bool light);

/* Writes the style and plot commands of g's form; the data is NAME.dat. */
void pdb_chart_plot(FILE *f, const chart_grid *g);

/* v with its unit, shortly: "46.6 ms", "0.012 ms", "12.3 s", "45%". */
void pdb_chart_value_text(double v, const char *unit, char *buf, size_t cap);

#endif
