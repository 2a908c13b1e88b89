/* hta.c: HTA's loading conventions for --compat hta (see hta.h). */
#include "analyze/hta.h"
#include "common/db.h"
#include "common/error.h"

#include <math.h>
#include <stdio.h>

static const char *const last_step_sql =
    "SELECT count(DISTINCT s.name), max(s.ts) FROM slices s JOIN strings n ON n.id = s.name"
    " WHERE s.trace_id = ?1 AND " PDB_HTA_KEPT " AND typeof(s.stream) <> 'integer'"
    " AND instr(n.value, 'ProfilerStep') > 0";

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

void pdb_hta_bind(sqlite3_stmt *st, const pdb_hta_mode *m)
{
    if (m->drop_last)
        sqlite3_bind_int64(st, 2, m->cutoff);
    else
        sqlite3_bind_null(st, 2);
    sqlite3_bind_int(st, 3, m->round);
}

void pdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end)
{
    double t = (double)ts / 1000.0, d = (double)dur / 1000.0;
    *start = (int64_t)ceil(t) * 1000;
    *end = (int64_t)floor(t + d) * 1000;
}
