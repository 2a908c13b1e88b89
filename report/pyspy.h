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

/* The run's stack tree in memory: every profile's samples summed per node.
 * Nodes are in the order of pyspy.tree_nodes: by depth, children of one
 * parent next to each other by printed frame; a parent comes before its
 * children. Memory: one node and one frame string per stored row. */
typedef struct pdb_pyspy_node {
    int64_t self;    /* samples whose stack ended here */
    int64_t total;   /* samples whose stack passes here (self + children's) */
    int64_t x;       /* samples left of this node in the flame graph */
    int32_t parent;  /* index of the parent node, -1 at a root */
    int32_t frame;   /* index into frames */
    int32_t depth;
    int32_t first_child, children; /* the children: a run of indices */
} pdb_pyspy_node;

typedef struct pdb_pyspy_tree {
    pdb_pyspy_node *nodes;
    size_t n;
    char **frames;       /* printed frame text, malloc'd */
    bool *pseudo;        /* frames[i] is a process or thread pseudo-frame */
    size_t nframes;
    int64_t samples;     /* every sample of the run's profiles */
    bool exact;          /* false: a flame-graph SVG among the profiles */
    double rate_hz;      /* the profiles' common rate, 0 when not known */
} pdb_pyspy_tree;

/* Writes DIR/flamegraph.svg and DIR/icicle.svg for ctx's run (the
 * flamegraph report, and the --out folder of a run with py-spy data). */
int pdb_pyspy_flamegraph_files(pdb_report_ctx *ctx, const char *dir);

int pdb_pyspy_tree_load(sqlite3 *db, int64_t run_id, pdb_pyspy_tree *t);
void pdb_pyspy_tree_free(pdb_pyspy_tree *t);

#endif
