/* charts.h: the gnuplot charts of a run.
 *
 * Each chart is NAME.gp (a script users can restyle) and NAME.dat (its data,
 * labels included), written into one folder; running `gnuplot NAME.gp` in
 * that folder draws NAME.png (pngcairo) and NAME.svg. A chart whose data the
 * run does not have (no GPU events, no steps, no pstats) is not written.
 *
 *   steps          trace: per-step time stacked by category (analysis_steps)
 *   gpu            trace: GPU temporal breakdown per rank (analysis_gpu)
 *   kernel-types   trace: GPU time per kernel type per rank
 *   top-kernels    trace: top-N kernels by total time (summed over ranks),
 *                  short names, share and kind
 *   top-ops        trace: top-N CPU ops by self time (summed over ranks)
 *   rank-steps     trace: mean step time per rank, the straggler marked
 *   step-hist      trace: distribution of step times
 *   top-functions  pstats: top-N functions by own time (tottime), inside
 *                  their cumulative time
 *   phase-steps    step logs: per-step phase times, stacked
 *   phase-hist     step logs: distribution of step times (step_time, else
 *                  the sum of the phases)
 *   phase-ranks    step logs with 2+ ranks: mean step time per rank, a
 *                  straggler by the ranks report's test marked
 *   gpu-util       nvidia-smi logs: utilisation per GPU over time
 *   critical-path  trace: each iteration's critical path by what bounds it (the
 *                  first 50, computed on demand)
 *   queue-length   trace: the CUDA launch queue of each stream over time
 *   memory-bw      trace: memcpy/memset bandwidth per kind over time
 *   memory         profile_memory traces: allocated and reserved memory per
 *                  device over time, the peak marked */
#ifndef PDB_CHARTS_H
#define PDB_CHARTS_H

#include <sqlite3.h>
#include <stdint.h>

#include "render/chart.h"

typedef struct pdb_chart_list {
    pdb_chart *v;
    int n;
} pdb_chart_list;

/* Writes every chart that applies to the run into dir (which exists) and
 * lists them in *made (free with pdb_chart_list_free). top: bars in top-N
 * charts (<= 0: 15). Returns PDB_OK or PDB_ERR. */
int pdb_charts_write(sqlite3 *db, int64_t run_id, const char *run_name, const char *dir,
                     long top, pdb_chart_list *made);
void pdb_chart_list_free(pdb_chart_list *l);

#endif
