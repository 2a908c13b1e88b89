/* metrics.h: the metrics `profdb check` gates on and their samples.
 *
 * A metric is a name (docs/compare.md lists them all) and a direction (a
 * time is worse when higher, a throughput when lower). Its samples are one
 * number per step wherever the data allows it: a step log's per-step values
 * (or its interval means, or running means turned back into interval means),
 * a trace's ProfilerSteps (a step's duration, its time in one category, or
 * the time and launches of one kernel or op in that step). Per-step totals,
 * not per-call durations: a kernel launched 250 times as often with shorter
 * launches is a regression, which per-call durations would call an
 * improvement. */
#ifndef PDB_METRICS_H
#define PDB_METRICS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

/* The metrics: the KIND of each row of metrics.def, in order. */
typedef enum {
#define PDB_METRIC(kind, ...) kind,
#include "compare/metrics.def"
#undef PDB_METRIC
    PDB_METRIC_KINDS      /* how many rows metrics.def has */
} pdb_metric_kind;

typedef struct pdb_metric {
    pdb_metric_kind kind;
    const char *name;      /* phase, op, kernel, type or step-log metric (points into spec) */
    const char *spec;      /* as given: "phase:forward" */
    bool higher_is_worse;
    const char *unit;      /* "s", "/s", "calls"; step-log metrics: their stored unit */
} pdb_metric;

/* One run's samples of a metric. */
typedef struct pdb_samples {
    double *v;
    size_t n;
    const char *source;    /* "step log", "trace steps", ... (static) */
    char what[96];         /* which values: "per-step values", "interval means (window 10)" */
    const char *unit;      /* the data's unit when the metric has none of its own, or NULL */
    double total;          /* sum of the samples */
    bool absent;           /* a kernel or op the run never ran: its steps count 0 */
} pdb_samples;

/* Parses a metric name. Unknown prefixed names are errors; a bare name that
 * is not one of the fixed ones is a step-log metric (loss, mfu, tokens_per_s,
 * mem_max_allocated, ...), its direction from its name. */
int pdb_metric_parse(const char *spec, pdb_metric *m);
/* The metric gated alongside m, or NULL: kernel:NAME brings
 * kernel-calls:NAME, op:NAME brings op-calls:NAME. malloc'd. */
char *pdb_metric_companion(const pdb_metric *m);

/* The run a metric is read from: a schema of the connection ("main", or
 * "tdb" for a second database). */
typedef struct pdb_metric_run {
    sqlite3 *db;
    const char *schema;
    int64_t run_id;
} pdb_metric_run;

/* A row of metrics.def (see there): pdb_metric_rows[kind]. */
typedef enum { PDB_WORSE_HIGHER = 1, PDB_WORSE_LOWER, PDB_WORSE_BY_NAME } pdb_metric_worse;
#define PDB_UNIT_STORED NULL

typedef struct pdb_metric_row {
    pdb_metric_kind kind;
    const char *spec;       /* "step_time", or a prefix ending in ':' ("phase:") */
    const char *arg;        /* a prefix's placeholder ("NAME"), NULL for a name */
    const char *unit;       /* NULL (PDB_UNIT_STORED): the step log's own */
    pdb_metric_worse worse;
    int (*samples)(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out);
    const char *companion;  /* spec of the metric gated alongside, or NULL */
    const char *help;       /* lines for check --help; NULL for a companion */
} pdb_metric_row;

extern const pdb_metric_row pdb_metric_rows[PDB_METRIC_KINDS];

/* Appends the metrics' entries of `profdb check --help` (a line or more
 * each, the name in a column of its own) to out. */
void pdb_metric_help(pdb_buf *out);
/* Appends the metrics as a list ("step_time, throughput, phase:NAME, ...,
 * metric:NAME or a step-log metric name") to out. */
void pdb_metric_names(pdb_buf *out);

/* Reads the samples of m in r (times in seconds, rates per second, counts).
 * No sample is not an error here: n = 0. */
int pdb_metric_samples(const pdb_metric_run *r, const pdb_metric *m, pdb_samples *out);

/* A py-spy function's counts in a run (pyspy:FUNCTION; FUNCTION is a name,
 * or "NAME (FILE)"): the run's samples, those whose stack holds it, and the
 * files that hold a frame of that name. */
typedef struct pdb_pyspy_counts {
    int64_t samples, holding, files;
    bool weighted; /* time-weighted profiles (speedscope evented): no sample counts */
} pdb_pyspy_counts;
int pdb_metric_pyspy_counts(const pdb_metric_run *r, const char *function,
                            pdb_pyspy_counts *out);
void pdb_samples_free(pdb_samples *s);
/* Writes what r can be gated on ("step_time, loss, tokens_per_s"; or what
 * its summaries hold) into buf, for the message when a metric has no
 * samples. */
int pdb_metric_available(const pdb_metric_run *r, char *buf, size_t cap);

#endif
