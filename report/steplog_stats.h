/* steplog_stats.h: distributions of per-step phase times (steplog_values).
 *
 * Reports need count, total, mean, std, min, percentiles and max per phase,
 * never mixing aggregation kinds (a per-step value and a mean over ten steps
 * are different quantities). This pass computes them for one run into the
 * connection's TEMP schema, so it works on a read-only database too. */
#ifndef PDB_STEPLOG_STATS_H
#define PDB_STEPLOG_STATS_H

#include <sqlite3.h>
#include <stdint.h>

/* Fills temp.steplog_phase_stats for run_id: one row per (split, loader,
 * metric, agg) of the phase metrics (steplog_metric_rules.is_phase) with
 * columns split, loader, metric, agg, window, count, total_s, mean_s,
 * std_s (population), min_s, p50_s, p90_s, p99_s (nearest rank), max_s,
 * share_pct (of the step_time total of the same split/loader/agg, else of
 * the sum of phases) and an 'other/overhead' row (step time minus the sum of
 * phases) where a step time exists. Steps among the first skip_first
 * distinct step numbers are left out. Summary-block values (agg total, mean,
 * min, max, share) are not distributions and are left out. */
int pdb_steplog_phase_stats(sqlite3 *db, int64_t run_id, long skip_first);

/* Registers sqrt() on the connection (SQLite's math functions are optional). */
void pdb_steplog_sql_functions(sqlite3 *db);

#endif
