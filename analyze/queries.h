/* queries.h: the analyze queries, analyze/queries/FILE.sql built into the
 * binary (the file format is in common/query.h).
 *
 * A pass or an on-demand analysis names its queries "FILE.NAME"
 * (analyze/queries/gpu.sql, "-- name: add_kernels" -> "gpu.add_kernels")
 * and prepares them once per trace, not per row. Queries with
 * placeholders ({table}) go through pdb_query_prepare with their fill.
 * tests/unit/test_queries.c prepares every one. */
#ifndef PDB_ANALYZE_QUERIES_H
#define PDB_ANALYZE_QUERIES_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/query.h"
#include "common/query_db.h"

/* Generated from analyze/queries/FILE.sql; ends with a NULL name. */
extern const pdb_query pdb_analyze_queries[];

/* The SQL of the analyze query called name (an unknown name aborts). */
const char *pdb_analyze_sql(const char *name);
/* Prepares the analyze query called name (see pdb_db_prepare). */
int pdb_analyze_prepare(sqlite3 *db, const char *name, sqlite3_stmt **st);
/* Runs the analyze query called name, which returns no rows. */
int pdb_analyze_exec(sqlite3 *db, const char *name);
/* Runs the analyze query called name, which returns one integer (dflt when
 * it returns no row). */
int pdb_analyze_int(sqlite3 *db, const char *name, int64_t dflt, int64_t *out);

#endif
