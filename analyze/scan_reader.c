/* scan_reader.c: the scan's rows read on a thread of its own (see
 * scan_reader.h).
 *
 * The reader fills batches in place: each slot a copy of one pdb_row with
 * its name and category info, the row's text (input dims, and pid, tid or
 * stream when they are text) appended to the batch's own buffer and pointed
 * to once the batch is full, so the consumer gets rows that point only into
 * the batch. BATCHES batches circulate through a batch queue
 * (common/batchq.h): the reader waits when all of them are full, the
 * consumer when none is. */
#include "analyze/scan_reader.h"
#include "common/batchq.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/rowq.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "analyze/queries.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BATCHES 4
#define BATCH_ROWS 1024
#define BATCH_TEXT (256 * 1024) /* a batch closes past this much text */

typedef struct {
    pdb_row row;
    pdb_name_info name;
    pdb_cat_info cat;
    size_t dims, val[3]; /* offsets into the batch's text */
} slot;

typedef struct {
    slot *slots;
    int n;
    pdb_buf text;
} batch;

struct pdb_scan_reader {
    pthread_t thread;
    bool started;
    char *path;
    int64_t trace_id;
    batch batches[BATCHES];
    pdb_batchq *q;
    int rc;                   /* the reader's result, read after the join */
    char msg[1024];           /* its error message */
    batch *cur;               /* consumer: the batch being read */
    int next;                 /* and its next slot */
};

bool pdb_scan_reader_possible(sqlite3 *db)
{
    const char *path = sqlite3_db_filename(db, "main");
    /* two connections on two threads need an SQLite built thread-safe */
    if (!path || !*path || !pdb_rowq_threads_wanted() || !sqlite3_threadsafe())
        return false;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, pdb_analyze_sql("scan.journal_mode"), -1, &st, NULL) != SQLITE_OK)
        return false;
    bool wal = sqlite3_step(st) == SQLITE_ROW &&
               strcasecmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
    sqlite3_finalize(st);
    return wal;
}

/* ---- reader thread ---------------------------------------------------- */

static size_t add_text(batch *b, const void *p, size_t n)
{
    size_t off = b->text.len;
    pdb_buf_add(&b->text, p, n);
    pdb_buf_addc(&b->text, '\0');
    return off;
}

static void add_row(batch *b, const pdb_row *r)
{
    slot *s = &b->slots[b->n++];
    s->row = *r;
    s->name = *r->name;
    if (r->cat)
        s->cat = *r->cat;
    s->dims = add_text(b, r->dims, strlen(r->dims));
    const pdb_val *v[3] = {&r->stream, &r->pid, &r->tid};
    for (int i = 0; i < 3; i++)
        if (v[i]->type == SQLITE_TEXT || v[i]->type == SQLITE_BLOB)
            s->val[i] = add_text(b, v[i]->p, v[i]->n);
}

/* Points the rows of a full batch at its own copies (its text no longer
 * moves). */
static void fix_pointers(batch *b)
{
    for (int k = 0; k < b->n; k++) {
        slot *s = &b->slots[k];
        pdb_row *r = &s->row;
        r->name = &s->name;
        r->cat = r->cat ? &s->cat : NULL;
        r->dims = b->text.p + s->dims;
        pdb_val *v[3] = {&r->stream, &r->pid, &r->tid};
        for (int i = 0; i < 3; i++)
            if (v[i]->type == SQLITE_TEXT || v[i]->type == SQLITE_BLOB)
                v[i]->p = b->text.p + s->val[i];
    }
}

/* An empty batch to fill, NULL when the consumer gave up. */
static batch *take_empty(pdb_scan_reader *r)
{
    batch *b = pdb_bq_empty(r->q);
    if (b) {
        b->n = 0;
        pdb_buf_reset(&b->text);
    }
    return b;
}

static void hand_over(pdb_scan_reader *r, batch *b)
{
    fix_pointers(b);
    pdb_bq_put(r->q, b);
}

/* SQLite's progress handler: a consumer that gave up (an error, SIGINT)
 * interrupts the reader's query, the launchers' long one included. */
static int consumer_gave_up(void *arg)
{
    pdb_scan_reader *r = arg;
    return pdb_bq_abandoned(r->q);
}

static int open_reader(pdb_scan_reader *r, sqlite3 **db)
{
    const char *path = r->path;
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        return pdb_fail("%s: cannot open database for reading: %s", path, sqlite3_errmsg(*db));
    sqlite3_busy_timeout(*db, PDB_DB_BUSY_MS);
    sqlite3_progress_handler(*db, 1000, consumer_gave_up, r);
    /* One snapshot for the launchers' query and the scan's. */
    return pdb_db_begin(*db);
}

static void *reader_main(void *arg)
{
    pdb_scan_reader *r = arg;
    sqlite3 *db = NULL;
    pdb_scan_rows *rows = NULL;
    batch *b = NULL;
    int rc = open_reader(r, &db);
    if (rc == PDB_OK)
        rc = pdb_scan_rows_open(db, r->trace_id, &rows);
    pdb_row row;
    int k;
    while (rc == PDB_OK && (k = pdb_scan_rows_next(rows, &row)) != 0) {
        if (k < 0)
            rc = PDB_ERR;
        else if (!b && !(b = take_empty(r)))
            break; /* the consumer gave up */
        else {
            add_row(b, &row);
            if (b->n == BATCH_ROWS || b->text.len >= BATCH_TEXT) {
                hand_over(r, b);
                b = NULL;
            }
        }
    }
    if (rc != PDB_OK)
        snprintf(r->msg, sizeof r->msg, "%s", pdb_errmsg());
    pdb_scan_rows_close(rows);
    pdb_db_close(db); /* its statements were made on this thread */
    if (rc == PDB_OK && b)
        hand_over(r, b);
    r->rc = rc;
    pdb_bq_close(r->q);
    return NULL;
}

/* ---- consumer --------------------------------------------------------- */

pdb_scan_reader *pdb_scan_reader_start(sqlite3 *db, int64_t trace_id)
{
    const char *path = sqlite3_db_filename(db, "main");
    if (!path || !*path)
        return NULL;
    pdb_scan_reader *r = pdb_xcalloc(1, sizeof *r);
    r->path = pdb_xstrdup(path);
    r->trace_id = trace_id;
    void *all[BATCHES];
    for (int i = 0; i < BATCHES; i++) {
        r->batches[i].slots = pdb_xmalloc(BATCH_ROWS * sizeof *r->batches[i].slots);
        all[i] = &r->batches[i];
    }
    r->q = pdb_bq_new(all, BATCHES);
    r->started = pthread_create(&r->thread, NULL, reader_main, r) == 0;
    if (!r->started) {
        pdb_scan_reader_finish(r, PDB_OK);
        return NULL;
    }
    pdb_path_taken("analysis rows read on a reader thread");
    return r;
}

pdb_row *pdb_scan_reader_next(pdb_scan_reader *r)
{
    if (r->cur && r->next < r->cur->n)
        return &r->cur->slots[r->next++].row;
    if (r->cur)
        pdb_bq_give_back(r->q, r->cur);
    r->cur = pdb_bq_take(r->q); /* never an empty one */
    if (!r->cur)
        return NULL;
    r->next = 1;
    return &r->cur->slots[0].row;
}

int pdb_scan_reader_finish(pdb_scan_reader *r, int rc)
{
    if (r->started) {
        pdb_bq_abandon(r->q); /* a reader still reading stops */
        pthread_join(r->thread, NULL);
        if (rc == PDB_OK && r->rc != PDB_OK)
            rc = pdb_fail("%s", r->msg);
    }
    pdb_bq_free(r->q);
    for (int i = 0; i < BATCHES; i++) {
        free(r->batches[i].slots);
        pdb_buf_free(&r->batches[i].text);
    }
    free(r->path);
    free(r);
    return rc;
}
