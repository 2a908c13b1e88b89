/* cmd_runs.c: `profdb runs`: what the database holds, one row per run
 * (the queries: report/queries/runs.sql). */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "report/queries.h"

#include <stdio.h>
#include <stdlib.h>

static const pdb_cmd_help help = {
    "profdb runs [--db FILE] [--format FMT] [--sources | --reading] [RUN...]",
    "Lists runs: ranks, sources and their formats, records stored, trace events per\n"
    "phase (raw counts from the files: X, B, E, i, I, C, s, t, f, M and other_phases),\n"
    "GPU events (X\n"
    "events with a stream arg), records skipped with the reasons, and how each step\n"
    "log was read (reading: reader; step counter; step records; the agg of the step\n"
    "time; WEAK when the ingest warned).\n"
    "With --sources, lists every ingested file instead. With --reading, the reading\n"
    "of every step log: the counter and the line it was first read from, step\n"
    "records, where step times come from and their resolution, where throughput\n"
    "comes from, the epoch structure, lines used, and why the reading is weak (the\n"
    "table format prints one 'column = value' line each, as sqlite3's .mode line).",
    NULL,
};

int cmd_runs(int argc, char **argv, pdb_cli *cli)
{
    const char *format = NULL;
    const char *columns = NULL;
    bool sources = false, reading = false, wide = false;
    long width = 60;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli), PDB_OPT_FORMAT(format), PDB_OPT_WIDTH(width),
        PDB_OPT_WIDE(wide), PDB_OPT_COLUMNS(columns),
        {PDB_OPT_FLAG, "sources", 0, &sources, NULL, "list ingested files instead of runs"},
        {PDB_OPT_FLAG, "reading", 0, &reading, NULL,
         "how each step log was read, in full (one source a block)"},
        {0},
    };
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    pdb_render_opts ro;
    if (pdb_cli_render_opts(format, NULL, width, &ro) != PDB_OK)
        return pdb_cli_fail();
    pdb_cli_fit_opts(wide, columns, &ro);
    sqlite3 *db;
    if (pdb_cli_open_db(cli, PDB_DB_READONLY, &db) != PDB_OK)
        return pdb_cli_fail();
    int rc = PDB_OK;
    if (sources && reading)
        rc = pdb_fail("--sources and --reading are two listings: give one");
    int64_t *ids = pdb_xcalloc((size_t)npos + 1, sizeof *ids);
    pdb_buf list = PDB_BUF_INIT; /* the same runs as "[3,7,12]" (report/queries/runs.sql) */
    for (int i = 1; i <= npos && rc == PDB_OK; i++)
        if ((rc = pdb_run_need(db, argv[i], &ids[i - 1])) == PDB_OK)
            pdb_buf_addf(&list, "%s%lld%s", i > 1 ? "," : "[", (long long)ids[i - 1],
                         i == npos ? "]" : "");
    if (rc == PDB_OK && reading)
        rc = pdb_cli_runs_reading(db, ids, npos, &ro);
    free(ids);
    const char *param = pdb_buf_str(&list);
    if (rc == PDB_OK && !reading)
        rc = pdb_render_query(db, pdb_report_sql(sources ? "runs.sources" : "runs.list"), &param,
                              npos ? 1 : 0, &ro, stdout);
    pdb_buf_free(&list);
    pdb_db_close(db);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
