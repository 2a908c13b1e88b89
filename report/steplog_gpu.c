/* steplog_gpu.c: the `gpu-util` report: GPU utilisation and energy per GPU
 * from `nvidia-smi --query-gpu=... --format=csv -l N` logs (or any CSV
 * with a timestamp, a GPU index and utilisation/power columns).
 *
 * Energy is the integral of power.draw over time, each sample's power held
 * until the next sample of the same GPU (sample-and-hold), in W*s and kWh;
 * it is NULL when the query did not include power.draw.
 *
 * nvidia-smi logs carry no step number: when the same run also holds step
 * records with timestamps (Megatron/DeepSpeed/torchtitan lines ingested with
 * --run NAME), a second table joins them by wall-clock time: the samples
 * taken in (previous step's time, this step's time] belong to this step.
 * The queries are in report/queries/steplog_gpu.sql. */
#include "report/steplog_reports.h"
#include "common/error.h"
#include "report/queries.h"

int pdb_report_steplog_gpu(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "gpu-util");
    if (pdb_report_query(ctx, "steplog_gpu.per_gpu") != PDB_OK)
        return PDB_ERR;
    int64_t both = 0;
    if (pdb_report_number(ctx->db, "steplog_gpu.has_step_times", ctx->run_id, &both) != PDB_OK)
        return PDB_ERR;
    if (!both)
        return PDB_OK;
    bool titles = ctx->titles;
    ctx->titles = true;
    pdb_report_title(ctx, "gpu-util by step (samples joined by wall-clock time)");
    ctx->titles = titles;
    return pdb_report_query(ctx, "steplog_gpu.per_step");
}
