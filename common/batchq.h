/* batchq.h: a bounded queue of batches between one producer thread and one
 * consumer thread.
 *
 * A fixed set of batches (the caller's, as opaque pointers) circulates: the
 * producer takes an empty one, fills it and puts it; the consumer takes
 * full ones in order and gives them back. Memory is bounded by the batches
 * whatever the stream's length: the producer waits when none is empty, the
 * consumer when none is full. Used by the trace parser's queue
 * (ingest/trace/trace_queue.c) and the analysis's reader thread
 * (analyze/scan_reader.c). */
#ifndef PDB_BATCHQ_H
#define PDB_BATCHQ_H

#include <stdbool.h>

#define PDB_BQ_MAX 8 /* batches a queue can hold */

typedef struct pdb_batchq pdb_batchq;

/* A queue of the n (<= PDB_BQ_MAX) batches given, all empty. The batches
 * stay the caller's to free. */
pdb_batchq *pdb_bq_new(void *const *batches, int n);
void pdb_bq_free(pdb_batchq *q);

/* Producer. An empty batch (waiting for one), NULL once the consumer gave
 * up. */
void *pdb_bq_empty(pdb_batchq *q);
/* Hands a filled batch over. */
void pdb_bq_put(pdb_batchq *q, void *b);
/* Ends the stream (after the last put). */
void pdb_bq_close(pdb_batchq *q);
/* Whether the consumer gave up (e.g. to stop a long query early). */
bool pdb_bq_abandoned(pdb_batchq *q);

/* Consumer. The next full batch in order, waiting for one; NULL at the end
 * of the stream. */
void *pdb_bq_take(pdb_batchq *q);
void pdb_bq_give_back(pdb_batchq *q, void *b);
/* Gives up: a producer waiting for an empty batch gets NULL, and so does
 * every later pdb_bq_empty. */
void pdb_bq_abandon(pdb_batchq *q);

#endif
