/* queries.h: the comparison queries, compare/queries/FAMILY.sql built into
 * the binary (the file format is in common/query.h).
 *
 * A comparison reads two runs, the test run possibly in a second database
 * attached as schema "tdb". Schema names cannot be bound parameters, so a
 * query names the schema of the run it reads "{schema}" and
 * pdb_compare_prepare fills it in with "main" or "tdb" - identifiers chosen
 * by compare.c, never text from the user or the data. Everything else is
 * bound (?1 run_id, ...). tests/unit/test_queries.c prepares every query. */
#ifndef PDB_COMPARE_QUERIES_H
#define PDB_COMPARE_QUERIES_H

#include <sqlite3.h>

#include "common/query.h"
#include "common/strbuf.h"

/* Generated from compare/queries/FAMILY.sql; ends with a NULL name. */
extern const pdb_query pdb_compare_queries[];

/* Appends the SQL of the compare query called name to out, each "{schema}"
 * replaced by schema (a plain identifier: "main" or "tdb"; NULL for queries
 * that name none). An unknown name aborts. */
void pdb_compare_sql(const char *name, const char *schema, pdb_buf *out);

/* Prepares the compare query called name reading schema (as above). */
int pdb_compare_prepare(sqlite3 *db, const char *name, const char *schema, sqlite3_stmt **st);

/* Runs the compare query called name, which reads no run and returns no
 * rows (it may hold several statements). */
int pdb_compare_exec(sqlite3 *db, const char *name);

#endif
