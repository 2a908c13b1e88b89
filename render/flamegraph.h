/* flamegraph.h: a flame graph (or icicle graph) as one standalone SVG file.
 *
 * The caller lays out the boxes (report/pyspy_graph.c: one box per node of
 * a stack tree, x and width in samples) and says which it left out; this
 * writer draws them as they come, one at a time (the caller streams them
 * from the database, nothing is held): 1200 px wide, a 16 px row per depth, every box's width
 * samples / total of the drawing width (no minimum, no rounding to whole
 * pixels), a <title> per box for hover ("NAME (N samples, P%)"), a search
 * (regular expression; also from the page's ?s= query) that highlights the
 * boxes that match and says the share of samples under them, and the rule
 * for left-out boxes written in the picture. No network, no external file:
 * the script is inline and reads names from the document, never from its
 * own source, so a hostile name cannot reach code; names are XML-escaped
 * (render/text.h). */
#ifndef PDB_FLAMEGRAPH_H
#define PDB_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct pdb_flame_box {
    const char *name;  /* the frame as printed */
    int64_t x;         /* samples to the left of the box */
    int64_t samples;   /* its width */
    int depth;         /* row: 0 at the root */
    bool pseudo;       /* a process or thread frame, or the root: drawn grey */
} pdb_flame_box;

typedef struct pdb_flame_opts {
    const char *title;  /* first line of the picture */
    const char *rule;   /* what was left out and why (one line) */
    int64_t total;      /* samples across the full width */
    bool icicle;        /* root at the top, stacks growing down */
    double rate_hz;     /* > 0: seconds in the titles too */
    int rows;           /* rows drawn: 1 + the deepest box's depth */
} pdb_flame_opts;

/* Writes the document's head: size, title, rule, script; the frames group
 * opens. Fails when o->total is not positive. */
int pdb_flame_begin(FILE *out, const pdb_flame_opts *o);
/* Writes one box (any order: each is placed by its x and depth). */
void pdb_flame_box_write(FILE *out, const pdb_flame_box *box, const pdb_flame_opts *o);
/* Closes the frames group and the document. */
void pdb_flame_end(FILE *out, const pdb_flame_opts *o);

#endif
