/* cmd_migrate.c: `profdb migrate`: bring an older database up to date. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"

#include <stdbool.h>
#include <stdio.h>

static const pdb_cmd_help help = {
    "profdb migrate [--db FILE] [--no-vacuum]",
    "Upgrades a database written by an older profdb to this profdb's schema version,\n"
    "in one transaction (schemas/migrations/: every value is kept). Commands that\n"
    "write (ingest, analyze, sql --write) do the same on their own; commands that\n"
    "only read refuse an older database and point here. After a migration, VACUUM\n"
    "gives back the space the old layout took (--no-vacuum skips it: it rewrites\n"
    "the file, which takes time and as much free disk again). Prints the versions\n"
    "and the file size.",
    NULL,
};

int cmd_migrate(int argc, char **argv, pdb_cli *cli)
{
    bool no_vacuum = false;
    const pdb_opt opts[] = {PDB_OPT_DB(cli),
                            {PDB_OPT_FLAG, "no-vacuum", 0, &no_vacuum, NULL,
                             "do not VACUUM after migrating"},
                            {0}};
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    if (npos > 0) {
        pdb_fail("migrate takes no arguments (the database is --db FILE)");
        return pdb_cli_fail();
    }
    sqlite3 *db;
    int from;
    if (pdb_cli_check_db(cli) != PDB_OK || pdb_db_migrate(cli->db_path, &from, &db) != PDB_OK)
        return pdb_cli_fail();
    pdb_buf name = PDB_BUF_INIT;
    const char *path = pdb_cli_text(&name, cli->db_path);
    if (from == PDB_SCHEMA_VERSION) {
        printf("%s: schema version %d is current\n", path, from);
        pdb_db_close(db);
        pdb_buf_free(&name);
        return PDB_EXIT_OK;
    }
    printf("%s: schema upgraded from version %d to %d\n", path, from, PDB_SCHEMA_VERSION);
    int rc = PDB_OK;
    if (!no_vacuum) {
        int64_t before = pdb_db_bytes(db);
        rc = pdb_db_exec(db, pdb_common_sql("db.vacuum"));
        if (rc == PDB_OK)
            printf("%s: VACUUM: %.1f MB -> %.1f MB\n", path, before / 1e6,
                   pdb_db_bytes(db) / 1e6);
    }
    pdb_db_close(db);
    pdb_buf_free(&name);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
