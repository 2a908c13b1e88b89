/* reports.h: the table of named reports behind `profdb report NAME`.
 *
 * A report reads the database (tables and analysis_* tables) for one run and
 * renders result sets through render.h. Its SQL lives in
 * report/queries/FAMILY.sql and is run by name (queries.h). Every report
 * receives the same context; options that only some reports use are
 * documented with them. Adding a report is adding a function, its queries
 * and one row in reports.c. */
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
} pdb_report_ctx;

typedef struct pdb_report {
    const char *name;
    int (*run)(pdb_report_ctx *ctx);
    const char *summary;
} pdb_report;

extern const pdb_report pdb_reports[];

const pdb_report *pdb_report_find(const char *name);
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
 * sets *ok false. */
int pdb_report_require(pdb_report_ctx *ctx, const char *report, const char *count_query,
                       const char *mode, const char *why, bool *ok);

/* On-demand analyses into temp tables, shared by reports and charts:
 * the critical path of the first PDB_CP_FIRST_STEPS iterations of every
 * rank, exact mode (temp.cp_windows, cp_bounds), done once per run and
 * connection (the insights' and the chart's; empty tables for runs
 * without GPU events); the memory bandwidth series (temp.memory_bw). */
#define PDB_CP_FIRST_STEPS 50
int pdb_critical_summary(sqlite3 *db, int64_t run_id);
int pdb_memory_bw_fill(sqlite3 *db, int64_t run_id, bool hta);

/* Reports. */
int pdb_report_summary(pdb_report_ctx *ctx);
int pdb_report_gpu(pdb_report_ctx *ctx);
int pdb_report_kernel_types(pdb_report_ctx *ctx);
int pdb_report_kernels(pdb_report_ctx *ctx);
int pdb_report_ops(pdb_report_ctx *ctx);
int pdb_report_annotations(pdb_report_ctx *ctx);
int pdb_report_steps(pdb_report_ctx *ctx);
int pdb_report_idle(pdb_report_ctx *ctx);
int pdb_report_launch(pdb_report_ctx *ctx);
int pdb_report_comm(pdb_report_ctx *ctx);
int pdb_report_queue_length(pdb_report_ctx *ctx);
int pdb_report_memory_bw(pdb_report_ctx *ctx);
int pdb_report_memory(pdb_report_ctx *ctx);
int pdb_report_critical_path(pdb_report_ctx *ctx);
int pdb_report_kernel_sequences(pdb_report_ctx *ctx);
int pdb_report_ranks(pdb_report_ctx *ctx);
int pdb_report_insights(pdb_report_ctx *ctx);
int pdb_report_pstats(pdb_report_ctx *ctx);
int pdb_report_callers(pdb_report_ctx *ctx);
int pdb_report_callees(pdb_report_ctx *ctx);
int pdb_report_pstats_dot(pdb_report_ctx *ctx);
int pdb_report_pstats_chart(pdb_report_ctx *ctx);

#endif
