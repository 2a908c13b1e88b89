/* scan.h: one pass over a trace's slices in start order, shared by the
 * analysis passes (internal to analyze/).
 *
 * scan.c runs a single query per trace and hands every row to accumulators
 * (GPU time, idle time, CPU ops, steps), so the table is read once. Names and
 * categories arrive as string ids and are classified once per id. */
#ifndef PDB_SCAN_H
#define PDB_SCAN_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/analyze.h"

typedef struct {
    char *text;
    pdb_kernel_type kt;     /* as a GPU event name */
    pdb_kernel_type kt_hta; /* the same by HTA's rule */
    bool profiler_step;     /* "ProfilerStep#N" */
    bool dataloader;        /* mentions DataLoader */
    bool memset;            /* a Memset (vs Memcpy) */
} pdb_name_info;

typedef struct {
    char *text;
    bool cpu_side;          /* runtime, driver, op, annotation: never a GPU event */
    bool runtime;           /* cuda_runtime, cuda_driver, hip_runtime */
    bool trace;             /* the profiler's own 'Trace' span */
    bool gpu_annotation;    /* 'gpu_*' categories other than copies/sets */
    bool hta_idle;          /* kernel, gpu_memcpy, gpu_memset, mtia_ccp_events */
} pdb_cat_info;

typedef struct pdb_row {
    int64_t ts, dur;
    int64_t name_id, cat_id;        /* cat_id 0: no category */
    const pdb_name_info *name;
    const pdb_cat_info *cat;        /* NULL: no category */
    sqlite3_value *stream, *pid, *tid;
    const char *dims;               /* Input Dims JSON or "" */
    bool ph_x;
    bool gpu;                       /* a GPU event in exact mode */
    bool has_launch;
    int64_t launch;                 /* start of the launching runtime call */
} pdb_row;

/* GPU time: sweep by kernel type and per-kernel statistics. */
typedef struct pdb_gpu_acc pdb_gpu_acc;
pdb_gpu_acc *pdb_gpu_acc_new(bool hta);
void pdb_gpu_acc_add(pdb_gpu_acc *a, const pdb_row *r, int64_t start, int64_t end);
int pdb_gpu_acc_write(pdb_gpu_acc *a, sqlite3 *db, int64_t run_id, int rank, const char *mode);
void pdb_gpu_acc_free(pdb_gpu_acc *a);

/* GPU idle time per stream. */
typedef struct pdb_idle_acc pdb_idle_acc;
pdb_idle_acc *pdb_idle_acc_new(bool hta);
void pdb_idle_acc_add(pdb_idle_acc *a, sqlite3_value *stream, int64_t start, int64_t end,
                      bool has_launch, int64_t launch);
int pdb_idle_acc_write(pdb_idle_acc *a, sqlite3 *db, int64_t run_id, int rank);
void pdb_idle_acc_free(pdb_idle_acc *a);

/* CPU operators with self time. */
typedef struct pdb_ops_acc pdb_ops_acc;
pdb_ops_acc *pdb_ops_acc_new(void);
void pdb_ops_acc_add(pdb_ops_acc *a, const pdb_row *r);
int pdb_ops_acc_write(pdb_ops_acc *a, sqlite3 *db, int64_t run_id, int rank);
void pdb_ops_acc_free(pdb_ops_acc *a);

/* Step windows split by category. */
typedef struct pdb_steps_acc pdb_steps_acc;
int pdb_steps_acc_new(sqlite3 *db, int64_t trace_id, pdb_steps_acc **out);
void pdb_steps_acc_add(pdb_steps_acc *a, const pdb_row *r);
int pdb_steps_acc_write(pdb_steps_acc *a, sqlite3 *db, int64_t run_id, int rank);
void pdb_steps_acc_free(pdb_steps_acc *a);

/* Values of pid, tid or stream as hashable bytes (type tag + value). */
void pdb_value_key(sqlite3_value *v, char *buf, size_t cap, size_t *len);

#endif
