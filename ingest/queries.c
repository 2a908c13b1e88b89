/* queries.c: looking up and running the built-in ingest queries (see
 * queries.h). */
#include "ingest/queries.h"
#include "common/db.h"

const char *pdb_ingest_sql(const char *name)
{
    return pdb_query_sql(pdb_ingest_queries, name);
}

int pdb_ingest_prepare(sqlite3 *db, const char *name, sqlite3_stmt **st)
{
    return pdb_db_prepare(db, pdb_ingest_sql(name), st);
}

int pdb_ingest_exec(sqlite3 *db, const char *name)
{
    return pdb_db_exec(db, pdb_ingest_sql(name));
}

int pdb_ingest_int(sqlite3 *db, const char *name, int64_t dflt, int64_t *out)
{
    return pdb_db_query_int(db, pdb_ingest_sql(name), dflt, out);
}
