/* analyze.h: analysis passes that turn trace tables into analysis_* tables.
 *
 * `profdb ingest` runs them for every run it touched (unless --no-analyze),
 * `profdb analyze` re-runs them. Each pass reads slices in a streaming query
 * (sorted by SQLite, memory bounded by the number of distinct kernel or op
 * names) and writes its rows for one run, replacing older ones. */
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
const char *pdb_kernel_type_name(pdb_kernel_type t);
/* "COMPUTATION overlapping COMMUNICATION" for a set of types (bit i = type i). */
void pdb_kernel_mask_name(unsigned mask, char *buf, size_t cap);

/* Sweep over intervals sorted by start, per kernel type: the time during
 * which exactly each set of types is active. Touching intervals of one type
 * merge, as in HTA's merge_kernel_intervals. */
typedef struct pdb_sweep {
    bool any;
    int64_t first_start, last_end;
    int64_t t;                          /* swept up to here */
    bool open[PDB_KT_COUNT];
    int64_t s[PDB_KT_COUNT], e[PDB_KT_COUNT];  /* current merged interval per type */
    int64_t mask_time[1 << PDB_KT_COUNT];      /* time with exactly this set active */
} pdb_sweep;

void pdb_sweep_init(pdb_sweep *w);
void pdb_sweep_add(pdb_sweep *w, pdb_kernel_type type, int64_t start, int64_t end);
void pdb_sweep_finish(pdb_sweep *w);
/* Union length of the types in mask (any of them active). */
int64_t pdb_sweep_union(const pdb_sweep *w, unsigned mask);
/* Time when all types in mask are active at once. */
int64_t pdb_sweep_together(const pdb_sweep *w, unsigned mask);

/* Passes (each writes its analysis_* rows for the run). */
int pdb_analyze_gpu(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, bool hta);
int pdb_analyze_ops(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank);

/* Runs every pass for every trace of the run; the caller holds a transaction. */
int pdb_analyze_run(sqlite3 *db, int64_t run_id);

#endif
