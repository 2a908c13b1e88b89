/* reports.h: the table of named reports behind `profdb report NAME`.
 *
 * A report reads the database (tables and analysis_* tables) for one run and
 * renders result sets through render.h. Its SQL lives in
 * report/queries/FAMILY.sql and is run by name (queries.h). Every report
 * receives the same context; options that only some reports use are
 * documented with them. Adding a report is adding a function, its queries
 * and one row in reports.def, which says everything else about it: what a
 * run must hold for it to apply, its place in the --out folder, its line in
 * --help. */
#ifndef PDB_REPORTS_H
#define PDB_REPORTS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/opts.h"
#include "render/render.h"

typedef struct pdb_report_ctx {
    sqlite3 *db;
    int64_t run_id;
    const char *run_name;
    pdb_render_opts render;
    FILE *out;
    bool titles;              /* several reports: print a title before each */
    /* Options some reports take (unset: NULL / -1 / false). */
    long top;                 /* --top N: rows before an "others" row */
    const char *sort;         /* --sort KEY[,KEY...] (pstats) */
    pdb_strlist limits;       /* --limit N|FRACTION, repeatable, in order (pstats) */
    pdb_strlist matches;      /* --match REGEX, repeatable, in order (pstats) */
    char **args;              /* the command line as given: --limit/--match order (pstats) */
    int nargs;
    const char *metric;       /* --metric NAME (metrics) */
    long skip_first;          /* --skip-first N warm-up steps (phases) */
    bool by_shape;            /* --by-shape (ops) */
    const char *compat;       /* --compat hta (trace passes) */
    const char *by;           /* --by KEY (kernels: op, top-op, annotation, ...) */
    const char *names;        /* --names full|short (trace reports) */
    long queue_limit;         /* --queue-limit N (queue-length; -1: CUDA's 1024) */
    const char *annotation;   /* --annotation TEXT (critical-path windows; '' whole trace) */
    long instance;            /* --instance I (critical-path: one window; -1 all) */
    bool zero_weight_launch;  /* --zero-weight-launch-edges (critical-path, as HTA's env) */
    const char *op;           /* --op NAME (kernel-sequences: ops whose name contains NAME) */
    long min_len;             /* --min-len L (kernel-sequences: kernels per pattern, 3) */
    bool by_thread;           /* --by-thread (pyspy: one table per process/thread/profile) */
    const char *function;     /* --function NAME (pyspy-callers) */
    const char *min_share;    /* --min-share PCT (pyspy-tree, flamegraph; NULL: default) */
    const char *library;      /* --library NAME (pyspy-leaves; default itwinai) */
    bool keep_module;         /* --keep-module (pyspy-leaves: keep <module> frames) */
    bool aggregate_leaf_paths; /* --aggregate-leaf-paths (pyspy-leaves) */
    const char *idle;         /* --idle include|exclude|only (pyspy; NULL: include) */
    const char *thread;       /* --thread ID|NAME (pyspy-tree, folded, flamegraph) */
    const char *outdir;       /* --out DIR given with report names (flamegraph) */
} pdb_report_ctx;

/* What a report needs from a run (its row's NEEDS): PDB_NEEDS_* bits, or
 * PDB_NEEDS_NOTHING for a report that applies to every run (a bit of its own,
 * so that a row cannot leave it unset by accident). */
enum { PDB_NEEDS_TRACE = 1, PDB_NEEDS_GPU = 2, PDB_NEEDS_STEPS = 4, PDB_NEEDS_PSTATS = 8,
       PDB_NEEDS_STEPLOG = 16, PDB_NEEDS_MEMORY = 32, PDB_NEEDS_NOTHING = 64,
       PDB_NEEDS_PYSPY = 128 };
/* A row's FOLDER and TOP when the report is not in the --out folder, or
 * shows every row there. */
#define PDB_NOT_IN_FOLDER (-1)
#define PDB_TOP_ALL (-1)

/* One row of reports.def. */
typedef struct pdb_report {
    const char *name;
    int (*run)(pdb_report_ctx *ctx);
    const char *summary;
    int needs;        /* PDB_NEEDS_* bits */
    int folder;       /* place among the --out folder's tables, or PDB_NOT_IN_FOLDER */
    long folder_top;  /* --top in the folder when none is given, or PDB_TOP_ALL */
} pdb_report;

/* The rows of reports.def in order, then a row whose name is NULL. */
extern const pdb_report pdb_reports[];

const pdb_report *pdb_report_find(const char *name);
/* Whether r writes files into --out DIR (flamegraph) instead of printing. */
bool pdb_report_writes_files(const pdb_report *r);
/* Runs report r on ctx's run. A report that reads the trace analysis, on a
 * run whose traces were never analysed (--no-analyze, merged from such
 * shards), says so as pdb_report_require does instead of printing empty
 * tables. */
int pdb_report_run(pdb_report_ctx *ctx, const pdb_report *r);
/* Prints a title line for table/markdown output when several reports run. */
void pdb_report_title(pdb_report_ctx *ctx, const char *title);
/* Renders the report query called query (queries.h) with ?1 = run_id. */
int pdb_report_query(pdb_report_ctx *ctx, const char *query);
/* The analysis mode --compat selects: "exact" (default) or "hta". */
int pdb_report_mode(const pdb_report_ctx *ctx, const char **mode);
/* Renders the query called query with ?1 = run, ?2 = mode, ?3 = --top (or -1). */
int pdb_report_query_mode(pdb_report_ctx *ctx, const char *query, const char *mode);
/* Renders a prepared statement and finalizes it. */
int pdb_report_render(pdb_report_ctx *ctx, sqlite3_stmt *st);
/* For reports that need something the run may lack: runs the query called
 * count_query (?1 = run, ?2 = mode) and, when it counts nothing, says why
 * (in the output for tables, on stderr otherwise, with "[]" for JSON) and
 * sets *ok false; for CSV and TSV *ok stays true, so the report prints its
 * header line and no rows. */
int pdb_report_require(pdb_report_ctx *ctx, const char *report, const char *count_query,
                       const char *mode, const char *why, bool *ok);
/* The same with the count query prepared and bound by the caller (its
 * parameters are its own); finalizes st. */
int pdb_report_require_stmt(pdb_report_ctx *ctx, const char *report, sqlite3_stmt *st,
                            const char *why, bool *ok);

/* On-demand analyses into temp tables, shared by reports and charts:
 * the critical path of the first PDB_CP_FIRST_STEPS iterations of every
 * rank, exact mode (temp.cp_windows, cp_bounds), done once per run and
 * connection (the insights' and the chart's; empty tables for runs
 * without GPU events); the memory bandwidth series (temp.memory_bw). */
#define PDB_CP_FIRST_STEPS 50
int pdb_critical_summary(sqlite3 *db, int64_t run_id);
int pdb_memory_bw_fill(sqlite3 *db, int64_t run_id, bool hta);

/* Reports: the FUNCTION of each row of reports.def. */
#define PDB_REPORT(name, function, needs, folder, top, summary) int function(pdb_report_ctx *ctx);
#include "report/reports.def"
#undef PDB_REPORT

#endif
