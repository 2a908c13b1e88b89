/* fwd_bwd.h: backward ops linked to the forward ops they differentiate,
 * and the launches inside them, computed on demand when a report asks
 * (fwd_bwd.c; not part of the scan, see docs/internals.md). */
#ifndef PDB_FWD_BWD_H
#define PDB_FWD_BWD_H

#include <sqlite3.h>
#include <stdint.h>

typedef struct {
    int64_t flow_links;   /* backward ops linked by a fwdbwd flow */
    int64_t seq_links;    /* ... by their sequence number (no flow) */
    int64_t launches;     /* launches inside a linked backward op */
    int64_t deep;         /* slices past the stack bound, left out (0 on real traces) */
} pdb_fwd_bwd_stats;

/* Fills the temp tables of analyze/queries/fwd_bwd.sql for run_id:
 * temp.fb_links (backward op -> forward op), temp.fb_fwd (each linked
 * forward op's name, top op, annotation and module path on its own
 * thread), temp.fb_launch (each launch of analysis_gpu_attribution that lies
 * inside a linked backward op -> the innermost one). A backward op is
 * linked by the trace's fwdbwd flow (ph s on the forward op, f on the
 * backward op), else by its args "Sequence number" and "Fwd thread id" > 0
 * to the forward op of that number that starts last, PyTorch's rule for
 * those flows. One sort of the linked threads' slices and one sweep with a
 * stack of the open slices; nothing when the run has no links. */
int pdb_fwd_bwd(sqlite3 *db, int64_t run_id, pdb_fwd_bwd_stats *stats);

#endif
