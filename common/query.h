/* query.h: SQL queries kept in .sql files and built into the binary.
 *
 * Every query profdb runs lives in a FOLDER/queries/FILE.sql file of the
 * layer that runs it (common/, ingest/, analyze/, report/, compare/), so
 * it reads (and diffs) as SQL rather than as C string literals.
 * cmake/embed_queries.cmake turns each folder into a table of pdb_query
 * rows at build time; tests/unit/test_queries.c prepares every one of them
 * against a fresh database, so a query that no longer matches the schema
 * fails the tests, not a user. tests/structure/check_sql_strings.py fails
 * on SQL written in a C string instead (a short allowlist aside: BEGIN,
 * COMMIT, ROLLBACK in common/db.c).
 *
 * In a query file, "-- name: NAME" starts a query, named FILE.NAME after the
 * file's stem (report/queries/trace_gpu.sql, "-- name: kernels" ->
 * "trace_gpu.kernels"). "-- fragment: NAME" starts a piece of SQL (a shared
 * CTE) that later queries of the same file pull in with a line
 * "-- include: NAME". Values are always bound parameters (?1 = run, ...),
 * never spliced into the text. Queries named create_* make temporary
 * tables that others read (the test runs them first).
 *
 * Placeholders: what SQL cannot bind - the name of an attached database,
 * of a table or index found in sqlite_schema, a column list generated from
 * the schema, a schema version in a PRAGMA - is written {NAME} in the query
 * and filled in by pdb_query_fill with text profdb made, never text from a
 * user or from the data. A query with placeholders says on a line
 * "-- test: NAME = VALUE" what the test fills in to prepare it ({schema}
 * needs none: it is tested as "main" and as an attached database "tdb").
 *
 * Each layer owns its table (common's below, ingest/queries.h,
 * analyze/queries.h, report/queries.h, compare/queries.h) with short
 * helpers that fetch a query by name; this module knows the table format,
 * the lookup and the text (no database: common/db.c reads its own SQL
 * here), common/query_db.h runs a query on a database. */
#ifndef PDB_QUERY_H
#define PDB_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

typedef struct pdb_query {
    const char *name; /* "FILE.NAME" */
    const char *file; /* the .sql file it came from, for messages */
    const char *sql;  /* one statement, or several separated by ';' */
} pdb_query;

/* The SQL of the query called name in table (which ends with a NULL name).
 * Names are fixed in the code, so an unknown one is a programming error:
 * it is printed and the program aborts. */
const char *pdb_query_sql(const pdb_query *table, const char *name);

/* Number of queries in table. */
size_t pdb_query_count(const pdb_query *table);

/* Appends sql to out with each placeholder {NAME} replaced by its value in
 * fill: NAME, VALUE pairs, ending with a NULL NAME. A placeholder without a
 * value is a programming error (printed; the program aborts). */
void pdb_query_fill(const char *sql, const char *const *fill, pdb_buf *out);

/* A plain identifier, safe to fill in unquoted: a letter or '_', then
 * letters, digits and '_'. */
int pdb_query_identifier(const char *s);

/* Appends sql, an INSERT whose last part is one row of values
 * "VALUES (...)", to out with that row repeated n times (n >= 1): the
 * statement of a batch of n rows. */
void pdb_query_rows(const char *sql, int n, pdb_buf *out);

/* common/queries/FILE.sql, built in; ends with a NULL name. */
extern const pdb_query pdb_common_queries[];

/* The SQL of common's query called name (an unknown name aborts). */
const char *pdb_common_sql(const char *name);
#endif
