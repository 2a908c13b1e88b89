/* op_kernels.h: on-demand analyses of the kernels each CPU op launches
 * (op_kernels.c): the delay from an op's start to its first launch and
 * from that launch to its kernel, per op and kernel sequence (HTA's
 * get_aten_op_kernels_and_delay), and the frequent kernel sequences below
 * an operator (HTA's get_frequent_cuda_kernel_sequences).
 *
 * Both stream one trace in start order and keep the ops open at once and
 * the distinct (op, sequence) pairs, not the trace. */
#ifndef PDB_OP_KERNELS_H
#define PDB_OP_KERNELS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int rank;
    const char *op;
    const char *sequence;        /* kernel names joined by " -> " (delays) or "|" (patterns) */
    int64_t count;               /* op instances with this sequence */
    int64_t kernels;             /* kernels in the sequence */
    double op_delay_ns;          /* delays: mean of (first launch start - op start) */
    double runtime_delay_ns;     /* delays: mean of (its kernel's start - launch start) */
    int64_t gpu_ns, cpu_ns;      /* patterns: summed kernel and op durations */
} pdb_op_kernels_row;

typedef int (*pdb_op_kernels_fn)(void *arg, const pdb_op_kernels_row *row);

/* Per op instance: the kernels of its launches in launch order, and the
 * delays of its first launch, aggregated per (op name, kernel sequence).
 * exact: the innermost op around each launch on its thread (the
 * attribution), every kernel, copy and set; hta: HTA's rules (the aten::
 * op of any thread that encloses the launch and starts last; launches
 * named cuda*LaunchKernel, cuLaunchKernel, runFunction; HTA's event set).
 * When HTA fails on the trace, *why says how and nothing is emitted. */
int pdb_op_delays(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, bool hta,
                  pdb_op_kernels_fn fn, void *arg, const char **why);

/* Frequent kernel sequences: the outermost ops whose name contains op_name
 * (hta: HTA's call-stack depth, the smallest among all matches) with at
 * least min_len kernels below them; per pattern (op name and kernel names
 * in start order): count, summed kernel and op time. */
int pdb_kernel_sequences(sqlite3 *db, int64_t trace_id, int rank, bool hta, const char *op_name,
                         int min_len, pdb_op_kernels_fn fn, void *arg, const char **why);

#endif
