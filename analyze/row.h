/* row.h: one slice as the scan hands it to the analysis passes (internal
 * to analyze/).
 *
 * The scanner (scan.h) makes rows; the passes (passes.h, series.h) read
 * them. Names and categories arrive as string ids and are classified from
 * their text in a fixed-size cache: a row's name and category info, like
 * its values, are valid while that row is fed, and accumulators keep ids
 * and what they need, not pointers. */
#ifndef PDB_ROW_H
#define PDB_ROW_H

#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"
#include "analyze/value.h"

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

#endif
