/* cmd_check.c: `profdb check BASE TEST`: the CI regression gate.
 *
 * Compares the per-step (or per-call) samples of each metric of two runs
 * and exits 0 (pass, or inconclusive: a median beyond its limit without
 * significance, or too few steps), 1 (a significant regression beyond its
 * limit, or an inconclusive metric with --fail-inconclusive) or 2 (usage or input
 * error). The decision rule and outputs live in compare/check.c. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/xalloc.h"
#include "compare/check.h"
#include "compare/metrics.h"
#include "report/shard_guard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Defaults, each written once (the help text is made from them). */
#define DEFAULT_LIMIT "step_time=5%"
#define DEFAULT_MIN_SAMPLES 2
#define TEXT(x) TEXT_(x)
#define TEXT_(x) #x

/* --help's details: the metrics' entries, made from compare/metrics.def. */
static char details[4096];
static const char details_tail[] =
    "PCT is 5%, +5% or 5 (five percent); a bare number below 1 is refused as\n"
    "ambiguous. Without --max-regression: " DEFAULT_LIMIT ". With --baseline-from, BASE\n"
    "is a run of that database (default: its newest run) or the ingested directory,\n"
    "and TEST a run of --db (or --db-test). Exit status: 0 pass or inconclusive,\n"
    "1 regression (or inconclusive with --fail-inconclusive), 2 error. See\n"
    "docs/compare.md.";

static void fill_details(void)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_metric_help(&b);
    snprintf(details, sizeof details, "metrics (one sample per step; pyspy: per sample):\n%s%s", pdb_buf_str(&b),
             details_tail);
    pdb_buf_free(&b);
}

static const pdb_cmd_help help = {
    "profdb check [--db FILE] [--db-test FILE | --baseline-from DIR|DB] "
    "[--max-regression METRIC=PCT]... [options] [BASE] TEST",
    "Fails (exit 1) when run TEST is worse than run BASE by more than a limit. Per\n"
    "metric, one sample per step: a regression when the median is worse by more than\n"
    "PCT and a two-sided Mann-Whitney test of TEST against BASE moved by PCT gives\n"
    "p < alpha (exact for small samples); when the step counts are too small for\n"
    "that (3 against 3), when every TEST step is worse than every BASE step by more\n"
    "than PCT. A median beyond PCT without that is inconclusive, never a pass, with\n"
    "the steps per side that would decide. A pass needs the median within PCT (with\n"
    "too few steps for a test, also no TEST step worse than BASE's worst by more\n"
    "than PCT). Inconclusive exits 0, or 1 with --fail-inconclusive. Prints a\n"
    "one-line verdict; details go to stderr. Every p is two-sided Mann-Whitney.\n"
    "pyspy:FUNCTION is a share of samples, not a per-step time: its test is the same\n"
    "one on the samples as 0/1 values (two proportions; sampling noise only).",
    details, /* fill_details(): the metrics, then PCT and BASE */
};

typedef struct {
    pdb_strlist limits;
    long min_samples;
    const char *alpha, *junit, *markdown, *test_db, *baseline_from;
    bool fail_inconclusive, quiet;
} check_opts;

static int write_file(const char *path, const pdb_check_run *run,
                      void (*writer)(const pdb_check_run *, FILE *))
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f)
        return pdb_fail("%s: cannot write: %s", path, strerror(errno));
    writer(run, f);
    if (f == stdout)
        return fflush(f) == 0 ? PDB_OK : pdb_fail("error writing output");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return pdb_fail("%s: cannot write: %s", path, strerror(errno));
    return PDB_OK;
}

/* --baseline-from: a database file, or a directory of inputs ingested into
 * memory as run "baseline". On failure nothing is left open. */
static int open_baseline(const char *path, sqlite3 **db)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return pdb_fail("%s: no such baseline file or directory", path);
    int rc = S_ISDIR(sb.st_mode) ? pdb_cli_ingest_memory(&path, 1, "baseline", db)
                                 : pdb_db_open(path, PDB_DB_READONLY, db);
    if (rc != PDB_OK) {
        pdb_db_close(*db);
        *db = NULL;
    }
    return rc;
}

/* A run merged without --full: no metric reads its missing events
 * (report/shard_guard.h). */
static int guard_shards(const pdb_cmp_run *base, const pdb_cmp_run *test)
{
    int64_t a, b;
    if (pdb_run_shard_files(base->db, base->schema, base->run_id, &a) != PDB_OK ||
        pdb_run_shard_files(test->db, test->schema, test->run_id, &b) != PDB_OK)
        return PDB_ERR;
    if (a + b > 0)
        pdb_shard_guard_on(base->db);
    return PDB_OK;
}

static int run_check(pdb_cli *cli, const check_opts *o, char **pos, int npos,
                     pdb_check_run *run)
{
    const char *base_name = npos == 2 ? pos[0] : NULL, *test_name = pos[npos - 1];
    pdb_cmp_open_opts oo = {cli->db_path, o->test_db, NULL, false};
    if (o->baseline_from && open_baseline(o->baseline_from, &oo.baseline_db) != PDB_OK)
        return PDB_ERR;
    pdb_cmp_run base, test;
    if (pdb_cmp_open(&oo, base_name, test_name, &base, &test) != PDB_OK)
        return PDB_ERR;
    /* The run names are printed below, before close frees an owned one. */
    run->base = base.name;
    run->test = test.name;
    int rc = guard_shards(&base, &test);
    for (int i = 0; i < run->n && rc == PDB_OK; i++)
        rc = pdb_check_metric(&base, &test, run, &run->r[i]);
    if (rc != PDB_OK)
        pdb_shard_guard_fail("profdb check");
    pdb_shard_guard_stop(base.db);
    if (rc == PDB_OK && !o->quiet)
        pdb_check_write_details(run, stderr);
    if (rc == PDB_OK && o->junit)
        rc = write_file(o->junit, run, pdb_check_write_junit);
    if (rc == PDB_OK && o->markdown)
        rc = write_file(o->markdown, run, pdb_check_write_markdown);
    /* With a report on stdout the verdict line goes to stderr. */
    bool to_stdout = (o->junit && strcmp(o->junit, "-") == 0) ||
                     (o->markdown && strcmp(o->markdown, "-") == 0);
    if (rc == PDB_OK)
        pdb_check_write_line(run, to_stdout ? stderr : stdout);
    pdb_cmp_close(&base, &test);
    return rc;
}

/* Options into settings; without --max-regression the limit is DEFAULT_LIMIT. */
static int setup(check_opts *o, int npos, pdb_check_run *run)
{
    if (npos < 1 || npos > 2 || (npos == 1 && !o->baseline_from))
        return pdb_fail("expected BASE and TEST run names (usage: %s)", help.usage);
    run->alpha = PDB_ALPHA;
    if (o->alpha && pdb_parse_double("--alpha", o->alpha, &run->alpha) != PDB_OK)
        return PDB_ERR;
    if (run->alpha <= 0 || run->alpha >= 1)
        return pdb_fail("--alpha: expected a number between 0 and 1, got '%s'", o->alpha);
    if (o->min_samples < 1)
        return pdb_fail("--min-samples: expected at least 1");
    run->min_samples = o->min_samples;
    run->fail_inconclusive = o->fail_inconclusive;
    static const char *const dflt[] = {DEFAULT_LIMIT};
    const char *const *specs = o->limits.n ? o->limits.v : dflt;
    return pdb_check_add_limits(run, specs, o->limits.n ? o->limits.n : 1);
}

int cmd_check(int argc, char **argv, pdb_cli *cli)
{
    check_opts o = {.min_samples = DEFAULT_MIN_SAMPLES};
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli),
        {PDB_OPT_STRING, "db-test", 0, &o.test_db, "FILE", "database holding the TEST run"},
        {PDB_OPT_STRING, "baseline-from", 0, &o.baseline_from, "DIR|DB",
         "baseline: a database file, or inputs to ingest into memory"},
        {PDB_OPT_LIST, "max-regression", 'm', &o.limits, "METRIC=PCT",
         "fail when METRIC is worse by more than PCT % (repeatable)"},
        {PDB_OPT_INT, "min-samples", 0, &o.min_samples, "N",
         "fewer samples on a side: inconclusive (default " TEXT(DEFAULT_MIN_SAMPLES) ")"},
        {PDB_OPT_STRING, "alpha", 0, &o.alpha, "A",
         "significance level (default " TEXT(PDB_ALPHA) ")"},
        {PDB_OPT_FLAG, "fail-inconclusive", 0, &o.fail_inconclusive, NULL,
         "exit 1 when a metric is inconclusive"},
        {PDB_OPT_STRING, "junit", 0, &o.junit, "FILE", "write JUnit XML (- for stdout)"},
        {PDB_OPT_STRING, "markdown", 0, &o.markdown, "FILE", "write a Markdown summary"},
        {PDB_OPT_FLAG, "quiet", 'q', &o.quiet, NULL, "no per-metric details on stderr"},
        {0},
    };
    fill_details();
    int npos, rc = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (rc >= 0)
        return rc;
    pdb_check_run run = {0};
    rc = setup(&o, npos, &run);
    if (rc == PDB_OK)
        rc = run_check(cli, &o, argv + 1, npos, &run);
    for (int i = 0; run.r && i < run.n; i++)
        free((char *)run.r[i].metric.spec);
    free(run.r);
    pdb_strlist_free(&o.limits);
    if (rc != PDB_OK)
        return pdb_cli_fail();
    if (run.failed || (run.inconclusive && run.fail_inconclusive))
        return PDB_EXIT_FAILED;
    return PDB_EXIT_OK;
}
