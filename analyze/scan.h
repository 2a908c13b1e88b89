/* scan.h: one pass over a trace's slices in start order, shared by the
 * analysis passes (internal to analyze/).
 *
 * scan.c reads the trace's slices once, with a single query (scan_rows.c),
 * and hands every row to accumulators (GPU time, idle time, CPU ops, steps).
 * Names and categories arrive as string ids and are classified from their
 * text in a fixed-size cache: a row's name and category info, like its
 * values, are valid while that row is fed, and accumulators keep ids and
 * what they need, not pointers. */
#ifndef PDB_SCAN_H
#define PDB_SCAN_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "analyze/value.h"
#include "common/strbuf.h"

/* Op families measured by their outermost calls (a call inside another
 * call of its family is not counted again): copies (aten::to ->
 * aten::_to_copy -> aten::copy_) and device-to-host syncs (aten::item ->
 * aten::_local_scalar_dense -> cudaMemcpyAsync + cudaStreamSynchronize;
 * explicit synchronize calls). */
enum { PDB_FAMILY_NONE, PDB_FAMILY_COPY, PDB_FAMILY_SYNC, PDB_FAMILY_COUNT };

/* What the passes need to know of a name or category, decided once from
 * its text; the text itself is read from strings when a row is written. */
typedef struct {
    pdb_kernel_type kt;     /* as a GPU event name */
    pdb_kernel_type kt_hta; /* the same by HTA's rule */
    bool profiler_step;     /* "ProfilerStep#N" */
    bool dataloader;        /* mentions DataLoader */
    bool memset;            /* a Memset (vs Memcpy) */
    bool module;            /* "nn.Module: ..." (python_function of with_modules) */
    int family;             /* PDB_FAMILY_*: ops whose nesting findings must not add */
    bool device_sync;       /* "Event Sync" or "Context Sync" (stream -1, still GPU work) */
    bool memory_filtered;   /* left out of the memory view (pdb_memory_filtered_name) */
    bool hta_launch;        /* a runtime launch for HTA's queue length (pdb_queue_launch_name) */
} pdb_name_info;

typedef struct {
    bool cpu_side;          /* runtime, driver, op, annotation: never a GPU event */
    bool runtime;           /* cuda_runtime, cuda_driver, hip_runtime */
    bool trace;             /* the profiler's own 'Trace' span */
    bool gpu_annotation;    /* 'gpu_*' categories other than copies/sets */
    bool hta_idle;          /* kernel, gpu_memcpy, gpu_memset, mtia_ccp_events */
    bool op;                /* cpu_op, or Operator as older profilers wrote it */
    bool annotation;        /* user_annotation (record_function ranges) */
    bool gpu_range;         /* gpu_user_annotation (those ranges on the GPU timeline) */
    bool python;            /* python_function */
} pdb_cat_info;

typedef struct pdb_row {
    int64_t id;                     /* slices.id */
    int64_t ts, dur;
    int64_t name_id, cat_id;        /* cat_id 0: no category */
    const pdb_name_info *name;
    const pdb_cat_info *cat;        /* NULL: no category */
    pdb_val stream, pid, tid;
    const char *dims;               /* Input Dims JSON or "" */
    bool ph_x;
    bool gpu;                       /* a GPU event in exact mode */
    bool has_corr;
    int64_t corr;                   /* args.correlation */
    int64_t launches;               /* a CPU-side row that is the first of its correlation:
                                       how many GPU events it launched, else 0 */
    bool in_step;
    int64_t step;                   /* the ProfilerStep number whose window holds ts */
    int64_t step_idx;               /* that window's place in start order (0, 1, ...) */
    bool has_launch;
    int64_t launch;                 /* start of the launching runtime call */
    int64_t launch_id;              /* its slices.id */
} pdb_row;

/* String ids (-1: none) of what encloses a launch (attr_pass.c). */
typedef struct {
    int64_t op, top_op, annotation, module;
} pdb_ctx_names;

typedef struct pdb_steps_acc pdb_steps_acc;

/* GPU time: sweep by kernel type and per-kernel statistics. With exact
 * given, the new one is hta mode's and keeps its per-kernel statistics in
 * exact's store (so it is not used once exact is freed); writing it, after
 * exact, writes both modes' per-kernel rows. */
typedef struct pdb_gpu_acc pdb_gpu_acc;
int pdb_gpu_acc_new(sqlite3 *db, pdb_gpu_acc *exact, pdb_gpu_acc **out);
void pdb_gpu_acc_add(pdb_gpu_acc *a, const pdb_row *r, int64_t start, int64_t end);
int pdb_gpu_acc_write(pdb_gpu_acc *a, sqlite3 *db, int64_t run_id, int rank, const char *mode);
void pdb_gpu_acc_free(pdb_gpu_acc *a);

/* GPU idle time per stream. */
typedef struct pdb_idle_acc pdb_idle_acc;
int pdb_idle_acc_new(sqlite3 *db, bool hta, pdb_idle_acc **out);
void pdb_idle_acc_add(pdb_idle_acc *a, const pdb_val *stream, int64_t start, int64_t end,
                      bool has_launch, int64_t launch);
int pdb_idle_acc_write(pdb_idle_acc *a, sqlite3 *db, int64_t run_id, int rank);
void pdb_idle_acc_free(pdb_idle_acc *a);

/* CPU operators with self time, per-step op totals (written as steps end),
 * and the contexts GPU time is attributed to. */
typedef struct pdb_ops_acc pdb_ops_acc;
int pdb_ops_acc_new(sqlite3 *db, int64_t run_id, int rank, pdb_steps_acc *steps,
                    pdb_ops_acc **out);
int pdb_ops_acc_add(pdb_ops_acc *a, const pdb_row *r);
/* The context node of the frames enclosing the row just added (-1: none)
 * and the slices.id of the innermost op among them (-1: none). */
int64_t pdb_ops_acc_context(pdb_ops_acc *a, int64_t *op_slice);
/* Adds GPU time launched from a context. */
void pdb_ops_acc_gpu(pdb_ops_acc *a, int64_t node, int64_t dur);
/* The names of a context (module paths are interned in strings). */
int pdb_ops_acc_names(pdb_ops_acc *a, int64_t node, pdb_ctx_names *out);
int pdb_ops_acc_write(pdb_ops_acc *a);
void pdb_ops_acc_free(pdb_ops_acc *a);

/* Attribution of GPU events to what launched them (attr_pass.c). */
typedef struct pdb_attr_acc pdb_attr_acc;
int pdb_attr_acc_new(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, pdb_ops_acc *ops,
                     pdb_attr_acc **out);
/* A CPU-side row with launches > 0, right after pdb_ops_acc_add. */
int pdb_attr_launcher(pdb_attr_acc *a, const pdb_row *r);
/* Fills has_launch, launch and launch_id of a row with a correlation. */
int pdb_attr_resolve(pdb_attr_acc *a, pdb_row *r);
/* An exact-mode GPU event: its attribution row. */
int pdb_attr_gpu(pdb_attr_acc *a, const pdb_row *r);
/* A kernel or a gpu_user_annotation range on HTA's terms (hta_kernel: HTA's
 * GPUKernelFilter; times rounded), for the hta rows of analysis_annotations. */
void pdb_attr_hta_kernel(pdb_attr_acc *a, const pdb_row *r, int64_t start, int64_t end);
/* Annotation ranges (user_annotation, gpu_user_annotation) in either mode. */
int pdb_attr_range(pdb_attr_acc *a, const pdb_row *r, bool hta, int64_t start, int64_t end);
/* After the scan: GPU events that came before their launcher get its
 * context (and their time reaches the ops: call before pdb_ops_acc_write). */
int pdb_attr_acc_finish(pdb_attr_acc *a);
/* analysis_annotations (after pdb_ops_acc_write, whose rows it reads). */
int pdb_attr_acc_write(pdb_attr_acc *a);
void pdb_attr_acc_free(pdb_attr_acc *a);

/* Step windows split by category. */
int pdb_steps_acc_new(sqlite3 *db, int64_t trace_id, pdb_steps_acc **out);
void pdb_steps_acc_add(pdb_steps_acc *a, const pdb_row *r);
int pdb_steps_acc_write(pdb_steps_acc *a, sqlite3 *db, int64_t run_id, int rank);
/* The number of the ProfilerStep whose window holds ts and the window's
 * place in start order (ts nondecreasing from call to call, and called for
 * every row before pdb_steps_acc_add); false outside every step. */
bool pdb_steps_acc_step_at(pdb_steps_acc *a, int64_t ts, int64_t *step, int64_t *idx);
/* Adds an outermost call of an op family (PDB_FAMILY_*) to the window
 * numbered idx (by pdb_steps_acc_step_at). */
void pdb_steps_acc_family(pdb_steps_acc *a, int64_t idx, int family, int64_t dur);
void pdb_steps_acc_free(pdb_steps_acc *a);

/* Adds v to a sum of durations. Each time the store accepts is below 2^62
 * ns in magnitude, so one difference fits in int64, but a sum of many may
 * not: an overflowing sum is noted and fails the analysis of the trace
 * with a message (pdb_analyze_trace) instead of wrapping around. */
void pdb_sum(int64_t *sum, int64_t v);
/* Subtracts v, with the same check. */
void pdb_sum_sub(int64_t *sum, int64_t v);

/* The trace's slices in start order (scan_rows.c), read on connection db:
 * the launchers are found first (a temporary table on db), then one query
 * runs. A row and what it points to are valid until the next call. */
typedef struct pdb_scan_rows pdb_scan_rows;
int pdb_scan_rows_open(sqlite3 *db, int64_t trace_id, pdb_scan_rows **out);
/* 1: *r is the next row; 0: the end; PDB_ERR: a database error. */
int pdb_scan_rows_next(pdb_scan_rows *s, pdb_row *r);
void pdb_scan_rows_close(pdb_scan_rows *s);

/* The trace's launchers (launchers.c): the first CPU-side event of each
 * correlation that has GPU events, with their number. Made before the scan
 * query is prepared (it creates a temporary table). */
typedef struct pdb_launchers pdb_launchers;
int pdb_launchers_new(sqlite3 *db, int64_t trace_id, pdb_launchers **out);
/* *gpu: the GPU events the row (ts, id) launches, 0 if it is no launcher.
 * Rows come in the scan's order. */
int pdb_launchers_of(pdb_launchers *l, int64_t ts, int64_t id, int64_t *gpu);
void pdb_launchers_free(pdb_launchers *l);

#endif
