/* trace_queue.c: the bounded queue of event batches (see trace_queue.h).
 *
 * NBATCHES batches of BATCH_ITEMS slots circulate through a batch queue
 * (common/batchq.h). A batch is also handed over early once its text passes
 * BATCH_BYTES, and a slot arena grown past KEEP_ARENA (an event with huge
 * args) is freed when its batch comes back, so what the queue holds stays
 * about NBATCHES * (batch structs + BATCH_BYTES): some 7 MB, whatever the
 * input. */
#include "ingest/trace/trace_queue.h"
#include "common/batchq.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>

#define NBATCHES 4
#define BATCH_ITEMS 256
#define BATCH_BYTES (1 << 20)
#define KEEP_ARENA 4096

struct pdb_tq_batch {
    int n;              /* slots committed */
    size_t bytes;       /* their arena bytes */
    pdb_tq_item item[BATCH_ITEMS];
};

struct pdb_trace_queue {
    pdb_batchq *q;
    pdb_tq_batch *all[NBATCHES];
    pdb_tq_batch *filling;         /* the producer's; NULL after an abort */
};

pdb_trace_queue *pdb_tq_new(void)
{
    pdb_trace_queue *q = pdb_xcalloc(1, sizeof *q);
    for (int i = 0; i < NBATCHES; i++)
        q->all[i] = pdb_xcalloc(1, sizeof *q->all[i]);
    q->q = pdb_bq_new((void *const *)q->all, NBATCHES);
    q->filling = pdb_bq_empty(q->q);
    return q;
}

void pdb_tq_free(pdb_trace_queue *q)
{
    if (!q)
        return;
    pdb_bq_free(q->q);
    for (int i = 0; i < NBATCHES; i++) {
        for (int k = 0; k < BATCH_ITEMS; k++)
            pdb_buf_free(&q->all[i]->item[k].ev.arena);
        free(q->all[i]);
    }
    free(q);
}

pdb_tq_item *pdb_tq_slot(pdb_trace_queue *q)
{
    assert(q->filling && q->filling->n < BATCH_ITEMS);
    return &q->filling->item[q->filling->n];
}

int pdb_tq_commit(pdb_trace_queue *q)
{
    pdb_tq_batch *b = q->filling;
    assert(b);
    b->bytes += b->item[b->n].ev.arena.len;
    b->n++;
    if (b->n < BATCH_ITEMS && b->bytes < BATCH_BYTES)
        return PDB_OK;
    if (pdb_bq_abandoned(q->q))
        return PDB_ERR;
    pdb_bq_put(q->q, b);
    q->filling = pdb_bq_empty(q->q); /* NULL when the store gave up */
    return q->filling ? PDB_OK : PDB_ERR;
}

void pdb_tq_close(pdb_trace_queue *q)
{
    if (q->filling && q->filling->n > 0 && !pdb_bq_abandoned(q->q)) {
        pdb_bq_put(q->q, q->filling);
        q->filling = NULL;
    }
    pdb_bq_close(q->q);
}

pdb_tq_batch *pdb_tq_take(pdb_trace_queue *q)
{
    return pdb_bq_take(q->q);
}

int pdb_tq_batch_len(const pdb_tq_batch *b)
{
    return b->n;
}

pdb_tq_item *pdb_tq_batch_item(pdb_tq_batch *b, int i)
{
    assert(i >= 0 && i < b->n);
    return &b->item[i];
}

void pdb_tq_give_back(pdb_trace_queue *q, pdb_tq_batch *b)
{
    /* Before it is listed: the batch is the consumer's until then. */
    for (int i = 0; i < b->n; i++)
        if (b->item[i].ev.arena.cap > KEEP_ARENA)
            pdb_buf_free(&b->item[i].ev.arena);
    b->n = 0;
    b->bytes = 0;
    pdb_bq_give_back(q->q, b);
}

void pdb_tq_abort(pdb_trace_queue *q)
{
    pdb_bq_abandon(q->q);
}
