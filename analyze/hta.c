/* hta.c: HTA's loading conventions for --compat hta (see hta.h). */
#include "analyze/hta.h"
#include "common/db.h"
#include "common/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        m->cutoff = m->round ? pdb_hta_ceil(last) : last;
    }
    sqlite3_finalize(st);
    return PDB_OK;
}

/* float(text) of a time profdb holds as ns: the double nearest ns / 1000.
 * Up to 2^53 ns both operands are exact and IEEE division rounds correctly;
 * beyond, strtod (correctly rounded) reads the decimal text. Times written
 * with more than three fractional digits were rounded to ns at ingest, so
 * they can differ from HTA's reading in that last digit. */
static double us_double(int64_t ns)
{
    const int64_t exact = INT64_C(1) << 53;
    if (ns >= -exact && ns <= exact)
        return (double)ns / 1000.0;
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    char text[40];
    snprintf(text, sizeof text, "%s%llu.%03llu", ns < 0 ? "-" : "",
             (unsigned long long)(mag / 1000), (unsigned long long)(mag % 1000));
    return strtod(text, NULL);
}

static int64_t us_to_ns(double us)
{
    return (int64_t)us * PDB_HTA_US;
}

int64_t pdb_hta_ceil(int64_t ts)
{
    return us_to_ns(ceil(us_double(ts)));
}

void pdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end)
{
    double t = us_double(ts), d = us_double(dur);
    *start = us_to_ns(ceil(t));
    *end = us_to_ns(floor(t + d));
}

int64_t pdb_hta_stream(sqlite3_value *stream)
{
    double v;
    switch (sqlite3_value_type(stream)) {
    case SQLITE_INTEGER:
        return sqlite3_value_int64(stream);
    case SQLITE_FLOAT:
        v = sqlite3_value_double(stream);
        break;
    case SQLITE_TEXT: {
        /* Decimal text only: "0x0" (AMD's runtime calls) is NaN to pandas,
         * then -1; strtod alone would read it as hex. */
        const char *text = (const char *)sqlite3_value_text(stream);
        char *end;
        if (!*text || text[strspn(text, "0123456789+-.eE")])
            return -1;
        v = strtod(text, &end);
        if (end == text || *end)
            return -1;
        break;
    }
    default:
        return -1;
    }
    return isfinite(v) && fabs(v) < 9e18 ? (int64_t)trunc(v) : -1;
}
