/* analyze.c: runs every analysis pass for a run (see analyze.h). */
#include "analyze/analyze.h"
#include "analyze/queries.h"
#include "analyze/scan_reader.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "common/query_db.h"

#include <stdio.h>

/* Deletes the run's rows of every analysis table; a table holding no other
 * run is emptied whole (analyze.sql says why). */
static int clear_run(sqlite3 *db, int64_t run_id)
{
    static const char *const tables[] = {"analysis_gpu", "analysis_kernel_types",
                                         "analysis_kernels_by_id", "analysis_ops_by_id",
                                         "analysis_steps", "analysis_idle",
                                         "analysis_op_steps_by_id", "analysis_gpu_attribution",
                                         "analysis_annotations_by_id", "analysis_queue",
                                         "analysis_queue_ranks",
                                         "analysis_memory_ops", "analysis_memory_peaks",
                                         "analysis_memory_allocs", "analysis_collectives"};
    int rc = PDB_OK;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0] && rc == PDB_OK; i++) {
        const char *const fill[] = {"table", tables[i], NULL};
        sqlite3_stmt *st;
        if (pdb_query_prepare(db, pdb_analyze_queries, "analyze.other_runs", fill, &st) != PDB_OK)
            return PDB_ERR;
        sqlite3_bind_int64(st, 1, run_id);
        int step = sqlite3_step(st);
        bool others = step != SQLITE_ROW || sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        if (step != SQLITE_ROW)
            return pdb_db_fail(db, "database error");
        if (pdb_query_prepare(db, pdb_analyze_queries,
                              others ? "analyze.clear_run" : "analyze.clear_table", fill,
                              &st) != PDB_OK)
            return PDB_ERR;
        sqlite3_bind_int64(st, 1, run_id);
        rc = pdb_db_step_done(db, st);
        sqlite3_finalize(st);
    }
    return rc;
}

int pdb_analyze_run(sqlite3 *db, int64_t run_id, bool committed)
{
    bool threaded = committed && pdb_scan_reader_possible(db);
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "analyze.traces", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int step = sqlite3_step(st);
    /* The first trace's reader starts before the run's old rows are
     * deleted: its launchers' query runs meanwhile. */
    pdb_scan_reader *reader = step == SQLITE_ROW && threaded
                                  ? pdb_scan_reader_start(db, sqlite3_column_int64(st, 0))
                                  : NULL;
    int rc = clear_run(db, run_id);
    for (; rc == PDB_OK && step == SQLITE_ROW; step = sqlite3_step(st)) {
        int64_t trace_id = sqlite3_column_int64(st, 0);
        int rank = sqlite3_column_int(st, 1);
        if (!reader && threaded)
            reader = pdb_scan_reader_start(db, trace_id);
        rc = pdb_analyze_trace(db, run_id, trace_id, rank, reader); /* finishes it */
        reader = NULL;
    }
    if (reader)
        pdb_scan_reader_finish(reader, rc);
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(db, "reading the run's traces");
    sqlite3_finalize(st);
    return rc;
}
