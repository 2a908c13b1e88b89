/* analyze.c: runs every analysis pass for a run (see analyze.h). */
#include "analyze/analyze.h"
#include "analyze/scan_reader.h"
#include "common/db.h"
#include "common/error.h"

#include <stdio.h>

/* Deletes the run's rows of every analysis table. A table holding no other
 * run is emptied whole (SQLite then frees its pages at once instead of
 * deleting row by row, index entries included: re-analysing a database of
 * one run took a tenth of the analysis); the test for another run stops at
 * the first such row. */
static int clear_run(sqlite3 *db, int64_t run_id)
{
    static const char *const tables[] = {"analysis_gpu", "analysis_kernel_types",
                                         "analysis_kernels_by_id", "analysis_ops_by_id",
                                         "analysis_steps", "analysis_idle",
                                         "analysis_op_steps_by_id", "analysis_gpu_attribution",
                                         "analysis_annotations_by_id", "analysis_queue",
                                         "analysis_queue_ranks",
                                         "analysis_memory_ops", "analysis_memory_peaks",
                                         "analysis_memory_allocs"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char sql[160];
        int64_t others;
        snprintf(sql, sizeof sql, "SELECT EXISTS (SELECT 1 FROM %s WHERE run_id IS NOT %lld)",
                 tables[i], (long long)run_id);
        if (pdb_db_query_int(db, sql, 1, &others) != PDB_OK)
            return PDB_ERR;
        if (others)
            snprintf(sql, sizeof sql, "DELETE FROM %s WHERE run_id = %lld", tables[i],
                     (long long)run_id);
        else
            snprintf(sql, sizeof sql, "DELETE FROM %s", tables[i]);
        if (pdb_db_exec(db, sql) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

int pdb_analyze_run(sqlite3 *db, int64_t run_id, bool committed)
{
    bool threaded = committed && pdb_scan_reader_possible(db);
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "SELECT trace_id, rank FROM traces WHERE run_id = ? ORDER BY rank",
                       &st) != PDB_OK)
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
