/* batchq.c: a bounded queue of batches (see batchq.h): a stack of empty
 * batches and a ring of full ones, under one mutex with a condition
 * variable for each side. */
#include "common/batchq.h"
#include "common/xalloc.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct pdb_batchq {
    pthread_mutex_t mu;
    pthread_cond_t to_producer, to_consumer;
    int n;
    void *empty[PDB_BQ_MAX];
    int nempty;
    void *full[PDB_BQ_MAX]; /* a ring: full[head] is the oldest */
    int head, nfull;
    bool closed, abandoned;
};

pdb_batchq *pdb_bq_new(void *const *batches, int n)
{
    assert(n > 0 && n <= PDB_BQ_MAX);
    pdb_batchq *q = pdb_xcalloc(1, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->to_producer, NULL);
    pthread_cond_init(&q->to_consumer, NULL);
    q->n = n;
    for (int i = 0; i < n; i++)
        q->empty[q->nempty++] = batches[i];
    return q;
}

void pdb_bq_free(pdb_batchq *q)
{
    if (!q)
        return;
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->to_producer);
    pthread_cond_destroy(&q->to_consumer);
    free(q);
}

void *pdb_bq_empty(pdb_batchq *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->nempty == 0 && !q->abandoned)
        pthread_cond_wait(&q->to_producer, &q->mu);
    void *b = q->abandoned ? NULL : q->empty[--q->nempty];
    pthread_mutex_unlock(&q->mu);
    return b;
}

void pdb_bq_put(pdb_batchq *q, void *b)
{
    pthread_mutex_lock(&q->mu);
    assert(q->nfull < q->n);
    q->full[(q->head + q->nfull) % q->n] = b;
    q->nfull++;
    pthread_cond_signal(&q->to_consumer);
    pthread_mutex_unlock(&q->mu);
}

void pdb_bq_close(pdb_batchq *q)
{
    pthread_mutex_lock(&q->mu);
    q->closed = true;
    pthread_cond_signal(&q->to_consumer);
    pthread_mutex_unlock(&q->mu);
}

bool pdb_bq_abandoned(pdb_batchq *q)
{
    pthread_mutex_lock(&q->mu);
    bool a = q->abandoned;
    pthread_mutex_unlock(&q->mu);
    return a;
}

void *pdb_bq_take(pdb_batchq *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->nfull == 0 && !q->closed)
        pthread_cond_wait(&q->to_consumer, &q->mu);
    void *b = NULL;
    if (q->nfull > 0) {
        b = q->full[q->head];
        q->head = (q->head + 1) % q->n;
        q->nfull--;
    }
    pthread_mutex_unlock(&q->mu);
    return b;
}

void pdb_bq_give_back(pdb_batchq *q, void *b)
{
    pthread_mutex_lock(&q->mu);
    assert(q->nempty < q->n);
    q->empty[q->nempty++] = b;
    pthread_cond_signal(&q->to_producer);
    pthread_mutex_unlock(&q->mu);
}

void pdb_bq_abandon(pdb_batchq *q)
{
    pthread_mutex_lock(&q->mu);
    q->abandoned = true;
    pthread_cond_signal(&q->to_producer);
    pthread_mutex_unlock(&q->mu);
}
