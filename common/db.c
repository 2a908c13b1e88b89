/* db.c: opens databases, applies, checks and migrates the schema. */
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "common/strbuf.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What SQLite's "disk I/O error" leaves out: which operation failed, and
 * the system's reason when SQLite kept it. */
static const char *os_reason(sqlite3 *db, char *buf, size_t size)
{
    int ext = sqlite3_extended_errcode(db), err = sqlite3_system_errno(db);
    if ((ext & 0xff) != SQLITE_IOERR && (ext & 0xff) != SQLITE_FULL)
        return NULL;
    const char *op = ext == SQLITE_IOERR_WRITE || ext == SQLITE_FULL
                         ? "a write failed: the disk is full, a file-size limit was reached, "
                           "or the disk failed"
                     : ext == SQLITE_IOERR_FSYNC ? "syncing the file to disk failed"
                     : ext == SQLITE_IOERR_READ || ext == SQLITE_IOERR_SHORT_READ
                         ? "a read failed"
                         : "the file system refused an operation";
    snprintf(buf, size, "%s%s%s", op, err ? ": " : "", err ? strerror(err) : "");
    return buf;
}

static const char *db_file(sqlite3 *db)
{
    const char *f = sqlite3_db_filename(db, "main");
    return f && *f ? f : "(temporary database)";
}

int pdb_db_fail(sqlite3 *db, const char *what)
{
    char buf[256];
    const char *os = os_reason(db, buf, sizeof buf);
    if (os)
        return pdb_fail("%s: %s: %s (%s)", what, db_file(db), sqlite3_errmsg(db), os);
    return pdb_fail("%s: %s", what, sqlite3_errmsg(db));
}

void pdb_db_rollback(sqlite3 *db)
{
    if (db && !sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

int pdb_db_begin(sqlite3 *db)
{
    return pdb_db_exec(db, "BEGIN");
}

int pdb_db_begin_immediate(sqlite3 *db)
{
    return pdb_db_exec(db, "BEGIN IMMEDIATE");
}

int pdb_db_commit(sqlite3 *db)
{
    return pdb_db_exec(db, "COMMIT");
}

int pdb_db_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        char buf[256];
        const char *os = os_reason(db, buf, sizeof buf);
        if (os)
            pdb_fail("database error: %s: %s (%s)", db_file(db), msg ? msg : sqlite3_errmsg(db),
                     os);
        else
            pdb_fail("database error: %s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return PDB_ERR;
    }
    return PDB_OK;
}

/* Statements given back with pdb_db_release wait here for the next
 * pdb_db_prepare of the same SQL on the same connection. Compiling SQL costs
 * more than inserting a few rows, so ingesting many small files (a directory
 * of step logs; millions of fuzz inputs) would otherwise spend most of its
 * time in sqlite3_prepare. One cache per thread: a connection is used by
 * one thread at a time, and the analysis reads on a thread of its own with
 * its own connection (analyze/scan_reader.c), whose statements stay there. */
#define STMT_CACHE_SIZE 48
static _Thread_local sqlite3_stmt *stmt_cache[STMT_CACHE_SIZE];

static bool take_cached(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    for (int i = 0; i < STMT_CACHE_SIZE; i++) {
        sqlite3_stmt *c = stmt_cache[i];
        if (c && sqlite3_db_handle(c) == db && strcmp(sqlite3_sql(c), sql) == 0) {
            stmt_cache[i] = NULL;
            *st = c;
            return true;
        }
    }
    return false;
}

int pdb_db_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st)
{
    if (take_cached(db, sql, st))
        return PDB_OK;
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return pdb_db_fail(db, "database error");
    return PDB_OK;
}

void pdb_db_release(sqlite3_stmt *st)
{
    if (!st)
        return;
    for (int i = 0; i < STMT_CACHE_SIZE; i++)
        assert(stmt_cache[i] != st); /* released twice: two owners of one statement */
    sqlite3_reset(st);
    sqlite3_clear_bindings(st); /* bound SQLITE_STATIC pointers may dangle */
    for (int i = 0; i < STMT_CACHE_SIZE; i++)
        if (!stmt_cache[i]) {
            stmt_cache[i] = st;
            return;
        }
    sqlite3_finalize(st);
}

static void drop_cached(sqlite3 *db)
{
    for (int i = 0; i < STMT_CACHE_SIZE; i++)
        if (stmt_cache[i] && sqlite3_db_handle(stmt_cache[i]) == db) {
            sqlite3_finalize(stmt_cache[i]);
            stmt_cache[i] = NULL;
        }
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

/* Switches to WAL (readers never block the writer). The switch needs an
 * exclusive lock and SQLite does not wait for it, so while another process
 * has the new file open this retries for up to the busy timeout. */
static int set_wal(sqlite3 *db)
{
    for (int waited = 0;; waited += 10) {
        int rc = sqlite3_exec(db, pdb_common_sql("db.wal"), NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return PDB_OK;
        if (rc != SQLITE_BUSY || waited >= PDB_DB_BUSY_MS)
            return pdb_db_fail(db, "cannot switch the database to WAL mode");
        sqlite3_sleep(10);
    }
}

/* Runs common query name (db.sql) with its placeholders filled in. */
static int exec_filled(sqlite3 *db, const char *name, const char *const *fill)
{
    pdb_buf sql = PDB_BUF_INIT;
    pdb_query_fill(pdb_common_sql(name), fill, &sql);
    int rc = pdb_db_exec(db, pdb_buf_str(&sql));
    pdb_buf_free(&sql);
    return rc;
}

/* Creates the schema in a new, empty database. Another profdb may be creating
 * it at the same moment: the emptiness is checked again under the write lock,
 * and *created is false when the other process won. */
static int apply_schema(sqlite3 *db, int flags, bool *created)
{
    int64_t tables;
    *created = false;
    if ((!(flags & PDB_DB_PRIVATE) && set_wal(db) != PDB_OK) || pdb_db_begin_immediate(db) != PDB_OK)
        return PDB_ERR;
    if (pdb_db_query_int(db, pdb_common_sql("db.tables"), 0, &tables) != PDB_OK ||
        tables != 0) {
        pdb_db_rollback(db);
        return tables != 0 ? PDB_OK : PDB_ERR;
    }
    for (size_t i = 0; i < pdb_schema_count; i++) {
        if (pdb_db_exec(db, pdb_schema_texts[i]) != PDB_OK) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", pdb_errmsg());
            pdb_db_rollback(db);
            return pdb_fail("schema %s: %s", pdb_schema_names[i], msg);
        }
    }
    char version[16], app[16];
    snprintf(version, sizeof version, "%d", PDB_SCHEMA_VERSION);
    snprintf(app, sizeof app, "%d", PDB_APPLICATION_ID);
    if (exec_filled(db, "db.stamp",
                    (const char *const[]){"version", version, "application_id", app, NULL}) !=
            PDB_OK ||
        pdb_db_commit(db) != PDB_OK) {
        pdb_db_rollback(db);
        return PDB_ERR;
    }
    *created = true;
    return PDB_OK;
}

/* Version, application id and table count, from one snapshot (db.sql). */
static int read_header(sqlite3 *db, int64_t *version, int64_t *app, int64_t *tables)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, pdb_common_sql("db.header"), &st) != PDB_OK)
        return PDB_ERR;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *version = sqlite3_column_int64(st, 0);
        *app = sqlite3_column_int64(st, 1);
        *tables = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "database error");
}

/* Migrations add analysis tables and columns that SQL cannot fill from
 * what is stored (002: GPU attribution, op steps, annotations, copy and
 * sync times; 004: the launch queue and the memory of profile_memory
 * traces; 019: the collectives per rank): trace runs analysed before have
 * them empty or 0 until the passes run again, so the user is told how. */
/* Traces stored in an older profiler's spelling were respelt by migration
 * 013 (schemas/migrations): what was analysed under the old spelling is not
 * what the passes find now. */
static void note_respelt(sqlite3 *db, const char *path, int64_t from)
{
    int64_t respelt = 0;
    if (from >= 13 ||
        pdb_db_query_int(db, pdb_common_sql("db.respelt_traces"), 0, &respelt) != PDB_OK ||
        respelt == 0)
        return;
    pdb_warn("%s: %lld trace(s) in an older profiler's spelling of categories (Kernel, Runtime, "
             "...) were respelt; 'profdb analyze --db %s' redoes their analyses", path,
             (long long)respelt, path);
}

static void note_reanalysis(sqlite3 *db, const char *path, int64_t from)
{
    int64_t traces = 0;
    if (from >= 19 || pdb_db_query_int(db, pdb_common_sql("db.traces"), 0, &traces) != PDB_OK ||
        traces == 0)
        return;
    pdb_warn("%s: trace runs analysed by an older profdb lack %suntil 'profdb analyze --db %s' "
             "runs the passes again", path,
             from < 2   ? "GPU attribution, annotation, copy and sync times, launch queue lengths, "
                          "memory analyses and collectives per rank "
             : from < 4 ? "launch queue lengths, memory analyses and collectives per rank "
                        : "collectives per rank (report collectives) ",
             path);
}

/* Brings an older database up to date: the migrations after its version,
 * in order, and the new user_version, in one transaction (a failure leaves
 * the file as it was). Another process may have migrated it meanwhile, so
 * the version is read again under the write lock and *from is that one. */
static int migrate(sqlite3 *db, const char *path, int *from)
{
    if (pdb_db_begin_immediate(db) != PDB_OK)
        return PDB_ERR;
    int64_t version;
    int rc = pdb_db_query_int(db, pdb_common_sql("db.version"), 0, &version);
    for (int64_t v = version; rc == PDB_OK && v < PDB_SCHEMA_VERSION; v++) {
        assert(v >= 1 && (size_t)(v - 1) < pdb_migration_count);
        if (pdb_db_exec(db, pdb_migration_texts[v - 1]) != PDB_OK) {
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", pdb_errmsg());
            rc = pdb_fail("%s: cannot migrate the schema from version %lld to %lld (%s): %s",
                          path, (long long)v, (long long)v + 1, pdb_migration_names[v - 1], msg);
        }
    }
    char to[16];
    snprintf(to, sizeof to, "%d", PDB_SCHEMA_VERSION);
    if (rc == PDB_OK && version < PDB_SCHEMA_VERSION)
        rc = exec_filled(db, "db.set_version", (const char *const[]){"version", to, NULL});
    if (rc == PDB_OK)
        rc = pdb_db_commit(db);
    if (rc != PDB_OK) {
        pdb_db_rollback(db);
        return PDB_ERR;
    }
    *from = (int)version;
    note_reanalysis(db, path, version);
    note_respelt(db, path, version);
    return PDB_OK;
}

/* Decides whether the file is a new, current, older or foreign database;
 * a writable connection migrates an older one (*from: its version). */
/* The folder that holds path. */
static bool folder_writable(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return access(".", W_OK) == 0;
    char folder[4096];
    snprintf(folder, sizeof folder, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return access(folder, W_OK) == 0;
}

/* A database SQLite could not read. The common case that SQLite's words
 * ("attempt to write a readonly database", "unable to open database file")
 * do not explain: a WAL database in a folder this user cannot write, where
 * SQLite must create PATH-shm even to read. */
static int unreadable(sqlite3 *db, const char *path, int flags)
{
    int code = sqlite3_errcode(db);
    bool folder_ro = (code == SQLITE_READONLY || code == SQLITE_CANTOPEN) &&
                     !folder_writable(path);
    if (folder_ro && !(flags & PDB_DB_READONLY))
        return pdb_fail("%s: cannot write to it: its folder is not writable (SQLite keeps "
                        "%s-wal and %s-shm beside it)", path, path, path);
    if (folder_ro)
        return pdb_fail("%s: cannot read it here: the database is in WAL mode and its folder is "
                        "not writable, so SQLite cannot create %s-shm beside it; read a copy "
                        "(cp %s /tmp/)", path, path, path);
    return pdb_fail("%s: not a readable SQLite database (%s)", path, pdb_errmsg());
}

static int check_schema(sqlite3 *db, const char *path, int flags, int *from)
{
    int64_t version, app, tables;
    bool created, retried = false;
again:
    if (read_header(db, &version, &app, &tables) != PDB_OK)
        return unreadable(db, path, flags);
    if (version == 0 && app == 0 && tables == 0) {
        if (flags & PDB_DB_READONLY)
            return pdb_fail("%s: empty database (run 'profdb ingest' first)", path);
        if (retried)
            return pdb_fail("%s: database emptied while it was being opened", path);
        if (apply_schema(db, flags, &created) != PDB_OK)
            return PDB_ERR;
        if (created)
            return PDB_OK;
        retried = true;
        goto again; /* another process created it: check what it made */
    }
    if (app != PDB_APPLICATION_ID)
        return pdb_fail("%s: not a profdb database (SQLite application_id is %lld)", path,
                        (long long)app);
    if (version > PDB_SCHEMA_VERSION)
        return pdb_fail("%s: schema version %lld is newer than this profdb supports (%d); "
                        "upgrade profdb",
                        path, (long long)version, PDB_SCHEMA_VERSION);
    *from = (int)version;
    if (version < 1)
        return pdb_fail("%s: schema version %lld is unknown (this profdb reads versions 1 to %d)",
                        path, (long long)version, PDB_SCHEMA_VERSION);
    if (version < PDB_SCHEMA_VERSION && (flags & PDB_DB_READONLY))
        return pdb_fail("%s: schema version %lld is older than this profdb's (%d); upgrade the "
                        "database with 'profdb migrate --db %s' (any command that writes, such "
                        "as 'profdb ingest', also does)",
                        path, (long long)version, PDB_SCHEMA_VERSION, path);
    if (version < PDB_SCHEMA_VERSION)
        return migrate(db, path, from);
    return PDB_OK;
}

int pdb_db_check_user_path(const char *path, const char *what)
{
    if (!*path)
        return pdb_fail("%s is empty: name a database file", what);
    if (strcmp(path, ":memory:") == 0)
        return pdb_fail("%s ':memory:' is a database that vanishes on exit, so nothing would "
                        "be kept; name a file (./:memory: is a file of that name)", what);
    return PDB_OK;
}

void pdb_db_literal_names(void)
{
    sqlite3_config(SQLITE_CONFIG_URI, 0);
}

void pdb_db_no_memstatus(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int open_db(const char *path, int flags, int *from, sqlite3 **out)
{
    *out = NULL;
    *from = PDB_SCHEMA_VERSION;
    bool memory = strcmp(path, ":memory:") == 0;
    if (!memory && !(flags & PDB_DB_CREATE) && access(path, F_OK) != 0)
        return pdb_fail("%s: no such database (create it with 'profdb ingest')", path);
    /* One connection per process, used by one thread at a time (a step
     * log's writer thread takes turns with the reader: common/rowq.c): no
     * SQLite mutexes. */
    int oflags = SQLITE_OPEN_NOMUTEX | ((flags & PDB_DB_READONLY)
                                            ? SQLITE_OPEN_READONLY
                                            : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, oflags, NULL) != SQLITE_OK) {
        if (access(path, F_OK) != 0 && !folder_writable(path))
            pdb_fail("%s: cannot create it: its folder is not writable", path);
        else
            pdb_fail("%s: cannot open database: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return PDB_ERR;
    }
    /* Another profdb may be writing: wait for it rather than fail at once. */
    sqlite3_busy_timeout(db, PDB_DB_BUSY_MS);
    /* Temporary tables are written a page per system call: bigger pages
     * (db.sql says why). */
    if (pdb_db_exec(db, pdb_common_sql("db.temp_page_size")) != PDB_OK) {
        pdb_db_close(db);
        return PDB_ERR;
    }
    if ((flags & PDB_DB_PRIVATE) &&
        pdb_db_exec(db, pdb_common_sql("db.private")) != PDB_OK) {
        pdb_db_close(db);
        return PDB_ERR;
    }
    if (check_schema(db, path, flags, from) != PDB_OK) {
        pdb_db_close(db); /* also drops its cached statements */
        return PDB_ERR;
    }
    if (!(flags & (PDB_DB_READONLY | PDB_DB_PRIVATE)) && !memory &&
        (set_wal(db) != PDB_OK || pdb_db_exec(db, pdb_common_sql("db.synchronous")) != PDB_OK)) {
        if (sqlite3_errcode(db) == SQLITE_READONLY && !folder_writable(path))
            unreadable(db, path, flags);
        pdb_db_close(db);
        return PDB_ERR;
    }
    *out = db;
    return PDB_OK;
}

int64_t pdb_db_bytes(sqlite3 *db)
{
    int64_t bytes = 0;
    return pdb_db_query_int(db, pdb_common_sql("db.bytes"), 0, &bytes) == PDB_OK ? bytes : 0;
}

int pdb_db_open(const char *path, int flags, sqlite3 **out)
{
    int from;
    int rc = open_db(path, flags, &from, out);
    if (rc == PDB_OK && from < PDB_SCHEMA_VERSION)
        pdb_warn("%s: schema upgraded from version %d to %d", path, from, PDB_SCHEMA_VERSION);
    return rc;
}

int pdb_db_migrate(const char *path, int *from, sqlite3 **out)
{
    return open_db(path, 0, from, out);
}

void pdb_db_close(sqlite3 *db)
{
    if (!db)
        return;
    drop_cached(db);
    sqlite3_close_v2(db);
}
