/* scan.h: the scanner: one pass over a trace's slices in start order,
 * feeding the analysis passes (internal to analyze/).
 *
 * scan.c reads the trace's slices once, with a single query (scan_rows.c),
 * and hands every row (row.h) to accumulators (GPU time, idle time, CPU
 * ops, steps: passes.h; queue and memory: series.h). This header is the
 * scanner's own: the passes do not include it. */
#ifndef PDB_SCAN_H
#define PDB_SCAN_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/row.h"

/* The trace's slices in start order (scan_rows.c), read on connection db:
 * the launchers are found first (a temporary table on db), then one query
 * runs. A row and what it points to are valid until the next call. */
typedef struct pdb_scan_rows pdb_scan_rows;
int pdb_scan_rows_open(sqlite3 *db, int64_t trace_id, pdb_scan_rows **out);
/* 1: *r is the next row; 0: the end; PDB_ERR: a database error. */
int pdb_scan_rows_next(pdb_scan_rows *s, pdb_row *r);
void pdb_scan_rows_close(pdb_scan_rows *s);

#endif
