/* cmd_report.c: `profdb report [REPORT...]`: named reports for one run. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "ingest/ingest.h"
#include "report/reports.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const pdb_cmd_help help = {
    "profdb report [--db FILE] [--run NAME] [--format FMT] [--unit UNIT] [options] [REPORT...]",
    "Prints reports for one run (default: the most recently ingested run). Without a\n"
    "REPORT name prints the summary. Several names print several reports in order.",
    NULL, /* the list of reports is printed by print_reports() */
};

static void print_reports(void)
{
    printf("\nreports:\n");
    for (const pdb_report *r = pdb_reports; r->name; r++)
        printf("  %-14s %s\n", r->name, r->summary);
}

/* --run NAME, or the newest run. */
static int pick_run(pdb_report_ctx *ctx, const char *name)
{
    if (name) {
        int found = pdb_run_find(ctx->db, name, &ctx->run_id);
        if (found < 0)
            return PDB_ERR;
        if (!found)
            return pdb_fail("no run named '%s' (see 'profdb runs')", name);
        ctx->run_name = name;
        return PDB_OK;
    }
    if (pdb_db_query_int(ctx->db, "SELECT max(run_id) FROM runs", 0, &ctx->run_id) != PDB_OK)
        return PDB_ERR;
    if (ctx->run_id == 0)
        return pdb_fail("the database has no runs (ingest something first)");
    return PDB_OK;
}

static int run_reports(pdb_report_ctx *ctx, char **names, int n)
{
    static char *const dflt[] = {"summary"};
    if (n == 0) {
        names = (char **)dflt;
        n = 1;
    }
    for (int i = 0; i < n; i++)
        if (!pdb_report_find(names[i]))
            return pdb_fail("unknown report '%s' (see 'profdb report --help')", names[i]);
    ctx->titles = n > 1;
    for (int i = 0; i < n; i++)
        if (pdb_report_find(names[i])->run(ctx) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

int cmd_report(int argc, char **argv, pdb_cli *cli)
{
    pdb_report_ctx ctx = {.out = stdout, .top = -1, .skip_first = 0};
    const char *format = NULL, *unit = NULL, *run = NULL;
    long width = 60;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli),
        {PDB_OPT_STRING, "run", 'r', &run, "NAME", "the run to report on (default: newest)"},
        PDB_OPT_FORMAT(format), PDB_OPT_UNIT(unit), PDB_OPT_WIDTH(width),
        {PDB_OPT_INT, "top", 'n', &ctx.top, "N", "show the first N rows, then an 'others' row"},
        {PDB_OPT_STRING, "sort", 's', &ctx.sort, "KEY[,KEY]", "pstats: sort keys as pstats names them"},
        {PDB_OPT_LIST, "limit", 0, &ctx.limits, "N|FRACTION", "pstats: keep N rows or a fraction"},
        {PDB_OPT_LIST, "match", 0, &ctx.matches, "REGEX", "pstats: keep rows matching REGEX"},
        {PDB_OPT_STRING, "metric", 0, &ctx.metric, "NAME", "metrics: only this metric"},
        {PDB_OPT_INT, "skip-first", 0, &ctx.skip_first, "N", "phases: drop the first N steps"},
        {PDB_OPT_FLAG, "by-shape", 0, &ctx.by_shape, NULL, "ops: one row per input shape"},
        {PDB_OPT_STRING, "compat", 0, &ctx.compat, "TOOL", "trace passes: 'hta' for HTA's conventions"},
        {0},
    };
    int npos;
    char **given = pdb_xmalloc((size_t)argc * sizeof *given);
    memcpy(given, argv, (size_t)argc * sizeof *given);
    ctx.args = given;
    ctx.nargs = argc;
    int rc = pdb_parse_options(argc, argv, opts, &help, &npos);
    if (rc == PDB_OPT_HELP_SHOWN) {
        free(given);
        print_reports();
        return PDB_EXIT_OK;
    }
    if (rc != PDB_OK || pdb_cli_render_opts(format, unit, width, &ctx.render) != PDB_OK)
        return pdb_cli_fail();
    rc = pdb_cli_open_db(cli, PDB_DB_READONLY, &ctx.db);
    if (rc == PDB_OK)
        rc = pick_run(&ctx, run);
    if (rc == PDB_OK)
        rc = run_reports(&ctx, argv + 1, npos);
    pdb_db_close(ctx.db);
    pdb_strlist_free(&ctx.limits);
    pdb_strlist_free(&ctx.matches);
    free(given);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
