/* coll_pass.c: the collectives of each rank (analysis_collectives, see
 * schemas/50_analysis.sql and passes.h).
 *
 * The scan hands over the trace's communication kernels (exact mode); each
 * is staged by its slices.id and times in a temp table, and after the scan
 * one statement reads their collective arguments (name, process group,
 * sequence number) from slices by id and writes the rank's instances.
 * Nothing is kept in memory: a trace of a million collectives stages a
 * million small rows in SQLite's temp store. */
#include "analyze/passes.h"
#include "analyze/queries.h"
#include "common/db.h"
#include "common/error.h"

#include <stdlib.h>

struct pdb_coll_acc {
    sqlite3 *db;
    sqlite3_stmt *stage;
    int64_t run_id;
    int rank;
};

int pdb_coll_acc_new(sqlite3 *db, int64_t run_id, int rank, pdb_coll_acc **out)
{
    *out = NULL;
    pdb_coll_acc *a = calloc(1, sizeof *a);
    if (!a)
        return pdb_fail("out of memory");
    a->db = db;
    a->run_id = run_id;
    a->rank = rank;
    if (pdb_analyze_exec(db, "coll_pass.create_stage") != PDB_OK ||
        pdb_analyze_prepare(db, "coll_pass.stage", &a->stage) != PDB_OK) {
        pdb_coll_acc_free(a);
        return PDB_ERR;
    }
    *out = a;
    return PDB_OK;
}

int pdb_coll_acc_add(pdb_coll_acc *a, const pdb_row *r)
{
    if (r->name->kt != PDB_KT_COMMUNICATION)
        return PDB_OK;
    sqlite3_bind_int64(a->stage, 1, r->id);
    sqlite3_bind_int64(a->stage, 2, r->ts);
    sqlite3_bind_int64(a->stage, 3, r->ts + r->dur);
    int rc = pdb_db_step_done(a->db, a->stage);
    sqlite3_reset(a->stage);
    return rc;
}

int pdb_coll_acc_write(pdb_coll_acc *a)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(a->db, "coll_pass.write", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, a->run_id);
    sqlite3_bind_int(st, 2, a->rank);
    int rc = pdb_db_step_done(a->db, st);
    sqlite3_finalize(st);
    if (rc == PDB_OK)
        rc = pdb_analyze_exec(a->db, "coll_pass.clear_stage");
    return rc;
}

void pdb_coll_acc_free(pdb_coll_acc *a)
{
    if (!a)
        return;
    sqlite3_finalize(a->stage);
    free(a);
}
