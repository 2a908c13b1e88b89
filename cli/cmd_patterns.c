/* cmd_patterns.c: `profdb patterns`: the step-log patterns users taught. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"

#include <stdio.h>
#include <stdlib.h>

static const pdb_cmd_help help = {
    "profdb patterns [--db FILE] [--format FMT] [--forget ID]",
    "Lists the step-log rules taught with 'profdb ingest --pattern' or '--rules': id,\n"
    "the rules (lines 'step: PATTERN', 'val: PATTERN', 'summary: PATTERN'), where they\n"
    "came from, when, and the sources and runs read with them. Later ingests of text\n"
    "logs try them before the general reader (the rules that match most of the first\n"
    "lines, at least 3, win), so --replace and new logs of the same format are read\n"
    "the same way. The table format prints one 'column = value' line each (as\n"
    "sqlite3's .mode line). --forget ID removes rules from that list: the runs read\n"
    "with them keep their values.",
    "Syntax and examples: docs/steplogs.md, Teaching a format.",
};

int cmd_patterns(int argc, char **argv, pdb_cli *cli)
{
    const char *format = NULL;
    long forget = 0;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli), PDB_OPT_FORMAT(format),
        {PDB_OPT_INT, "forget", 0, &forget, "ID", "forget the rules of this id"},
        {0},
    };
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    if (npos > 0) {
        pdb_fail("unexpected argument '%s' (usage: %s)", argv[1], help.usage);
        return pdb_cli_fail();
    }
    pdb_render_opts ro;
    if (pdb_cli_render_opts(format, NULL, 0, &ro) != PDB_OK)
        return pdb_cli_fail();
    sqlite3 *db;
    if (pdb_cli_open_db(cli, forget ? 0 : PDB_DB_READONLY, &db) != PDB_OK)
        return pdb_cli_fail();
    sqlite3_stmt *st;
    int rc = PDB_OK;
    if (forget) {
        rc = pdb_report_prepare(db, "steplog_reading.forget_pattern", &st);
        if (rc == PDB_OK) {
            sqlite3_bind_int64(st, 1, forget);
            rc = pdb_db_step_done(db, st);
            if (rc == PDB_OK && sqlite3_changes(db) == 0)
                rc = pdb_fail("no pattern with id %ld (see 'profdb patterns')", forget);
            sqlite3_finalize(st);
        }
    } else if ((rc = pdb_report_prepare(db, "steplog_reading.patterns", &st)) == PDB_OK) {
        rc = ro.format == PDB_OUT_TABLE ? pdb_cli_print_lines(st, stdout)
                                        : pdb_render_stmt(st, &ro, stdout);
        sqlite3_finalize(st);
    }
    pdb_db_close(db);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
