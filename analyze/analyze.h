/* analyze.h: analysis passes that turn trace tables into analysis_* tables.
 *
 * `profdb ingest` runs them for every run it touched (unless --no-analyze),
 * `profdb analyze` re-runs them. All passes share one streaming query per
 * trace (scan.c; start order from SQLite's index) and write their rows for
 * one run, replacing older ones. Memory is bounded by stack depths, distinct
 * kernel, op and range names, distinct launching paths, and the launches in
 * flight (capped; attr_pass.c) - not by the number of events. */
#ifndef PDB_ANALYZE_H
#define PDB_ANALYZE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* OTHER: synchronisation (Context Sync, Stream Sync, Stream Wait Event):
 * busy GPU time, but neither computation nor part of the kernel-type
 * breakdown, as in HTA. */
typedef enum { PDB_KT_COMPUTATION = 0, PDB_KT_COMMUNICATION = 1, PDB_KT_MEMORY = 2,
               PDB_KT_OTHER = 3, PDB_KT_COUNT = 4 } pdb_kernel_type;

#define PDB_KT_ALL ((1u << PDB_KT_COUNT) - 1)
#define PDB_KT_BREAKDOWN 7u /* computation, communication, memory */

/* Classifies a GPU event by name, as HTA does (see schemas/50_analysis.sql). */
pdb_kernel_type pdb_kernel_type_of(const char *name);
/* HTA's classification, for --compat hta (differs on hip* copies, MTIA
 * containers and launch-like names; see kernel_type.c). */
pdb_kernel_type pdb_kernel_type_hta(const char *name);
const char *pdb_kernel_type_name(pdb_kernel_type t);
/* "COMPUTATION overlapping COMMUNICATION" for a set of types (bit i = type i). */
void pdb_kernel_mask_name(unsigned mask, char *buf, size_t cap);

/* Sweep over intervals sorted by start, per category (up to 8; kernel types
 * for the GPU passes): the time during which exactly each set of categories
 * is active. Touching intervals of one category merge, as in HTA's
 * merge_kernel_intervals. */
#define PDB_SWEEP_MAX 8

typedef struct pdb_sweep {
    int ncat;
    bool any;
    int64_t first_start, last_end;
    int64_t t;                          /* swept up to here */
    bool open[PDB_SWEEP_MAX];
    int64_t s[PDB_SWEEP_MAX], e[PDB_SWEEP_MAX]; /* current merged interval per category */
    int64_t mask_time[1 << PDB_SWEEP_MAX];      /* time with exactly this set active */
} pdb_sweep;

void pdb_sweep_init(pdb_sweep *w, int ncat);
void pdb_sweep_add(pdb_sweep *w, int cat, int64_t start, int64_t end);
void pdb_sweep_finish(pdb_sweep *w);
/* Union length of the categories in mask (any of them active). */
int64_t pdb_sweep_union(const pdb_sweep *w, unsigned mask);
/* Time when all categories in mask are active at once. */
int64_t pdb_sweep_together(const pdb_sweep *w, unsigned mask);
/* Time per category when overlaps go to the lowest-numbered active one
 * (category 0 has the highest priority). out has ncat entries. */
void pdb_sweep_by_priority(const pdb_sweep *w, int64_t *out);

/* The GPU events of exact mode: slices with a stream arg, except CPU-side
 * categories that some writers also tag with a stream (ROCm runtime calls
 * carry "stream": "0x0"). The queries that test it write this list out
 * (analyze/queries/, report/queries/trace_launch.sql); unit.test_queries
 * checks that each is this one. */
#define PDB_CPU_CATEGORIES \
    "('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op', 'user_annotation', 'python_function')"

/* Passes (they write their analysis_* rows for the run). */
/* All passes for one trace, in one scan of its slices (scan.c): read by
 * reader, a thread started for this trace (scan_reader.h, finished here),
 * or on db when it is NULL. */
typedef struct pdb_scan_reader pdb_scan_reader;
int pdb_analyze_trace(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank,
                      pdb_scan_reader *reader);

/* Runs every pass for every trace of the run; the caller holds a
 * transaction. committed: the run's slices were committed before it began
 * (profdb analyze; an ingest into a private database, ingest.h), so their
 * scan may run on a thread of its own. */
int pdb_analyze_run(sqlite3 *db, int64_t run_id, bool committed);

#endif
