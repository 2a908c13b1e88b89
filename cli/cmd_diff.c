/* cmd_diff.c: `profdb diff BASE TEST [KIND...]`: compare two runs.
 *
 * BASE and TEST are run names in one database, or TEST in a second one
 * (--db-test, attached as schema "tdb"). Each KIND is a row of the
 * table in compare/diff.c. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "compare/compare.h"
#include "compare/diff.h"
#include "report/shard_guard.h"

#include <stdio.h>
#include <string.h>

static const pdb_cmd_help help = {
    "profdb diff [--db FILE] [--db-test FILE] [--format FMT] [--top N] [--out DIR] [options] "
    "BASE TEST [KIND...]",
    "Compares run TEST with run BASE (run names in one database, or TEST in the\n"
    "--db-test database). Without a KIND, every comparison that applies to the two\n"
    "runs (steps, gpu, kernel-types, kernels, ops, pstats, pyspy). --out DIR writes a folder\n"
    "for a pull request or CI job summary: DIR/index.md (the headline changes, the\n"
    "kernels and ops that changed most with their launches, before/after charts,\n"
    "each comparison's table) and DIR/KIND.csv. --save also stores each comparison in\n"
    "the database (tables diffs and diff_rows, view diff_view; read them with 'profdb\n"
    "sql'), replacing the one saved before for the same BASE, TEST and KIND.",
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
    "  pyspy          sampled functions (py-spy): self and total share of each run's\n"
    "                 samples, change in points, two-sided Mann-Whitney p of the\n"
    "                 samples holding the function (sampling noise only)\n"
    "Rows are sorted by the absolute change (impact); only_in marks names present\n"
    "in one run. See docs/compare.md.",
};

int cmd_diff(int argc, char **argv, pdb_cli *cli)
{
    pdb_diff_ctx ctx = {.out = stdout, .top = -1};
    const char *format = NULL, *unit = NULL, *test_db = NULL, *out_dir = NULL, *columns = NULL;
    bool wide = false, save = false;
    long width = 60;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli),
        PDB_OPT_FORMAT(format), PDB_OPT_UNIT(unit), PDB_OPT_WIDTH(width),
        PDB_OPT_WIDE(wide), PDB_OPT_COLUMNS(columns),
        {PDB_OPT_INT, "top", 'n', &ctx.top, "N", "show the first N rows"},
        {PDB_OPT_STRING, "sort", 's', &ctx.sort, "KEY", "pstats: tottime, cumtime or both"},
        {PDB_OPT_STRING, "db-test", 0, &test_db, "FILE", "database holding the TEST run"},
        {PDB_OPT_STRING, "out", 'o', &out_dir, "DIR",
         "write DIR/index.md (summary, charts, tables) and a CSV per comparison"},
        {PDB_OPT_FLAG, "normalize-names", 0, &ctx.normalize, NULL,
         "kernels: ignore template arguments and addresses in names"},
        {PDB_OPT_FLAG, "save", 0, &save, NULL,
         "store each comparison in the database (diff_view), replacing an older one"},
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
    if (!out_dir)
        pdb_cli_fit_opts(wide, columns, &ctx.render);
    ctx.base_name = argv[1];
    ctx.test_name = argv[2];
    if (save && test_db) {
        pdb_fail("--save stores a diff in the database holding both runs; with --db-test the "
                 "TEST run is in another one ('profdb merge' can bring them together)");
        return pdb_cli_fail();
    }
    ctx.save = save;
    pdb_cmp_open_opts oo = {cli->db_path, test_db, NULL, save};
    pdb_cmp_run base, test;
    rc = pdb_cmp_open(&oo, ctx.base_name, ctx.test_name, &base, &test);
    if (rc == PDB_OK) {
        ctx.db = base.db;
        ctx.base_id = base.run_id;
        ctx.test_id = test.run_id;
        ctx.base_schema = base.schema;
        ctx.test_schema = test.schema;
        /* --save: one transaction, so a failed diff leaves the saved ones as they were */
        if (save)
            rc = pdb_db_begin_immediate(ctx.db);
        /* a run merged without --full: nothing reads its missing events */
        int64_t a = 0, b = 0;
        if (rc == PDB_OK &&
            (pdb_run_shard_files(base.db, base.schema, base.run_id, &a) != PDB_OK ||
             pdb_run_shard_files(test.db, test.schema, test.run_id, &b) != PDB_OK))
            rc = PDB_ERR;
        if (rc == PDB_OK && a + b > 0)
            pdb_shard_guard_on(ctx.db);
        if (rc == PDB_OK)
            rc = out_dir ? pdb_diff_folder(&ctx, argv + 3, npos - 2, out_dir)
                         : pdb_diff_run(&ctx, argv + 3, npos - 2);
        if (rc != PDB_OK)
            pdb_shard_guard_fail("profdb diff");
        pdb_shard_guard_stop(ctx.db);
        if (save && rc == PDB_OK)
            rc = pdb_db_commit(ctx.db);
        if (save && rc != PDB_OK)
            pdb_db_rollback(ctx.db);
        pdb_cmp_close(&base, &test);
    }
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
