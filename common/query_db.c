/* query_db.c: running a built-in query on a database (see query_db.h). */
#include "common/query_db.h"
#include "common/db.h"
#include "common/error.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

/* A caller broke the contract of query_db.h: a programming error. */
static _Noreturn void misuse(const char *what, const char *name)
{
    fprintf(stderr, "profdb: internal error: %s: query %s\n", what, name);
    assert(!"query misuse");
    abort();
}

/* The text of query name of table with fill filled in: the query itself
 * when fill is NULL, else in b. */
static const char *text_of(const pdb_query *table, const char *name, const char *const *fill,
                           pdb_buf *b)
{
    const char *sql = pdb_query_sql(table, name);
    if (!fill)
        return sql;
    pdb_query_fill(sql, fill, b);
    return pdb_buf_str(b);
}

int pdb_query_prepare(sqlite3 *db, const pdb_query *table, const char *name,
                      const char *const *fill, sqlite3_stmt **st)
{
    pdb_buf b = PDB_BUF_INIT;
    int rc = pdb_db_prepare(db, text_of(table, name, fill, &b), st);
    pdb_buf_free(&b);
    return rc;
}

int pdb_query_exec(sqlite3 *db, const pdb_query *table, const char *name,
                   const char *const *fill)
{
    pdb_buf b = PDB_BUF_INIT;
    int rc = pdb_db_exec(db, text_of(table, name, fill, &b));
    pdb_buf_free(&b);
    return rc;
}

int pdb_query_int(sqlite3 *db, const pdb_query *table, const char *name,
                  const char *const *fill, int64_t dflt, int64_t *out)
{
    pdb_buf b = PDB_BUF_INIT;
    int rc = pdb_db_query_int(db, text_of(table, name, fill, &b), dflt, out);
    pdb_buf_free(&b);
    return rc;
}

int pdb_query_run(sqlite3 *db, const char *sql, const pdb_query_int_param *params, int n)
{
    int rc = PDB_OK;
    while (rc == PDB_OK && *sql) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &st, &sql) != SQLITE_OK)
            return pdb_db_fail(db, "database error");
        if (!st)
            break; /* only blanks and comments were left */
        for (int i = 0; i < n; i++) {
            int at = sqlite3_bind_parameter_index(st, params[i].name);
            if (at)
                sqlite3_bind_int64(st, at, params[i].value);
        }
        rc = pdb_db_step_done(db, st);
        sqlite3_finalize(st);
    }
    return rc;
}

int pdb_common_prepare(sqlite3 *db, const char *name, const char *schema, sqlite3_stmt **st)
{
    if (schema && !pdb_query_identifier(schema))
        misuse("a schema that is not a plain identifier", name);
    return pdb_query_prepare(db, pdb_common_queries, name,
                             schema ? (const char *const[]){"schema", schema, NULL} : NULL, st);
}
