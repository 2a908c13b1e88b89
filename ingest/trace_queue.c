/* trace_queue.c: the bounded queue of event batches (see trace_queue.h).
 *
 * NBATCHES batches of BATCH_ITEMS slots circulate between an empty list and
 * a FIFO of full ones, under one mutex with a condition variable for each
 * side. A batch is also handed over early once its text passes BATCH_BYTES,
 * and a slot arena grown past KEEP_ARENA (an event with huge args) is freed
 * when its batch comes back, so what the queue holds stays about
 * NBATCHES * (batch structs + BATCH_BYTES): some 7 MB, whatever the input. */
#include "ingest/trace_queue.h"
#include "common/xalloc.h"

#include <assert.h>
#include <pthread.h>
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
    pthread_mutex_t mu;
    pthread_cond_t to_producer, to_consumer;
    pdb_tq_batch *all[NBATCHES];
    pdb_tq_batch *empty[NBATCHES];
    int nempty;
    pdb_tq_batch *full[NBATCHES];  /* a ring: full[head] is the oldest */
    int head, nfull;
    pdb_tq_batch *filling;         /* the producer's; NULL after an abort */
    bool closed, aborted;
};

pdb_trace_queue *pdb_tq_new(void)
{
    pdb_trace_queue *q = pdb_xcalloc(1, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->to_producer, NULL);
    pthread_cond_init(&q->to_consumer, NULL);
    for (int i = 0; i < NBATCHES; i++) {
        q->all[i] = pdb_xcalloc(1, sizeof *q->all[i]);
        q->empty[q->nempty++] = q->all[i];
    }
    q->filling = q->empty[--q->nempty];
    return q;
}

void pdb_tq_free(pdb_trace_queue *q)
{
    if (!q)
        return;
    for (int i = 0; i < NBATCHES; i++) {
        for (int k = 0; k < BATCH_ITEMS; k++)
            pdb_buf_free(&q->all[i]->item[k].ev.arena);
        free(q->all[i]);
    }
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->to_producer);
    pthread_cond_destroy(&q->to_consumer);
    free(q);
}

pdb_tq_item *pdb_tq_slot(pdb_trace_queue *q)
{
    assert(q->filling && q->filling->n < BATCH_ITEMS);
    return &q->filling->item[q->filling->n];
}

/* Hands the filling batch to the consumer and waits for an empty one.
 * Called with the mutex held; false when the consumer gave up. */
static bool hand_over(pdb_trace_queue *q)
{
    assert(q->nfull < NBATCHES);
    q->full[(q->head + q->nfull) % NBATCHES] = q->filling;
    q->nfull++;
    q->filling = NULL;
    pthread_cond_signal(&q->to_consumer);
    while (q->nempty == 0 && !q->aborted)
        pthread_cond_wait(&q->to_producer, &q->mu);
    if (q->aborted)
        return false;
    q->filling = q->empty[--q->nempty];
    return true;
}

int pdb_tq_commit(pdb_trace_queue *q)
{
    pdb_tq_batch *b = q->filling;
    assert(b);
    b->bytes += b->item[b->n].ev.arena.len;
    b->n++;
    if (b->n < BATCH_ITEMS && b->bytes < BATCH_BYTES)
        return PDB_OK;
    pthread_mutex_lock(&q->mu);
    bool ok = !q->aborted && hand_over(q);
    pthread_mutex_unlock(&q->mu);
    return ok ? PDB_OK : PDB_ERR;
}

void pdb_tq_close(pdb_trace_queue *q)
{
    pthread_mutex_lock(&q->mu);
    if (q->filling && q->filling->n > 0 && !q->aborted) {
        q->full[(q->head + q->nfull) % NBATCHES] = q->filling;
        q->nfull++;
        q->filling = NULL;
    }
    q->closed = true;
    pthread_cond_signal(&q->to_consumer);
    pthread_mutex_unlock(&q->mu);
}

pdb_tq_batch *pdb_tq_take(pdb_trace_queue *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->nfull == 0 && !q->closed)
        pthread_cond_wait(&q->to_consumer, &q->mu);
    pdb_tq_batch *b = NULL;
    if (q->nfull > 0) {
        b = q->full[q->head];
        q->head = (q->head + 1) % NBATCHES;
        q->nfull--;
    }
    pthread_mutex_unlock(&q->mu);
    return b;
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
    /* Outside the lock: the batch belongs to the consumer until it is listed. */
    for (int i = 0; i < b->n; i++)
        if (b->item[i].ev.arena.cap > KEEP_ARENA)
            pdb_buf_free(&b->item[i].ev.arena);
    b->n = 0;
    b->bytes = 0;
    pthread_mutex_lock(&q->mu);
    assert(q->nempty < NBATCHES);
    q->empty[q->nempty++] = b;
    pthread_cond_signal(&q->to_producer);
    pthread_mutex_unlock(&q->mu);
}

void pdb_tq_abort(pdb_trace_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->aborted = true;
    pthread_cond_signal(&q->to_producer);
    pthread_mutex_unlock(&q->mu);
}
