/* cmd_trend.c: `profdb trend METRIC...`: metrics over many runs, where
 * their level shifted, and `--check` for the newest run in CI. The history,
 * change points and verdicts are compare/trend.c's; this file parses the
 * command line and wires them together. */
#include "cli/cli.h"
#include "common/query.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "compare/changepoint.h"
#include "compare/check.h"
#include "compare/compare.h"
#include "compare/metrics.h"
#include "compare/trend.h"
#include "report/shard_guard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_METRIC "step_time"
#define TEXT(x) TEXT_(x)
#define TEXT_(x) #x

/* --help's details: how change points are found, then the metrics
 * (compare/metrics.def), wrapped. */
static char details[4096];
static const char details_head[] =
    "change points (docs/compare.md):\n"
    "  split        binary segmentation: the best split of a segment (a clipped,\n"
    "               standardised difference of means), significant when fewer than\n"
    "               alpha/2 of " TEXT(PDB_CP_PERMUTATIONS) " seeded random orderings of the runs\n"
    "               split as well; then both sides again. At least "
    TEXT(PDB_CP_MIN_SEGMENT) " runs a side.\n"
    "  newest runs  the newest run (or two) against the runs of its segment: a\n"
    "               Student t prediction test at alpha/2.\n"
    "  On a history without a shift a change point shows with probability at most\n"
    "  alpha (default " TEXT(PDB_ALPHA) "): for the split test whatever the noise, for the\n"
    "  newest runs when run-to-run noise is normal. Same data, same answer.\n"
    "--check [METRIC=]PCT: the change points found with the newest run are compared\n"
    "  with those found without it; from the level before the first new one to the\n"
    "  current level, worse by more than PCT is a regression (exit 1). PCT as in\n"
    "  check: 5%, +5% or 5. Without METRIC= it applies to every METRIC. A history\n"
    "  too short for change points (2 or 3 runs) judges the newest run against the\n"
    "  one before as 'profdb check' does (REGRESSION, INCONCLUSIVE or PASS); one\n"
    "  run is INCONCLUSIVE. Inconclusive exits 0, or 1 with --fail-inconclusive.\n";

static void fill_details(void)
{
    pdb_buf para = PDB_BUF_INIT, names = PDB_BUF_INIT;
    pdb_metric_names(&names);
    pdb_buf_addf(&para, "metrics: those of 'profdb check' (%s). A run's summary of a metric is "
                        "computed the first time and kept in the database (run_summaries), "
                        "unless it is read-only.", pdb_buf_str(&names));
    /* Lines of at most 80 characters, broken at spaces, indented after the first. */
    size_t n = (size_t)snprintf(details, sizeof details, "%s", details_head);
    const char *p = pdb_buf_str(&para);
    for (int line = 0; *p && n < sizeof details; line++) {
        size_t room = 80 - (line ? 2 : 0), len = strlen(p);
        if (len > room) {
            len = room;
            while (len && p[len] != ' ')
                len--;
            if (!len)
                len = strcspn(p, " ");
        }
        n += (size_t)snprintf(details + n, sizeof details - n, "%s%.*s%s", line ? "  " : "",
                              (int)len, p, p[len] ? "\n" : "");
        p += len + (p[len] == ' ');
    }
    pdb_buf_free(&para);
    pdb_buf_free(&names);
}

static const pdb_cmd_help help = {
    "profdb trend [--db FILE] [--by LABEL] [--runs GLOB] [--last N] [--format FMT] "
    "[--out DIR] [--check [METRIC=]PCT]... [options] [METRIC...]",
    "Shows each METRIC (default " DEFAULT_METRIC ") over the runs of the database: per\n"
    "run the median of its samples (one per step, as 'profdb check' reads them), the\n"
    "quartiles, the level of its segment, and change_point where the level shifted\n"
    "(with the size of the shift); then the change points with the runs on either\n"
    "side. Runs are in ingest order, or ordered by a label given at ingest (--by date\n"
    "for --label date=2024-06-01; numbers by value, other text as text). --out DIR\n"
    "writes DIR/index.md, a chart and CSVs per metric. --check fails (exit 1) when the\n"
    "newest run brings a regression beyond PCT to light.",
    details, /* fill_details() */
};

typedef struct {
    const char *format, *unit, *out, *alpha;
    long width;
    bool changes, fail_inconclusive;
    pdb_strlist checks;
    pdb_trend_opts t;
} trend_opts;

/* The metrics to show: the positional ones and any named in --check
 * METRIC=PCT; the default when neither names one. */
typedef struct {
    const char **spec;
    double *limit;       /* NAN: not checked */
    int n;
    char **owned;        /* METRIC parts of --check METRIC=PCT */
    int nowned;
} metric_list;

static int find_metric(const metric_list *l, const char *spec)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->spec[i], spec) == 0)
            return i;
    return -1;
}

static int add_metric(metric_list *l, const char *spec)
{
    int i = find_metric(l, spec);
    if (i >= 0)
        return i;
    l->spec = pdb_xrealloc(l->spec, (size_t)(l->n + 1) * sizeof *l->spec);
    l->limit = pdb_xrealloc(l->limit, (size_t)(l->n + 1) * sizeof *l->limit);
    l->spec[l->n] = spec;
    l->limit[l->n] = NAN;
    return l->n++;
}

/* --check PCT (every metric) or METRIC=PCT (split at the last '=': op
 * names may hold one). */
static int add_checks(metric_list *l, const pdb_strlist *checks, char **pos, int npos)
{
    bool named = npos > 0;
    for (int i = 0; i < checks->n; i++)
        named |= strchr(checks->v[i], '=') != NULL;
    for (int i = 0; i < npos; i++)
        add_metric(l, pos[i]);
    if (!named)
        add_metric(l, DEFAULT_METRIC);
    int given = l->n;
    for (int i = 0; i < checks->n; i++) {
        const char *arg = checks->v[i], *eq = strrchr(arg, '=');
        double pct;
        if (pdb_check_parse_pct(eq ? eq + 1 : arg, &pct) != PDB_OK)
            return pdb_fail("--check '%s': expected PCT or METRIC=PCT, PCT a percentage such "
                            "as 5%% or 5 (a bare number below 1 is ambiguous: 0.5%% or 50%%)",
                            arg);
        if (!eq) {
            for (int k = 0; k < given; k++)
                l->limit[k] = pct;
            continue;
        }
        if (eq == arg)
            return pdb_fail("--check '%s': expected METRIC=PCT or PCT", arg);
        l->owned = pdb_xrealloc(l->owned, (size_t)(l->nowned + 1) * sizeof *l->owned);
        char *spec = l->owned[l->nowned++] = pdb_xstrndup(arg, (size_t)(eq - arg));
        int k = add_metric(l, spec); /* before indexing: it may move l->limit */
        l->limit[k] = pct;
    }
    return PDB_OK;
}

static int open_db(const pdb_cli *cli, sqlite3 **db)
{
    /* Writable when possible: missing summaries are kept for the next time. */
    if (pdb_cli_open_db(cli, 0, db) == PDB_OK)
        return PDB_OK;
    char first[512];
    snprintf(first, sizeof first, "%s", pdb_errmsg());
    if (pdb_cli_open_db(cli, PDB_DB_READONLY, db) == PDB_OK)
        return PDB_OK;
    return pdb_fail("%s", first);
}

static int run_trend(sqlite3 *db, trend_opts *o, const metric_list *l, bool *regressed)
{
    pdb_render_opts r;
    if (pdb_cli_render_opts(o->format, o->unit, o->width, &r) != PDB_OK)
        return PDB_ERR;
    bool machine = r.format != PDB_OUT_TABLE && r.format != PDB_OUT_MD;
    bool checking = o->checks.n > 0;
    if (machine && l->n > 1 && !o->out && !checking)
        return pdb_fail("several metrics: name one for a machine format, e.g. "
                        "'profdb trend %s --format csv'", l->spec[0]);
    pdb_trend *t = pdb_xcalloc((size_t)l->n, sizeof *t);
    pdb_trend_verdict *v = pdb_xcalloc((size_t)l->n, sizeof *v);
    int rc = PDB_OK;
    for (int i = 0; rc == PDB_OK && i < l->n; i++)
        rc = pdb_trend_load(db, l->spec[i], &o->t, &t[i]);
    for (int i = 0; rc == PDB_OK && i < l->n; i++) {
        v[i].limit_pct = NAN;
        if (isnan(l->limit[i]))
            continue;
        rc = pdb_trend_check(db, &t[i], &o->t, l->limit[i], &v[i]);
        *regressed |= v[i].regression || (v[i].inconclusive && o->fail_inconclusive);
    }
    if (rc == PDB_OK && o->out)
        rc = pdb_trend_folder(db, t, l->n, &o->t, checking ? v : NULL, o->out);
    for (int i = 0; rc == PDB_OK && !o->out && !checking && i < l->n; i++)
        rc = pdb_trend_print(db, &t[i], &o->t, &r, o->changes, stdout);
    for (int i = 0; rc == PDB_OK && checking && i < l->n; i++)
        if (!isnan(l->limit[i]))
            pdb_trend_write_verdict(&t[i], &v[i], stdout);
    for (int i = 0; i < l->n; i++)
        pdb_trend_free(&t[i]);
    free(t);
    free(v);
    return rc;
}

static int setup(trend_opts *o)
{
    o->t.alpha = PDB_ALPHA;
    if (o->alpha && pdb_parse_double("--alpha", o->alpha, &o->t.alpha) != PDB_OK)
        return PDB_ERR;
    if (!(o->t.alpha > 0 && o->t.alpha < 1))
        return pdb_fail("--alpha: expected a number between 0 and 1, got '%s'", o->alpha);
    if (o->t.last < 0)
        return pdb_fail("--last: expected a positive number of runs");
    return PDB_OK;
}

int cmd_trend(int argc, char **argv, pdb_cli *cli)
{
    trend_opts o = {.width = 60};
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli), PDB_OPT_FORMAT(o.format), PDB_OPT_UNIT(o.unit), PDB_OPT_WIDTH(o.width),
        {PDB_OPT_STRING, "by", 0, &o.t.by, "LABEL",
         "order runs by this label's value (default: ingest time)"},
        {PDB_OPT_STRING, "runs", 0, &o.t.runs, "GLOB", "only runs whose name matches GLOB"},
        {PDB_OPT_INT, "last", 'n', &o.t.last, "N", "only the newest N runs that have samples"},
        {PDB_OPT_FLAG, "changes", 0, &o.changes, NULL,
         "print the change points instead of the runs"},
        {PDB_OPT_STRING, "out", 'o', &o.out, "DIR",
         "write DIR/index.md, a chart and CSVs per metric"},
        {PDB_OPT_LIST, "check", 'c', &o.checks, "[METRIC=]PCT",
         "exit 1 when the newest run brings a regression beyond PCT (repeatable)"},
        {PDB_OPT_STRING, "alpha", 0, &o.alpha, "A",
         "false-alarm rate of the change points (default " TEXT(PDB_ALPHA) ")"},
        {PDB_OPT_FLAG, "fail-inconclusive", 0, &o.fail_inconclusive, NULL,
         "exit 1 when a check is inconclusive (a history too short to decide)"},
        {0},
    };
    fill_details();
    int npos, rc = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (rc >= 0)
        return rc;
    metric_list l = {0};
    bool regressed = false;
    sqlite3 *db = NULL;
    rc = setup(&o);
    if (rc == PDB_OK)
        rc = add_checks(&l, &o.checks, argv + 1, npos);
    if (rc == PDB_OK)
        rc = open_db(cli, &db);
    /* runs merged without --full: no metric reads their missing events */
    int64_t shards = 0;
    if (rc == PDB_OK &&
        pdb_db_query_int(db, pdb_common_sql("runs.any_shard_files"), 0, &shards) != PDB_OK)
        rc = PDB_ERR;
    if (rc == PDB_OK && shards)
        pdb_shard_guard_on(db);
    if (rc == PDB_OK)
        rc = run_trend(db, &o, &l, &regressed);
    if (rc != PDB_OK && shards)
        pdb_shard_guard_fail("profdb trend");
    pdb_shard_guard_stop(db);
    pdb_db_close(db);
    for (int i = 0; i < l.nowned; i++)
        free(l.owned[i]);
    free(l.owned);
    free(l.spec);
    free(l.limit);
    pdb_strlist_free(&o.checks);
    if (rc != PDB_OK)
        return pdb_cli_fail();
    return regressed ? PDB_EXIT_FAILED : PDB_EXIT_OK;
}
