/* queries.c: looking up and running the built-in analyze queries (see
 * queries.h). */
#include "analyze/queries.h"
#include "common/db.h"

const char *pdb_analyze_sql(const char *name)
{
    return pdb_query_sql(pdb_analyze_queries, name);
}

int pdb_analyze_prepare(sqlite3 *db, const char *name, sqlite3_stmt **st)
{
    return pdb_db_prepare(db, pdb_analyze_sql(name), st);
}

int pdb_analyze_exec(sqlite3 *db, const char *name)
{
    return pdb_db_exec(db, pdb_analyze_sql(name));
}

int pdb_analyze_int(sqlite3 *db, const char *name, int64_t dflt, int64_t *out)
{
    return pdb_db_query_int(db, pdb_analyze_sql(name), dflt, out);
}
