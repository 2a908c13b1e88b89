/* hta.c: HTA's loading conventions for --compat hta (see hta.h). */
#include "analyze/hta.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "analyze/queries.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pdb_hta_settings(sqlite3 *db, int64_t trace_id, pdb_hta_mode *m)
{
    *m = (pdb_hta_mode){0};
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "hta.float_ts", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    int step = sqlite3_step(st);
    m->round = step == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return pdb_db_fail(db, "database error");
    if (pdb_analyze_prepare(db, "hta.first_event", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        m->has_row0 = true;
        m->row0_ts = sqlite3_column_int64(st, 0);
        if (m->round)
            m->row0_ts = pdb_hta_ceil(m->row0_ts);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return pdb_db_fail(db, "database error");
    /* HTA's profiler steps (hta.sql) */
    if (pdb_analyze_prepare(db, "hta.last_step", &st) != PDB_OK)
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

int64_t pdb_hta_stream_val(const pdb_val *stream)
{
    double v;
    switch (stream->type) {
    case SQLITE_INTEGER:
        return stream->i;
    case SQLITE_FLOAT:
        v = stream->d;
        break;
    case SQLITE_TEXT: {
        /* Decimal text only: "0x0" (AMD's runtime calls) is NaN to pandas,
         * then -1; strtod alone would read it as hex. */
        const char *text = stream->p;
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

int64_t pdb_hta_stream(sqlite3_value *stream)
{
    pdb_val v = pdb_val_of(stream);
    return pdb_hta_stream_val(&v);
}

/* HTA's reading of a trace (analyze/hta.h): hta_start(ts, round) and
 * hta_end(ts, dur, round) are an event's start and end in ns as HTA rounds
 * them when round is true (ts and ts + dur otherwise); hta_stream(stream)
 * is the stream number HTA reads (-1: not a GPU event). */
static void sql_hta_start(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int64_t ts = sqlite3_value_int64(argv[0]);
    sqlite3_result_int64(cx, sqlite3_value_int(argv[1]) ? pdb_hta_ceil(ts) : ts);
}

static void sql_hta_end(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int64_t ts = sqlite3_value_int64(argv[0]), dur = sqlite3_value_int64(argv[1]), start, end;
    if (sqlite3_value_int(argv[2]))
        pdb_hta_round(ts, dur, &start, &end);
    else
        end = ts + dur;
    sqlite3_result_int64(cx, end);
}

static void sql_hta_stream(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    sqlite3_result_int64(cx, pdb_hta_stream(argv[0]));
}

int pdb_hta_sql_functions(sqlite3 *db)
{
    /* Registered already? (Replacing a function fails while statements run.) */
    sqlite3_stmt *probe;
    if (sqlite3_prepare_v2(db, pdb_analyze_sql("hta.probe_functions"), -1, &probe, NULL) ==
        SQLITE_OK) {
        sqlite3_finalize(probe);
        return PDB_OK;
    }
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    if (sqlite3_create_function(db, "hta_start", 2, flags, NULL, sql_hta_start, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function(db, "hta_end", 3, flags, NULL, sql_hta_end, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function(db, "hta_stream", 1, flags, NULL, sql_hta_stream, NULL, NULL) !=
            SQLITE_OK)
        return pdb_fail("cannot register HTA's SQL functions: %s", sqlite3_errmsg(db));
    return PDB_OK;
}

/* HTA's is_memory_kernel: ^(hip)?Memcpy, ^(hip)?Memset, ^dma. */
static bool hta_memory_name(const char *name)
{
    const char *n = strncmp(name, "hip", 3) == 0 ? name + 3 : name;
    return strncmp(n, "Memcpy", 6) == 0 || strncmp(n, "Memset", 6) == 0 ||
           strncmp(name, "dma", 3) == 0;
}

void pdb_hta_shorten_name(const char *name, pdb_buf *out)
{
    pdb_buf_reset(out);
    if (hta_memory_name(name) || (!strchr(name, '<') && !strchr(name, '('))) {
        pdb_buf_adds(out, name);
        return;
    }
    pdb_buf stack = PDB_BUF_INIT;
    for (const char *c = name; *c; c++) {
        if (c[0] == '-' && c[1] == '>') { /* name.replace("->", "") */
            c++;
            continue;
        }
        char open = *c == '>' ? '<' : *c == ')' ? '(' : 0;
        if (!open) {
            pdb_buf_addc(&stack, *c);
            continue;
        }
        while (stack.len && stack.p[stack.len - 1] != open)
            stack.len--;
        if (stack.len)
            stack.len--;
    }
    const char *s = pdb_buf_str(&stack);
    size_t n = stack.len, from = n;
    while (from > 0 && s[from - 1] != ' ')
        from--;
    pdb_buf_add(out, s + from, n - from); /* .split(" ")[-1] */
    pdb_buf_free(&stack);
}

bool pdb_hta_comm_name(const char *name)
{
    return strncmp(name, "nccl", 4) == 0 || strncmp(name, "hip", 3) == 0 ||
           strncmp(name, "hccl", 4) == 0 || strstr(name, "ncclKernel") != NULL;
}
