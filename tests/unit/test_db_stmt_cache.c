/* test_db_stmt_cache.c: statement reuse in common/db.c (pdb_db_release). */
#include "common/db.h"
#include "common/error.h"
#include "check.h"

static int64_t count_rows(sqlite3 *db)
{
    int64_t n = -1;
    pdb_db_query_int(db, "SELECT count(*) FROM runs", -1, &n);
    return n;
}

int main(void)
{
    sqlite3 *db, *other;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &other), PDB_OK);
    const char *sql = "INSERT INTO runs (name, created_at) VALUES (?, 'now')";
    sqlite3_stmt *a, *b, *c;
    CHECK_INT(pdb_db_prepare(db, sql, &a), PDB_OK);
    sqlite3_bind_text(a, 1, "first", -1, SQLITE_STATIC);
    CHECK_INT(pdb_db_step_done(db, a), PDB_OK);
    pdb_db_release(a);

    /* The same SQL on the same connection gets the released statement back,
     * reset and with its bindings cleared (NULL name: the insert fails). */
    CHECK_INT(pdb_db_prepare(db, sql, &b), PDB_OK);
    CHECK(b == a);
    CHECK(sqlite3_step(b) == SQLITE_CONSTRAINT);
    sqlite3_reset(b);
    sqlite3_bind_text(b, 1, "second", -1, SQLITE_STATIC);
    CHECK_INT(pdb_db_step_done(db, b), PDB_OK);
    CHECK_INT(count_rows(db), 2);

    /* Another connection or other SQL never gets it. */
    pdb_db_release(b);
    CHECK_INT(pdb_db_prepare(other, sql, &c), PDB_OK);
    CHECK(c != b && sqlite3_db_handle(c) == other);
    sqlite3_finalize(c);
    CHECK_INT(pdb_db_prepare(db, "SELECT 1", &c), PDB_OK);
    CHECK(c != b);
    sqlite3_finalize(c);

    /* More released statements than the cache holds are finalized. */
    sqlite3_stmt *many[100];
    for (int i = 0; i < 100; i++)
        CHECK_INT(pdb_db_prepare(db, "SELECT 2", &many[i]), PDB_OK);
    for (int i = 0; i < 100; i++)
        pdb_db_release(many[i]);
    pdb_db_release(NULL);

    /* Closing drops the connection's cached statements (valgrind and ASan
     * see a leak or a use after free otherwise), and SQLite closes cleanly. */
    pdb_db_close(db);
    CHECK_INT(pdb_db_prepare(other, "SELECT 2", &c), PDB_OK);
    CHECK(sqlite3_db_handle(c) == other);
    sqlite3_finalize(c);
    pdb_db_close(other);
    return check_report();
}
