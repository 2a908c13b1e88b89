/* cmd_diff.c: `profdb diff BASE TEST [KIND...]`: compare two runs.
 *
 * BASE and TEST are run names in one database. Each KIND is a row of the
 * table below (a comparison function in report/); adding a kind for another
 * source (traces, step logs) is adding a function and a row. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "ingest/ingest.h"
#include "report/diff.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(pdb_diff_ctx *ctx);
    const char *summary;
} diff_kind;

static const diff_kind kinds[] = {
    {"pstats", pdb_diff_pstats, "functions by largest change of tottime/cumtime (--sort, --top)"},
    {NULL, NULL, NULL},
};

static const pdb_cmd_help help = {
    "profdb diff [--db FILE] [--format FMT] [--top N] [--sort KEY] BASE TEST [KIND...]",
    "Compares run TEST with run BASE (run names in one database). Without a KIND\n"
    "compares pstats statistics.",
    "kinds:\n  pstats         functions by largest change of tottime and cumtime (absolute\n"
    "                 and percent of BASE); --sort tottime|cumtime|both; only_in marks\n"
    "                 functions present in one run",
};

static const diff_kind *find_kind(const char *name)
{
    for (const diff_kind *k = kinds; k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

static int find_run(pdb_diff_ctx *ctx, const char *name, int64_t *id)
{
    int found = pdb_run_find(ctx->db, name, id);
    if (found < 0)
        return PDB_ERR;
    if (!found)
        return pdb_fail("no run named '%s' (see 'profdb runs')", name);
    return PDB_OK;
}

static int run_kinds(pdb_diff_ctx *ctx, char **names, int n)
{
    static char *const dflt[] = {"pstats"};
    if (n == 0) {
        names = (char **)dflt;
        n = 1;
    }
    for (int i = 0; i < n; i++)
        if (!find_kind(names[i]))
            return pdb_fail("unknown diff kind '%s' (see 'profdb diff --help')", names[i]);
    ctx->titles = n > 1;
    for (int i = 0; i < n; i++)
        if (find_kind(names[i])->run(ctx) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

int cmd_diff(int argc, char **argv, pdb_cli *cli)
{
    pdb_diff_ctx ctx = {.out = stdout, .top = -1};
    const char *format = NULL, *unit = NULL;
    long width = 60;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli),
        PDB_OPT_FORMAT(format), PDB_OPT_UNIT(unit), PDB_OPT_WIDTH(width),
        {PDB_OPT_INT, "top", 'n', &ctx.top, "N", "show the first N rows"},
        {PDB_OPT_STRING, "sort", 's', &ctx.sort, "KEY", "pstats: tottime, cumtime or both"},
        {0},
    };
    int npos, rc = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 2) {
        pdb_fail("expected two run names (usage: %s)", help.usage);
        return pdb_cli_fail();
    }
    if (pdb_cli_render_opts(format, unit, width, &ctx.render) != PDB_OK)
        return pdb_cli_fail();
    ctx.base_name = argv[1];
    ctx.test_name = argv[2];
    rc = pdb_cli_open_db(cli, PDB_DB_READONLY, &ctx.db);
    if (rc == PDB_OK)
        rc = find_run(&ctx, ctx.base_name, &ctx.base_id);
    if (rc == PDB_OK)
        rc = find_run(&ctx, ctx.test_name, &ctx.test_id);
    if (rc == PDB_OK)
        rc = run_kinds(&ctx, argv + 3, npos - 2);
    pdb_db_close(ctx.db);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
