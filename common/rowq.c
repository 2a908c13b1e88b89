/* rowq.c: rows for prepared statements, executed on a writer thread (see
 * rowq.h).
 *
 * NBATCHES batches circulate between the caller, which fills one, and the
 * writer, which executes full ones in order; one mutex, a condition
 * variable for each side. A batch is handed over when its rows, its
 * parameters or its text are full, so the queue holds at most
 * NBATCHES * (BATCH_PARAMS parameters + BATCH_TEXT bytes): about 2 MB, plus
 * the longest text of each batch still to execute. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "common/rowq.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NBATCHES 4
#define BATCH_ROWS 1024
#define BATCH_PARAMS 8192
#define BATCH_TEXT (256 * 1024)

typedef enum { P_INT, P_DOUBLE, P_NULL, P_TEXT } param_type;

typedef struct {
    union {
        int64_t i;
        double d;
        size_t off; /* P_TEXT: where its bytes start in the batch's text */
    } v;
    uint32_t len;   /* P_TEXT */
    uint8_t type;
} param;

typedef struct {
    sqlite3_stmt *st;
    int first, n;   /* its parameters: params[first .. first + n) */
    int64_t expect_rowid;
} row;

typedef struct {
    int nrows, nparams;
    row rows[BATCH_ROWS];
    param params[BATCH_PARAMS];
    pdb_buf text;
} batch;

struct pdb_rowq {
    sqlite3 *db;
    bool batched;          /* rows wait in batches (else each runs at its end) */
    bool started;          /* the writer thread runs: started by the first full batch */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t to_caller, to_writer;
    batch *all[NBATCHES];
    batch *empty[NBATCHES];
    int nempty;
    batch *full[NBATCHES]; /* a ring: full[head] is the oldest */
    int head, nfull;
    int64_t handed, done;  /* batches handed to the writer, and executed */
    bool closed;           /* no more batches: the writer ends */
    bool failed;           /* a row failed: errmsg says why; later rows are dropped */
    char errmsg[2048];
    bool saw_failure;      /* the caller's copy of failed, taken at each hand-over */
    batch *filling;        /* the caller's */
    row *cur;              /* the row being recorded */
};

/* ---- executing ---------------------------------------------------------- */

static int run_row(sqlite3 *db, const batch *b, const row *r)
{
    for (int k = 0; k < r->n; k++) {
        const param *p = &b->params[r->first + k];
        switch (p->type) {
        case P_INT:
            sqlite3_bind_int64(r->st, k + 1, p->v.i);
            break;
        case P_DOUBLE:
            sqlite3_bind_double(r->st, k + 1, p->v.d);
            break;
        case P_NULL:
            sqlite3_bind_null(r->st, k + 1);
            break;
        default:
            sqlite3_bind_text(r->st, k + 1, b->text.p + p->v.off, (int)p->len, SQLITE_STATIC);
        }
    }
    if (pdb_db_step_done(db, r->st) != PDB_OK)
        return PDB_ERR;
    if (r->expect_rowid != 0 && sqlite3_last_insert_rowid(db) != r->expect_rowid)
        return pdb_fail("database error: a row numbered %lld was stored as %lld",
                        (long long)r->expect_rowid, (long long)sqlite3_last_insert_rowid(db));
    return PDB_OK;
}

static int run_batch(sqlite3 *db, const batch *b)
{
    for (int i = 0; i < b->nrows; i++)
        if (run_row(db, b, &b->rows[i]) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

/* Empties an executed batch. Its text grown past BATCH_TEXT by a long
 * value (a step log's line may be 16 MiB) is freed, not kept for the next
 * rows: four batches never hold more than one long text each at a time. */
static void batch_clear(batch *b)
{
    b->nrows = 0;
    b->nparams = 0;
    if (b->text.cap > 2 * BATCH_TEXT)
        pdb_buf_free(&b->text);
    else
        pdb_buf_reset(&b->text);
}

/* The writer thread: full batches in order, until the caller closes. Its
 * error message (error.c keeps one per thread) is copied for the caller. */
static void *writer(void *arg)
{
    pdb_rowq *q = arg;
    pthread_setname_np(pthread_self(), "profdb-write"); /* for top and perf */
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->nfull == 0 && !q->closed)
            pthread_cond_wait(&q->to_writer, &q->mu);
        if (q->nfull == 0)
            break;
        batch *b = q->full[q->head];
        bool skip = q->failed;
        pthread_mutex_unlock(&q->mu);
        int rc = skip ? PDB_OK : run_batch(q->db, b);
        pthread_mutex_lock(&q->mu);
        if (rc != PDB_OK) {
            q->failed = true;
            snprintf(q->errmsg, sizeof q->errmsg, "%s", pdb_errmsg());
        }
        batch_clear(b);
        q->head = (q->head + 1) % NBATCHES;
        q->nfull--;
        q->empty[q->nempty++] = b;
        q->done++;
        pthread_cond_signal(&q->to_caller);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* ---- the caller's side --------------------------------------------------- */

bool pdb_rowq_threads_wanted(void)
{
    const char *v = getenv("PROFDB_PIPELINE");
    if (v && strcmp(v, "0") == 0)
        return false;
    if (v && strcmp(v, "1") == 0)
        return true; /* tests: both ways, whatever the machine */
    return sysconf(_SC_NPROCESSORS_ONLN) > 1; /* one core: a second thread only adds switches */
}

pdb_rowq *pdb_rowq_new(sqlite3 *db, bool threaded)
{
    pdb_rowq *q = pdb_xcalloc(1, sizeof *q);
    q->db = db;
    q->batched = threaded;
    int nb = threaded ? NBATCHES : 1;
    for (int i = 0; i < nb; i++) {
        q->all[i] = pdb_xcalloc(1, sizeof *q->all[i]);
        q->empty[q->nempty++] = q->all[i];
    }
    q->filling = q->empty[--q->nempty];
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->to_caller, NULL);
    pthread_cond_init(&q->to_writer, NULL);
    return q;
}

/* Starts the writer. It inherits a mask without SIGINT and SIGTERM: they
 * reach the reading thread, whose blocked read() must return. */
static bool start_writer(pdb_rowq *q)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    q->started = pthread_create(&q->thread, NULL, writer, q) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return q->started;
}

/* Runs the filling batch here (before any thread, or when none starts). */
static void run_here(pdb_rowq *q)
{
    if (!q->failed && run_batch(q->db, q->filling) != PDB_OK) {
        q->failed = true;
        snprintf(q->errmsg, sizeof q->errmsg, "%s", pdb_errmsg());
    }
    q->saw_failure = q->failed;
    batch_clear(q->filling);
}

/* Hands the filling batch to the writer and takes an empty one. A small
 * input never fills a batch, and never starts a thread. */
static void hand_over(pdb_rowq *q)
{
    if (!q->started && !start_writer(q)) {
        run_here(q);
        return;
    }
    pthread_mutex_lock(&q->mu);
    q->full[(q->head + q->nfull) % NBATCHES] = q->filling;
    q->nfull++;
    q->handed++;
    pthread_cond_signal(&q->to_writer);
    while (q->nempty == 0)
        pthread_cond_wait(&q->to_caller, &q->mu);
    q->filling = q->empty[--q->nempty];
    q->saw_failure = q->failed;
    pthread_mutex_unlock(&q->mu);
}

void pdb_rowq_begin(pdb_rowq *q, sqlite3_stmt *st, int64_t expect_rowid)
{
    batch *b = q->filling;
    if (b->nrows == BATCH_ROWS || b->nparams > BATCH_PARAMS - PDB_ROWQ_MAX_PARAMS ||
        b->text.len > BATCH_TEXT) {
        assert(q->batched); /* else every row runs at its end */
        hand_over(q);
        b = q->filling;
    }
    q->cur = &b->rows[b->nrows];
    *q->cur = (row){st, b->nparams, 0, expect_rowid};
}

static param *next_param(pdb_rowq *q)
{
    batch *b = q->filling;
    assert(q->cur && q->cur->n < PDB_ROWQ_MAX_PARAMS);
    q->cur->n++;
    return &b->params[b->nparams++];
}

void pdb_rowq_int(pdb_rowq *q, int64_t v)
{
    param *p = next_param(q);
    p->type = P_INT;
    p->v.i = v;
}

void pdb_rowq_double(pdb_rowq *q, double v)
{
    param *p = next_param(q);
    p->type = P_DOUBLE;
    p->v.d = v;
}

void pdb_rowq_null(pdb_rowq *q)
{
    next_param(q)->type = P_NULL;
}

void pdb_rowq_int_or_null(pdb_rowq *q, bool has, int64_t v)
{
    if (has)
        pdb_rowq_int(q, v);
    else
        pdb_rowq_null(q);
}

void pdb_rowq_double_or_null(pdb_rowq *q, bool has, double v)
{
    if (has)
        pdb_rowq_double(q, v);
    else
        pdb_rowq_null(q);
}

void pdb_rowq_text(pdb_rowq *q, const char *s, size_t len)
{
    assert(len <= UINT32_MAX);
    batch *b = q->filling;
    param *p = next_param(q);
    p->type = P_TEXT;
    p->v.off = b->text.len;
    p->len = (uint32_t)len;
    pdb_buf_add(&b->text, s, len);
}

/* The writer's failure, as this thread's error. */
static int writer_failed(pdb_rowq *q)
{
    pthread_mutex_lock(&q->mu);
    bool failed = q->failed;
    pthread_mutex_unlock(&q->mu);
    return failed ? pdb_fail("%s", q->errmsg) : PDB_OK;
}

int pdb_rowq_end(pdb_rowq *q)
{
    batch *b = q->filling;
    assert(q->cur == &b->rows[b->nrows]);
    b->nrows++;
    q->cur = NULL;
    if (!q->batched) {
        int rc = run_row(q->db, b, &b->rows[b->nrows - 1]);
        batch_clear(b);
        return rc;
    }
    /* A failure shows from the next hand-over on: checking at every row
     * would take the lock every row. */
    return q->saw_failure ? pdb_fail("%s", q->errmsg) : PDB_OK;
}

int pdb_rowq_sync(pdb_rowq *q)
{
    if (!q->batched)
        return PDB_OK;
    if (q->filling->nrows > 0 && !q->started)
        run_here(q); /* no thread for a few rows */
    else if (q->filling->nrows > 0)
        hand_over(q);
    pthread_mutex_lock(&q->mu);
    while (q->done < q->handed)
        pthread_cond_wait(&q->to_caller, &q->mu);
    pthread_mutex_unlock(&q->mu);
    return writer_failed(q);
}

int pdb_rowq_free(pdb_rowq *q)
{
    if (!q)
        return PDB_OK;
    int rc = pdb_rowq_sync(q);
    if (q->started) {
        pthread_mutex_lock(&q->mu);
        q->closed = true;
        pthread_cond_signal(&q->to_writer);
        pthread_mutex_unlock(&q->mu);
        pthread_join(q->thread, NULL);
    }
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->to_caller);
    pthread_cond_destroy(&q->to_writer);
    for (int i = 0; i < NBATCHES; i++)
        if (q->all[i]) {
            pdb_buf_free(&q->all[i]->text);
            free(q->all[i]);
        }
    free(q);
    return rc;
}
