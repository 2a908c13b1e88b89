/* sum.h: sums of durations that notice overflow (internal to analyze/).
 *
 * The passes add durations with these; the scan (scan.c) clears the note
 * before a trace and fails the trace's analysis when it is set after. */
#ifndef PDB_SUM_H
#define PDB_SUM_H

#include <stdbool.h>
#include <stdint.h>

/* Adds v to a sum of durations. Each time the store accepts is below 2^62
 * ns in magnitude, so one difference fits in int64, but a sum of many may
 * not: an overflowing sum is noted and fails the analysis of the trace
 * with a message (pdb_analyze_trace) instead of wrapping around. */
void pdb_sum(int64_t *sum, int64_t v);
/* Subtracts v, with the same check. */
void pdb_sum_sub(int64_t *sum, int64_t v);
/* Clears the overflow note (one trace's analysis at a time, on one thread). */
void pdb_sum_clear(void);
/* Whether a sum overflowed since pdb_sum_clear. */
bool pdb_sum_overflowed(void);

#endif
