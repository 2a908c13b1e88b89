/* cli.c: helpers shared by every subcommand (see cli.h). */
#include "cli/cli.h"
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "compare/trend.h"
#include "ingest/ingest.h"
#include "render/text.h"

#include <stdio.h>
#include <stdlib.h>

int pdb_cli_fail(void)
{
    fflush(stdout);
    fprintf(stderr, "profdb: %s\n", pdb_errmsg());
    return PDB_EXIT_ERROR;
}

int pdb_cli_parse(int argc, char **argv, const pdb_opt *opts, const pdb_cmd_help *help,
                  int *npos)
{
    int rc = pdb_parse_options(argc, argv, opts, help, npos);
    if (rc == PDB_OPT_HELP_SHOWN)
        return PDB_EXIT_OK;
    if (rc != PDB_OK)
        return pdb_cli_fail();
    return -1;
}

int pdb_cli_after_load(sqlite3 *db, int64_t run_id, bool committed)
{
    if (pdb_analyze_run(db, run_id, committed) != PDB_OK)
        return PDB_ERR;
    return pdb_run_forget_caches(db, run_id);
}

const char *pdb_cli_text(pdb_buf *b, const char *s)
{
    pdb_buf_reset(b);
    pdb_text_term(b, s);
    return pdb_buf_str(b);
}

int pdb_cli_check_db(const pdb_cli *cli)
{
    const char *env = getenv("PROFDB_DB");
    return pdb_db_check_user_path(cli->db_path,
                                  env && cli->db_path == env ? "PROFDB_DB" : "--db");
}

int pdb_cli_open_db(const pdb_cli *cli, int flags, sqlite3 **db)
{
    *db = NULL;
    if (pdb_cli_check_db(cli) != PDB_OK)
        return PDB_ERR;
    return pdb_db_open(cli->db_path, flags, db);
}

int pdb_cli_ingest_memory(const char *const *inputs, int n, const char *run, sqlite3 **db)
{
    if (pdb_db_open(":memory:", PDB_DB_CREATE, db) != PDB_OK)
        return PDB_ERR;
    pdb_ingest_opts o = {.run_name = run, .quiet = true, .after_load = pdb_analyze_run};
    return pdb_ingest_paths(*db, inputs, n, &o);
}

int pdb_cli_render_opts(const char *format, const char *unit, long width, pdb_render_opts *o)
{
    pdb_render_opts d = PDB_RENDER_DEFAULTS;
    *o = d;
    if (format && pdb_parse_format(format, &o->format) != PDB_OK)
        return PDB_ERR;
    if (unit && pdb_parse_unit(unit, &o->unit) != PDB_OK)
        return PDB_ERR;
    if (width < 0)
        return pdb_fail("--width must not be negative");
    o->max_width = (int)width;
    return PDB_OK;
}

void pdb_cli_fit_opts(bool wide, const char *columns, pdb_render_opts *o)
{
    o->fit_width = wide ? 0 : pdb_render_terminal_width(stdout);
    o->columns = columns;
}
