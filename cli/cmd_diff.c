/* cmd_diff.c: `profdb diff BASE TEST [KIND...]`: compare two runs.
 *
 * BASE and TEST are run names in one database, or TEST in a second one
 * (--db-test, attached as schema "tdb"). Each KIND is a row of the
 * table below (a comparison function in report/); adding a kind for another
 * source (traces, step logs) is adding a function and a row. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "ingest/ingest.h"
#include "compare/compare.h"
#include "compare/diff.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int (*run)(pdb_diff_ctx *ctx);
    const char *summary;
} diff_kind;

static const diff_kind kinds[] = {
    {"pstats", pdb_diff_pstats, "functions by largest change of tottime/cumtime (--sort, --top)"},
    {"steps", pdb_diff_steps, "per-step times and phases: medians, ratio CI, p-value"},
    {"ops", pdb_diff_ops, "CPU ops: calls, total and self time"},
    {"kernels", pdb_diff_kernels, "GPU kernels: launches and total time"},
    {"kernel-types", pdb_diff_kernel_types, "GPU time by kernel type and overlap"},
    {"gpu", pdb_diff_gpu, "GPU temporal breakdown: busy, idle, compute, communication"},
    {NULL, NULL, NULL},
};

static const pdb_cmd_help help = {
    "profdb diff [--db FILE] [--db-test FILE] [--format FMT] [--top N] [options] BASE TEST "
    "[KIND...]",
    "Compares run TEST with run BASE (run names in one database, or TEST in the\n"
    "--db-test database). Without a KIND compares pstats statistics.",
    "kinds:\n  pstats         functions by largest change of tottime and cumtime (absolute\n"
    "                 and percent of BASE); --sort tottime|cumtime|both; only_in marks\n"
    "                 functions present in one run\n"
    "  steps          per-step step_time and phases (step-log point values, else trace\n"
    "                 ProfilerSteps and their categories): medians, change, median\n"
    "                 ratio with a bootstrap 95% CI, Mann-Whitney U p-value, outliers\n"
    "  ops            CPU ops (analysis_ops, all ranks and shapes): calls, total, self\n"
    "  kernels        GPU kernels (analysis_kernels); --normalize-names matches names\n"
    "                 differing only in template arguments or addresses\n"
    "  kernel-types   GPU time per kernel type and overlap combination\n"
    "  gpu            GPU time breakdown (kernel time, busy, idle, compute, ...)\n"
    "Rows are sorted by the absolute change (impact); only_in marks names present\n"
    "in one run. See docs/compare.md.",
};

static const diff_kind *find_kind(const char *name)
{
    for (const diff_kind *k = kinds; k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

static int run_kinds(pdb_diff_ctx *ctx, char **names, int n)
{
    static char *const dflt[] = {"pstats"};
    if (n == 0) {
        names = (char **)dflt;
        n = 1;
    }
    for (int i = 0; i < n; i++) {
        if (!find_kind(names[i]))
            return pdb_fail("unknown diff kind '%s' (see 'profdb diff --help')", names[i]);
        /* pstats reads both runs from one schema. */
        if (strcmp(names[i], "pstats") == 0 && strcmp(ctx->base_schema, ctx->test_schema) != 0)
            return pdb_fail("the pstats diff needs both runs in one database");
    }
    ctx->titles = n > 1;
    for (int i = 0; i < n; i++)
        if (find_kind(names[i])->run(ctx) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

int cmd_diff(int argc, char **argv, pdb_cli *cli)
{
    pdb_diff_ctx ctx = {.out = stdout, .top = -1};
    const char *format = NULL, *unit = NULL, *test_db = NULL;
    long width = 60;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli),
        PDB_OPT_FORMAT(format), PDB_OPT_UNIT(unit), PDB_OPT_WIDTH(width),
        {PDB_OPT_INT, "top", 'n', &ctx.top, "N", "show the first N rows"},
        {PDB_OPT_STRING, "sort", 's', &ctx.sort, "KEY", "pstats: tottime, cumtime or both"},
        {PDB_OPT_STRING, "db-test", 0, &test_db, "FILE", "database holding the TEST run"},
        {PDB_OPT_FLAG, "normalize-names", 0, &ctx.normalize, NULL,
         "kernels: ignore template arguments and addresses in names"},
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
    pdb_cmp_open_opts oo = {cli->db_path, test_db, NULL};
    pdb_cmp_run base, test;
    rc = pdb_cmp_open(&oo, ctx.base_name, ctx.test_name, &base, &test);
    if (rc == PDB_OK) {
        ctx.db = base.db;
        ctx.base_id = base.run_id;
        ctx.test_id = test.run_id;
        ctx.base_schema = base.schema;
        ctx.test_schema = test.schema;
        rc = run_kinds(&ctx, argv + 3, npos - 2);
        pdb_cmp_close(&base, &test);
    }
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
