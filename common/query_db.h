/* query_db.h: running a built-in query (common/query.h) on a database:
 * prepared, executed or read as one number by its name, placeholders
 * filled in, named integers bound. Apart from query.h, which knows only
 * the text, so that common/db.c can read its own SQL there without a
 * cycle. */
#ifndef PDB_QUERY_DB_H
#define PDB_QUERY_DB_H

#include <sqlite3.h>
#include <stdint.h>

#include "common/query.h"

/* Prepares the query called name of table, its placeholders filled in
 * from fill (NULL for a query without any). The caller owns the statement
 * (sqlite3_finalize or pdb_db_release it: see pdb_db_prepare). */
int pdb_query_prepare(sqlite3 *db, const pdb_query *table, const char *name,
                      const char *const *fill, sqlite3_stmt **st);
/* Runs the query called name of table, which returns no rows (it may hold
 * several statements), its placeholders filled in from fill. */
int pdb_query_exec(sqlite3 *db, const pdb_query *table, const char *name,
                   const char *const *fill);
/* Runs the query called name of table, which returns one integer (dflt
 * when it returns no row), its placeholders filled in from fill. */
int pdb_query_int(sqlite3 *db, const pdb_query *table, const char *name,
                  const char *const *fill, int64_t dflt, int64_t *out);

/* An integer bound by name (":name" in the query) by pdb_query_run. */
typedef struct pdb_query_int {
    const char *name; /* ":offset", as the query writes it */
    int64_t value;
} pdb_query_int_param;

/* Runs every statement of sql (which return no rows), binding each named
 * parameter a statement has to its value in params[0..n). */
int pdb_query_run(sqlite3 *db, const char *sql, const pdb_query_int_param *params, int n);

/* Prepares common's query name with {schema} filled in (NULL: a query
 * without placeholders). The caller owns the statement (pdb_db_prepare). */
int pdb_common_prepare(sqlite3 *db, const char *name, const char *schema, sqlite3_stmt **st);

#endif
