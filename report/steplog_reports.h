/* steplog_reports.h: reports over per-step training logs (steplog_values).
 *
 *   metrics        the long table: step, epoch, rank, split, metric, value,
 *                  unit, agg, window, raw_name (--metric NAME filters by
 *                  canonical or raw name)
 *   metric-rules   how raw names map to canonical metrics and phases
 *   phases         per phase: count, total, mean, std, min, p50, p90, p99,
 *                  max, share of step time, other/overhead (--skip-first N)
 *   loaders        per dataloader and phase: mean and imbalance across loaders
 *   throughput     steps/s, samples/s, tokens/s overall and per epoch
 *   scaling        runs labelled gpus=N: speedup and scaling efficiency
 *   step-insights  the seeds' bottleneck rules with the numbers that fired
 *   rf-report      rectified-flow profiler blocks, recomputed from their lines
 *   gpu-util       nvidia-smi samples per GPU: utilisation, memory, energy */
#ifndef PDB_STEPLOG_REPORTS_H
#define PDB_STEPLOG_REPORTS_H

#include "report/reports.h"

int pdb_report_steplog_metrics(pdb_report_ctx *ctx);
int pdb_report_steplog_rules(pdb_report_ctx *ctx);
int pdb_report_steplog_phases(pdb_report_ctx *ctx);
int pdb_report_steplog_loaders(pdb_report_ctx *ctx);
int pdb_report_steplog_throughput(pdb_report_ctx *ctx);
int pdb_report_steplog_scaling(pdb_report_ctx *ctx);
int pdb_report_steplog_insights(pdb_report_ctx *ctx);
int pdb_report_steplog_rf(pdb_report_ctx *ctx);
int pdb_report_steplog_gpu(pdb_report_ctx *ctx);

#endif
