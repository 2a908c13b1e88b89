/* fuzz_trace_diff.c: differential libFuzzer target for the trace reader's
 * two parsers (issue 36).
 *
 * Each input is ingested as a trace (`--format trace --no-analyze`) twice
 * into the same in-memory database: with yajl alone (PROFDB_TRACE_PARSER=
 * yajl) and with the tokenizer (ingest/trace/trace_fast.c, which hands
 * yajl what it does not handle). Both must succeed with the same rows in
 * every table, or both fail with the same message (the error's text and
 * byte offset). Anything else aborts, which libFuzzer reports as a crash.
 *
 * The rows are read inside the ingest's transaction: after_load, which
 * the CLI uses for the analysis, dumps every table (the wall-clock
 * columns left out) and then fails on purpose, so the ingest rolls back
 * and the database is the same one (a seed run) for the next parse and
 * the next input. One thread (PROFDB_PIPELINE=0): the pipeline's equivalence with
 * one thread is test_pipeline's, and a thread per input halves the rate. */
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "ingest/ingest.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TABLES 128

static sqlite3 *db;
static sqlite3_stmt *dumps[MAX_TABLES];
static int ntables;
static pdb_buf *dump_to;
static bool dumped;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool volatile_column(const char *name)
{
    return strcmp(name, "ingested_at") == 0 || strcmp(name, "created_at") == 0 ||
           strcmp(name, "ingest_ms") == 0;
}

/* One SELECT per table, every column but the wall-clock ones, in rowid
 * order (key order for a table without rowid). */
static void prepare_dumps(void)
{
    sqlite3_stmt *t;
    if (sqlite3_prepare_v2(db, "SELECT name, sql FROM sqlite_schema WHERE type = 'table' "
                               "ORDER BY name", -1, &t, NULL) != SQLITE_OK)
        abort();
    while (sqlite3_step(t) == SQLITE_ROW && ntables < MAX_TABLES) {
        const char *name = (const char *)sqlite3_column_text(t, 0);
        const char *ddl = (const char *)sqlite3_column_text(t, 1);
        pdb_buf q = PDB_BUF_INIT, cols = PDB_BUF_INIT;
        char *info = sqlite3_mprintf("PRAGMA table_info(\"%w\")", name);
        sqlite3_stmt *c;
        if (sqlite3_prepare_v2(db, info, -1, &c, NULL) != SQLITE_OK)
            abort();
        while (sqlite3_step(c) == SQLITE_ROW) {
            const char *col = (const char *)sqlite3_column_text(c, 1);
            if (volatile_column(col))
                continue;
            char *quoted = sqlite3_mprintf("%s\"%w\"", cols.len ? ", " : "", col);
            pdb_buf_adds(&cols, quoted);
            sqlite3_free(quoted);
        }
        sqlite3_finalize(c);
        sqlite3_free(info);
        bool rowid = !(ddl && strstr(ddl, "WITHOUT ROWID"));
        char *sel = sqlite3_mprintf("SELECT %s FROM \"%w\" ORDER BY %s", pdb_buf_str(&cols),
                                    name, rowid ? "rowid" : "1");
        pdb_buf_adds(&q, sel);
        sqlite3_free(sel);
        if (sqlite3_prepare_v2(db, pdb_buf_str(&q), -1, &dumps[ntables], NULL) != SQLITE_OK)
            abort();
        ntables++;
        pdb_buf_free(&q);
        pdb_buf_free(&cols);
    }
    sqlite3_finalize(t);
}

/* Every row of every table into *dump_to: the table's index, then each
 * value's type and bytes. */
static int dump_rows(sqlite3 *conn, int64_t run_id, bool committed)
{
    (void)conn;
    (void)run_id;
    (void)committed;
    for (int i = 0; i < ntables; i++) {
        sqlite3_stmt *s = dumps[i];
        pdb_buf_addf(dump_to, "table %d\n", i);
        while (sqlite3_step(s) == SQLITE_ROW) {
            int n = sqlite3_column_count(s);
            for (int k = 0; k < n; k++) {
                int type = sqlite3_column_type(s, k);
                const void *b = sqlite3_column_blob(s, k);
                int len = sqlite3_column_bytes(s, k);
                pdb_buf_addf(dump_to, "%d:%d:", type, len);
                if (b)
                    pdb_buf_add(dump_to, b, (size_t)len);
                pdb_buf_addc(dump_to, '|');
            }
            pdb_buf_addc(dump_to, '\n');
        }
        sqlite3_reset(s);
    }
    dumped = true;
    return pdb_fail("dumped: rolled back on purpose");
}

/* One committed run whose slice id is large, so that a 4 KiB input is not
 * "large next to what the database holds" (session.c): else each ingest
 * drops the bulk indexes, and rolling that back makes SQLite read the
 * schema again, which cost 60% of the time. */
static void seed_database(void)
{
    static const char seed[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"seed\", "
                               "\"ts\": 0, \"dur\": 1, \"pid\": 1, \"tid\": 1}]}";
    pdb_ingest_opts o = {.run_name = "seed", .quiet = true, .format = "trace"};
    if (pdb_ingest_buffer(db, "seed", seed, sizeof seed - 1, &o) != PDB_OK ||
        sqlite3_exec(db, "UPDATE slices SET rowid = 1000000", NULL, NULL, NULL) != SQLITE_OK)
        abort();
}

/* Ingests the input with one parser; returns the exit status and fills
 * out with the rows (success) or the error message (failure). */
static int ingest(const char *parser, const uint8_t *data, size_t size, pdb_buf *out)
{
    setenv("PROFDB_TRACE_PARSER", parser, 1);
    pdb_buf_reset(out);
    dump_to = out;
    dumped = false;
    pdb_ingest_opts o = {.run_name = "fuzz", .replace = true, .quiet = true,
                         .format = "trace", .after_load = dump_rows};
    int rc = pdb_ingest_buffer(db, "fuzz-input", data, size, &o);
    if (dumped) {
        rc = PDB_OK; /* the failure was dump_rows' own */
    } else {
        if (rc == PDB_OK) /* no run created: nothing dumped */
            pdb_buf_adds(out, "ok without a run\n");
        else
            pdb_buf_adds(out, pdb_errmsg());
    }
    pdb_clear_error();
    return rc;
}

static void report(const char *what, const pdb_buf *a, const pdb_buf *b)
{
    fprintf(stderr, "fuzz_trace_diff: %s\n--- yajl (%zu bytes):\n%.*s\n--- tokenizer (%zu bytes):"
            "\n%.*s\n", what, a->len, (int)(a->len > 4000 ? 4000 : a->len), a->p ? a->p : "",
            b->len, (int)(b->len > 4000 ? 4000 : b->len), b->p ? b->p : "");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pdb_buf slow = PDB_BUF_INIT, fast = PDB_BUF_INIT;
    if (!db) {
        setenv("PROFDB_PIPELINE", "0", 1);
        if (pdb_db_open(":memory:", PDB_DB_CREATE, &db) != PDB_OK)
            abort();
        seed_database();
        prepare_dumps();
    }
    int rs = ingest("yajl", data, size, &slow);
    int rf = ingest("fast", data, size, &fast);
    if ((rs == PDB_OK) != (rf == PDB_OK))
        report(rs == PDB_OK ? "only yajl read it" : "only the tokenizer read it", &slow, &fast);
    if (slow.len != fast.len || memcmp(slow.p, fast.p, slow.len) != 0)
        report(rs == PDB_OK ? "different rows" : "different errors", &slow, &fast);
    return 0;
}
