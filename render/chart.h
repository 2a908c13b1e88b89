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

typedef enum {
    PDB_CHART_STACKED,  /* bars per label, series stacked */
    PDB_CHART_HBAR,     /* horizontal bars, one or two series side by side */
    PDB_CHART_RANKS,    /* one bar per rank; column 3 non-zero marks it red */
    PDB_CHART_HIST,     /* histogram of column 2; of each series, overlaid, when several */
    PDB_CHART_GROUPED,  /* bars per label, the series side by side */
    PDB_CHART_LINES,    /* x (a number) against each series */
    PDB_CHART_TREND,    /* runs in order: label, median, q1, q3, level, change (non-zero
                           marks a change point): a line in a quartile band */
    PDB_CHART_TIMELINE, /* x (milliseconds from the start) against each series as a step
                           line; a series whose name starts with "peak" is drawn as
                           marked points (a peak on the other lines); y may go below 0 */
} pdb_chart_kind;

typedef struct pdb_chart_spec {
    const char *name;   /* file base name: letters, digits, '-' and '_' */
    const char *title, *axis;
    pdb_chart_kind kind;
    bool long_form;     /* rows are (label, series, value) */
    int min_rows;       /* fewer rows: the chart does not apply, nothing is written */
} pdb_chart_spec;

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

#endif
