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

/* SQL condition on slices aliased s: HTA keeps the event. */
#define PDB_HTA_KEPT "s.ph = 'X' AND s.cat IS NOT NULL" \
    " AND s.cat NOT IN (SELECT id FROM strings WHERE value = 'Trace')"

/* SQL condition on GPU slices aliased s, with ?1 = trace_id, ?2 = cutoff or
 * NULL, ?3 = rounding flag: launched within the kept profiler steps. */
#define PDB_HTA_LAUNCHED \
    "(?2 IS NULL OR s.correlation IN (SELECT s.correlation FROM slices s" \
    "   WHERE s.trace_id = ?1 AND " PDB_HTA_KEPT " AND typeof(s.stream) <> 'integer'" \
    "   AND (CASE WHEN ?3 THEN (s.ts + 999) / 1000 * 1000 ELSE s.ts END) < ?2))"

typedef struct pdb_hta_mode {
    bool round;       /* round timestamps inward to whole microseconds */
    bool drop_last;   /* drop the last profiler step */
    int64_t cutoff;   /* its (rounded) start, ns */
} pdb_hta_mode;

int pdb_hta_settings(sqlite3 *db, int64_t trace_id, pdb_hta_mode *m);
/* Binds ?2 and ?3 of a statement using PDB_HTA_LAUNCHED. */
void pdb_hta_bind(sqlite3_stmt *st, const pdb_hta_mode *m);
/* HTA's rounding, in floating point as Python does: ceil(ts), floor(ts + dur). */
void pdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end);

#endif
