/* idle_pass.c: GPU idle time per stream, split into host wait, kernel wait
 * and other (see analysis_idle in the schema for the rules).
 *
 * Fed by the scan with GPU events in start order and the start of the runtime
 * call that launched each; streams are few, so a short list of per-stream
 * accumulators is searched linearly. */
#include "analyze/scan.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay: 30 us */

typedef struct {
    char key[64];
    size_t klen;
    sqlite3_value *stream;
    int64_t events, prev_end, host, kernel, other;
} stream_acc;

struct pdb_idle_acc {
    bool hta;
    stream_acc *v;
    int n, cap;
};

pdb_idle_acc *pdb_idle_acc_new(bool hta)
{
    pdb_idle_acc *a = pdb_xcalloc(1, sizeof *a);
    a->hta = hta;
    return a;
}

static stream_acc *stream_for(pdb_idle_acc *a, sqlite3_value *stream)
{
    char key[64];
    size_t klen;
    pdb_value_key(stream, key, sizeof key, &klen);
    for (int i = 0; i < a->n; i++)
        if (a->v[i].klen == klen && memcmp(a->v[i].key, key, klen) == 0)
            return &a->v[i];
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 8;
        a->v = pdb_xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    stream_acc *s = &a->v[a->n++];
    *s = (stream_acc){.klen = klen, .stream = sqlite3_value_dup(stream)};
    memcpy(s->key, key, klen);
    return s;
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
    for (int i = 0; i < a->n && rc == PDB_OK; i++) {
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
    for (int i = 0; i < a->n; i++)
        sqlite3_value_free(a->v[i].stream);
    free(a->v);
    free(a);
}
