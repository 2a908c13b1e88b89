/* charts.c: the charts of a run: which ones, and the query behind each
 * (see charts.h); render/chart.c draws them. Times are drawn in
 * milliseconds. */
#include "report/charts.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "render/chart.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    pdb_chart_spec spec;
    const char *sql;  /* ?1 run_id, ?2 top */
} chart_def;

/* Summary-block values are not per-step numbers. */
#define PER_STEP_AGG "agg NOT IN ('total', 'mean', 'min', 'max', 'share', 'cumulative', 'epoch_total')"
#define STEPLOG_PHASES                                                                      \
    "p AS (SELECT step, coalesce(loader, '') AS loader, rank, metric, value, agg"             \
    "  FROM steplog_values WHERE run_id = ?1 AND step IS NOT NULL AND value IS NOT NULL"    \
    "  AND unit = 's' AND coalesce(split, 'train') = 'train' AND " PER_STEP_AGG               \
    "  AND metric IN (SELECT metric FROM steplog_metric_rules WHERE is_phase)),"              \
    " a AS (SELECT agg FROM p GROUP BY agg ORDER BY count(*) DESC LIMIT 1)"

static const chart_def charts[] = {
    {{"steps", "Step time by category", "milliseconds", PDB_CHART_STACKED, false, 1},
     "SELECT CASE WHEN (SELECT count(DISTINCT rank) FROM analysis_steps WHERE run_id = ?1) > 1"
     " THEN 'r' || rank || ' ' ELSE '' END || coalesce('#' || step_num, step) AS step,"
     " kernel_ns / 1e6 AS kernel, memcpy_ns / 1e6 AS memcpy, memset_ns / 1e6 AS memset,"
     " runtime_ns / 1e6 AS runtime, dataloader_ns / 1e6 AS dataloader,"
     " cpu_exec_ns / 1e6 AS cpu_exec, other_ns / 1e6 AS other"
     " FROM analysis_steps WHERE run_id = ?1 ORDER BY rank, ts"},
    {{"gpu", "GPU time breakdown per rank", "milliseconds", PDB_CHART_STACKED, false, 1},
     "SELECT 'rank ' || rank AS rank, compute_ns / 1e6 AS compute,"
     " non_compute_ns / 1e6 AS \"non-compute\", idle_ns / 1e6 AS idle"
     " FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact' ORDER BY rank"},
    {{"kernel-types", "GPU time per kernel type", "milliseconds", PDB_CHART_STACKED, true, 1},
     "SELECT 'rank ' || rank, kernel_type, time_ns / 1e6 FROM analysis_kernel_types"
     " WHERE run_id = ?1 AND mode = 'exact'"
     " ORDER BY rank, sum(time_ns) OVER (PARTITION BY kernel_type) DESC, kernel_type"},
    {{"top-kernels", "Top GPU kernels by total time (all ranks)", "milliseconds", PDB_CHART_HBAR, false, 1},
     "SELECT name AS kernel, sum(total_ns) / 1e6 AS \"total time\" FROM analysis_kernels"
     " WHERE run_id = ?1 AND mode = 'exact' GROUP BY name ORDER BY 2 DESC, name LIMIT ?2"},
    {{"top-ops", "Top CPU ops by self time (all ranks)", "milliseconds", PDB_CHART_HBAR, false, 1},
     "SELECT name AS op, sum(self_ns) / 1e6 AS \"self time\" FROM analysis_ops"
     " WHERE run_id = ?1 AND name NOT GLOB 'ProfilerStep#*' GROUP BY name"
     " ORDER BY 2 DESC, name LIMIT ?2"},
    {{"rank-steps", "Mean step time per rank (straggler in red)", "milliseconds", PDB_CHART_RANKS, false, 2},
     "WITH r AS (SELECT rank, avg(dur_ns) / 1e6 AS ms FROM analysis_steps WHERE run_id = ?1"
     " GROUP BY rank)"
     " SELECT 'rank ' || rank, ms AS \"mean step\", ms = max(ms) OVER () AS straggler"
     " FROM r ORDER BY rank"},
    {{"step-hist", "Distribution of step times", "step time (ms)", PDB_CHART_HIST, false, 3},
     "SELECT step, dur_ns / 1e6 AS \"step time\" FROM analysis_steps WHERE run_id = ?1"
     " ORDER BY rank, ts"},
    {{"top-functions", "Top Python functions (pstats) by cumulative time", "milliseconds", PDB_CHART_HBAR,
     false, 1},
     "SELECT std_name, ct * 1e3 AS cumtime, tt * 1e3 AS tottime FROM pstats_functions"
     " WHERE run_id = ?1 AND in_stats ORDER BY ct DESC, ord LIMIT ?2"},
    {{"phase-steps", "Step-log phase times per step (mean over loaders and ranks)",
     "milliseconds", PDB_CHART_STACKED, true, 1},
     "WITH " STEPLOG_PHASES
     " SELECT step, metric, avg(value) * 1e3 FROM p WHERE agg = (SELECT agg FROM a)"
     " AND metric <> 'step_time' GROUP BY step, metric ORDER BY step, metric"},
    {{"phase-hist", "Distribution of step times (step logs)", "step time (ms)", PDB_CHART_HIST, false, 3},
     "WITH " STEPLOG_PHASES ","
     " m AS (SELECT step, metric, avg(value) AS v FROM p WHERE agg = (SELECT agg FROM a)"
     "   GROUP BY step, metric)"
     " SELECT step, 1e3 * CASE WHEN EXISTS (SELECT 1 FROM m WHERE metric = 'step_time')"
     "   THEN max(CASE WHEN metric = 'step_time' THEN v END)"
     "   ELSE sum(v) END AS \"step time\""
     " FROM m GROUP BY step HAVING \"step time\" IS NOT NULL ORDER BY step"},
    {{"phase-ranks", "Mean step time per rank, step logs (straggler in red)", "milliseconds",
     PDB_CHART_RANKS, false, 2},
     "WITH " STEPLOG_PHASES ","
     " m AS (SELECT rank, step, metric, avg(value) AS v FROM p WHERE agg = (SELECT agg FROM a)"
     "   AND rank IS NOT NULL GROUP BY rank, step, metric),"
     " s AS (SELECT rank, step, CASE WHEN EXISTS (SELECT 1 FROM m WHERE metric = 'step_time')"
     "   THEN max(CASE WHEN metric = 'step_time' THEN v END) ELSE sum(v) END AS t"
     "   FROM m GROUP BY rank, step),"
     " r AS (SELECT rank, avg(t) * 1e3 AS ms FROM s WHERE t IS NOT NULL GROUP BY rank)"
     " SELECT 'rank ' || rank, ms AS \"mean step\", ms = max(ms) OVER () AS straggler"
     " FROM r ORDER BY rank"},
    /* x is numeric (seconds), written unquoted: gnuplot reads no numbers
     * from quoted fields. */
    {{"gpu-util", "GPU utilisation over time (nvidia-smi)", "utilisation (%)", PDB_CHART_LINES, true, 2},
     "WITH u AS (SELECT wall_time AS t, coalesce(rank, 0) AS gpu, value FROM steplog_values"
     "   WHERE run_id = ?1 AND metric = 'gpu_util' AND wall_time IS NOT NULL)"
     " SELECT printf('%.3f', t - (SELECT min(t) FROM u)), 'GPU ' || gpu, value FROM u"
     " ORDER BY t, gpu"},
};

/* Runs one chart's query and draws it; *written says whether it applied. */
static int write_one(sqlite3 *db, const chart_def *d, int64_t run_id, const char *subtitle,
                     const char *dir, long top, bool *written)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, d->sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_int64(st, 2, top);
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
