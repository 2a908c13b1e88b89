/* hta.h: what HTA 0.6 keeps when it loads a trace, for --compat hta.
 *
 * HTA keeps X events that have a category other than 'Trace'; GPU events are
 * those whose stream reads as a number other than -1; when the trace writes
 * fractional (or missing) timestamps it rounds every event inward to whole
 * microseconds, in float64;
 * with two or more ProfilerStep annotations it drops the last step (CPU
 * events starting at or after its start, and GPU events whose correlation
 * matches no kept CPU event). */
#ifndef PDB_HTA_H
#define PDB_HTA_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "analyze/value.h"
#include "common/strbuf.h"

#define PDB_HTA_US 1000 /* HTA's unit, in profdb's nanoseconds */

typedef struct pdb_hta_mode {
    bool round;       /* round timestamps inward to whole microseconds */
    bool drop_last;   /* drop the last profiler step */
    int64_t cutoff;   /* its (rounded) start, ns */
    bool has_row0;    /* the file's first event is one HTA keeps (its row 0)... */
    int64_t row0_ts;  /* ...starting then (rounded), ns: HTA's idle time breakdown joins
                         a kernel whose launch is not in the trace (correlation >= 0,
                         index_correlation 0) to row 0 and takes its start for the launch */
} pdb_hta_mode;

int pdb_hta_settings(sqlite3 *db, int64_t trace_id, pdb_hta_mode *m);
/* HTA's rounding of an event (ns in, whole microseconds as ns out), in
 * float64 as pandas does it: t = float(ts text), d = float(dur text),
 * start = ceil(t), end = floor(t + d). At 1.7e15 us a float64 is only
 * a quarter of a microsecond apart, so this is not exact decimal rounding. */
void pdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end);
/* ceil(float(ts text)), as ns. */
int64_t pdb_hta_ceil(int64_t ts);

/* A stream arg as HTA reads it: pd.to_numeric(errors="coerce"), NaN -> -1,
 * truncated to an integer. HTA's GPU events are those whose value is not -1. */
int64_t pdb_hta_stream(sqlite3_value *stream);
/* The same for a value the scan read. */
int64_t pdb_hta_stream_val(const pdb_val *stream);

/* Registers hta_start(ts, round), hta_end(ts, dur, round) (an event's
 * start and end in ns as HTA rounds them when round is true) and
 * hta_stream(stream) (HTA's stream number, -1: not a GPU event) on db. */
int pdb_hta_sql_functions(sqlite3 *db);

/* HTA's shorten_name: template and argument lists dropped, the last
 * space-separated word kept; memory kernels and plain names unchanged. */
void pdb_hta_shorten_name(const char *name, pdb_buf *out);
/* HTA's is_comm_kernel: ^nccl, ^hip, ^hccl, or ncclKernel anywhere. */
bool pdb_hta_comm_name(const char *name);

/* HTA's GPU time arithmetic (hta_time.c). */
typedef struct {
    bool any, open;
    int64_t start, end, cummax;  /* the open group, running max of ends */
    int64_t first_start, last_end, total;
} pdb_hta_merge;

typedef struct {
    int64_t t;
    int d[3];                    /* +1 / -1 per type at this time */
} pdb_hta_point;

typedef struct pdb_hta_time {
    pdb_hta_merge all, type[3];  /* all GPU events; COMPUTATION, COMMUNICATION, MEMORY */
    pdb_hta_point *pending;      /* boundaries not yet swept, by time */
    int npending, cap;
    bool swept_any;
    int64_t t;                   /* swept up to here */
    int64_t run[3];              /* running sums per type */
    int64_t type_time[8];        /* by (running sum & 7) */
    int64_t overlap;
} pdb_hta_time;

typedef struct {
    int64_t kernel_time, busy, compute, comm, overlap;
    int64_t type_time[8];        /* by kernel-type mask (bit i = pdb_kernel_type i) */
} pdb_hta_gpu_time;

/* Events by start (rounded, nondecreasing); kt is HTA's kernel type. */
void pdb_hta_time_add(pdb_hta_time *h, pdb_kernel_type kt, int64_t start, int64_t end);
void pdb_hta_time_finish(pdb_hta_time *h);
void pdb_hta_time_results(const pdb_hta_time *h, pdb_hta_gpu_time *out);
void pdb_hta_time_free(pdb_hta_time *h);

#endif
