/* bw_pass.c: memory bandwidth over time (analysis_memory_bw): the series
 * of HTA's get_memory_bw_time_series, one row per point.
 *
 * Each memcpy or memset GPU event adds its bandwidth at its start and takes
 * it away at its end; per kind ("Memcpy HtoD", "Memset", ...) the running
 * sum is the bandwidth in use. Points are ordered by time, starts before
 * ends at equal times, each group in trace order (slice id): the order a
 * stable sort of HTA's table gives. Bandwidth: exact mode divides the
 * event's bytes by its duration (1 byte/ns = 1 GB/s), and takes the trace's
 * "memory bandwidth (GB/s)" arg where bytes are missing; hta mode takes the
 * arg (missing: 0, as HTA) over HTA's rounded times, a zero duration
 * counted as 1 us.
 *
 * Streaming: starts come in start order, ends wait in a buffer per kind
 * until no start can come before them (exact: now; hta: a microsecond
 * before now, as HTA's rounding can end an event a microsecond before it
 * starts). The buffers hold the copies in flight, not the trace. Memory
 * events are few, so each one's bytes and arg are read by slice id. */
#include "analyze/hta.h"
#include "analyze/series.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { EXACT, HTA, MODES };

typedef struct {
    int64_t t, id;
    int end;            /* 0 start, 1 end: starts first at equal times */
    double bw;
} bw_point;

typedef struct {
    char name[16];      /* "Memcpy HtoD", "Memset", "Memcpy Unknown" */
    bw_point *buf;      /* not yet final; sorted when finalized */
    size_t n, cap;
    double value;       /* running sum */
} kind_acc;

typedef struct {
    kind_acc *v;
    size_t n, cap;
} kind_set;

struct pdb_bw_acc {
    sqlite3 *db;
    int64_t run_id;
    int rank;
    pdb_hta_mode hta;
    sqlite3_stmt *args, *insert;
    kind_set kinds[MODES];
    int64_t buffered;
    int64_t min_t[MODES];   /* no buffered point is earlier */
};

int pdb_bw_acc_new(sqlite3 *db, int64_t run_id, int rank, const pdb_hta_mode *hta,
                   pdb_bw_acc **out)
{
    pdb_bw_acc *a = pdb_xcalloc(1, sizeof *a);
    *a = (pdb_bw_acc){.db = db, .run_id = run_id, .rank = rank, .hta = *hta,
                      .min_t = {INT64_MAX, INT64_MAX}};
    *out = a;
    if (pdb_db_prepare(db, "SELECT bytes, json_extract(args, '$.\"memory bandwidth (GB/s)\"')"
                           " FROM slices WHERE id = ?",
                       &a->args) != PDB_OK ||
        pdb_db_prepare(db, "INSERT INTO analysis_memory_bw VALUES (?,?,?,?,?,?)",
                       &a->insert) != PDB_OK)
        return PDB_ERR;
    return PDB_OK;
}

/* HTA's get_memory_kernel_type. */
static void kind_name(const char *name, char *out)
{
    if (strncmp(name, "Memset", strlen("Memset")) == 0)
        strcpy(out, "Memset");
    else if (strncmp(name, "Memcpy", strlen("Memcpy")) != 0)
        strcpy(out, "Memcpy Unknown");
    else { /* name[:11]: "Memcpy DtoH" */
        size_t n = strnlen(name, strlen("Memcpy DtoH"));
        memcpy(out, name, n);
        out[n] = '\0';
    }
}

static kind_acc *kind_for(kind_set *s, const char *name)
{
    char k[16];
    kind_name(name, k);
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, k) == 0)
            return &s->v[i];
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->v = pdb_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    kind_acc *ka = &s->v[s->n++];
    *ka = (kind_acc){0};
    strcpy(ka->name, k);
    return ka;
}

static void push(pdb_bw_acc *a, int m, kind_acc *k, int64_t t, int64_t id, int end, double bw)
{
    if (t < a->min_t[m])
        a->min_t[m] = t;
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 16;
        k->buf = pdb_xrealloc(k->buf, k->cap * sizeof *k->buf);
    }
    k->buf[k->n++] = (bw_point){t, id, end, bw};
    a->buffered++;
}

static int cmp_point(const void *x, const void *y)
{
    const bw_point *p = x, *q = y;
    if (p->t != q->t)
        return p->t < q->t ? -1 : 1;
    if (p->end != q->end)
        return p->end - q->end;
    return p->id < q->id ? -1 : p->id > q->id;
}

/* Writes the points before w in order with their running sums. */
static int finalize(pdb_bw_acc *a, int m, int64_t w)
{
    static const char *const modes[] = {"exact", "hta"};
    if (w <= a->min_t[m])
        return PDB_OK;
    a->min_t[m] = INT64_MAX;
    for (size_t i = 0; i < a->kinds[m].n; i++) {
        kind_acc *k = &a->kinds[m].v[i];
        if (!k->n)
            continue;
        qsort(k->buf, k->n, sizeof *k->buf, cmp_point);
        size_t done = 0;
        while (done < k->n && k->buf[done].t < w) {
            bw_point *p = &k->buf[done++];
            k->value += p->end ? -p->bw : p->bw;
            sqlite3_bind_int64(a->insert, 1, a->run_id);
            sqlite3_bind_text(a->insert, 2, modes[m], -1, SQLITE_STATIC);
            sqlite3_bind_int(a->insert, 3, a->rank);
            sqlite3_bind_text(a->insert, 4, k->name, -1, SQLITE_STATIC);
            sqlite3_bind_int64(a->insert, 5, p->t);
            sqlite3_bind_double(a->insert, 6, k->value);
            if (pdb_db_step_done(a->db, a->insert) != PDB_OK)
                return PDB_ERR;
        }
        memmove(k->buf, k->buf + done, (k->n - done) * sizeof *k->buf);
        k->n -= done;
        if (k->n && k->buf[0].t < a->min_t[m])
            a->min_t[m] = k->buf[0].t;
        a->buffered -= (int64_t)done;
    }
    return PDB_OK;
}

/* bytes and the bandwidth arg of a memory event. */
static int read_args(pdb_bw_acc *a, int64_t id, bool *has_bytes, int64_t *bytes, bool *has_arg,
                     double *arg)
{
    sqlite3_bind_int64(a->args, 1, id);
    int rc = sqlite3_step(a->args);
    *has_bytes = rc == SQLITE_ROW && sqlite3_column_type(a->args, 0) != SQLITE_NULL;
    *bytes = rc == SQLITE_ROW ? sqlite3_column_int64(a->args, 0) : 0;
    *has_arg = rc == SQLITE_ROW && sqlite3_column_type(a->args, 1) != SQLITE_NULL;
    *arg = rc == SQLITE_ROW ? sqlite3_column_double(a->args, 1) : 0;
    sqlite3_reset(a->args);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? PDB_OK
                                                 : pdb_db_fail(a->db, "reading a memcpy's args");
}

int pdb_bw_acc_add(pdb_bw_acc *a, const pdb_row *r)
{
    bool exact = r->gpu && r->name->kt == PDB_KT_MEMORY;
    bool hta = r->ph_x && r->cat && !r->cat->trace && pdb_hta_stream(r->stream) != -1 &&
               r->name->kt_hta == PDB_KT_MEMORY;
    if (hta && a->hta.drop_last) {
        bool kernel = r->has_corr && r->corr >= 0 && pdb_hta_stream(r->stream) >= 0;
        int64_t t = kernel ? r->launch : r->ts;
        hta = (!kernel || r->has_launch) &&
              (a->hta.round ? pdb_hta_ceil(t) : t) < a->hta.cutoff;
    }
    if (exact || hta) {
        bool has_bytes, has_arg;
        int64_t bytes;
        double arg;
        if (read_args(a, r->id, &has_bytes, &bytes, &has_arg, &arg) != PDB_OK)
            return PDB_ERR;
        if (exact && r->dur > 0 && (has_bytes || has_arg)) {
            double bw = has_bytes ? (double)bytes / (double)r->dur : arg;
            kind_acc *k = kind_for(&a->kinds[EXACT], r->name->text);
            push(a, EXACT, k, r->ts, r->id, 0, bw);
            push(a, EXACT, k, r->ts + r->dur, r->id, 1, bw);
        }
        if (hta) {
            int64_t start = r->ts, end = r->ts + r->dur;
            if (a->hta.round)
                pdb_hta_round(r->ts, r->dur, &start, &end);
            if (end == start)
                end = start + PDB_HTA_US; /* HTA counts a 0 us event as 1 us */
            kind_acc *k = kind_for(&a->kinds[HTA], r->name->text);
            push(a, HTA, k, start, r->id, 0, has_arg ? arg : 0);
            push(a, HTA, k, end, r->id, 1, has_arg ? arg : 0);
        }
    }
    if (!a->buffered)
        return PDB_OK;
    if (finalize(a, EXACT, r->ts) != PDB_OK)
        return PDB_ERR;
    return finalize(a, HTA, r->ts - PDB_HTA_US);
}

int pdb_bw_acc_write(pdb_bw_acc *a)
{
    for (int m = 0; m < MODES; m++)
        if (finalize(a, m, INT64_MAX) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

void pdb_bw_acc_free(pdb_bw_acc *a)
{
    if (!a)
        return;
    sqlite3_finalize(a->args);
    sqlite3_finalize(a->insert);
    for (int m = 0; m < MODES; m++) {
        for (size_t i = 0; i < a->kinds[m].n; i++)
            free(a->kinds[m].v[i].buf);
        free(a->kinds[m].v);
    }
    free(a);
}
