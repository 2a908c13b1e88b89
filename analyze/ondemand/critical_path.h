/* critical_path.h: the critical path of a window of a trace (an iteration),
 * computed on demand (critical_path.c).
 *
 * The graph is HTA's (CPGraph, HTA 0.6): every CPU op and runtime call and
 * every GPU event with a launch becomes two nodes, its start and end; edges
 * follow each CPU thread's call stack, the CUDA runtime lock shared by
 * cudaLaunchKernel, cudaMemcpyAsync and cudaHostAlloc, the kernels of each
 * stream in order, the launch of a kernel onto an empty queue, and the
 * synchronisations (stream, context and event syncs, stream waits). An
 * edge's weight is the time between its nodes (0 for dependencies and
 * syncs); the critical path is the heaviest path, and each edge on it is
 * bound by the CPU, GPU computation or communication, launch overhead or
 * the gap between kernels.
 *
 * Bounded: a window's graph holds the window's events (an iteration's, by
 * default), not the trace's. Reading the window costs a range of the
 * (trace, ts) index and a correlation lookup per launch; the queue lengths
 * the kernel edges need come from one sorted pass over the trace's launches
 * and GPU events into a temporary table (pdb_cp_open), shared by every
 * window of the trace (for a few windows, the pass stops after the last
 * point they need). A correlation shared by many events is read once, not
 * by each window (read_links). */
#ifndef PDB_CRITICAL_PATH_H
#define PDB_CRITICAL_PATH_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* HTA's CPEdgeType. */
enum { PDB_CP_OPERATOR, PDB_CP_DEPENDENCY, PDB_CP_LAUNCH, PDB_CP_KERNEL_KERNEL, PDB_CP_SYNC,
       PDB_CP_EDGE_TYPES };
/* HTA's BoundType, and '' (PDB_CP_UNBOUND) for dependency and sync edges. */
enum { PDB_CP_UNBOUND, PDB_CP_CPU, PDB_CP_DATA_LOADING, PDB_CP_GPU_COMPUTE, PDB_CP_GPU_COMM,
       PDB_CP_LAUNCH_OVERHEAD, PDB_CP_KERNEL_KERNEL_OVERHEAD, PDB_CP_BOUNDS };

/* HTA's names: "critical_path_operator", ...; "cpu_bound", ... ("" unbound). */
const char *pdb_cp_edge_name(int type);
const char *pdb_cp_bound_name(int bound);

typedef struct {
    bool hta;                  /* HTA's event set, rounding and orders; else the trace as written */
    bool zero_weight_launch;   /* HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE */
    bool whole;                /* the whole trace (HTA's annotation "") */
    int64_t start, end;        /* else the window: events starting in [start, end], ns */
} pdb_cp_window;

/* A node of the path and the edge from it to the next node. */
typedef struct {
    int64_t node;              /* HTA's node id: position in the sorted node list */
    int64_t slice_id;          /* the event (slices.id) */
    int64_t ts;                /* ns */
    bool is_start;
    int edge_type;             /* -1 on the last node */
    int64_t weight_ns;         /* the edge's own weight (HTA's CPEdge.weight) */
    int64_t edge_slice_id;     /* the event the edge is attributed to, -1: none */
    int bound;
} pdb_cp_step;

typedef struct {
    bool ok;
    const char *why;           /* when not ok: why there is no path */
    int64_t nodes, graph_nodes, edges, clipped;
    int64_t length_ns;         /* the path's weight in the graph (-1 us edges count 0) */
    int64_t object_length_ns;  /* the sum of its edges' own weights */
    int64_t path_nodes, critical_events, first_ts, last_ts;
    int64_t bound_ns[PDB_CP_BOUNDS], bound_edges[PDB_CP_BOUNDS];
    int64_t type_ns[PDB_CP_EDGE_TYPES], type_edges[PDB_CP_EDGE_TYPES];
} pdb_cp_result;

typedef int (*pdb_cp_step_fn)(void *arg, const pdb_cp_step *s);

typedef struct pdb_cp pdb_cp;
/* Prepares the analysis of one trace (queue lengths, the trace's stream
 * waits); the caller may run several windows, then closes. few: the caller
 * runs a few windows (one instance, the first N), so the queue lengths are
 * computed up to the latest point a window needs, when it needs it, not
 * for the whole trace at once (the same values either way). */
int pdb_cp_open(sqlite3 *db, int64_t trace_id, bool hta, bool few, pdb_cp **out);
/* The critical path of a window; step (may be NULL) receives the path. A
 * window without a path (no GPU launch, a cycle, a sync between kernels of
 * one stream) is not an error: res->ok is false and res->why says why. */
int pdb_cp_run(pdb_cp *c, const pdb_cp_window *w, pdb_cp_result *res, pdb_cp_step_fn step,
               void *arg);
void pdb_cp_close(pdb_cp *c);

#endif
