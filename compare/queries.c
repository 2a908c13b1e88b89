/* queries.c: the built-in comparison queries with their schema filled in
 * (see queries.h). */
#include "compare/queries.h"
#include "common/db.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

void pdb_compare_sql(const char *name, const char *schema, pdb_buf *out)
{
    const char *sql = pdb_query_sql(pdb_compare_queries, name);
    if (schema && !pdb_query_identifier(schema)) {
        fprintf(stderr, "profdb: internal error: query '%s': the schema must be a plain "
                        "identifier\n", name);
        assert(!"compare query misuse");
        abort();
    }
    pdb_query_fill(sql, schema ? (const char *const[]){"schema", schema, NULL} : NULL, out);
}

int pdb_compare_prepare(sqlite3 *db, const char *name, const char *schema, sqlite3_stmt **st)
{
    pdb_buf sql = PDB_BUF_INIT;
    pdb_compare_sql(name, schema, &sql);
    int rc = pdb_db_prepare(db, pdb_buf_str(&sql), st);
    pdb_buf_free(&sql);
    return rc;
}

int pdb_compare_exec(sqlite3 *db, const char *name)
{
    pdb_buf sql = PDB_BUF_INIT;
    pdb_compare_sql(name, NULL, &sql);
    int rc = pdb_db_exec(db, pdb_buf_str(&sql));
    pdb_buf_free(&sql);
    return rc;
}
