/* test_queries.c: every query built in from the .sql files of every layer
 * (common/, ingest/, analyze/, report/, compare/ queries/) compiles against the
 * current schema.
 *
 * The queries are only checked by SQLite when the code that runs them
 * does; this test prepares each one (every statement of it) against a
 * fresh database made by pdb_db_open, so a query that no longer matches
 * the schema - a renamed column, a dropped table, a typo - fails here with
 * its name and SQLite's message. A query that names a schema ({schema}) is
 * prepared for main and for an attached fresh database (tdb); its other
 * placeholders are filled with the values its "-- test: NAME = VALUE"
 * lines give (a placeholder without one fails). Queries named create_*
 * make the temp tables other queries read; they are run first (and so
 * tested by running). The tables must not be empty, and every name must
 * be unique and carry its file's stem. */
#include "check.h"
#include "analyze/analyze.h"
#include "analyze/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "compare/diff.h"
#include "compare/queries.h"
#include "ingest/shards/merge.h"
#include "ingest/queries.h"
#include "report/queries.h"
#include "report/trace_sql.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The tables of every layer, and what each is called in messages. */
static const struct {
    const char *layer;
    const pdb_query *table;
} tables[] = {
    {"common", pdb_common_queries},
    {"ingest", pdb_ingest_queries},
    {"analyze", pdb_analyze_queries},
    {"report", pdb_report_queries},
    {"compare", pdb_compare_queries},
};
#define NTABLES (sizeof tables / sizeof tables[0])

/* The value query sql gives placeholder name on a line "-- test: NAME =
 * VALUE", in b (reset first); NULL when it gives none. */
static const char *test_value(const char *sql, const char *name, pdb_buf *b)
{
    const char *mark = "-- test: ";
    for (const char *p = sql; (p = strstr(p, mark)); p++) {
        const char *n = p + strlen(mark);
        size_t len = strlen(name);
        if (strncmp(n, name, len) != 0 || strncmp(n + len, " = ", 3) != 0)
            continue;
        const char *v = n + len + 3, *end = strchr(v, '\n');
        pdb_buf_reset(b);
        pdb_buf_add(b, v, end ? (size_t)(end - v) : strlen(v));
        return pdb_buf_str(b);
    }
    return NULL;
}

/* The text of query q with its placeholders filled in: {schema} with
 * schema, the others with their test values. False (said on stderr) when
 * a placeholder has no test value. */
static bool query_text(const pdb_query *q, const char *schema, pdb_buf *out)
{
    enum { MAX_FILL = 8 };
    const char *fill[2 * MAX_FILL + 1] = {"schema", schema};
    pdb_buf values[MAX_FILL] = {PDB_BUF_INIT};
    int n = 1;
    bool ok = true;
    for (const char *p = q->sql; (p = strchr(p, '{')); p++) {
        size_t len = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz_");
        if (!len || p[len + 1] != '}')
            continue;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)len, p + 1);
        bool known = false;
        for (int i = 0; i < n; i++)
            known |= strcmp(fill[2 * i], name) == 0;
        if (known)
            continue;
        CHECK(n < MAX_FILL);
        const char *v = test_value(q->sql, name, &values[n]);
        if (!v) {
            fprintf(stderr, "query %s: placeholder {%s} has no '-- test: %s = VALUE' line\n",
                    q->name, name, name);
            ok = false;
            continue;
        }
        fill[2 * n] = pdb_xstrdup(name);
        fill[2 * n + 1] = v;
        n++;
    }
    fill[2 * n] = NULL;
    pdb_buf_reset(out);
    if (ok)
        pdb_query_fill(q->sql, fill, out);
    for (int i = 1; i < n; i++)
        free((char *)fill[2 * i]);
    for (int i = 0; i < MAX_FILL; i++)
        pdb_buf_free(&values[i]);
    return ok;
}

/* Prepares every statement of sql; says which query failed and why. */
static bool prepares(sqlite3 *db, const char *name, const char *schema, const char *sql)
{
    int statements = 0;
    while (*sql) {
        sqlite3_stmt *st = NULL;
        const char *tail;
        if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
            fprintf(stderr, "query %s (schema %s): %s\n", name, schema, sqlite3_errmsg(db));
            return false;
        }
        statements += st != NULL;
        sqlite3_finalize(st);
        sql = tail;
    }
    if (!statements)
        fprintf(stderr, "query %s: no SQL statement\n", name);
    return statements > 0;
}

/* create_* queries make temp tables that other queries read. */
static bool is_create(const pdb_query *q)
{
    const char *dot = strchr(q->name, '.');
    return dot && strncmp(dot + 1, "create_", strlen("create_")) == 0;
}

/* Runs the create_* queries of every table: running them is their test
 * (their CREATE cannot be prepared again once the table exists). */
static void run_creates(sqlite3 *db)
{
    pdb_buf sql = PDB_BUF_INIT;
    int n = 0;
    for (size_t t = 0; t < NTABLES; t++)
        for (const pdb_query *q = tables[t].table; q->name; q++) {
            if (!is_create(q))
                continue;
            n++;
            CHECK(query_text(q, "main", &sql));
            int rc = pdb_db_exec(db, pdb_buf_str(&sql));
            if (rc != PDB_OK)
                fprintf(stderr, "query %s: %s\n", q->name, pdb_errmsg());
            CHECK(rc == PDB_OK);
        }
    CHECK(n > 0); /* there are temp tables */
    pdb_buf_free(&sql);
}

/* Prepares every query; one that names a schema as main and as tdb. */
static void check_prepares(sqlite3 *db)
{
    pdb_buf sql = PDB_BUF_INIT;
    for (size_t t = 0; t < NTABLES; t++)
        for (const pdb_query *q = tables[t].table; q->name; q++) {
            if (is_create(q))
                continue;
            const char *schemas[] = {"main", "tdb"};
            int nschemas = strstr(q->sql, "{schema}") ? 2 : 1;
            for (int s = 0; s < nschemas; s++) {
                CHECK(query_text(q, schemas[s], &sql));
                CHECK(prepares(db, q->name, schemas[s], pdb_buf_str(&sql)));
            }
        }
    pdb_buf_free(&sql);
}

/* "FILE.NAME" where FILE is the stem of the .sql file it came from. */
static bool named_after_file(const pdb_query *q)
{
    const char *base = strrchr(q->file, '/');
    base = base ? base + 1 : q->file;
    size_t stem = strcspn(base, ".");
    return strncmp(q->name, base, stem) == 0 && q->name[stem] == '.' && q->name[stem + 1];
}

/* Names are unique over every table, and each is named after its file. */
static void check_names(void)
{
    for (size_t t = 0; t < NTABLES; t++) {
        CHECK(pdb_query_count(tables[t].table) > 0);
        for (const pdb_query *q = tables[t].table; q->name; q++) {
            CHECK(named_after_file(q));
            int same = 0;
            for (size_t u = 0; u < NTABLES; u++)
                for (const pdb_query *r = tables[u].table; r->name; r++)
                    same += strcmp(q->name, r->name) == 0;
            if (same != 1)
                fprintf(stderr, "query %s is defined %d times\n", q->name, same);
            CHECK_INT(same, 1);
        }
    }
}

/* The queries that tell CPU-side events from GPU events write the
 * category list of analyze.h out: each list must be that list. */
static void check_cpu_categories(void)
{
    int lists = 0;
    for (size_t t = 0; t < NTABLES; t++)
        for (const pdb_query *q = tables[t].table; q->name; q++) {
            if (!strstr(q->sql, "'cuda_runtime'"))
                continue;
            lists++;
            if (!strstr(q->sql, PDB_CPU_CATEGORIES))
                fprintf(stderr, "query %s: its CPU categories are not PDB_CPU_CATEGORIES\n",
                        q->name);
            CHECK(strstr(q->sql, PDB_CPU_CATEGORIES) != NULL);
        }
    CHECK(lists >= 5); /* trace_launch, attr_pass, steps_pass, memory_pass, launchers */
}

/* A fresh profdb database in a temporary folder, to attach as tdb. */
static void attach_test_db(sqlite3 *db, char *dir, char *path, size_t cap)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, cap, "%s/test.db", dir);
    sqlite3 *t;
    CHECK_INT(pdb_db_open(path, PDB_DB_CREATE, &t), PDB_OK);
    pdb_db_close(t);
    sqlite3_stmt *st;
    CHECK_INT(pdb_compare_prepare(db, "compare.attach_test", NULL, &st), PDB_OK);
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    CHECK_INT(pdb_db_step_done(db, st), PDB_OK);
    sqlite3_finalize(st);
}

int main(void)
{
    check_names();
    check_cpu_categories();

    sqlite3 *db;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    CHECK_INT(pdb_diff_sql_functions(db), PDB_OK);
    CHECK_INT(pdb_trace_sql_functions(db), PDB_OK);
    CHECK_INT(pdb_merge_sql_functions(db), PDB_OK);
    char dir[] = "/tmp/profdb-test-queries-XXXXXX", path[64];
    attach_test_db(db, dir, path, sizeof path);
    run_creates(db);
    check_prepares(db);
    pdb_db_close(db);
    unlink(path);
    rmdir(dir);
    for (size_t t = 0; t < NTABLES; t++)
        printf("%s%zu %s", t ? ", " : "", pdb_query_count(tables[t].table), tables[t].layer);
    printf(" queries\n");
    return check_report();
}
