/* pyspy.h: what the py-spy reports share (report/pyspy*.c): the check that
 * a run holds a py-spy profile, the --by keying, the note under tables read
 * from a flame-graph SVG, and the run's stack tree in memory (pyspy_tree.c)
 * for the text tree, the folded export and the flame graph. */
#ifndef PDB_REPORT_PYSPY_H
#define PDB_REPORT_PYSPY_H

#include "report/reports.h"

/* Like pdb_report_require, with the py-spy reports' sentence. */
int pdb_pyspy_require(pdb_report_ctx *ctx, const char *report, bool *ok);
/* --by: "frame" (name, file, line; the default) or "function" (name, file). */
int pdb_pyspy_keying(const pdb_report_ctx *ctx, const char **keying);
/* Table and Markdown output: says that SVG-read values are lower bounds,
 * when the run has such a profile. */
void pdb_pyspy_inexact_note(pdb_report_ctx *ctx);

#endif
