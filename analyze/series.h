/* series.h: quantities followed over time: the CUDA launch queue length
 * per stream (queue_pass.c) and the memory of [memory] events
 * (memory_pass.c), passes of the scan fed together from one hook
 * (series_pass.c). (Memory bandwidth is computed on demand:
 * ondemand/bw_pass.h.)
 *
 * Each sees every row of the scan after the other accumulators (so a GPU
 * event's launch is resolved) and keeps only what is still in flight:
 * launches not yet started, copies not yet ended, allocations alive. */
#ifndef PDB_SERIES_H
#define PDB_SERIES_H

#include <sqlite3.h>
#include <stdint.h>

#include "analyze/hta.h"
#include "analyze/row.h"

typedef struct pdb_series_acc pdb_series_acc;
int pdb_series_acc_new(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank,
                       const pdb_hta_mode *hta, pdb_series_acc **out);
int pdb_series_acc_add(pdb_series_acc *a, const pdb_row *r);
/* After the scan: flushes what waits and writes the rows. */
int pdb_series_acc_write(pdb_series_acc *a);
void pdb_series_acc_free(pdb_series_acc *a);

/* Queue length (analysis_queue, analysis_queue_ranks). */
typedef struct pdb_queue_acc pdb_queue_acc;
/* Makes its temporary tables: call before the scan's query starts. */
int pdb_queue_acc_new(sqlite3 *db, const pdb_hta_mode *hta, pdb_queue_acc **out);
/* PDB_ERR after a database error (the message recorded). */
int pdb_queue_acc_add(pdb_queue_acc *a, const pdb_row *r);
/* Whether a name is one of HTA's runtime launch events; decided once per
 * name by the scan's name classification. */
bool pdb_queue_launch_name(const char *name);
int pdb_queue_acc_write(pdb_queue_acc *a, int64_t run_id, int rank);
void pdb_queue_acc_free(pdb_queue_acc *a);

/* Memory of [memory] events (analysis_memory_ops, _peaks, _allocs); idle
 * on traces without them. */
typedef struct pdb_memory_acc pdb_memory_acc;
int pdb_memory_acc_new(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank,
                       pdb_memory_acc **out);
int pdb_memory_acc_add(pdb_memory_acc *a, const pdb_row *r);
/* Whether the memory view leaves out ops of this name (the profiler's own
 * bookkeeping, as torch's memory timeline does); decided once per name by
 * the scan's name classification. */
bool pdb_memory_filtered_name(const char *name);
int pdb_memory_acc_write(pdb_memory_acc *a);
void pdb_memory_acc_free(pdb_memory_acc *a);

#endif
