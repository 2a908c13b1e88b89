/* queries.c: looking up and running the built-in report queries (see
 * queries.h). */
#include "report/queries.h"
#include "common/db.h"
#include "common/error.h"

const char *pdb_report_sql(const char *name)
{
    return pdb_query_sql(pdb_report_queries, name);
}

int pdb_report_prepare(sqlite3 *db, const char *name, sqlite3_stmt **st)
{
    return pdb_db_prepare(db, pdb_report_sql(name), st);
}

int pdb_report_number(sqlite3 *db, const char *name, int64_t run_id, int64_t *out)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, name, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "query failed");
}
