/* steplog_store.h: where step-log values go (internal to ingest/).
 *
 * The row writer (steplog_writer.c) decides what a value is; the store
 * decides how it is kept: series, contexts and chunks of up to
 * PDB_SL_CHUNK values (schemas/40_steplog.sql). Open chunks live in memory
 * until their pattern breaks or they fill up; pdb_sl_flush() writes them
 * all, which every pass over the stored values must call first. */
#ifndef PDB_STEPLOG_STORE_H
#define PDB_STEPLOG_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/rowq.h"
#include "ingest/ingest.h"

#define PDB_SL_CHUNK 32 /* values a chunk row holds: v1..v32 in the schema */

typedef struct pdb_sl_store pdb_sl_store;

/* What the values of a record share (a row of steplog_contexts). */
typedef struct {
    int64_t record, line;
    bool has_step, has_epoch, has_wall;
    int64_t step;
    double epoch, wall;
} pdb_sl_ctx;

/* What a series is (a row of steplog_series). loader "" and split NULL are
 * stored as NULL; raw is rawlen bytes. */
typedef struct {
    const char *kind, *loader, *split, *metric, *unit, *agg, *raw;
    size_t rawlen;
    bool has_rank;
    int64_t rank;
} pdb_sl_key;

/* Opens the store for src (statements; this source's contexts are the
 * ctx_ids added from now on). NULL with the error recorded. */
pdb_sl_store *pdb_sl_open(pdb_source *src);
/* Writes nothing: pdb_sl_flush() first. NULL is a no-op. */
void pdb_sl_close(pdb_sl_store *st);

/* The context id for c: the last one when c equals it, else a new row. */
int pdb_sl_context(pdb_sl_store *st, const pdb_sl_ctx *c, int64_t *ctx_id);
/* The series for k (an index for pdb_sl_add), creating its row the first
 * time. Indexes stay valid until pdb_sl_forget(). */
int pdb_sl_series(pdb_sl_store *st, const pdb_sl_key *k, int *series);
/* The row id of a series index. */
int64_t pdb_sl_series_id(const pdb_sl_store *st, int series);
/* Adds a value (NaN and infinities are stored as NULL) to its series:
 * context ctx_id, pos-th value of its record, window steps (0: NULL).
 * as_read: a value of the file, in the last context written (counted in the
 * series' summary); else one derived after the file. */
int pdb_sl_add(pdb_sl_store *st, int series, int64_t ctx_id, int64_t pos, int64_t window,
               double value, bool as_read);
/* Writes every open chunk, and waits until every row is inserted: the
 * connection is then the caller's (see pdb_sl_rowq). */
int pdb_sl_flush(pdb_sl_store *st);
/* The file is read: flushes, and from now on rows are inserted on the
 * calling thread, at once (the passes after the file query the
 * connection between inserts). */
int pdb_sl_end_reading(pdb_sl_store *st);
/* The queue the store inserts through, for the writer's other rows while
 * the file is read (notes, blocks): a statement used on the connection
 * directly meanwhile would race the writer thread. */
pdb_rowq *pdb_sl_rowq(pdb_sl_store *st);
/* Flushes, then writes what the passes after the file read of each cached
 * series to temp.steplog_summary (one row per series, replaced): its first
 * two values whose context has a step (f_/s_ record, pos, step, window; the
 * first's f_chunk and f_slot), and over its non-NULL values: n, ndec (values
 * below the one before), the first and last value (x1, xn) with their
 * counters (c1, cn: step, else epoch, else record) and the first's record
 * and pos (r1, p1). Values added with another context than the last one
 * written (derived values) are not counted. */
int pdb_sl_summarise(pdb_sl_store *st);
/* Summarises, then forgets every series (after SQL changed series rows, and
 * when too many are cached): the next value of a series makes a new row. */
int pdb_sl_forget(pdb_sl_store *st);
/* Whether the cache is full (the writer then calls pdb_sl_forget). */
bool pdb_sl_full(const pdb_sl_store *st);

/* Gives the value in slot `slot` (1..PDB_SL_CHUNK) of stored chunk chunk_id
 * (after pdb_sl_flush) the window `window` (0: NULL): the chunk is
 * rewritten as the slots before it, it, and the slots after it. */
int pdb_sl_set_window(pdb_sl_store *st, int64_t chunk_id, int slot, int64_t window);

#endif
