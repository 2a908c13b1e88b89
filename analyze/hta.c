/* hta.c: HTA's loading conventions for --compat hta (see hta.h). */
#include "analyze/hta.h"
#include "common/db.h"
#include "common/error.h"

#include <math.h>
#include <stdio.h>

/* HTA's profiler steps: kept (X, with a category other than 'Trace') CPU-side
 * events whose name contains "ProfilerStep", from the ingest-time copy. */
static const char *const last_step_sql =
    "SELECT count(DISTINCT name), max(ts) FROM trace_steps WHERE trace_id = ?1"
    " AND ph = 'X' AND cat IS NOT NULL AND cat <> 'Trace' AND typeof(stream) <> 'integer'";

int pdb_hta_settings(sqlite3 *db, int64_t trace_id, pdb_hta_mode *m)
{
    int64_t float_ts;
    char sql[96];
    *m = (pdb_hta_mode){0};
    snprintf(sql, sizeof sql, "SELECT float_ts FROM traces WHERE trace_id = %lld",
             (long long)trace_id);
    if (pdb_db_query_int(db, sql, 0, &float_ts) != PDB_OK)
        return PDB_ERR;
    m->round = float_ts > 0;
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, last_step_sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) >= 2) {
        m->drop_last = true;
        int64_t last = sqlite3_column_int64(st, 1);
        m->cutoff = m->round ? (last + 999) / 1000 * 1000 : last;
    }
    sqlite3_finalize(st);
    return PDB_OK;
}

void pdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end)
{
    double t = (double)ts / 1000.0, d = (double)dur / 1000.0;
    *start = (int64_t)ceil(t) * 1000;
    *end = (int64_t)floor(t + d) * 1000;
}
