/* query.h: SQL queries kept in .sql files and built into the binary.
 *
 * Report and comparison queries live in report/queries/FAMILY.sql and
 * compare/queries/FAMILY.sql, so they read (and diff) as SQL rather than as C
 * string literals. cmake/embed_queries.cmake turns each folder into a table
 * of pdb_query rows at build time; tests/unit/test_queries.c prepares every
 * one of them against a fresh database, so a query that no longer matches
 * the schema fails the tests, not a user's report.
 *
 * In a query file, "-- name: NAME" starts a query, named FILE.NAME after the
 * file's stem (report/queries/trace_gpu.sql, "-- name: kernels" ->
 * "trace_gpu.kernels"). "-- fragment: NAME" starts a piece of SQL (a shared
 * CTE) that later queries of the same file pull in with a line
 * "-- include: NAME". Values are always bound parameters (?1 = run, ...),
 * never spliced into the text.
 *
 * This module knows only the table format and the lookup: each layer owns
 * its table (report/queries.h, compare/queries.h), so common/ needs none of
 * them. */
#ifndef PDB_QUERY_H
#define PDB_QUERY_H

#include <stddef.h>

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

#endif
