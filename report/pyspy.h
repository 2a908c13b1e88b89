/* pyspy.h: what the py-spy reports share (report/pyspy*.c): the check that
 * a run holds a py-spy profile, the --by keying, the note under tables read
 * from a flame-graph SVG, and the run's stack tree as temp tables
 * (pyspy_tree.c) for the text tree, the folded export and the flame graph. */
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

/* Fills temp.pyspy_top (report/queries/pyspy.sql, create_top: the top
 * functions of the run's stacks, keying "frame" or "function", sort "total"
 * or "self", idle "include", "exclude" or "only", --top N per root), runs
 * then(ctx, arg) while it exists, and drops it; one transaction. */
int pdb_pyspy_with_top(pdb_report_ctx *ctx, const char *keying, const char *sort,
                       const char *idle, bool by_thread, int64_t top,
                       int (*then)(pdb_report_ctx *ctx, void *arg), void *arg);

/* The run's stack tree as temp tables (pyspy_tree.c, queries in
 * report/queries/pyspy_tree.sql), for the text tree, the folded export and
 * the flame graph: the tree stays in SQLite (whose temp storage spills to a
 * file), so these reports hold one node at a time, not the tree. */
typedef enum pdb_pyspy_tree_need {
    PDB_PYSPY_SELF,    /* self samples per node (folded) */
    PDB_PYSPY_TOTALS,  /* and the samples under each node (pyspy-tree) */
    PDB_PYSPY_LAYOUT   /* and each node's left edge in the flame graph */
} pdb_pyspy_tree_need;

typedef struct pdb_pyspy_totals {
    int64_t samples;     /* every sample of the run's profiles (of the thread) */
    bool exact;          /* false: a flame-graph SVG among the profiles */
    double rate_hz;      /* the profiles' common rate, 0 when not known */
    bool began;          /* build opened the transaction that drop ends */
} pdb_pyspy_totals;

/* Fills temp.pyspy_tree_walk for the run (the stacks of one thread when
 * thread is not NULL: --thread ID|NAME) with what need says, in one
 * transaction (one per statement would cost a lock and a journal per
 * depth); t gets the run's totals. On success the caller reads the tables,
 * then pdb_pyspy_tree_drop removes them and ends the transaction; on
 * failure build has done that itself. */
int pdb_pyspy_tree_build(sqlite3 *db, int64_t run_id, const char *thread,
                         pdb_pyspy_tree_need need, pdb_pyspy_totals *t);
int pdb_pyspy_tree_drop(sqlite3 *db, const pdb_pyspy_totals *t);
/* Runs the pyspy_tree query called name (no rows) with ?1 = arg. */
int pdb_pyspy_tree_exec(sqlite3 *db, const char *name, int64_t arg);

/* Writes DIR/flamegraph.svg and DIR/icicle.svg for ctx's run (the
 * flamegraph report, and the --out folder of a run with py-spy data). */
int pdb_pyspy_flamegraph_files(pdb_report_ctx *ctx, const char *dir);


#endif
