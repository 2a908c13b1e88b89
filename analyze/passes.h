/* passes.h: the accumulators the scan feeds (internal to analyze/).
 *
 * scan.c makes one of each per trace, hands every row to them (in start
 * order, see row.h) and has them write their analysis_* rows after the
 * last; each lives in its own file (gpu_pass.c, idle_pass.c, ops_pass.c,
 * attr_pass.c, steps_pass.c; series.h has the ones followed over time).
 * The passes include this and row.h, never the scanner. */
#ifndef PDB_PASSES_H
#define PDB_PASSES_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyze/row.h"

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

/* The collectives of a rank (coll_pass.c): communication kernels staged
 * as the scan meets them (exact-mode GPU rows), analysis_collectives
 * written after it. */
typedef struct pdb_coll_acc pdb_coll_acc;
int pdb_coll_acc_new(sqlite3 *db, int64_t run_id, int rank, pdb_coll_acc **out);
int pdb_coll_acc_add(pdb_coll_acc *a, const pdb_row *r);
int pdb_coll_acc_write(pdb_coll_acc *a);
void pdb_coll_acc_free(pdb_coll_acc *a);

#endif
