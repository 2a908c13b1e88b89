/* gpu_pass.c: GPU time per rank: temporal breakdown, kernel types and their
 * overlaps, per-kernel statistics.
 *
 * Fed by the scan (scan.c) with GPU events in start order: each goes into
 * the sweep (sweep.c; in hta mode HTA's own arithmetic, hta_time.c) and a
 * per-name accumulator; the scan decides which events count and how they
 * are rounded in each mode. Per-kernel records live in a store
 * (recstore.h), so a trace with millions of distinct kernel names stays in
 * bounded memory. */
#include "analyze/batch.h"
#include "analyze/hta.h"
#include "analyze/queries.h"
#include "analyze/recstore.h"
#include "analyze/passes.h"
#include "analyze/sum.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records kept in memory before the store spills (a real trace has a few
 * thousand kernel names). */
#define KERNELS_IN_MEMORY 16384

typedef struct {
    int64_t kt;      /* pdb_kernel_type of this mode */
    int64_t count, total, min, max;
    double mean, m2; /* Welford's running mean and squared deviations */
} kernel_stat;

/* A kernel name's statistics in both modes, one record (a trace of
 * distinct names spilled two per name); a count of 0: none in that mode. */
typedef struct {
    int64_t name_id;
    kernel_stat s[2]; /* exact, hta */
} kernel_rec;

struct pdb_gpu_acc {
    bool hta;
    pdb_sweep w;
    pdb_hta_time ht;
    int64_t events;
    pdb_recstore *kernels; /* name id -> kernel_rec: the exact acc's, shared by the hta one */
    bool owns_kernels;
    int64_t last_id, last; /* consecutive events often repeat a kernel */
};

int pdb_gpu_acc_new(sqlite3 *db, pdb_gpu_acc *exact, pdb_gpu_acc **out)
{
    pdb_gpu_acc *a = pdb_xcalloc(1, sizeof *a);
    *out = a;
    a->hta = exact != NULL;
    a->last = -1;
    pdb_sweep_init(&a->w, PDB_KT_COUNT);
    if (exact) {
        a->kernels = exact->kernels;
        return PDB_OK;
    }
    a->owns_kernels = true;
    return pdb_rs_new(db, "kernels", sizeof(kernel_rec), KERNELS_IN_MEMORY, SIZE_MAX,
                      &a->kernels);
}

static kernel_stat *stat_for(pdb_gpu_acc *a, const pdb_row *r)
{
    static kernel_stat scratch; /* after a database error, which the write reports */
    if (a->last < 0 || a->last_id != r->name_id) {
        kernel_rec init = {r->name_id,
                           {{r->name->kt, 0, 0, INT64_MAX, INT64_MIN, 0, 0},
                            {r->name->kt_hta, 0, 0, INT64_MAX, INT64_MIN, 0, 0}}};
        bool created;
        unsigned char key[8];
        pdb_rs_key_int(key, r->name_id);
        a->last = pdb_rs_find(a->kernels, key, sizeof key, &init, &created);
        a->last_id = r->name_id;
        if (a->last < 0)
            return &scratch;
    }
    return &((kernel_rec *)pdb_rs_get(a->kernels, a->last))->s[a->hta];
}

void pdb_gpu_acc_add(pdb_gpu_acc *a, const pdb_row *r, int64_t start, int64_t end)
{
    int64_t dur = end - start;
    if (a->hta)
        pdb_hta_time_add(&a->ht, r->name->kt_hta, start, end);
    else
        pdb_sweep_add(&a->w, (int)r->name->kt, start, end);
    a->events++;
    kernel_stat *k = stat_for(a, r);
    k->count++;
    pdb_sum(&k->total, dur);
    if (dur < k->min)
        k->min = dur;
    if (dur > k->max)
        k->max = dur;
    double delta = (double)dur - k->mean;
    k->mean += delta / (double)k->count;
    k->m2 += delta * ((double)dur - k->mean);
}

static int write_gpu(pdb_gpu_acc *a, sqlite3 *db, int64_t run_id, int rank, const char *mode)
{
    const pdb_sweep *w = &a->w;
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "gpu_pass.add_gpu", &st) != PDB_OK)
        return PDB_ERR;
    pdb_hta_gpu_time h;
    if (a->hta) {
        pdb_hta_time_results(&a->ht, &h);
    } else {
        h = (pdb_hta_gpu_time){
            .kernel_time = w->last_end - w->first_start,
            .busy = pdb_sweep_union(w, PDB_KT_ALL),
            .compute = pdb_sweep_union(w, 1u << PDB_KT_COMPUTATION),
            .comm = pdb_sweep_union(w, 1u << PDB_KT_COMMUNICATION),
            .overlap = pdb_sweep_together(w, (1u << PDB_KT_COMMUNICATION) |
                                                 (1u << PDB_KT_COMPUTATION))};
    }
    int64_t vals[] = {a->events, h.kernel_time, h.busy, h.kernel_time - h.busy, h.compute,
                      h.busy - h.compute, h.comm, h.overlap};
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, rank);
    for (int i = 0; i < 8; i++)
        sqlite3_bind_int64(st, 4 + i, vals[i]);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

static int write_kernel_types(pdb_gpu_acc *a, sqlite3 *db, int64_t run_id, int rank,
                              const char *mode)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "gpu_pass.add_kernel_type", &st) != PDB_OK)
        return PDB_ERR;
    /* OTHER (sync) time is left out of the breakdown, as HTA does. */
    int64_t by_type[PDB_KT_BREAKDOWN + 1] = {0};
    if (a->hta) {
        pdb_hta_gpu_time h;
        pdb_hta_time_results(&a->ht, &h);
        for (unsigned m = 1; m <= PDB_KT_BREAKDOWN; m++)
            by_type[m] = h.type_time[m];
    } else {
        for (unsigned m = 1; m <= PDB_KT_ALL; m++)
            by_type[m & PDB_KT_BREAKDOWN] += a->w.mask_time[m];
    }
    int rc = PDB_OK;
    for (unsigned m = 1; m <= PDB_KT_BREAKDOWN && rc == PDB_OK; m++) {
        if (!by_type[m])
            continue;
        char name[128];
        pdb_kernel_mask_name(m, name, sizeof name);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, rank);
        sqlite3_bind_text(st, 4, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 5, by_type[m]);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

typedef struct {
    pdb_batch *rows;
    int64_t run_id;
    int rank;
} kernel_writer;

/* A name's analysis_kernels rows, exact then hta (the table's key order);
 * the name as its id: the view adds the text. */
static int write_kernel(int64_t h, const void *key, size_t klen, const void *rec, void *arg)
{
    static const char *const modes[] = {"exact", "hta"};
    const kernel_writer *w = arg;
    const kernel_rec *kr = rec;
    (void)h, (void)key, (void)klen;
    for (int m = 0; m < 2; m++) {
        const kernel_stat *k = &kr->s[m];
        if (k->count == 0)
            continue;
        pdb_batch_val v[] = {
            {.i = w->run_id}, {.s = modes[m]}, {.i = w->rank}, {.i = kr->name_id},
            {.s = pdb_kernel_type_name((pdb_kernel_type)k->kt)}, {.i = k->count},
            {.i = k->total}, {.i = k->min}, {.i = k->max},
            {.r = (double)k->total / (double)k->count},
            {.r = k->count > 1 ? sqrt(k->m2 / (double)(k->count - 1)) : 0.0},
        };
        if (pdb_batch_add_vals(w->rows, v, k->count > 1 ? 0 : 1u << 10) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

static int write_kernels(pdb_gpu_acc *a, sqlite3 *db, int64_t run_id, int rank)
{
    kernel_writer w = {NULL, run_id, rank};
    int rc = pdb_rs_error(a->kernels);
    if (rc == PDB_OK)
        rc = pdb_batch_new_typed(db, pdb_analyze_sql("gpu_pass.add_kernel"), "isiisiiiirr",
                                 &w.rows);
    if (rc == PDB_OK)
        rc = pdb_rs_each(a->kernels, write_kernel, &w);
    if (rc == PDB_OK)
        rc = pdb_batch_flush(w.rows);
    pdb_batch_free(w.rows);
    return rc;
}

int pdb_gpu_acc_write(pdb_gpu_acc *a, sqlite3 *db, int64_t run_id, int rank, const char *mode)
{
    if (a->hta)
        pdb_hta_time_finish(&a->ht);
    else
        pdb_sweep_finish(&a->w);
    /* A rank without GPU events has no GPU breakdown (HTA fails there too). */
    if (a->events > 0 && (write_gpu(a, db, run_id, rank, mode) != PDB_OK ||
                          write_kernel_types(a, db, run_id, rank, mode) != PDB_OK))
        return PDB_ERR;
    /* Both modes' kernel rows in one walk of the store they share, once
     * both have seen every event; a mode without events has no counts. */
    return a->hta ? write_kernels(a, db, run_id, rank) : PDB_OK;
}

void pdb_gpu_acc_free(pdb_gpu_acc *a)
{
    if (!a)
        return;
    if (a->owns_kernels)
        pdb_rs_free(a->kernels);
    pdb_hta_time_free(&a->ht);
    free(a);
}
