/* thresholds.h: the limits the insight rules fire on, each defined once.
 *
 * Every rule that compares a number with a limit takes the limit from here:
 * the trace `insights` report binds them into its query, `step-insights`
 * lists them in its rule table, and `rf-report` uses the data-loading one
 * to word its insight the way the rectified-flow profiler does. A finding
 * fires when the value is above the limit. All are percentages but
 * PDB_CP_LAUNCH_GAP_NS and PDB_CP_LAUNCH_CPU_NS. */
#ifndef PDB_THRESHOLDS_H
#define PDB_THRESHOLDS_H

/* Data loading above this share of step time is a bottleneck. It is the
 * rectified-flow profiler's own rule (rf-report words its insight the same
 * way) and the limit the trace and step-log insights use. Used by insights,
 * step-insights and rf-report. */
#define PDB_DATA_LOADING_PCT 15.0

/* Trace insights: aten::copy_ + aten::to above this share of step time. */
#define PDB_COPY_HEAVY_PCT 5.0
/* Trace insights: GPU idle above this share of its kernel time. */
#define PDB_GPU_IDLE_PCT 50.0

/* Trace insights, critical path: a path whose largest part is the GPU
 * waiting between kernels is launch-bound when those gaps are most of the
 * waiting, average at most this many ns (a few launch latencies: longer
 * gaps are syncs or other streams) and are longer on average than the
 * kernels between them. Not a percentage. */
#define PDB_CP_LAUNCH_GAP_NS 50000
/* ... and a CPU-bound path is CPU work of its own, which CUDA graphs and
 * torch.compile do not remove, when its CPU time is more than this many ns
 * per launch in its iterations (or there is no launch): a millisecond is
 * a hundred launches' overhead. Not a percentage. */
#define PDB_CP_LAUNCH_CPU_NS 1000000

/* Trace ranks: a rank is a straggler when the one-sided Mann-Whitney test
 * says its step times are longer than the other ranks' at this level
 * (Bonferroni-corrected over the ranks) and its mean step is at least
 * PDB_STRAGGLER_MIN_PCT above theirs: a difference of a few percent can be
 * real and still not worth a user's time. */
#define PDB_STRAGGLER_ALPHA 0.01
#define PDB_STRAGGLER_MIN_PCT 5.0

/* Trace rank-spread: a rank is named on a measure when its value is more
 * than this many median absolute deviations above the ranks' median ... */
#define PDB_SPREAD_MADS 3.0
/* ... and at least this many percent above the median (ranks of one job
 * that differ by a few percent are not worth naming). */
#define PDB_SPREAD_MIN_PCT 5.0

/* A per-rank chart (gpu, kernel-types, rank-steps, phase-ranks) of a job of
 * more ranks than this draws the ranks at the quantiles of its measure
 * (min, p10, median, p90, max) and the outliers by rank-spread's rule, not
 * one bar per rank, and rank-hist draws the ranks' mean step times as a
 * distribution (report/queries/charts.sql, rank_pick). */
#define PDB_CHART_ALL_RANKS 32

/* Step-log insights (the profilers' own guides): data generation of batch
 * time, host-to-device transfer of step time, peak RAM, peak GPU memory. */
#define PDB_DATA_GENERATION_PCT 30.0
#define PDB_TRANSFER_PCT 10.0
#define PDB_RAM_PCT 85.0
#define PDB_GPU_MEMORY_PCT 90.0

#endif
