/* bw_pass.h: memory bandwidth over time, computed on demand when a report
 * asks (bw_pass.c; not part of the scan, see docs/internals.md). */
#ifndef PDB_BW_PASS_H
#define PDB_BW_PASS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* Calls fn for every point of the rank's series in order, with the
 * bandwidth in use after it (GB/s), in one mode. */
typedef int (*pdb_bw_fn)(void *arg, int rank, const char *kind, int64_t ts, double gbps);
int pdb_memory_bw(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, bool hta,
                  pdb_bw_fn fn, void *arg);

#endif
