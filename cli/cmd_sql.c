/* cmd_sql.c: `profdb sql`: any query, rendered like every report. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"

#include <stdbool.h>
#include <string.h>

static const pdb_cmd_help help = {
    "profdb sql [--db FILE] [--format FMT] [--unit UNIT] [--write] QUERY",
    "Runs SQL against the database and prints the rows. Statements separated by ';'\n"
    "run in order; each one that returns rows is printed. The database is opened\n"
    "read-only unless --write is given. 'profdb schema' shows the tables.",
    "Times are stored as integer nanoseconds. With --unit, columns whose names end in\n"
    "_ns are converted and renamed (dur_ns -> dur_ms).",
};

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
    const char *sql = argv[1];
    int rc = PDB_OK;
    while (rc == PDB_OK && *sql) {
        sqlite3_stmt *st;
        const char *tail;
        if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
            rc = pdb_db_fail(db, "SQL error");
            break;
        }
        if (st) {
            if (sqlite3_column_count(st) > 0)
                rc = pdb_render_stmt(st, &ro, stdout);
            else if (sqlite3_step(st) != SQLITE_DONE)
                rc = pdb_db_fail(db, "SQL error");
            sqlite3_finalize(st);
        }
        sql = tail;
    }
    pdb_db_close(db);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
