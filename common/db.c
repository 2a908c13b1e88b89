/* db.c: opens databases, applies and checks the schema. */
#include "common/db.h"
#include "common/error.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int pdb_db_fail(sqlite3 *db, const char *what)
{
    return pdb_fail("%s: %s", what, sqlite3_errmsg(db));
}

int pdb_db_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        pdb_fail("database error: %s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return PDB_ERR;
    }
    return PDB_OK;
}

int pdb_db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return pdb_db_fail(db, "database error");
    return PDB_OK;
}

int pdb_db_step_done(sqlite3 *db, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return pdb_db_fail(db, "database error");
    return PDB_OK;
}

int pdb_db_query_int(sqlite3 *db, const char *sql, int64_t dflt, int64_t *out)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, sql, &st) != PDB_OK)
        return PDB_ERR;
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : dflt;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(db, "database error");
    return PDB_OK;
}

static int apply_schema(sqlite3 *db)
{
    char pragmas[128];
    if (pdb_db_exec(db, "BEGIN IMMEDIATE") != PDB_OK)
        return PDB_ERR;
    for (size_t i = 0; i < pdb_schema_count; i++) {
        if (pdb_db_exec(db, pdb_schema_texts[i]) != PDB_OK) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", pdb_errmsg());
            pdb_db_exec(db, "ROLLBACK");
            return pdb_fail("schema %s: %s", pdb_schema_names[i], msg);
        }
    }
    snprintf(pragmas, sizeof pragmas, "PRAGMA user_version=%d; PRAGMA application_id=%d;",
             PDB_SCHEMA_VERSION, PDB_APPLICATION_ID);
    if (pdb_db_exec(db, pragmas) != PDB_OK || pdb_db_exec(db, "COMMIT") != PDB_OK) {
        pdb_db_exec(db, "ROLLBACK");
        return PDB_ERR;
    }
    return PDB_OK;
}

/* Decides whether the file is a new, current, older or foreign database. */
static int check_schema(sqlite3 *db, const char *path, int flags)
{
    int64_t version, app, tables;
    if (pdb_db_query_int(db, "PRAGMA user_version", 0, &version) != PDB_OK ||
        pdb_db_query_int(db, "PRAGMA application_id", 0, &app) != PDB_OK ||
        pdb_db_query_int(db, "SELECT count(*) FROM sqlite_schema", 0, &tables) != PDB_OK)
        return pdb_fail("%s: not a readable SQLite database (%s)", path, pdb_errmsg());
    if (version == 0 && app == 0 && tables == 0) {
        if (flags & PDB_DB_READONLY)
            return pdb_fail("%s: empty database (run 'profdb ingest' first)", path);
        return apply_schema(db);
    }
    if (app != PDB_APPLICATION_ID)
        return pdb_fail("%s: not a profdb database (SQLite application_id is %lld)", path,
                        (long long)app);
    if (version > PDB_SCHEMA_VERSION)
        return pdb_fail("%s: schema version %lld is newer than this profdb supports (%d); "
                        "upgrade profdb",
                        path, (long long)version, PDB_SCHEMA_VERSION);
    if (version < PDB_SCHEMA_VERSION)
        return pdb_fail("%s: schema version %lld is older than %d and cannot be migrated; "
                        "re-ingest into a new database",
                        path, (long long)version, PDB_SCHEMA_VERSION);
    return PDB_OK;
}

int pdb_db_open(const char *path, int flags, sqlite3 **out)
{
    *out = NULL;
    bool memory = strcmp(path, ":memory:") == 0;
    if (!memory && !(flags & PDB_DB_CREATE) && access(path, F_OK) != 0)
        return pdb_fail("%s: no such database (create it with 'profdb ingest')", path);
    /* One connection per process, used by one thread: no SQLite mutexes. */
    int oflags = SQLITE_OPEN_NOMUTEX | ((flags & PDB_DB_READONLY)
                                            ? SQLITE_OPEN_READONLY
                                            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, oflags, NULL) != SQLITE_OK) {
        pdb_fail("%s: cannot open database: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return PDB_ERR;
    }
    /* Another profdb may be writing: wait for it rather than fail at once. */
    sqlite3_busy_timeout(db, 30000);
    if (check_schema(db, path, flags) != PDB_OK) {
        sqlite3_close(db);
        return PDB_ERR;
    }
    if (!(flags & PDB_DB_READONLY) && !memory &&
        pdb_db_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;") != PDB_OK) {
        sqlite3_close(db);
        return PDB_ERR;
    }
    *out = db;
    return PDB_OK;
}

void pdb_db_close(sqlite3 *db)
{
    if (db)
        sqlite3_close_v2(db);
}
