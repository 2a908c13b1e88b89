/* diff.h: comparisons of two runs behind `profdb diff BASE TEST [KIND...]`.
 *
 * Each kind (pstats, pyspy, steps, ops, kernels, kernel-types, gpu) is a function
 * and one row in the table in diff.c. A kind prints result sets through
 * render.h, so every kind has table, csv, tsv, json and md output. */
#ifndef PDB_DIFF_H
#define PDB_DIFF_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "render/render.h"

typedef struct pdb_diff_ctx {
    sqlite3 *db;
    int64_t base_id, test_id;
    const char *base_name, *test_name;
    pdb_render_opts render;
    FILE *out;
    bool titles;            /* several kinds: print a title before each */
    long top;               /* --top N rows (-1: all) */
    const char *sort;       /* --sort: pstats 'tottime', 'cumtime' or 'both' (default) */
    const char *base_schema, *test_schema; /* "main", or "tdb" for --db-test */
    bool normalize;         /* --normalize-names: kernels differing in template args match */
    const char *kind;       /* the kind running (its name in pdb_diff_kinds) */
    bool save;              /* --save: store each comparison printed (diff_save.c) */
} pdb_diff_ctx;

typedef struct pdb_diff_kind {
    const char *name;
    int (*run)(pdb_diff_ctx *ctx);
    const char *summary;
    int needs;              /* what the runs must hold for it to apply (diff.c) */
} pdb_diff_kind;

extern const pdb_diff_kind pdb_diff_kinds[];   /* ends with a NULL name */
const pdb_diff_kind *pdb_diff_find(const char *name);
/* The kinds that apply to the two runs, in the table's order (at most cap). */
int pdb_diff_applicable(pdb_diff_ctx *ctx, const char **names, int cap, int *n);
/* Runs the named kinds in order (none: every kind that applies); unknown
 * names are errors. */
int pdb_diff_run(pdb_diff_ctx *ctx, char **names, int n);

/* `profdb diff --out DIR`: index.md (summary, before/after charts, the
 * tables of the named kinds, or of every kind that applies when none is
 * named), a CSV per kind and the charts' files (diff_folder.c). */
int pdb_diff_folder(pdb_diff_ctx *ctx, char **names, int n, const char *dir);

/* Prints a kind's rows (st, whose parameters are bound) and with ctx->save
 * stores them too: pdb_diff_save. Every kind prints through it. */
int pdb_diff_emit(pdb_diff_ctx *ctx, sqlite3_stmt *st);
/* Stores the rows of st (run again from the start) as the saved diff of
 * ctx's BASE, TEST and kind, replacing the one saved before (diffs and
 * diff_rows, schemas/80_diffs.sql). The caller holds the write transaction. */
int pdb_diff_save(pdb_diff_ctx *ctx, sqlite3_stmt *st);

/* Functions by largest change of tottime and cumtime; one-side functions marked. */
int pdb_diff_pstats(pdb_diff_ctx *ctx);
/* Sampled functions (py-spy) by largest change of their share of samples;
 * one-side functions marked. */
int pdb_diff_pyspy(pdb_diff_ctx *ctx);
/* The two-sided Mann-Whitney p of TEST's 0/1 samples (kt ones of nt)
 * against BASE's (kb of nb; counts may be fractional); NAN when a side is
 * empty. */
double pdb_share_p(double kb, double nb, double kt, double nt);
/* Registers pdb_share_p() for the pyspy diff's SQL (pdb_diff_sql_functions
 * registers it with the others). */
int pdb_diff_pyspy_sql_functions(sqlite3 *db);
/* Per-step distributions of step time and phases (step logs, trace steps):
 * medians, change, median ratio with bootstrap CI, Mann-Whitney p. */
int pdb_diff_steps(pdb_diff_ctx *ctx);
/* Compares every per-step metric into temp.pdb_diff_steps without printing
 * (the steps kind prints that table; diff --out charts it). */
int pdb_diff_steps_fill(pdb_diff_ctx *ctx);
/* Totals by name from the trace analysis tables; one-side rows marked. */
int pdb_diff_ops(pdb_diff_ctx *ctx);
int pdb_diff_kernels(pdb_diff_ctx *ctx);
int pdb_diff_kernel_types(pdb_diff_ctx *ctx);
int pdb_diff_gpu(pdb_diff_ctx *ctx);

/* Registers the SQL function pdb_kernel_key(name, normalize) that the
 * kernels diff groups by: name, or with normalize its
 * pdb_normalize_kernel_name(). */
int pdb_diff_sql_functions(sqlite3 *db);

/* Kernel name without template arguments and addresses:
 * "k<float, 4>(0x7f12)" -> "k<...>(0x?)". Writes at most cap bytes. */
void pdb_normalize_kernel_name(const char *name, char *out, size_t cap);

#endif
