/* scan.c: the analysis of one trace in a single pass (see scan.h).
 *
 * The trace's slices come in start order (scan_rows.c), read on the
 * analysis's connection or, when the trace is committed, by a reader
 * thread on a connection of its own (scan_reader.c). A CPU-side row that is
 * the first of its correlation comes with the number of GPU events it
 * launched; the attribution pass (attr_pass.c) remembers it until they come
 * by, and gives them the start of their launch. Every row goes to the
 * accumulators of both modes: exact (the trace as written) and hta (HTA's
 * event set, rounding and dropped last step, see hta.h). */
#include "analyze/scan.h"
#include "analyze/hta.h"
#include "analyze/passes.h"
#include "analyze/scan_reader.h"
#include "analyze/series.h"
#include "analyze/sum.h"
#include "common/db.h"
#include "common/error.h"
#include "analyze/queries.h"

typedef struct {
    pdb_gpu_acc *gpu[2];
    pdb_idle_acc *idle[2];
    pdb_ops_acc *ops;
    pdb_steps_acc *steps;
    pdb_attr_acc *attr;
    pdb_series_acc *series;
    pdb_coll_acc *coll;
    pdb_hta_mode hta;
} accs;

/* A GPU event's gap in HTA's idle time breakdown. A kernel whose launch is
 * not in the trace but that has a correlation (>= 0) is joined to HTA's row
 * 0 (hta.h): its start stands for the launch. */
static void hta_idle(accs *a, const pdb_row *r, int64_t start, int64_t end, int64_t launch)
{
    bool has_launch = r->has_launch;
    if (!has_launch && r->has_corr && r->corr >= 0 && a->hta.has_row0) {
        has_launch = true;
        launch = a->hta.row0_ts;
    }
    pdb_idle_acc_add(a->idle[1], &r->stream, start, end, has_launch, launch);
}

/* HTA's view of a row: X events with a category other than Trace, rounded;
 * with the last step dropped, HTA's kernels (GPUKernelFilter: a stream and
 * a correlation >= 0, or a device-wide sync) stay when launched before the
 * cut and every other event when it starts before it. Events on a stream
 * other than -1 make the temporal breakdown; kernels and annotation ranges
 * make the hta rows of analysis_annotations. */
static int feed_hta(accs *a, const pdb_row *r)
{
    if (!r->ph_x || !r->cat || r->cat->trace)
        return PDB_OK;
    int64_t stream = pdb_hta_stream_val(&r->stream);
    bool kernel = (stream >= 0 && r->has_corr && r->corr >= 0) || r->name->device_sync;
    bool range = r->cat->annotation || r->cat->gpu_range;
    if (stream == -1 && !kernel && !range)
        return PDB_OK;
    int64_t start = r->ts, end = r->ts + r->dur, launch = r->launch;
    if (a->hta.round) {
        pdb_hta_round(r->ts, r->dur, &start, &end);
        if (r->has_launch)
            launch = pdb_hta_ceil(r->launch);
    }
    if (a->hta.drop_last &&
        !(kernel ? r->has_launch && launch < a->hta.cutoff : start < a->hta.cutoff))
        return PDB_OK;
    if (stream != -1) {
        pdb_gpu_acc_add(a->gpu[1], r, start, end);
        if (r->cat->hta_idle)
            hta_idle(a, r, start, end, launch);
    }
    if (kernel)
        pdb_attr_hta_kernel(a->attr, r, start, end);
    return range ? pdb_attr_range(a->attr, r, true, start, end) : PDB_OK;
}

static int feed(accs *a, pdb_row *r)
{
    r->in_step = pdb_steps_acc_step_at(a->steps, r->ts, &r->step, &r->step_idx);
    bool op = !r->gpu && !(r->cat && (r->cat->trace || r->cat->gpu_annotation));
    if (op) { /* the profiler's span and GPU annotations are not ops */
        if (pdb_ops_acc_add(a->ops, r) != PDB_OK)
            return PDB_ERR;
        if (r->launches > 0 && pdb_attr_launcher(a->attr, r) != PDB_OK)
            return PDB_ERR;
    }
    if (r->has_corr && r->stream.type != SQLITE_NULL &&
        pdb_attr_resolve(a->attr, r) != PDB_OK)
        return PDB_ERR;
    if (r->gpu) {
        pdb_gpu_acc_add(a->gpu[0], r, r->ts, r->ts + r->dur);
        if (!r->cat || r->cat->hta_idle) /* kernels, copies, sets: not syncs */
            pdb_idle_acc_add(a->idle[0], &r->stream, r->ts, r->ts + r->dur, r->has_launch,
                             r->launch);
        if (pdb_attr_gpu(a->attr, r) != PDB_OK || pdb_coll_acc_add(a->coll, r) != PDB_OK)
            return PDB_ERR;
    }
    if (r->cat && (r->cat->annotation || r->cat->gpu_range) &&
        pdb_attr_range(a->attr, r, false, r->ts, r->ts + r->dur) != PDB_OK)
        return PDB_ERR;
    pdb_steps_acc_add(a->steps, r);
    if (pdb_series_acc_add(a->series, r) != PDB_OK)
        return PDB_ERR;
    return feed_hta(a, r);
}

/* Feeds every row to the passes: rows read here on db, or by the reader
 * thread when one was started. */
static int read_rows(sqlite3 *db, int64_t trace_id, pdb_scan_reader *reader, accs *a)
{
    int rc = PDB_OK;
    if (reader) {
        pdb_row *r;
        while (rc == PDB_OK && (r = pdb_scan_reader_next(reader)))
            rc = feed(a, r);
        return pdb_scan_reader_finish(reader, rc);
    }
    pdb_scan_rows *rows;
    rc = pdb_scan_rows_open(db, trace_id, &rows);
    pdb_row r;
    int k;
    while (rc == PDB_OK && (k = pdb_scan_rows_next(rows, &r)) != 0)
        rc = k < 0 ? PDB_ERR : feed(a, &r);
    pdb_scan_rows_close(rows);
    return rc;
}

/* Deferred attributions first (their GPU time goes to the ops), then
 * analysis_ops, which the annotation rows take their GPU time from. */
static int write_all(sqlite3 *db, int64_t run_id, int rank, accs *a)
{
    static const char *const modes[] = {"exact", "hta"};
    if (pdb_attr_acc_finish(a->attr) != PDB_OK || pdb_ops_acc_write(a->ops) != PDB_OK ||
        pdb_attr_acc_write(a->attr) != PDB_OK)
        return PDB_ERR;
    for (int m = 0; m < 2; m++)
        if (pdb_gpu_acc_write(a->gpu[m], db, run_id, rank, modes[m]) != PDB_OK ||
            pdb_idle_acc_write(a->idle[m], db, run_id, rank) != PDB_OK)
            return PDB_ERR;
    if (pdb_series_acc_write(a->series) != PDB_OK || pdb_coll_acc_write(a->coll) != PDB_OK)
        return PDB_ERR;
    return pdb_steps_acc_write(a->steps, db, run_id, rank);
}

/* The trace's file and why its analysis stops. */
static int fail_overflow(sqlite3 *db, int64_t trace_id)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "scan.trace_path", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    const char *path = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0)
                                                      : "trace";
    pdb_fail("%s: a sum of event durations exceeds int64 nanoseconds (292 years): the "
             "durations are not plausible", path);
    sqlite3_finalize(st);
    return PDB_ERR;
}

int pdb_analyze_trace(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank,
                      pdb_scan_reader *reader)
{
    accs a = {{NULL, NULL}, {NULL, NULL}, NULL, NULL, NULL, NULL, NULL, {0}};
    int rc = PDB_OK;
    for (int m = 0; m < 2 && rc == PDB_OK; m++)
        rc = pdb_idle_acc_new(db, m == 1, &a.idle[m]);
    for (int m = 0; m < 2 && rc == PDB_OK; m++)
        rc = pdb_gpu_acc_new(db, m == 1 ? a.gpu[0] : NULL, &a.gpu[m]);
    if (rc == PDB_OK)
        rc = pdb_steps_acc_new(db, trace_id, &a.steps);
    if (rc == PDB_OK)
        rc = pdb_ops_acc_new(db, run_id, rank, a.steps, &a.ops);
    if (rc == PDB_OK)
        rc = pdb_attr_acc_new(db, run_id, trace_id, rank, a.ops, &a.attr);
    if (rc == PDB_OK)
        rc = pdb_coll_acc_new(db, run_id, rank, &a.coll);
    if (rc == PDB_OK)
        rc = pdb_hta_settings(db, trace_id, &a.hta);
    pdb_sum_clear();
    if (rc == PDB_OK)
        rc = pdb_series_acc_new(db, run_id, trace_id, rank, &a.hta, &a.series);
    if (rc == PDB_OK)
        rc = read_rows(db, trace_id, reader, &a); /* finishes the reader */
    else if (reader)
        pdb_scan_reader_finish(reader, rc);
    if (rc == PDB_OK)
        rc = write_all(db, run_id, rank, &a);
    if (rc == PDB_OK && pdb_sum_overflowed())
        rc = fail_overflow(db, trace_id);
    for (int m = 0; m < 2; m++) {
        pdb_gpu_acc_free(a.gpu[m]);
        pdb_idle_acc_free(a.idle[m]);
    }
    pdb_attr_acc_free(a.attr);
    pdb_coll_acc_free(a.coll);
    pdb_series_acc_free(a.series);
    pdb_ops_acc_free(a.ops);
    pdb_steps_acc_free(a.steps);
    return rc;
}
