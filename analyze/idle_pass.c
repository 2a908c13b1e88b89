/* idle_pass.c: GPU idle time per stream, split into host wait, kernel wait
 * and other (see analysis_idle in the schema for the rules).
 *
 * Streams a rank's GPU events ordered by stream and start, each with the
 * start of the runtime call that launched it (same correlation, found
 * through the correlation index). In HTA mode the event set, rounding and
 * gap definition are HTA's, so its per-stream numbers are reproduced. */
#include "analyze/analyze.h"
#include "analyze/hta.h"
#include "common/db.h"
#include "common/error.h"

#include <string.h>

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay: 30 us */

/* The launching call: the CPU-side slice with the same correlation. The
 * "+ 0" keeps SQLite from answering min() by walking the (trace, ts) index,
 * which is a scan per event; the correlation index is a lookup. */
#define LAUNCH_TS "(SELECT min(r.ts + 0) FROM slices r WHERE r.trace_id = s.trace_id" \
                  " AND r.correlation = s.correlation AND NOT " PDB_IS_GPU("r") ")"
/* HTA: everything without an integer stream is on the CPU side. */
#define HTA_LAUNCH_TS "(SELECT min(r.ts + 0) FROM slices r WHERE r.trace_id = s.trace_id" \
                  " AND r.correlation = s.correlation AND typeof(r.stream) <> 'integer')"

static const char *const exact_sql =
    "SELECT s.stream, s.ts, s.dur, " LAUNCH_TS " FROM slices s"
    " WHERE s.trace_id = ?1 AND " PDB_IS_GPU("s") " ORDER BY s.stream, s.ts";

/* HTA 0.6 considers kernels, copies and sets (and MTIA events) here. */
static const char *const hta_sql =
    "SELECT s.stream, s.ts, s.dur, " HTA_LAUNCH_TS " FROM slices s"
    " WHERE s.trace_id = ?1 AND " PDB_HTA_KEPT " AND typeof(s.stream) = 'integer'"
    " AND s.cat IN (SELECT id FROM strings WHERE value IN"
    "   ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events'))"
    " AND " PDB_HTA_LAUNCHED " ORDER BY s.stream, s.ts";

typedef struct {
    bool open;
    sqlite3_value *stream;
    int64_t events, prev_end, host, kernel, other;
} stream_acc;

static int flush(sqlite3 *db, sqlite3_stmt *ins, int64_t run_id, const char *mode, int rank,
                 stream_acc *a)
{
    if (!a->open)
        return PDB_OK;
    sqlite3_bind_int64(ins, 1, run_id);
    sqlite3_bind_text(ins, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int(ins, 3, rank);
    sqlite3_bind_value(ins, 4, a->stream);
    sqlite3_bind_int64(ins, 5, a->events);
    sqlite3_bind_int64(ins, 6, a->host);
    sqlite3_bind_int64(ins, 7, a->kernel);
    sqlite3_bind_int64(ins, 8, a->other);
    int rc = pdb_db_step_done(db, ins);
    sqlite3_value_free(a->stream);
    *a = (stream_acc){0};
    return rc;
}

/* One gap before an event, by HTA's rules; exact mode never counts overlap. */
static void account(stream_acc *a, int64_t start, int64_t end, bool has_launch, int64_t launch,
                    bool hta)
{
    if (a->events > 0) {
        int64_t gap = start - a->prev_end;
        if (has_launch && launch > a->prev_end)
            a->host += hta || gap > 0 ? gap : 0;
        else if (gap < KERNEL_WAIT_NS)
            a->kernel += hta || gap > 0 ? gap : 0;
        else
            a->other += gap;
    }
    a->events++;
    if (hta || end > a->prev_end || a->events == 1)
        a->prev_end = end;
}

int pdb_analyze_idle(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, bool hta)
{
    pdb_hta_mode h = {0};
    if (hta && pdb_hta_settings(db, trace_id, &h) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *st, *ins;
    if (pdb_db_prepare(db, hta ? hta_sql : exact_sql, &st) != PDB_OK)
        return PDB_ERR;
    if (pdb_db_prepare(db, "INSERT INTO analysis_idle VALUES (?,?,?,?,?,?,?,?)", &ins) != PDB_OK) {
        sqlite3_finalize(st);
        return PDB_ERR;
    }
    sqlite3_bind_int64(st, 1, trace_id);
    if (hta)
        pdb_hta_bind(st, &h);
    const char *mode = hta ? "hta" : "exact";
    stream_acc a = {0};
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_value *stream = sqlite3_column_value(st, 0);
        if (a.open && sqlite3_value_type(stream) == sqlite3_value_type(a.stream) &&
            strcmp((const char *)sqlite3_value_text(stream),
                   (const char *)sqlite3_value_text(a.stream)) != 0)
            rc = flush(db, ins, run_id, mode, rank, &a);
        else if (a.open && sqlite3_value_type(stream) != sqlite3_value_type(a.stream))
            rc = flush(db, ins, run_id, mode, rank, &a);
        if (!a.open) {
            a.open = true;
            a.stream = sqlite3_value_dup(stream);
        }
        int64_t ts = sqlite3_column_int64(st, 1), dur = sqlite3_column_int64(st, 2);
        int64_t start = ts, end = ts + dur, launch = sqlite3_column_int64(st, 3), ignore;
        bool has_launch = sqlite3_column_type(st, 3) != SQLITE_NULL;
        if (hta && h.round) {
            pdb_hta_round(ts, dur, &start, &end);
            pdb_hta_round(launch, 0, &launch, &ignore);
        }
        account(&a, start, end, has_launch, launch, hta);
    }
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(db, "analysis query failed");
    if (rc == PDB_OK)
        rc = flush(db, ins, run_id, mode, rank, &a);
    else if (a.open)
        sqlite3_value_free(a.stream);
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc;
}
