/* cmd_sql.c: `profdb sql`: any query, rendered like every report. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "report/trace_sql.h"

#include <stdbool.h>
#include <string.h>

static const pdb_cmd_help help = {
    "profdb sql [--db FILE] [--format FMT] [--unit UNIT] [--write] QUERY",
    "Runs SQL against the database and prints the rows. Statements separated by ';'\n"
    "run in order; each one that returns rows is printed. The database is opened\n"
    "read-only unless --write is given. 'profdb schema' shows the tables and views.",
    "Times are stored as integer nanoseconds. With --unit, columns whose names end in\n"
    "_ns are converted and renamed (dur_ns -> dur_ms). short_name(name) gives a\n"
    "kernel or op name in the short form the report tables print (short_name(name, W):\n"
    "cut to W columns too), name_tag(name) the tag they add where two share one.",
};

/* Read-only means nothing outside the process changes either: the database
 * is opened read-only, and this authorizer also refuses what a read-only
 * connection would still allow: ATTACH (it can create files), writing
 * pragmas, and functions that hand out pointers or load code. */
static int read_only_authorizer(void *unused, int action, const char *a, const char *b,
                                const char *db, const char *trigger)
{
    switch (action) {
    case SQLITE_SELECT: case SQLITE_READ: case SQLITE_RECURSIVE: case SQLITE_TRANSACTION:
        return SQLITE_OK;
    case SQLITE_FUNCTION:
        if (strcmp(b, "fts3_tokenizer") == 0 || strcmp(b, "load_extension") == 0 ||
            strcmp(b, "readfile") == 0 || strcmp(b, "writefile") == 0 ||
            strcmp(b, "edit") == 0)
            return SQLITE_DENY;
        return SQLITE_OK;
    case SQLITE_PRAGMA:
        return b ? SQLITE_DENY : SQLITE_OK; /* PRAGMA x = value writes */
    default:
        return SQLITE_DENY;
    }
}

/* Prepares and runs one statement; refuses writes without --write. */
static int run_statement(sqlite3 *db, sqlite3_stmt *st, bool write, const pdb_render_opts *ro)
{
    if (!write && !sqlite3_stmt_readonly(st))
        return pdb_fail("the statement would change the database or create a file; "
                        "add --write to allow it: %.60s", sqlite3_sql(st));
    if (sqlite3_column_count(st) > 0)
        return pdb_render_stmt(st, ro, stdout);
    if (sqlite3_step(st) != SQLITE_DONE)
        return pdb_db_fail(db, "SQL error");
    return PDB_OK;
}

int cmd_sql(int argc, char **argv, pdb_cli *cli)
{
    const char *format = NULL, *unit = NULL;
    bool write = false;
    long width = 0;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli), PDB_OPT_FORMAT(format), PDB_OPT_UNIT(unit),
        {PDB_OPT_INT, "width", 0, &width, "N", "table: cut text longer than N (default 0 = never)"},
        {PDB_OPT_FLAG, "write", 0, &write, NULL, "allow statements that change the database"},
        {0},
    };
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    if (npos != 1) {
        pdb_fail("expected one QUERY argument (usage: %s)", help.usage);
        return pdb_cli_fail();
    }
    pdb_render_opts ro;
    if (pdb_cli_render_opts(format, unit, width, &ro) != PDB_OK)
        return pdb_cli_fail();
    ro.convert_times = unit != NULL;
    sqlite3 *db;
    if (pdb_cli_open_db(cli, write ? 0 : PDB_DB_READONLY, &db) != PDB_OK)
        return pdb_cli_fail();
    /* The reports' SQL functions (short_name(), name_tag(), ...: report/trace_sql.h),
     * so a query can print names as the report tables do. */
    if (pdb_trace_sql_functions(db) != PDB_OK) {
        pdb_db_close(db);
        return pdb_cli_fail();
    }
    if (!write) {
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
        sqlite3_set_authorizer(db, read_only_authorizer, NULL);
    }
    const char *sql = argv[1];
    int rc = PDB_OK;
    while (rc == PDB_OK && *sql) {
        sqlite3_stmt *st;
        const char *tail;
        if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
            rc = pdb_db_fail(db, write ? "SQL error" : "SQL error (read-only without --write)");
            break;
        }
        if (st) {
            rc = run_statement(db, st, write, &ro);
            sqlite3_finalize(st);
        }
        sql = tail;
    }
    pdb_db_close(db);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
