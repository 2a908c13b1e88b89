/* pyspy_tree.c: a run's py-spy stack tree as temp tables (see pyspy.h), for
 * the reports that print or draw the whole tree: pyspy-tree, folded and
 * flamegraph (pyspy_graph.c).
 *
 * Why not in memory: a tree of 10^6 nodes, or one stack of 10^5 frames with
 * long names, would make profdb's memory grow with the input. SQLite keeps
 * the tree in its temp storage, which spills to a file past its page cache;
 * totals and flame-graph positions are one statement per depth (each reads
 * one level through an index), so the work stays linear in the nodes and
 * the memory flat whatever their number, names or depth. */
#include "report/pyspy.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"

int pdb_pyspy_tree_exec(sqlite3 *db, const char *name, int64_t arg)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, name, &st) != PDB_OK)
        return PDB_ERR;
    if (sqlite3_bind_parameter_count(st) >= 1)
        sqlite3_bind_int64(st, 1, arg);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, name);
}

int pdb_pyspy_tree_drop(sqlite3 *db, const pdb_pyspy_totals *t)
{
    int rc = pdb_db_exec(db, pdb_report_sql("pyspy_tree.drop"));
    if (!t->began)
        return rc;
    if (rc == PDB_OK)
        return pdb_db_commit(db);
    pdb_db_rollback(db);
    return rc;
}

static int load_totals(sqlite3 *db, int64_t run_id, pdb_pyspy_totals *t)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pyspy_tree.totals", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        t->samples = sqlite3_column_int64(st, 0);
        t->exact = sqlite3_column_int(st, 1) != 0;
        t->rate_hz = sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "reading py-spy profiles");
}

/* Runs the query called name once per depth: from max_depth down to 0
 * (totals: children first) or from 0 up to max_depth (positions: parents
 * first). One prepared statement, reset between depths. */
static int per_depth(sqlite3 *db, const char *name, int64_t max_depth, bool down)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, name, &st) != PDB_OK)
        return PDB_ERR;
    int rc = SQLITE_DONE;
    for (int64_t i = 0; i <= max_depth && rc == SQLITE_DONE; i++) {
        int64_t depth = down ? max_depth - i : i;
        sqlite3_bind_int64(st, 1, depth);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, name);
}

/* Each node's left edge relative to its parent's: a running sum of the
 * totals of its siblings before it, one row at a time. */
static int offsets(sqlite3 *db)
{
    sqlite3_stmt *rows, *add;
    if (pdb_report_prepare(db, "pyspy_tree.offset_rows", &rows) != PDB_OK)
        return PDB_ERR;
    if (pdb_report_prepare(db, "pyspy_tree.offset_add", &add) != PDB_OK) {
        sqlite3_finalize(rows);
        return PDB_ERR;
    }
    int64_t parent = -1, off = 0;
    int rc;
    while ((rc = sqlite3_step(rows)) == SQLITE_ROW) {
        int64_t p = sqlite3_column_int64(rows, 1);
        if (p != parent) {
            parent = p;
            off = 0;
        }
        sqlite3_bind_int64(add, 1, sqlite3_column_int64(rows, 0));
        sqlite3_bind_int64(add, 2, off);
        off += sqlite3_column_int64(rows, 2);
        if (sqlite3_step(add) != SQLITE_DONE)
            break;
        sqlite3_reset(add);
    }
    sqlite3_finalize(rows);
    sqlite3_finalize(add);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "flamegraph: placing the boxes");
}

/* Runs the pyspy_tree query called name with ?1 = run_id, ?2 = thread (NULL:
 * every thread); a query that returns a row gives its number in *out. */
static int with_thread(sqlite3 *db, const char *name, int64_t run_id, const char *thread,
                       int64_t *out)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, name, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    if (thread)
        sqlite3_bind_text(st, 2, thread, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && out)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, name);
}

/* --thread: keeps the stacks of one thread (a speedscope profile, or the
 * nodes under a 'thread (ID)[: NAME]' frame) and counts their samples. */
static int keep_thread(sqlite3 *db, int64_t run_id, const char *thread, int64_t max_depth,
                       pdb_pyspy_totals *t)
{
    if (per_depth(db, "pyspy_tree.walk_thread", max_depth, false) != PDB_OK ||
        pdb_db_exec(db, pdb_report_sql("pyspy_tree.walk_thread_keep")) != PDB_OK ||
        with_thread(db, "pyspy_tree.thread_samples", run_id, thread, &t->samples) != PDB_OK)
        return PDB_ERR;
    if (t->samples <= 0)
        return pdb_fail("--thread '%s': no samples of that thread in this run (a thread is a "
                        "speedscope profile 'Thread ID \"NAME\"' or a 'thread (ID)[: NAME]' "
                        "frame of py-spy --threads; give its ID or NAME)",
                        thread);
    return PDB_OK;
}

static int fill(sqlite3 *db, int64_t run_id, const char *thread, pdb_pyspy_tree_need need,
                pdb_pyspy_totals *t)
{
    int64_t max_depth;
    if (pdb_db_exec(db, pdb_report_sql("pyspy_tree.create_rank")) != PDB_OK ||
        pdb_db_exec(db, pdb_report_sql("pyspy_tree.create_walk")) != PDB_OK ||
        pdb_pyspy_tree_exec(db, "pyspy_tree.fill_rank", run_id) != PDB_OK ||
        with_thread(db, "pyspy_tree.fill_walk", run_id, thread, NULL) != PDB_OK ||
        pdb_report_number(db, "pyspy_tree.max_depth", run_id, &max_depth) != PDB_OK)
        return PDB_ERR;
    if (thread && keep_thread(db, run_id, thread, max_depth, t) != PDB_OK)
        return PDB_ERR;
    if (need == PDB_PYSPY_SELF)
        return PDB_OK;
    if (per_depth(db, "pyspy_tree.walk_totals", max_depth, true) != PDB_OK)
        return PDB_ERR;
    if (need == PDB_PYSPY_TOTALS)
        return pdb_db_exec(db, pdb_report_sql("pyspy_tree.create_order")) == PDB_OK
                   ? pdb_db_exec(db, pdb_report_sql("pyspy_tree.walk_order"))
                   : PDB_ERR;
    if (pdb_db_exec(db, pdb_report_sql("pyspy_tree.create_offsets")) != PDB_OK ||
        offsets(db) != PDB_OK)
        return PDB_ERR;
    return per_depth(db, "pyspy_tree.walk_x", max_depth, false);
}

int pdb_pyspy_tree_build(sqlite3 *db, int64_t run_id, const char *thread,
                         pdb_pyspy_tree_need need, pdb_pyspy_totals *t)
{
    *t = (pdb_pyspy_totals){0, true, 0, false};
    if (sqlite3_get_autocommit(db)) {
        if (pdb_db_begin(db) != PDB_OK)
            return PDB_ERR;
        t->began = true;
    }
    /* a report that failed half way may have left them */
    int rc = pdb_db_exec(db, pdb_report_sql("pyspy_tree.drop"));
    if (rc == PDB_OK)
        rc = load_totals(db, run_id, t);
    if (rc == PDB_OK)
        rc = fill(db, run_id, thread, need, t);
    if (rc != PDB_OK)
        pdb_pyspy_tree_drop(db, t);
    return rc;
}
