/* diff.h: comparisons of two runs behind `profdb diff BASE TEST [KIND...]`.
 *
 * Each kind (pstats now; traces and step logs later) is a function and one
 * row in the table in cli/cmd_diff.c. A kind prints result sets through
 * render.h, so every kind has table, csv, tsv, json and md output. */
#ifndef PDB_DIFF_H
#define PDB_DIFF_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/render.h"

typedef struct pdb_diff_ctx {
    sqlite3 *db;
    int64_t base_id, test_id;
    const char *base_name, *test_name;
    pdb_render_opts render;
    FILE *out;
    bool titles;            /* several kinds: print a title before each */
    long top;               /* --top N rows (-1: all) */
    const char *sort;       /* --sort: pstats 'tottime', 'cumtime' or 'both' (default) */
} pdb_diff_ctx;

/* Functions by largest change of tottime and cumtime; one-side functions marked. */
int pdb_diff_pstats(pdb_diff_ctx *ctx);

#endif
