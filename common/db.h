/* db.h: opening a profdb database and small SQLite helpers.
 *
 * The schema lives in the schemas/ folder (one .sql file per part), embedded
 * at build time and applied in file-name order to a new database. PRAGMA
 * user_version holds the schema version and PRAGMA application_id marks the
 * file as profdb's. An older database is brought up to date by the files of
 * schemas/migrations/ (NNN_what.sql takes version NNN - 1 to NNN), applied
 * in one transaction when a writable connection opens it; a read-only open
 * of an older database is refused with how to upgrade it. */
#ifndef PDB_DB_H
#define PDB_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The version this profdb writes: 1 (the first schema) + one per migration. */
#define PDB_SCHEMA_VERSION (1 + (int)pdb_migration_count)
#define PDB_APPLICATION_ID 0x50444231 /* "PDB1" */
/* How long a connection waits for another process's write transaction. */
#define PDB_DB_BUSY_MS 30000

enum {
    PDB_DB_CREATE = 1,   /* create the file if missing (ingest) */
    PDB_DB_READONLY = 2, /* open for queries only */
    /* A new file no other process opens before the caller publishes it
     * (ingest/shards/fresh_db.h) or deletes it (a --jobs shard): no journal, no
     * syncing, as a failure deletes the file instead of rolling back. */
    PDB_DB_PRIVATE = 4,
};

/* Refuses a database path a user gave (what: "--db", "PROFDB_DB", "OUT.db")
 * that would store nothing: empty, or SQLite's ":memory:". A "file:" name
 * is a file of that name (pdb_db_literal_names). */
int pdb_db_check_user_path(const char *path, const char *what);
/* Makes SQLite take every file name literally, never as a "file:" URI
 * (Debian's SQLite is built with URIs on): `--db 'file:x.db?mode=memory'`
 * names that file. Called first thing by main(). */
void pdb_db_literal_names(void);
/* Turns off SQLite's memory statistics, which profdb never reads: with them
 * on, every sqlite3_malloc and sqlite3_free takes a global mutex and counts
 * (about 300,000 of each for a 300-step trace's ingest, on each thread).
 * Called first thing by main(), before SQLite initialises. */
void pdb_db_no_memstatus(void);

/* Opens (and if needed creates and initialises) a database. ":memory:" works.
 * A writable open of an older database migrates it (saying so on stderr). */
int pdb_db_open(const char *path, int flags, sqlite3 **out);
/* Opens path for writing and brings its schema up to date; *from is the
 * version it had (PDB_SCHEMA_VERSION when it was current). */
int pdb_db_migrate(const char *path, int *from, sqlite3 **out);
void pdb_db_close(sqlite3 *db);

/* Rolls back the open transaction, if any, keeping the error already
 * recorded: SQLite ends a transaction by itself on some errors (a full
 * disk, an I/O error), and a ROLLBACK then would only say "no transaction
 * is active" in the real error's place. */
void pdb_db_rollback(sqlite3 *db);

/* BEGIN, BEGIN IMMEDIATE (take the write lock now: see PDB_DB_BUSY_MS) and
 * COMMIT: the transaction statements, the only SQL written in C. */
int pdb_db_begin(sqlite3 *db);
int pdb_db_begin_immediate(sqlite3 *db);
int pdb_db_commit(sqlite3 *db);

/* The size of the main database in bytes, as SQLite counts its pages (0
 * when it cannot be read). */
int64_t pdb_db_bytes(sqlite3 *db);

/* Runs SQL with no result rows; records SQLite's message on failure. */
int pdb_db_exec(sqlite3 *db, const char *sql);
/* Prepares SQL, reusing a statement given back by pdb_db_release. The caller
 * owns the statement: sqlite3_finalize or pdb_db_release it. */
int pdb_db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st);
/* Resets a statement and keeps it for the next pdb_db_prepare of its SQL
 * (used on paths that run once per input file). NULL is a no-op. */
void pdb_db_release(sqlite3_stmt *st);
/* Records the connection's current error as the profdb error. */
int pdb_db_fail(sqlite3 *db, const char *what);
/* Steps a statement that returns no rows, then resets it. */
int pdb_db_step_done(sqlite3 *db, sqlite3_stmt *st);
/* Runs a query returning one integer (or dflt when it returns no row). */
int pdb_db_query_int(sqlite3 *db, const char *sql, int64_t dflt, int64_t *out);

/* The schema text of every embedded file, in order (for `profdb schema`). */
extern const char *const pdb_schema_names[];
extern const char *const pdb_schema_texts[];
extern const size_t pdb_schema_count;
/* The migrations, in order: entry i takes version i + 1 to i + 2. */
extern const char *const pdb_migration_names[];
extern const char *const pdb_migration_texts[];
extern const size_t pdb_migration_count;

#endif
