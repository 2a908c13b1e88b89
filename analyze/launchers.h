/* launchers.h: the first CPU-side event of each correlation, found before
 * the scan (internal to analyze/; launchers.c). */
#ifndef PDB_LAUNCHERS_H
#define PDB_LAUNCHERS_H

#include <sqlite3.h>
#include <stdint.h>

/* The trace's launchers (launchers.c): the first CPU-side event of each
 * correlation that has GPU events, with their number. Made before the scan
 * query is prepared (it creates a temporary table). */
typedef struct pdb_launchers pdb_launchers;
int pdb_launchers_new(sqlite3 *db, int64_t trace_id, pdb_launchers **out);
/* *gpu: the GPU events the row (ts, id) launches, 0 if it is no launcher.
 * Rows come in the scan's order. */
int pdb_launchers_of(pdb_launchers *l, int64_t ts, int64_t id, int64_t *gpu);
void pdb_launchers_free(pdb_launchers *l);

#endif
