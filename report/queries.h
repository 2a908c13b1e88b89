/* queries.h: the report queries, report/queries/FAMILY.sql built into the binary
 * (the file format is in common/query.h).
 *
 * A report names its queries "FILE.NAME" (report/queries/trace_gpu.sql,
 * "-- name: kernels" -> "trace_gpu.kernels"); reports.h runs them bound to
 * the report's context. Adding a query is adding it to the .sql file of its
 * report family: tests/unit/test_queries.c prepares every one. */
#ifndef PDB_REPORT_QUERIES_H
#define PDB_REPORT_QUERIES_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/query.h"

/* Generated from report/queries/FAMILY.sql; ends with a NULL name. */
extern const pdb_query pdb_report_queries[];

/* The SQL of the report query called name (an unknown name aborts). */
const char *pdb_report_sql(const char *name);

/* Prepares the report query called name. */
int pdb_report_prepare(sqlite3 *db, const char *name, sqlite3_stmt **st);

/* Runs the report query called name, which returns one number, with ?1 =
 * run_id. */
int pdb_report_number(sqlite3 *db, const char *name, int64_t run_id, int64_t *out);

#endif
