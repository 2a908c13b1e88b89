/* folder.h: `profdb report --out DIR`: a report folder people can browse.
 *
 * DIR/index.md holds the overview, the key findings, every chart (embedded
 * PNG, links to SVG, script and data) and every table that applies to the
 * run (the reports whose row in reports.def gives a FOLDER place; long
 * tables cut, with the full table as CSV next to it); DIR/index.html the
 * same page for a browser (render/html.h), its tables with full names;
 * DIR/NAME.csv
 * holds each table in full; DIR/NAME.{gp,dat,png,svg} each chart
 * (charts.h). Reports that do not apply get a one-line note. Every file name
 * is fixed by profdb (report and chart names), never taken from data. */
#ifndef PDB_FOLDER_H
#define PDB_FOLDER_H

#include "report/reports.h"

/* Writes the folder (created if missing). Charts are rendered when gnuplot
 * is found (gnuplot.h); otherwise the message says how to render them. */
int pdb_report_folder(pdb_report_ctx *ctx, const char *dir);

#endif
