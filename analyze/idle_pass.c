/* idle_pass.c: GPU idle time per stream, split into host wait, kernel wait
 * and other (see analysis_idle in the schema for the rules).
 *
 * Fed by the scan with GPU events in start order and the start of the runtime
 * call that launched each. Per-stream records live in a record store
 * (recstore.h) under the stream's whole value: the first IDLE_IN_MEMORY
 * streams in memory, the rest in a temporary table (100,000 streams kept
 * about 45 MB in memory). The last stream is remembered, since consecutive
 * events often share one. */
#include "analyze/queries.h"
#include "analyze/recstore.h"
#include "analyze/passes.h"
#include "analyze/sum.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay: 30 us */
#define IDLE_IN_MEMORY 65536 /* streams per mode kept in memory */

typedef struct {
    int64_t events, prev_end, host, kernel, other;
} stream_acc;

struct pdb_idle_acc {
    bool hta;
    pdb_recstore *streams; /* key: the stream's value (pdb_value_key) */
    pdb_buf key, last;     /* the key being looked up; the last stream's key */
    int64_t last_h;
};

int pdb_idle_acc_new(sqlite3 *db, bool hta, pdb_idle_acc **out)
{
    pdb_idle_acc *a = pdb_xcalloc(1, sizeof *a);
    *out = a;
    a->hta = hta;
    a->last_h = -1;
    return pdb_rs_new(db, hta ? "idle_hta" : "idle", sizeof(stream_acc), IDLE_IN_MEMORY,
                      SIZE_MAX, &a->streams);
}

/* The record of a stream (NULL after a database error, reported when the
 * rows are written). */
static stream_acc *stream_for(pdb_idle_acc *a, const pdb_val *stream)
{
    pdb_buf_reset(&a->key);
    pdb_val_key(&a->key, stream);
    if (a->last_h < 0 || a->key.len != a->last.len ||
        memcmp(a->key.p, a->last.p, a->key.len) != 0) {
        stream_acc init = {0, 0, 0, 0, 0};
        bool created;
        a->last_h = pdb_rs_find(a->streams, a->key.p, a->key.len, &init, &created);
        pdb_buf_reset(&a->last);
        pdb_buf_add(&a->last, a->key.p, a->key.len);
    }
    return a->last_h < 0 ? NULL : pdb_rs_get(a->streams, a->last_h);
}

/* One gap before an event, by HTA's rules; exact mode measures from the
 * latest end so far, so overlapping events leave no (negative) gap. */
void pdb_idle_acc_add(pdb_idle_acc *a, const pdb_val *stream, int64_t start, int64_t end,
                      bool has_launch, int64_t launch)
{
    stream_acc *s = stream_for(a, stream);
    if (!s)
        return;
    if (s->events > 0) {
        int64_t gap = start - s->prev_end;
        int64_t counted = a->hta || gap > 0 ? gap : 0;
        if (has_launch && launch > s->prev_end)
            pdb_sum(&s->host, counted);
        else if (gap < KERNEL_WAIT_NS)
            pdb_sum(&s->kernel, counted);
        else
            pdb_sum(&s->other, gap);
    }
    s->events++;
    if (a->hta || end > s->prev_end || s->events == 1)
        s->prev_end = end;
}

typedef struct {
    pdb_idle_acc *a;
    sqlite3_stmt *st;
} write_ctx;

/* A stream's row, in the order streams were first seen. */
static int write_stream(int64_t h, const void *key, size_t klen, const void *rec, void *arg)
{
    write_ctx *w = arg;
    const stream_acc *s = rec;
    const unsigned char *k = key;
    (void)h;
    pdb_value_key_bind(w->st, 4, &k, &klen);
    sqlite3_bind_int64(w->st, 5, s->events);
    sqlite3_bind_int64(w->st, 6, s->host);
    sqlite3_bind_int64(w->st, 7, s->kernel);
    sqlite3_bind_int64(w->st, 8, s->other);
    return pdb_db_step_done(sqlite3_db_handle(w->st), w->st);
}

int pdb_idle_acc_write(pdb_idle_acc *a, sqlite3 *db, int64_t run_id, int rank)
{
    if (pdb_rs_error(a->streams) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "idle_pass.add_stream", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, a->hta ? "hta" : "exact", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, rank);
    write_ctx w = {a, st};
    int rc = pdb_rs_each(a->streams, write_stream, &w);
    sqlite3_finalize(st);
    return rc;
}

void pdb_idle_acc_free(pdb_idle_acc *a)
{
    if (!a)
        return;
    pdb_rs_free(a->streams);
    pdb_buf_free(&a->key);
    pdb_buf_free(&a->last);
    free(a);
}
