/* charts.c: the charts of a run: which ones, and the query behind each
 * (see charts.h; the queries are in report/queries/charts.sql);
 * render/chart.c draws them. Times are drawn in milliseconds. */
#include "report/charts.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "render/chart.h"
#include "report/queries.h"
#include "report/reports.h"
#include "report/thresholds.h"
#include "report/trace_sql.h"
#include "report/shard_guard.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    pdb_chart_spec spec;
    const char *query; /* in report/queries/charts.sql: ?1 run_id, ?2 top, ?3 and ?4 the
                          straggler test's level and minimum effect, ?5 the most ranks
                          drawn one bar each, ?6 and ?7 rank-spread's outlier rule */
    int (*prepare)(sqlite3 *db, int64_t run_id); /* on-demand analysis the query reads */
} chart_def;

static int memory_bw(sqlite3 *db, int64_t run_id)
{
    return pdb_memory_bw_fill(db, run_id, false);
}

static const chart_def charts[] = {
    {{"steps", "Step time by category", "milliseconds", PDB_CHART_STACKED, false, 1},
     "charts.steps", NULL},
    {{"gpu", "GPU time per rank: compute, non-compute, idle", "milliseconds",
      PDB_CHART_SHARES, false, 1},
     "charts.gpu", NULL},
    {{"kernel-types", "GPU busy time per kernel type", "milliseconds", PDB_CHART_SHARES, true,
      1},
     "charts.kernel_types", NULL},
    {{"top-kernels", "Top GPU kernels by total time (all ranks)", "milliseconds", PDB_CHART_HBAR,
      false, 1},
     "charts.top_kernels", NULL},
    {{"top-ops", "Top CPU ops by self time (all ranks; annotations left out)", "milliseconds",
      PDB_CHART_HBAR, false, 1},
     "charts.top_ops", NULL},
    {{"rank-steps", "Mean step time per rank (a straggler by the ranks report's test in red)",
      "milliseconds", PDB_CHART_RANKS, false, 2},
     "charts.rank_steps", NULL},
    {{"rank-hist", "Distribution of the ranks' mean step times", "mean step time (ms)",
      PDB_CHART_HIST, false, 3},
     "charts.rank_hist", NULL},
    {{"step-hist", "Distribution of step times", "step time (ms)", PDB_CHART_HIST, false, 3},
     "charts.step_hist", NULL},
    {{"top-functions", "Top Python functions (pstats) by own time, in their cumulative time",
      "milliseconds", PDB_CHART_HBAR, false, 1},
     "charts.top_functions", NULL},
    {{"phase-steps", "Step-log phase times per step (mean over loaders and ranks)",
      "milliseconds", PDB_CHART_STACKED, true, 1},
     "charts.phase_steps", NULL},
    {{"phase-hist", "Distribution of step times (step logs)", "step time (ms)", PDB_CHART_HIST,
      false, 3},
     "charts.phase_hist", NULL},
    {{"phase-ranks", "Mean step time per rank, step logs (a straggler by the ranks test in red)",
      "milliseconds", PDB_CHART_RANKS, false, 2},
     "charts.phase_ranks", NULL},
    {{"gpu-util", "GPU utilisation over time (nvidia-smi)", "utilisation (%)", PDB_CHART_LINES,
      true, 2},
     "charts.gpu_util", NULL},
    {{"critical-path", "Critical path per iteration by what bounds it (the first 50 per rank)",
      "milliseconds", PDB_CHART_STACKED, true, 1},
     "charts.critical_path", pdb_critical_summary},
    {{"queue-length", "CUDA launch queue length per stream",
      "launches in flight", PDB_CHART_TIMELINE, true, 2},
     "charts.queue_length", NULL},
    {{"memory-bw", "Memory bandwidth per kind (memcpy, memset)", "GB/s",
      PDB_CHART_TIMELINE, true, 2},
     "charts.memory_bw", memory_bw},
    {{"memory", "Memory allocated and reserved per device, the peak marked", "MiB",
      PDB_CHART_TIMELINE, true, 2},
     "charts.memory", NULL},
};

/* Runs one chart's query and draws it; *written says whether it applied. */
static int write_one(sqlite3 *db, const chart_def *d, int64_t run_id, const char *subtitle,
                     const char *dir, long top, bool *written)
{
    sqlite3_stmt *st;
    if (pdb_trace_sql_functions(db) != PDB_OK || (d->prepare && d->prepare(db, run_id) != PDB_OK) ||
        pdb_report_prepare(db, d->query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_int64(st, 2, top);
    if (sqlite3_bind_parameter_count(st) >= 4) {
        sqlite3_bind_double(st, 3, PDB_STRAGGLER_ALPHA);
        sqlite3_bind_double(st, 4, PDB_STRAGGLER_MIN_PCT);
    }
    if (sqlite3_bind_parameter_count(st) >= 5) { /* per-rank charts of many ranks */
        sqlite3_bind_int(st, 5, PDB_CHART_ALL_RANKS);
        sqlite3_bind_double(st, 6, PDB_SPREAD_MADS);
        sqlite3_bind_double(st, 7, PDB_SPREAD_MIN_PCT);
    }
    int rc = pdb_chart_write(st, &d->spec, subtitle, dir, written);
    sqlite3_finalize(st);
    return rc;
}

int pdb_charts_write(sqlite3 *db, int64_t run_id, const char *run_name, const char *dir,
                     long top, pdb_chart_list *made)
{
    size_t n = sizeof charts / sizeof charts[0];
    made->v = pdb_xcalloc(n, sizeof *made->v);
    made->n = 0;
    pdb_buf subtitle = PDB_BUF_INIT;
    if (run_name)
        pdb_buf_addf(&subtitle, "run %s", run_name);
    int rc = PDB_OK;
    for (size_t i = 0; i < n && rc == PDB_OK; i++) {
        const chart_def *d = &charts[i];
        bool written;
        rc = write_one(db, d, run_id, run_name ? subtitle.p : NULL, dir, top > 0 ? top : 15,
                       &written);
        if (rc != PDB_OK && pdb_shard_guard_take()) { /* its events are in shard files */
            rc = PDB_OK;
            written = false;
        }
        if (rc == PDB_OK && written) {
            pdb_chart *c = &made->v[made->n++];
            snprintf(c->name, sizeof c->name, "%s", d->spec.name);
            snprintf(c->title, sizeof c->title, "%s", d->spec.title);
        }
    }
    pdb_buf_free(&subtitle);
    return rc;
}

void pdb_chart_list_free(pdb_chart_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}
