/* trace_queue.h: the bounded queue between a trace's parser and its store.
 *
 * The JSON reader (trace_json.c) can inflate and parse on one thread while
 * the calling thread, which owns the SQLite connection, stores the rows.
 * Parsed events travel in fixed-size batches: the parser fills the slots of
 * one batch in place (each slot an event with its own reused arena of text),
 * hands the full batch over and takes an empty one; the store takes full
 * batches in order and gives them back. A fixed number of batches exists, so
 * memory is bounded whatever the input's size: the parser waits when all of
 * them are full, the store when none is. One producer, one consumer. */
#ifndef PDB_TRACE_QUEUE_H
#define PDB_TRACE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "ingest/trace/trace_event.h"

/* What a slot holds: a trace event, or a top-level key of the trace (its
 * text in the slot's arena: key_len bytes of key, then the JSON value). */
typedef enum { PDB_TQ_EVENT, PDB_TQ_META } pdb_tq_kind;

typedef struct {
    pdb_tq_kind kind;
    size_t key_len;         /* PDB_TQ_META only */
    pdb_trace_event ev;
} pdb_tq_item;

typedef struct pdb_tq_batch pdb_tq_batch;
typedef struct pdb_trace_queue pdb_trace_queue;

pdb_trace_queue *pdb_tq_new(void);
void pdb_tq_free(pdb_trace_queue *q);

/* Producer (parser thread). The slot to fill next: always one, until a
 * commit failed. */
pdb_tq_item *pdb_tq_slot(pdb_trace_queue *q);
/* Makes the slot part of the stream; hands the batch over when it is full.
 * PDB_ERR (no message: the store has one) when the store gave up. */
int pdb_tq_commit(pdb_trace_queue *q);
/* Ends the stream: the partial batch is handed over, then the end. */
void pdb_tq_close(pdb_trace_queue *q);

/* Consumer (store thread). The next full batch in order, NULL at the end
 * of the stream; items are valid until pdb_tq_give_back. */
pdb_tq_batch *pdb_tq_take(pdb_trace_queue *q);
int pdb_tq_batch_len(const pdb_tq_batch *b);
pdb_tq_item *pdb_tq_batch_item(pdb_tq_batch *b, int i);
void pdb_tq_give_back(pdb_trace_queue *q, pdb_tq_batch *b);
/* The store failed: the producer's next commit fails, and a producer
 * waiting for an empty batch wakes up. */
void pdb_tq_abort(pdb_trace_queue *q);

#endif
