/* chart.h: drawing one result set as a gnuplot chart.
 *
 * A chart is NAME.gp (a script users can restyle) and NAME.dat (its data,
 * labels included), written into one folder; running `gnuplot NAME.gp` in
 * that folder draws NAME.png (pngcairo) and NAME.svg. Which charts a run
 * gets, and their queries, are the reports' business (report/charts.c,
 * compare/diff_folder.c, compare/trend_output.c); this module only draws. */
#ifndef PDB_CHART_H
#define PDB_CHART_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

/* What a chart shows; the form it is drawn in follows from the data too
 * (how many rows, samples, series), so each reads at a glance at its size. */
typedef enum {
    PDB_CHART_STACKED,  /* per label in order (steps), series stacked: columns with
                           their totals; many labels (> 40): stacked areas */
    PDB_CHART_HBAR,     /* horizontal bars, largest first, the name above each bar and
                           its value at its end; a second series no larger than the
                           first is drawn inside it (a part: tottime in cumtime),
                           otherwise beside it */
    PDB_CHART_RANKS,    /* one bar per rank; column 3 non-zero marks it red */
    PDB_CHART_HIST,     /* distribution of each series: up to 40 samples a strip of
                           dots, more a histogram; the medians marked; a second series
                           (after) over the first (before) */
    PDB_CHART_GROUPED,  /* bars per label, the series side by side */
    PDB_CHART_LINES,    /* x (a number) against each series */
    PDB_CHART_TREND,    /* runs in order: label, median, q1, q3, level, change (non-zero
                           marks a change point): a line in a quartile band */
    PDB_CHART_SHARES,   /* parts of a whole per label (a rank): up to 16 labels one
                           horizontal stacked bar each, the parts' percentages on them;
                           more labels: stacked columns */
    PDB_CHART_PAIRED,   /* before and after per label: columns label, base, test; two
                           bars per label, the change printed (red up, green down) */
    PDB_CHART_TIMELINE, /* x (milliseconds from the start) against each series as a step
                           line; a series whose name starts with "peak" is drawn as
                           marked points (a peak on the other lines). Long-form rows
                           with a fourth column name the series' panel: several
                           panels are drawn one above the other, each with its own
                           y axis, over the same x axis (a small series stays
                           readable beside a large one) */
} pdb_chart_kind;

typedef struct pdb_chart_spec {
    const char *name;   /* file base name: letters, digits, '-' and '_' */
    const char *title, *axis;
    pdb_chart_kind kind;
    bool long_form;     /* rows are (label, series, value) */
    int min_rows;       /* fewer rows: the chart does not apply, nothing is written */
} pdb_chart_spec;

/* Wide rows may end with columns read by name, not drawn as series:
 *   share_pct  the row's share of a whole only the query knows (all kernels,
 *              not just the top ones), printed after its value;
 *   class      text saying what the row is (compute, communication, memory,
 *              runtime, ...): its bar's colour (pdb_chart_color) and legend.
 * Values printed on charts carry the unit of the axis: "milliseconds" or
 * "(ms)" prints ms (10 s and more as s), "(%)" prints %. */

/* Colours mean the same in every chart: compute blue, communication orange,
 * memory green, idle light grey, and fixed colours for the CPU parts of a
 * step (runtime, cpu_exec, dataloader) and step-log phases (forward,
 * backward, optimizer, data, sync, ...). Returns "#rrggbb" for a series or
 * class name with a meaning, NULL for others (they get palette colours). */
const char *pdb_chart_color(const char *name);

/* Steps st to the end (a label column, then numbers; see above) and, when
 * it gave at least spec->min_rows rows, writes DIR/NAME.dat and DIR/NAME.gp;
 * subtitle (may be NULL) follows the title. *written says whether it did.
 * Returns PDB_OK or PDB_ERR; st is not finalized. */
int pdb_chart_write(sqlite3_stmt *st, const pdb_chart_spec *spec, const char *subtitle,
                    const char *dir, bool *written);

/* A chart written into a folder, for its Markdown page. */
typedef struct pdb_chart {
    char name[32];     /* file base name */
    char title[96];
} pdb_chart;

/* Draws the charts (NAME.gp in dir) with gnuplot when it is installed and
 * writes the "## Charts" section of a Markdown page: each chart embedded as
 * PNG with links to its SVG, script and data, or, without gnuplot, a note
 * and the links (and a warning on stderr). none: the sentence for no chart. */
int pdb_chart_section(const char *dir, const pdb_chart *charts, int n, const char *none,
                      FILE *md);

/* pdb_chart_section with gnuplot left running: every chart's gnuplot starts
 * at once and *draws (NULL when none runs) must be passed to
 * pdb_chart_draws_wait, which waits for them all and returns the first
 * failure in chart order (the caller's pages are written meanwhile). */
typedef struct pdb_chart_draws pdb_chart_draws;
int pdb_chart_section_start(const char *dir, const pdb_chart *charts, int n, const char *none,
                            FILE *md, pdb_chart_draws **draws);
int pdb_chart_draws_wait(pdb_chart_draws *d);

#endif
