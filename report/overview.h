/* overview.h: what a run holds, which reports apply to it, its key findings.
 *
 * `profdb report` without report names prints this overview; the report
 * folder (folder.h) uses the same facts to leave out reports that do not
 * apply. */
#ifndef PDB_OVERVIEW_H
#define PDB_OVERVIEW_H

#include "report/analysis_state.h"
#include "report/reports.h"

typedef struct pdb_run_facts {
    int64_t sources, records, traces, ranks, gpu_events, steps, ops, pstats_funcs,
        steplog_values, steplog_steps, memory_events, pyspy_profiles;
    pdb_analysis_state analysis;  /* the trace analysis missing or older than the passes */
} pdb_run_facts;

int pdb_run_facts_get(sqlite3 *db, int64_t run_id, pdb_run_facts *f);
/* NULL when a report with these needs (its row's PDB_NEEDS_* bits) applies,
 * else why not ("no GPU events", ...; a trace report of a run never
 * analysed: PDB_NOT_ANALYSED). */
#define PDB_NOT_ANALYSED "not analysed: run 'profdb analyze'"
/* What pdb_report_applies says such a report needs (pdb_report_run says
 * it better: what is missing and the command that adds it). */
#define PDB_NOT_ANALYSED_NEEDS "the trace analysis ('profdb analyze')"

const char *pdb_report_missing(const pdb_run_facts *f, int needs);
/* Whether report r applies to ctx's run, whose facts are f: *what NULL
 * when it does, else what it needs ("a cProfile/pstats dump"): from its
 * NEEDS, and for the reports that a run can meet the NEEDS of without
 * holding their data (phases, gpu-util, comm, ...), from running it. */
int pdb_report_applies(pdb_report_ctx *ctx, const pdb_report *r, const pdb_run_facts *f,
                       const char **what);

/* Prints the overview: facts, applicable reports, the summary table and the
 * first rows of insights / step-insights. Table and Markdown formats only;
 * other formats print the summary report alone (one document). */
int pdb_report_overview(pdb_report_ctx *ctx);

/* Runs a report into memory (table/md), keeps at most max_rows table rows
 * and says how many were left out. *text is malloc'd. */
int pdb_report_capture(pdb_report_ctx *ctx, const pdb_report *r, int max_rows, char **text,
                       int *rows);

#endif
