/* test_queries.c: every query built in from report/queries/ and
 * compare/queries/ compiles against the current schema.
 *
 * The queries are only checked by SQLite when a report runs; this test
 * prepares each one (every statement of it) against a fresh database made
 * by pdb_db_open, so a query that no longer matches the schema - a renamed
 * column, a dropped table, a typo - fails here with its name and SQLite's
 * message. Comparison queries are prepared for a test run in main and in an
 * attached database (tdb). Queries named create_* make the temp tables other
 * queries read; they are run first (and so tested by running). The tables
 * must not be empty, and every name must be unique and carry its file's
 * stem. */
#include "check.h"
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "common/strbuf.h"
#include "compare/diff.h"
#include "compare/queries.h"
#include "report/queries.h"
#include "report/trace_sql.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The text of query q of its table, with the run's schema filled in. */
static void query_text(const pdb_query *table, const pdb_query *q, const char *schema,
                       pdb_buf *out)
{
    pdb_buf_reset(out);
    if (table == pdb_compare_queries)
        pdb_compare_sql(q->name, schema, out);
    else
        pdb_buf_adds(out, pdb_report_sql(q->name));
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

/* Runs the create_* queries of table: running them is their test (their
 * CREATE cannot be prepared again once the table exists). */
static void run_creates(sqlite3 *db, const pdb_query *table)
{
    pdb_buf sql = PDB_BUF_INIT;
    int n = 0;
    for (const pdb_query *q = table; q->name; q++) {
        if (!is_create(q))
            continue;
        n++;
        query_text(table, q, "main", &sql);
        int rc = pdb_db_exec(db, pdb_buf_str(&sql));
        if (rc != PDB_OK)
            fprintf(stderr, "query %s: %s\n", q->name, pdb_errmsg());
        CHECK(rc == PDB_OK);
    }
    CHECK(n > 0); /* both folders have temp tables */
    pdb_buf_free(&sql);
}

static void check_prepares(sqlite3 *db, const pdb_query *table, const char *schema)
{
    pdb_buf sql = PDB_BUF_INIT;
    for (const pdb_query *q = table; q->name; q++) {
        if (is_create(q))
            continue;
        query_text(table, q, schema, &sql);
        CHECK(prepares(db, q->name, schema, pdb_buf_str(&sql)));
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

/* Names are unique over both tables, and each is named after its file. */
static void check_names(void)
{
    const pdb_query *tables[] = {pdb_report_queries, pdb_compare_queries};
    for (int t = 0; t < 2; t++)
        for (const pdb_query *q = tables[t]; q->name; q++) {
            CHECK(named_after_file(q));
            int same = 0;
            for (int u = 0; u < 2; u++)
                for (const pdb_query *r = tables[u]; r->name; r++)
                    same += strcmp(q->name, r->name) == 0;
            if (same != 1)
                fprintf(stderr, "query %s is defined %d times\n", q->name, same);
            CHECK_INT(same, 1);
        }
}

/* The launch query that tests GPU events on the slices table has the
 * category list of analyze.h written out: each list must be that list. */
static void check_cpu_categories(void)
{
    const char *names[] = {"trace_launch.launch_require"};
    const char *in = "WHERE value IN ";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int lists = 0;
        for (const char *p = pdb_report_sql(names[i]); (p = strstr(p, in)); p++, lists++)
            CHECK(strncmp(p + strlen(in), PDB_CPU_CATEGORIES, strlen(PDB_CPU_CATEGORIES)) == 0);
        CHECK(lists > 0);
    }
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
    CHECK(pdb_query_count(pdb_report_queries) > 0);
    CHECK(pdb_query_count(pdb_compare_queries) > 0);
    check_names();
    check_cpu_categories();

    sqlite3 *db;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    CHECK_INT(pdb_diff_sql_functions(db), PDB_OK);
    CHECK_INT(pdb_trace_sql_functions(db), PDB_OK);
    char dir[] = "/tmp/profdb-test-queries-XXXXXX", path[64];
    attach_test_db(db, dir, path, sizeof path);
    run_creates(db, pdb_report_queries);
    run_creates(db, pdb_compare_queries);
    check_prepares(db, pdb_report_queries, "main");
    check_prepares(db, pdb_compare_queries, "main");
    check_prepares(db, pdb_compare_queries, "tdb");
    pdb_db_close(db);
    unlink(path);
    rmdir(dir);
    printf("%zu report and %zu compare queries\n", pdb_query_count(pdb_report_queries),
           pdb_query_count(pdb_compare_queries));
    return check_report();
}
