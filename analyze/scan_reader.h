/* scan_reader.h: the scan's rows read on a thread of its own (internal to
 * analyze/).
 *
 * Reading a trace's slices in start order (the query, each row's columns,
 * its name and category classified, the launchers merged in: scan_rows.c)
 * is about half of the analysis of a typical trace; the passes fed with the
 * rows are the other half. When the trace is committed, so that a second
 * connection sees it, a reader thread does the first half on a read-only
 * connection of its own while the calling thread runs the passes. Rows
 * travel in a fixed number of batches (a batch also closes when its text
 * passes a bound), so memory stays bounded whatever the trace. */
#ifndef PDB_SCAN_READER_H
#define PDB_SCAN_READER_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/scan.h"

/* (pdb_scan_reader is declared in analyze.h, for pdb_analyze_trace.) */

/* Whether db can be read by a second connection while it writes: a file
 * in WAL mode (a reader then never blocks the writer), an SQLite built
 * thread-safe, and the machine wants a second thread
 * (pdb_rowq_threads_wanted: PROFDB_PIPELINE). */
bool pdb_scan_reader_possible(sqlite3 *db);
/* Starts reading trace_id of the committed database under db, on a thread
 * with its own connection. NULL when no thread could be started (the
 * caller then reads the rows itself; nothing was reported). */
pdb_scan_reader *pdb_scan_reader_start(sqlite3 *db, int64_t trace_id);
/* The next row, valid until the next call; NULL at the end or when the
 * reader failed (pdb_scan_reader_finish says which). */
pdb_row *pdb_scan_reader_next(pdb_scan_reader *r);
/* Stops the reader (early when the caller gave up: rc is not PDB_OK),
 * waits for its thread and frees it. Returns rc when it is not PDB_OK,
 * else the reader's result (PDB_ERR with its message when it failed). */
int pdb_scan_reader_finish(pdb_scan_reader *r, int rc);

#endif
