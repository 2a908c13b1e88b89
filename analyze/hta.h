/* hta.h: what HTA 0.6 keeps when it loads a trace, for --compat hta.
 *
 * HTA keeps X events that have a category other than 'Trace'; GPU events are
 * those with an integer stream; when the trace writes fractional (or
 * missing) timestamps it rounds every event inward to whole microseconds;
 * with two or more ProfilerStep annotations it drops the last step (CPU
 * events starting at or after its start, and GPU events whose correlation
 * matches no kept CPU event). */
#ifndef PDB_HTA_H
#define PDB_HTA_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct pdb_hta_mode {
    bool round;       /* round timestamps inward to whole microseconds */
    bool drop_last;   /* drop the last profiler step */
    int64_t cutoff;   /* its (rounded) start, ns */
} pdb_hta_mode;

int pdb_hta_settings(sqlite3 *db, int64_t trace_id, pdb_hta_mode *m);
/* HTA's rounding, in floating point as Python does: ceil(ts), floor(ts + dur). */
void pdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end);

#endif
