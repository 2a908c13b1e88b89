/* merge_pstats.c: a shard's pstats statistics added to a run that has some.
 *
 * At ingest the dumps of one run are added up in order the way pstats'
 * Stats.add() does (pstats.c): a function's counts and times are summed, a
 * key new to the run (or known only as a caller until then) is appended to
 * the dict order, callers' edges are summed or appended. Merging a shard
 * into such a run does the same with the shard's statistics as one more
 * dump, in SQL: for shards of one dump each (a Slurm task per rank's dump)
 * the result is exactly that of ingesting the dumps in shard order. A shard
 * holding several dumps of the run adds their sum, which can differ from
 * adding them one by one in the last bits of the times (float addition is
 * not associative); `ingest --jobs` keeps a run's dumps in one worker. So
 * does a merge of more than 10 shards, which adds groups of them first. */
#include "ingest/shards/merge.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"

#include <stdint.h>
#include <stdio.h>

/* The statements, in order. $S stands for the shard's schema, $F for the
 * offset of its function ids, $O for that of its source ids (expand()).
 * The runs are those of
 * temp.merge_pstats_runs (old: the shard's id, new: the target's). */
static const char *const add_sql[] = {
    "DELETE FROM temp.merge_funcs",
    /* the shard's functions, and the target's row of each, if any */
    "INSERT INTO temp.merge_funcs (old, new, was_stats)"
    " SELECT f.func_id, t.func_id, t.in_stats FROM $S.pstats_functions f"
    " JOIN temp.merge_pstats_runs p ON p.old = f.run_id"
    " LEFT JOIN main.pstats_functions t ON t.run_id = p.new AND t.file = f.file"
    " AND t.line = f.line AND t.name = f.name",
    /* keys that join the dict (new, or callers until now), in the shard's order */
    "UPDATE temp.merge_funcs SET new_ord = o.n FROM (SELECT m.old,"
    " (SELECT coalesce(max(ord), -1) + 1 FROM main.pstats_functions WHERE run_id = p.new)"
    " + row_number() OVER (PARTITION BY f.run_id ORDER BY f.ord) - 1 AS n"
    " FROM temp.merge_funcs m JOIN $S.pstats_functions f ON f.func_id = m.old"
    " JOIN temp.merge_pstats_runs p ON p.old = f.run_id"
    " WHERE f.in_stats AND (m.new IS NULL OR NOT m.was_stats)) o"
    " WHERE o.old = temp.merge_funcs.old",
    /* functions new to the run */
    "INSERT INTO main.pstats_functions (func_id, run_id, source_id, ord, in_stats, file, line,"
    " name, std_name, cc, nc, tt, ct, top_level)"
    " SELECT f.func_id + $F, p.new, f.source_id + $O, coalesce(m.new_ord, -1),"
    " f.in_stats, f.file, f.line, f.name, f.std_name, f.cc, f.nc, f.tt, f.ct, f.top_level"
    " FROM temp.merge_funcs m JOIN $S.pstats_functions f ON f.func_id = m.old"
    " JOIN temp.merge_pstats_runs p ON p.old = f.run_id WHERE m.new IS NULL"
    " ORDER BY f.func_id",
    "UPDATE temp.merge_funcs SET new = old + $F WHERE new IS NULL",
    /* functions the run has: Stats.add (new value + old, as pstats.c adds) */
    "UPDATE main.pstats_functions AS t SET cc = t.cc + f.cc, nc = t.nc + f.nc,"
    " tt = f.tt + t.tt, ct = f.ct + t.ct, in_stats = 1, ord = coalesce(m.new_ord, t.ord),"
    " top_level = max(t.top_level, f.top_level)"
    " FROM temp.merge_funcs m JOIN $S.pstats_functions f ON f.func_id = m.old"
    " WHERE t.func_id = m.new AND m.was_stats IS NOT NULL AND f.in_stats",
    /* edges the run has: summed; then the new ones, in the shard's order */
    "UPDATE main.pstats_edges AS t SET nc = e.nc + t.nc, cc = e.cc + t.cc,"
    " tt = e.tt + t.tt, ct = e.ct + t.ct"
    " FROM $S.pstats_edges e JOIN temp.merge_pstats_runs p ON p.old = e.run_id"
    " JOIN temp.merge_funcs a ON a.old = e.callee_id"
    " JOIN temp.merge_funcs b ON b.old = e.caller_id"
    " WHERE t.run_id = p.new AND t.callee_id = a.new AND t.caller_id = b.new",
    "INSERT INTO main.pstats_edges (run_id, callee_id, caller_id, ord, nc, cc, tt, ct)"
    " SELECT p.new, a.new, b.new,"
    " (SELECT coalesce(max(ord), -1) + 1 FROM main.pstats_edges WHERE run_id = p.new)"
    " + row_number() OVER (PARTITION BY e.run_id ORDER BY e.ord) - 1,"
    " e.nc, e.cc, e.tt, e.ct"
    " FROM $S.pstats_edges e JOIN temp.merge_pstats_runs p ON p.old = e.run_id"
    " JOIN temp.merge_funcs a ON a.old = e.callee_id"
    " JOIN temp.merge_funcs b ON b.old = e.caller_id"
    " WHERE NOT EXISTS (SELECT 1 FROM main.pstats_edges t WHERE t.run_id = p.new"
    " AND t.callee_id = a.new AND t.caller_id = b.new)",
};

/* A run's totals are the sums of its dumps' (pstats.c refuses a dump that
 * takes them beyond 64-bit integers): summed here in C, since SQLite's
 * sum() of such a run fails with a bare "integer overflow". */
static int check_run_totals(sqlite3 *db, const char *path)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "SELECT p.new, r.name, d.total_calls, d.prim_calls"
                           " FROM temp.merge_pstats_runs p JOIN main.runs r ON r.run_id = p.new"
                           " JOIN main.pstats_dumps d ON d.run_id = p.new ORDER BY p.new",
                       &st) != PDB_OK)
        return PDB_ERR;
    int64_t run = -1, total = 0, prim = 0;
    bool fits = true;
    int rc;
    while (fits && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int64(st, 0) != run)
            run = sqlite3_column_int64(st, 0), total = prim = 0;
        fits = !__builtin_add_overflow(total, sqlite3_column_int64(st, 2), &total) &&
               !__builtin_add_overflow(prim, sqlite3_column_int64(st, 3), &prim);
    }
    if (!fits)
        rc = pdb_fail("%s: run '%s': the call counts of its pstats dumps add up beyond 64-bit "
                      "integers once this database's are added; merge it into another "
                      "database", path, (const char *)sqlite3_column_text(st, 1));
    else if (rc != SQLITE_DONE)
        rc = pdb_db_fail(db, "database error");
    else
        rc = PDB_OK;
    pdb_db_release(st);
    return rc;
}

/* SQLite turns an integer sum that overflows into a float without a word;
 * pstats.c refuses such a sum, and so does the merge. */
static int check_counts(sqlite3 *db, const char *path)
{
    int64_t bad;
    if (pdb_db_query_int(db, "SELECT EXISTS (SELECT 1 FROM temp.merge_pstats_runs p"
                             " JOIN main.pstats_functions t ON t.run_id = p.new"
                             " WHERE typeof(t.cc) <> 'integer' OR typeof(t.nc) <> 'integer')"
                             " OR EXISTS (SELECT 1 FROM temp.merge_pstats_runs p"
                             " JOIN main.pstats_edges t ON t.run_id = p.new"
                             " WHERE typeof(t.cc) <> 'integer' OR typeof(t.nc) <> 'integer')",
                         0, &bad) != PDB_OK)
        return PDB_ERR;
    if (bad)
        return pdb_fail("%s: merged call counts add up beyond 64-bit integers", path);
    return check_run_totals(db, path);
}

/* Writes text into b with $S, $F and $O replaced (see add_sql). */
static void expand(pdb_buf *b, const char *text, const char *schema, int64_t func_offset,
                   int64_t source_offset)
{
    pdb_buf_reset(b);
    for (const char *p = text; *p; p++) {
        if (p[0] == '$' && p[1] == 'S')
            pdb_buf_adds(b, schema);
        else if (p[0] == '$' && p[1] == 'F')
            pdb_buf_addf(b, "%lld", (long long)func_offset);
        else if (p[0] == '$' && p[1] == 'O')
            pdb_buf_addf(b, "%lld", (long long)source_offset);
        else {
            pdb_buf_addc(b, *p);
            continue;
        }
        p++;
    }
}

int pdb_merge_pstats(sqlite3 *db, const char *schema, const char *path, int64_t func_offset,
                     int64_t source_offset)
{
    pdb_buf sql = PDB_BUF_INIT;
    int rc = PDB_OK;
    for (size_t i = 0; i < sizeof add_sql / sizeof *add_sql && rc == PDB_OK; i++) {
        expand(&sql, add_sql[i], schema, func_offset, source_offset);
        rc = pdb_db_exec(db, pdb_buf_str(&sql));
    }
    pdb_buf_free(&sql);
    return rc == PDB_OK ? check_counts(db, path) : rc;
}
