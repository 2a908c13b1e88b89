/* queries.c: the built-in comparison queries with their schema filled in
 * (see queries.h). */
#include "compare/queries.h"
#include "common/db.h"

#include <assert.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA_MARK "{schema}"

/* A schema name is an identifier profdb chose: letters only. */
static bool plain_identifier(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!islower((unsigned char)*s))
            return false;
    return true;
}

/* A caller broke the contract of queries.h: a programming error. */
static _Noreturn void misuse(const char *name, const char *why)
{
    fprintf(stderr, "profdb: internal error: query '%s': %s\n", name, why);
    assert(!"compare query misuse");
    abort();
}

void pdb_compare_sql(const char *name, const char *schema, pdb_buf *out)
{
    const char *sql = pdb_query_sql(pdb_compare_queries, name);
    if (schema && !plain_identifier(schema))
        misuse(name, "the schema must be a plain identifier");
    for (const char *mark; (mark = strstr(sql, SCHEMA_MARK)); sql = mark + strlen(SCHEMA_MARK)) {
        if (!schema)
            misuse(name, "it reads a run: give the run's schema");
        pdb_buf_add(out, sql, (size_t)(mark - sql));
        pdb_buf_adds(out, schema);
    }
    pdb_buf_adds(out, sql);
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
