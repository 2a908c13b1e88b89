/* idle_pass.c: GPU idle time per stream, split into host wait, kernel wait
 * and other (see analysis_idle in the schema for the rules).
 *
 * Fed by the scan with GPU events in start order and the start of the runtime
 * call that launched each. Per-stream accumulators are found by hashing the
 * stream's value (a linear search made 80,000 streams take 18 s); the last
 * stream is remembered, since consecutive events often share one. */
#include "analyze/scan.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay: 30 us */

typedef struct {
    sqlite3_value *stream;
    int64_t events, prev_end, host, kernel, other;
} stream_acc;

struct pdb_idle_acc {
    bool hta;
    stream_acc *v;
    int64_t n, cap;
    pdb_strmap *index;   /* stream key -> index into v */
    pdb_buf key, last;   /* the key being looked up; the last stream's key */
    int64_t last_i;
};

pdb_idle_acc *pdb_idle_acc_new(bool hta)
{
    pdb_idle_acc *a = pdb_xcalloc(1, sizeof *a);
    a->hta = hta;
    a->index = pdb_strmap_new();
    a->last_i = -1;
    return a;
}

static stream_acc *stream_for(pdb_idle_acc *a, sqlite3_value *stream)
{
    pdb_buf_reset(&a->key);
    pdb_value_key(&a->key, stream);
    if (a->last_i >= 0 && a->key.len == a->last.len && memcmp(a->key.p, a->last.p, a->key.len) == 0)
        return &a->v[a->last_i];
    int64_t i;
    if (!pdb_strmap_get(a->index, a->key.p, a->key.len, &i)) {
        if (a->n == a->cap) {
            a->cap = a->cap ? a->cap * 2 : 8;
            a->v = pdb_xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
        }
        i = a->n++;
        a->v[i] = (stream_acc){.stream = sqlite3_value_dup(stream)};
        pdb_strmap_put(a->index, a->key.p, a->key.len, i);
    }
    pdb_buf_reset(&a->last);
    pdb_buf_add(&a->last, a->key.p, a->key.len);
    a->last_i = i;
    return &a->v[i];
}

/* One gap before an event, by HTA's rules; exact mode measures from the
 * latest end so far, so overlapping events leave no (negative) gap. */
void pdb_idle_acc_add(pdb_idle_acc *a, sqlite3_value *stream, int64_t start, int64_t end,
                      bool has_launch, int64_t launch)
{
    stream_acc *s = stream_for(a, stream);
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

int pdb_idle_acc_write(pdb_idle_acc *a, sqlite3 *db, int64_t run_id, int rank)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT INTO analysis_idle VALUES (?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int64_t i = 0; i < a->n && rc == PDB_OK; i++) {
        stream_acc *s = &a->v[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, a->hta ? "hta" : "exact", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, rank);
        sqlite3_bind_value(st, 4, s->stream);
        sqlite3_bind_int64(st, 5, s->events);
        sqlite3_bind_int64(st, 6, s->host);
        sqlite3_bind_int64(st, 7, s->kernel);
        sqlite3_bind_int64(st, 8, s->other);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

void pdb_idle_acc_free(pdb_idle_acc *a)
{
    if (!a)
        return;
    for (int64_t i = 0; i < a->n; i++)
        sqlite3_value_free(a->v[i].stream);
    free(a->v);
    pdb_strmap_free(a->index);
    pdb_buf_free(&a->key);
    pdb_buf_free(&a->last);
    free(a);
}
