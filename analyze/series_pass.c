/* series_pass.c: the one hook through which the scan feeds the time-series
 * passes (see series.h), so scan.c names them once. */
#include "analyze/series.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdlib.h>

struct pdb_series_acc {
    sqlite3 *db;
    int64_t run_id;
    int rank;
    pdb_queue_acc *queue;
    pdb_memory_acc *memory;
};

int pdb_series_acc_new(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank,
                       const pdb_hta_mode *hta, pdb_series_acc **out)
{
    pdb_series_acc *a = pdb_xcalloc(1, sizeof *a);
    *a = (pdb_series_acc){.db = db, .run_id = run_id, .rank = rank};
    *out = a;
    if (pdb_queue_acc_new(db, hta, &a->queue) != PDB_OK)
        return PDB_ERR;
    return pdb_memory_acc_new(db, run_id, trace_id, rank, &a->memory);
}

int pdb_series_acc_add(pdb_series_acc *a, const pdb_row *r)
{
    if (pdb_queue_acc_add(a->queue, r) != PDB_OK)
        return PDB_ERR;
    return pdb_memory_acc_add(a->memory, r);
}

int pdb_series_acc_write(pdb_series_acc *a)
{
    if (pdb_queue_acc_write(a->queue, a->run_id, a->rank) != PDB_OK)
        return PDB_ERR;
    return pdb_memory_acc_write(a->memory);
}

void pdb_series_acc_free(pdb_series_acc *a)
{
    if (!a)
        return;
    pdb_queue_acc_free(a->queue);
    pdb_memory_acc_free(a->memory);
    free(a);
}
