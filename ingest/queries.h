/* queries.h: the ingest queries, ingest/queries/FILE.sql built into the
 * binary (the file format is in common/query.h).
 *
 * A reader, the session or the merge names its queries "FILE.NAME"
 * (ingest/queries/merge.sql, "-- name: runs_gaining" ->
 * "merge.runs_gaining") and prepares them once per input, not per row.
 * Queries with placeholders ({schema}: an attached shard) go through
 * pdb_query_prepare with their fill. tests/unit/test_queries.c prepares
 * every one. */
#ifndef PDB_INGEST_QUERIES_H
#define PDB_INGEST_QUERIES_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/query.h"
#include "common/query_db.h"

/* Generated from ingest/queries/FILE.sql; ends with a NULL name. */
extern const pdb_query pdb_ingest_queries[];

/* The SQL of the ingest query called name (an unknown name aborts). */
const char *pdb_ingest_sql(const char *name);
/* Prepares the ingest query called name (see pdb_db_prepare). */
int pdb_ingest_prepare(sqlite3 *db, const char *name, sqlite3_stmt **st);
/* Runs the ingest query called name, which returns no rows. */
int pdb_ingest_exec(sqlite3 *db, const char *name);
/* Runs the ingest query called name, which returns one integer (dflt when
 * it returns no row). */
int pdb_ingest_int(sqlite3 *db, const char *name, int64_t dflt, int64_t *out);

#endif
