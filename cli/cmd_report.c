/* cmd_report.c: `profdb report [REPORT...]`: named reports for one run, the
 * overview (no names), a report folder (--out DIR), and one-shot use
 * (`profdb report FILE...`: inputs ingested into an in-memory database). */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/xalloc.h"
#include "ingest/shards/shard_file.h"
#include "render/text.h"
#include "report/folder.h"
#include "report/overview.h"
#include "report/reports.h"
#include "report/shard_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const pdb_cmd_help help = {
    "profdb report [--db FILE] [--run NAME] [--format FMT] [--unit UNIT] [--out DIR] [options] [REPORT...|INPUT...]",
    "Prints reports for one run (default: the most recently ingested run). Without a\n"
    "REPORT name prints what the run contains and its key findings. Several names print\n"
    "several reports in order. --out DIR writes a report folder instead: index.md, a CSV\n"
    "per table, gnuplot charts (.gp, .dat, and .png/.svg when gnuplot is on PATH).\n"
    "One-shot: an argument that is not a report name but an existing file or directory\n"
    "(or '-') is an input; inputs are ingested into an in-memory database (--db is not\n"
    "touched) as one run, and reported on: 'profdb report trace.json.gz kernels'.\n"
    "A run merged without --full keeps its events in its shards: reports that read\n"
    "events need --rank N, which reports on rank N from its shard file.",
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
        ctx->run_name = name;
        return pdb_run_need(ctx->db, name, &ctx->run_id);
    }
    /* Charts and the folder name the run. */
    char *run_name;
    int64_t runs;
    if (pdb_run_newest(ctx->db, "main", &ctx->run_id, &run_name) != PDB_OK ||
        pdb_run_count(ctx->db, &runs) != PDB_OK)
        return PDB_ERR;
    if (!run_name)
        return pdb_fail("the database has no runs (ingest something first)");
    ctx->run_name = run_name;
    if (runs > 1) { /* with one run there is no choice to tell */
        fflush(stdout);
        fputs("profdb: run '", stderr);
        pdb_fput_term(stderr, run_name);
        fprintf(stderr, "' (the newest of %lld; --run NAME for another)\n", (long long)runs);
    }
    return PDB_OK;
}

/* Splits the positional arguments: report names stay in names[], existing
 * paths (and '-') go to inputs[]. Report names win over same-named files. */
static int split_args(char **args, int n, char **names, int *nnames, const char **inputs,
                      int *ninputs)
{
    struct stat sb;
    *nnames = *ninputs = 0;
    for (int i = 0; i < n; i++) {
        if (pdb_report_find(args[i]))
            names[(*nnames)++] = args[i];
        else if (strcmp(args[i], "-") == 0 || stat(args[i], &sb) == 0)
            inputs[(*ninputs)++] = args[i];
        else
            return pdb_fail("unknown report '%s' (not a report name, file or directory;"
                            " see 'profdb report --help')", args[i]);
    }
    return PDB_OK;
}

/* One-shot: every input into one run of an in-memory database. */
static int ingest_memory(pdb_report_ctx *ctx, const char **inputs, int n, const char **run)
{
    if (!*run) {
        const char *base = strrchr(inputs[0], '/');
        *run = base && base[1] ? base + 1 : inputs[0];
    }
    return pdb_cli_ingest_memory(inputs, n, *run, &ctx->db);
}

/* One rule for a report that does not apply to the run: one line on
 * stderr saying what it needs, exit 2 (never an empty table). */
static int check_applies(pdb_report_ctx *ctx, const pdb_report *r)
{
    pdb_run_facts f;
    const char *what;
    if (pdb_run_facts_get(ctx->db, ctx->run_id, &f) != PDB_OK ||
        pdb_report_applies(ctx, r, &f, &what) != PDB_OK)
        return PDB_ERR;
    if (what && strcmp(what, PDB_NOT_ANALYSED_NEEDS) != 0)
        return pdb_fail("report %s does not apply to run %s: it needs %s", r->name,
                        ctx->run_name, what);
    return PDB_OK;
}

/* --rank N: the reports read rank N of a run merged without --full from
 * the shard that holds its events (ctx->db and run_id become the shard's;
 * *job keeps the job database open). */
static int open_rank(pdb_report_ctx *ctx, long rank, sqlite3 **job)
{
    sqlite3 *shard;
    int64_t shard_run;
    char *path;
    if (pdb_shard_open_rank(ctx->db, ctx->run_id, ctx->run_name, rank, &shard, &shard_run,
                            &path) != PDB_OK) {
        free(path);
        return PDB_ERR;
    }
    if (!shard) {
        free(path);
        return pdb_fail("--rank %ld: run '%s' has no rank %ld in a shard file (--rank reads a "
                        "rank of a run merged without --full; the reports of a run whose "
                        "events are in the database cover all its ranks)", rank, ctx->run_name,
                        rank);
    }
    fflush(stdout);
    fprintf(stderr, "profdb: rank %ld of run '", rank);
    pdb_fput_term(stderr, ctx->run_name);
    fputs("': events read from ", stderr);
    pdb_fput_term(stderr, path);
    fputc('\n', stderr);
    free(path);
    *job = ctx->db;
    ctx->db = shard;
    ctx->run_id = shard_run;
    return PDB_OK;
}

/* A report refused by the shard guard: what it wanted and how to get it. */
static int events_elsewhere(pdb_report_ctx *ctx, const char *report, int64_t shards)
{
    const char *table = pdb_shard_guard_refused();
    if (!table)
        return PDB_ERR;
    return pdb_fail("%s reads the events of run '%s' (%s), which stay in its %lld shard "
                    "file%s (merged without --full): ask for one rank with --rank N, or merge "
                    "with --full", report ? report : "the overview", ctx->run_name, table,
                    (long long)shards, shards == 1 ? "" : "s");
}

static int run_reports(pdb_report_ctx *ctx, char **names, int n)
{
    if (n == 0)
        return pdb_report_overview(ctx);
    ctx->titles = n > 1;
    for (int i = 0; i < n; i++)
        if (check_applies(ctx, pdb_report_find(names[i])) != PDB_OK)
            return PDB_ERR;
    for (int i = 0; i < n; i++)
        if (pdb_report_run(ctx, pdb_report_find(names[i])) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

int cmd_report(int argc, char **argv, pdb_cli *cli)
{
    pdb_report_ctx ctx = {.out = stdout, .top = -1, .skip_first = 0, .queue_limit = -1,
                          .instance = -1, .min_len = -1};
    const char *format = NULL, *unit = NULL, *run = NULL, *outdir = NULL, *columns = NULL;
    long rank = -1;
    bool wide = false;
    long width = 60;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli),
        {PDB_OPT_STRING, "run", 'r', &run, "NAME", "the run to report on (default: newest)"},
        {PDB_OPT_INT, "rank", 0, &rank, "N", "rank N of a run merged without --full, read from its shard file"},
        PDB_OPT_FORMAT(format), PDB_OPT_UNIT(unit), PDB_OPT_WIDTH(width),
        PDB_OPT_WIDE(wide), PDB_OPT_COLUMNS(columns),
        {PDB_OPT_INT, "top", 'n', &ctx.top, "N", "show the first N rows, then an 'others' row"},
        {PDB_OPT_STRING, "sort", 's', &ctx.sort, "KEY[,KEY]", "pstats: sort keys as pstats names them; pyspy: total or self"},
        {PDB_OPT_LIST, "limit", 0, &ctx.limits, "N|FRACTION", "pstats: keep N rows or a fraction"},
        {PDB_OPT_LIST, "match", 0, &ctx.matches, "REGEX", "pstats: keep rows matching REGEX"},
        {PDB_OPT_STRING, "metric", 0, &ctx.metric, "NAME", "metrics: only this metric"},
        {PDB_OPT_INT, "skip-first", 0, &ctx.skip_first, "N", "phases: drop the first N steps"},
        {PDB_OPT_FLAG, "by-shape", 0, &ctx.by_shape, NULL, "ops: one row per input shape"},
        {PDB_OPT_STRING, "compat", 0, &ctx.compat, "TOOL", "trace passes: 'hta' for HTA's conventions"},
        {PDB_OPT_STRING, "by", 0, &ctx.by, "KEY", "kernels: GPU time by op, top-op, annotation, gpu-annotation, module or step; attribution: annotation, module, op, top-op or kernel; launch: by launch or op; memory-bw: by point; queue-length, kernel-types --compat hta: by rank; pyspy: frame or function"},
        {PDB_OPT_STRING, "annotation", 0, &ctx.annotation, "TEXT", "critical-path: windows are the events whose name contains TEXT (default ProfilerStep; '' the whole trace)"},
        {PDB_OPT_INT, "instance", 0, &ctx.instance, "I", "critical-path: only the I-th window (from 0)"},
        {PDB_OPT_FLAG, "zero-weight-launch-edges", 0, &ctx.zero_weight_launch, NULL, "critical-path: HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE"},
        {PDB_OPT_STRING, "op", 0, &ctx.op, "NAME", "kernel-sequences: ops whose name contains NAME (default: the op with the most GPU time)"},
        {PDB_OPT_INT, "min-len", 0, &ctx.min_len, "L", "kernel-sequences: at least L kernels per pattern (default 3)"},
        {PDB_OPT_INT, "queue-limit", 0, &ctx.queue_limit, "N", "queue-length: time at or above N launches in flight (default 1024)"},
        {PDB_OPT_STRING, "names", 0, &ctx.names, "full|short", "trace reports: kernel and op names (default: short in tables, full in CSV/JSON)"},
        {PDB_OPT_FLAG, "by-thread", 0, &ctx.by_thread, NULL, "pyspy: one table per process/thread chain or speedscope profile"},
        {PDB_OPT_STRING, "function", 0, &ctx.function, "NAME", "pyspy-callers: the function (its name, or 'name (file)')"},
        {PDB_OPT_STRING, "min-share", 0, &ctx.min_share, "PCT", "pyspy-tree, flamegraph: leave out stacks under PCT% of the samples"},
        {PDB_OPT_STRING, "library", 0, &ctx.library, "NAME", "pyspy-leaves: the library whose deepest frame is shown (default itwinai)"},
        {PDB_OPT_FLAG, "keep-module", 0, &ctx.keep_module, NULL, "pyspy-leaves: keep <module> frames (itwinai drops them)"},
        {PDB_OPT_FLAG, "aggregate-leaf-paths", 0, &ctx.aggregate_leaf_paths, NULL, "pyspy-leaves: one row per leaf and library frame, not per stack"},
        {PDB_OPT_STRING, "idle", 0, &ctx.idle, "include|exclude|only", "pyspy: samples whose leaf is a waiting call (default include)"},
        {PDB_OPT_STRING, "thread", 0, &ctx.thread, "ID|NAME", "pyspy-tree, folded, flamegraph: only the stacks of this thread"},
        {PDB_OPT_STRING, "out", 'o', &outdir, "DIR", "write a report folder (index.md, CSVs, charts)"},
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
    if (rc != PDB_OK || pdb_cli_render_opts(format, unit, width, &ctx.render) != PDB_OK) {
        free(given);
        pdb_strlist_free(&ctx.limits);
        pdb_strlist_free(&ctx.matches);
        return pdb_cli_fail();
    }
    if (!outdir || npos)
        pdb_cli_fit_opts(wide, columns, &ctx.render);
    char **names = pdb_xmalloc((size_t)(npos + 1) * sizeof *names);
    const char **inputs = pdb_xmalloc((size_t)(npos + 1) * sizeof *inputs);
    int nnames, ninputs;
    rc = split_args(argv + 1, npos, names, &nnames, inputs, &ninputs);
    /* --out DIR with names: reports that write files (flamegraph) write
     * there; without names, the report folder. */
    for (int i = 0; rc == PDB_OK && outdir && i < nnames; i++)
        if (!pdb_report_writes_files(pdb_report_find(names[i])))
            rc = pdb_fail("--out DIR writes every report that applies: give no report names"
                          " (or only flamegraph)");
    if (outdir && nnames)
        ctx.outdir = outdir;
    if (rc == PDB_OK)
        rc = ninputs ? ingest_memory(&ctx, inputs, ninputs, &run)
                     : pdb_cli_open_db(cli, PDB_DB_READONLY, &ctx.db);
    if (rc == PDB_OK)
        rc = pick_run(&ctx, run);
    sqlite3 *job = NULL;
    int64_t shards = 0;
    if (rc == PDB_OK && rank >= 0)
        rc = open_rank(&ctx, rank, &job);
    else if (rc == PDB_OK)
        rc = pdb_shard_guard_start(ctx.db, "main", ctx.run_id, &shards);
    if (rc == PDB_OK)
        rc = outdir && !nnames ? pdb_report_folder(&ctx, outdir)
                               : run_reports(&ctx, names, nnames);
    if (rc != PDB_OK && shards > 0)
        events_elsewhere(&ctx, outdir && !nnames ? "the report folder"
                               : nnames == 1 ? names[0] : NULL, shards);
    pdb_shard_guard_stop(ctx.db);
    pdb_db_close(job);
    if (rc == PDB_OK && outdir && !nnames) {
        fputs("profdb: wrote ", stderr); /* a path from the command line */
        pdb_fput_term(stderr, outdir);
        fputs("/index.md\n", stderr);
    }
    if (!run && ctx.run_name)
        free((char *)ctx.run_name);
    free(names);
    free(inputs);
    pdb_db_close(ctx.db);
    pdb_strlist_free(&ctx.limits);
    pdb_strlist_free(&ctx.matches);
    free(given);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
