/* cmd_ingest.c: `profdb ingest`: load inputs into the database. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "analyze/analyze.h"
#include "ingest/shards/fresh_db.h"
#include "ingest/ingest.h"
#include "ingest/steplog/steplog_pattern.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const pdb_cmd_help help = {
    "profdb ingest [--db FILE] [--run NAME] [--replace] [--format FMT | --pattern REGEX... | "
    "--rules FILE] [--jobs N] INPUT...",
    "Loads PyTorch profiler traces (Kineto JSON, legacy autograd JSON arrays; plain or\n"
    "gzip), pstats dumps and step logs into the database. The format is sniffed from\n"
    "the content. INPUT is a file, '-' for stdin, or a directory whose files are the\n"
    "ranks of one run. Without --run each INPUT becomes a run named after the file;\n"
    "with --run all inputs join that run (e.g. a trace, a pstats dump and a log).\n"
    "Everything lands in one transaction: on any error the database is unchanged.\n"
    "Ctrl-C (SIGINT) or SIGTERM rolls the transaction back and exits with 130 or 143;\n"
    "another ingest into the same database waits for this one (up to 30 s). A new\n"
    "database is built in a hidden folder beside FILE and appears whole at the end.\n"
    "--dry-run reads and checks every input as a real ingest does (same errors, same\n"
    "exit codes), prints the record and skip counts, and stores nothing; without an\n"
    "existing database it creates none. Use it to validate artifacts in CI.\n"
    "Several input files are read by --jobs worker processes (default: one per core),\n"
    "each into a private shard next to the database; the shards are then merged in\n"
    "the one transaction (as 'profdb merge' does). --jobs 1 reads them one by one.\n"
    "Every step log ingest prints how it read the log (its reading; see 'profdb runs\n"
    "--reading') and warns, exit 0, when the reading is weak. --pattern teaches a\n"
    "format: a POSIX extended regular expression with {NAME} fields, e.g.\n"
    "  --pattern 'Ep\\. {epoch} : Up\\. {step} .* Time: {window_time:s}'\n"
    "where {step}, {epoch}, {epoch_step}, {epoch_steps}, {rank} and {timestamp} are\n"
    "counters and other names values as the metric rules know them, with a unit\n"
    "({time:ms}) and an aggregation (mean, mean=N, median=N, avg, ema, clock,\n"
    "cumulative, window) declared after ':'. --rules FILE gives several, one a line:\n"
    "'step: PATTERN', 'val: PATTERN', 'summary: PATTERN', '#' comments. The rules are\n"
    "stored: later ingests of text logs they read, and --replace, use them again\n"
    "('profdb patterns' lists them). See docs/steplogs.md, Teaching a format.",
    "Rank of a trace: distributedInfo.rank, else a number after 'rank' in the file\n"
    "name, else the order of the traces given.",
};

#define RULES_FILE_MAX (1 << 20)

/* The step-log rules --pattern and --rules give, as one rules text (each
 * --pattern is the rule "step: PATTERN"), checked by compiling them before
 * the database is touched; *origin names them in messages. */
static int taught_rules(const pdb_strlist *patterns, const char *file, const char *format,
                        pdb_buf *rules, const char **origin)
{
    if (patterns->n == 0 && !file)
        return PDB_OK;
    if (format)
        return pdb_fail("--format and --pattern/--rules both say how to read: give one");
    for (int i = 0; i < patterns->n; i++) {
        if (strchr(patterns->v[i], '\n'))
            return pdb_fail("--pattern: one line (several rules go in a --rules file)");
        pdb_buf_addf(rules, "step: %s\n", patterns->v[i]);
    }
    *origin = file ? file : "--pattern";
    if (file) {
        FILE *f = fopen(file, "rb");
        if (!f)
            return pdb_fail("%s: cannot open the rules file: %s", file, strerror(errno));
        char buf[8192];
        size_t n, total = 0;
        while ((n = fread(buf, 1, sizeof buf, f)) > 0 && (total += n) <= RULES_FILE_MAX)
            pdb_buf_add(rules, buf, n);
        bool err = ferror(f);
        fclose(f);
        if (err || total > RULES_FILE_MAX)
            return pdb_fail("%s: %s", file, err ? "cannot read the rules file"
                                                 : "a rules file of more than 1 MiB");
        if (memchr(pdb_buf_str(rules), '\0', rules->len))
            return pdb_fail("%s: a rules file is text (it holds a NUL byte)", file);
    }
    while (rules->len && (rules->p[rules->len - 1] == '\n' || rules->p[rules->len - 1] == '\r'))
        rules->p[--rules->len] = '\0'; /* stored as written, without the last line end */
    pdb_sl_patterns *p = pdb_sl_patterns_compile(pdb_buf_str(rules), *origin);
    if (!p)
        return PDB_ERR;
    pdb_sl_patterns_free(p);
    return PDB_OK;
}

/* The default --jobs: the cores this process may run on (a Slurm job step
 * or taskset gets fewer than the machine has), else the cores online. */
static long cores(void)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

int cmd_ingest(int argc, char **argv, pdb_cli *cli)
{
    pdb_ingest_opts o = {0};
    pdb_strlist labels = {0}, patterns = {0};
    const char *rules_file = NULL;
    bool quiet = false, no_analyze = false;
    long jobs = cores();
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli),
        {PDB_OPT_STRING, "run", 'r', &o.run_name, "NAME", "put every input into run NAME"},
        {PDB_OPT_FLAG, "replace", 0, &o.replace, NULL, "replace existing runs of the same name"},
        {PDB_OPT_STRING, "format", 0, &o.format, "FMT",
         "skip sniffing: trace, pstats or steplog[:FLAVOR]"},
        {PDB_OPT_LIST, "label", 'l', &labels, "KEY=VALUE", "attach a label to the run (repeatable)"},
        {PDB_OPT_LIST, "pattern", 'p', &patterns, "REGEX",
         "read step logs with this pattern (repeatable; see below)"},
        {PDB_OPT_STRING, "rules", 0, &rules_file, "FILE", "read step logs with the rules in FILE"},
        {PDB_OPT_FLAG, "quiet", 'q', &quiet, NULL, "print nothing but errors"},
        {PDB_OPT_FLAG, "no-analyze", 0, &no_analyze, NULL,
         "load only; run 'profdb analyze' later for the reports that need it"},
        {PDB_OPT_FLAG, "dry-run", 'n', &o.dry_run, NULL,
         "read and check every input, print what would be stored, store nothing"},
        {PDB_OPT_INT, "jobs", 'j', &jobs, "N",
         "worker processes for several inputs (default: the cores it may use)"},
        {0},
    };
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    if (npos == 0) {
        pdb_fail("no input given (usage: %s)", help.usage);
        return pdb_cli_fail();
    }
    if (jobs < 1 || jobs > 4096) {
        pdb_fail("--jobs must be between 1 and 4096, got %ld", jobs);
        pdb_strlist_free(&labels);
        return pdb_cli_fail();
    }
    pdb_buf rules = PDB_BUF_INIT;
    if (taught_rules(&patterns, rules_file, o.format, &rules, &o.pattern_origin) != PDB_OK) {
        pdb_buf_free(&rules);
        pdb_strlist_free(&labels);
        pdb_strlist_free(&patterns);
        return pdb_cli_fail();
    }
    o.patterns = rules.len ? pdb_buf_str(&rules) : NULL;
    o.jobs = (int)jobs;
    o.labels = labels.v;
    o.nlabels = labels.n;
    o.quiet = quiet;
    o.after_load = no_analyze ? NULL : pdb_cli_after_load;
    sqlite3 *db = NULL;
    pdb_fresh_db *fresh = NULL;
    if (pdb_cli_check_db(cli) != PDB_OK) {
        pdb_strlist_free(&labels);
        pdb_strlist_free(&patterns);
        pdb_buf_free(&rules);
        return pdb_cli_fail();
    }
    pdb_ingest_catch_signals();
    int rc;
    if (o.dry_run && access(cli->db_path, F_OK) != 0)
        rc = pdb_db_open(":memory:", PDB_DB_CREATE, &db); /* checking needs no file */
    else /* a new database is built aside (ingest/shards/fresh_db.h) */
        rc = pdb_fresh_db_open(cli->db_path, &db, &fresh);
    o.private_db = fresh != NULL;
    if (rc == PDB_OK)
        rc = pdb_ingest_paths(db, (const char *const *)argv + 1, npos, &o);
    rc = pdb_fresh_db_close(fresh, db, rc, true, o.replace, quiet);
    pdb_strlist_free(&labels);
    pdb_strlist_free(&patterns);
    pdb_buf_free(&rules);
    if (rc == PDB_OK)
        return PDB_EXIT_OK;
    pdb_cli_fail();
    /* Interrupted: rolled back; exit as the shell reports a signal (128 + N). */
    return pdb_ingest_interrupted() ? 128 + pdb_ingest_interrupted() : PDB_EXIT_ERROR;
}
