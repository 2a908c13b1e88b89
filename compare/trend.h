/* trend.h: `profdb trend METRIC...`: one metric over many runs, the runs
 * where its level shifted, and the CI verdict on the newest run.
 *
 * A run's point is its median (and quartiles) of the metric's samples, read
 * exactly as `profdb check` reads them (metrics.h). Those summaries are kept
 * in run_summaries (schemas/60_trend.sql): trend computes a run's summary of
 * a metric the first time it needs it and keeps it, so a history of a
 * thousand runs is one indexed query and never holds more than one run's
 * samples. Change points
 * come from changepoint.h; docs/compare.md describes the whole method. */
#ifndef PDB_TREND_H
#define PDB_TREND_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compare/metrics.h"
#include "render/render.h"

/* How run_summaries rows are computed; rows of another method are computed
 * again (bump it when the metrics' samples or the summary change). */
#define PDB_TREND_METHOD 1

typedef struct pdb_trend_opts {
    const char *by;        /* order by this label's value (NULL: by ingest time) */
    const char *runs;      /* only runs whose name matches this GLOB (NULL: all) */
    long last;             /* only the newest N runs with samples (0: all) */
    double alpha;          /* false-alarm rate of the change points */
} pdb_trend_opts;

/* One run of the history. */
typedef struct pdb_trend_point {
    int64_t run_id;
    char *run;             /* run name */
    char *order;           /* the --by label's value, or the ingest time */
    char *created_at;
    size_t samples;
    double median, q1, q3; /* of the run's samples, in the metric's unit */
    double level;          /* median of the medians of the run's segment */
    int change;            /* index of the change point starting here, or -1 */
    char source[16], what[96];
} pdb_trend_point;

/* A change point: the level of the segment before it and of the one that
 * starts at it (the medians of their runs' medians). */
typedef struct pdb_trend_change {
    size_t at;             /* the first run at the new level */
    size_t from, to;       /* the segment before starts at from; the one after ends before to */
    double before, after;
    double change_pct;     /* (after - before) / before, in % (NAN when before is 0) */
    bool worse;            /* in the metric's bad direction */
    double p;
    bool tail;             /* found by the newest-runs test */
} pdb_trend_change;

typedef struct pdb_trend {
    pdb_metric metric;
    char *spec;            /* the metric as given (owned; metric points into it) */
    const char *unit;      /* "s", "/s", "calls", or the step log's unit ("" for none) */
    pdb_trend_point *pt;   /* oldest first */
    size_t n;
    pdb_trend_change *ch;  /* in run order */
    size_t nch;
    size_t without;        /* runs left out: no samples of the metric */
    size_t unlabelled;     /* runs left out: no --by label */
    size_t older;          /* runs left out by --last */
    size_t mixed;          /* runs whose samples are other values than the newest run's */
    size_t absent;         /* runs that never ran the kernel or op (their steps count 0) */
    /* The newest run of the history (after --runs and --by) when it has no
     * samples and so was left out (run NULL: the newest run has samples):
     * --check refuses to gate an older run in its place. */
    pdb_trend_point newest_without;
    /* With --by: the most recently ingested run without the label (run_id 0:
     * none). --check refuses when it came after every labelled run: the gate
     * would judge an older run in its place. */
    int64_t unlabelled_id;
    char *unlabelled_run;
} pdb_trend;

/* Reads the history of metric spec (computing and storing missing
 * summaries when the database can be written), orders it and finds its
 * change points. A history without a single run that has samples is an
 * error naming what the newest run holds. Free t with pdb_trend_free, also
 * on failure. */
int pdb_trend_load(sqlite3 *db, const char *spec, const pdb_trend_opts *o, pdb_trend *t);
void pdb_trend_free(pdb_trend *t);

/* `trend --check`: does the newest run bring a regression beyond limit_pct
 * to light? The change points found with the newest run are compared with
 * those the earlier histories found (yesterday's, and back to the change
 * point, at most 60); the first one that is new (none in the same direction
 * within one run before) opens the comparison: from the level before it to
 * the current level, a regression when worse by more than the limit.
 * Nothing to gate is an error, not a pass: the newest run has no samples of
 * the metric (an older run would be judged in its place), or only samples
 * from another source than every earlier run's (trace steps where the
 * history has step-log values: a night whose step log went missing). */
typedef struct pdb_trend_verdict {
    bool regression;
    bool inconclusive;     /* too short a history to decide (see pdb_trend_check) */
    double limit_pct;      /* NAN: the metric is not checked */
    int first_new;         /* index in t->ch of the first new change point, or -1 */
    double from, to;       /* level before it, current level */
    double change_pct;     /* to against from, in % */
    char reason[1024];
} pdb_trend_verdict;

int pdb_trend_check(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o, double limit_pct,
                    pdb_trend_verdict *v);

/* ---- output (trend_output.c) ---- */

/* Prints one trend: in table and md a heading, the runs and the change
 * points; in csv, tsv and json one result set: the runs, or with
 * changes_only the change points. */
int pdb_trend_print(sqlite3 *db, const pdb_trend *t, const pdb_trend_opts *o,
                    const pdb_render_opts *r, bool changes_only, FILE *out);
/* The verdict line of --check: "REGRESSION: step_time +10.3% ..." */
void pdb_trend_write_verdict(const pdb_trend *t, const pdb_trend_verdict *v, FILE *out);
/* `trend --out DIR`: DIR/index.md (per metric: the current level, the
 * change points, the chart, the verdict with --check), DIR/trend-N.csv and
 * trend-N-changes.csv, and the charts. verdicts may be NULL. */
int pdb_trend_folder(sqlite3 *db, const pdb_trend *t, int n, const pdb_trend_opts *o,
                     const pdb_trend_verdict *verdicts, const char *dir);

#endif
