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
 * does a merge of more than 10 shards, which adds groups of them first.
 * The statements are ingest/queries/merge_pstats.sql. */
#include "ingest/shards/merge.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/query.h"
#include "common/query_db.h"

#include <stdint.h>
#include <stdio.h>

/* A run's totals are the sums of its dumps' (pstats.c refuses a dump that
 * takes them beyond 64-bit integers): summed here in C, since SQLite's
 * sum() of such a run fails with a bare "integer overflow". */
static int check_run_totals(sqlite3 *db, const char *path)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, "merge_pstats.run_totals", &st) != PDB_OK)
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
    if (pdb_ingest_int(db, "merge_pstats.counts_overflow", 0, &bad) != PDB_OK)
        return PDB_ERR;
    if (bad)
        return pdb_fail("%s: merged call counts add up beyond 64-bit integers", path);
    return check_run_totals(db, path);
}

int pdb_merge_pstats(sqlite3 *db, const char *schema, const char *path, int64_t func_offset,
                     int64_t source_offset)
{
    pdb_buf sql = PDB_BUF_INIT;
    pdb_query_fill(pdb_ingest_sql("merge_pstats.add"),
                   (const char *const[]){"schema", schema, NULL}, &sql);
    const pdb_query_int_param offsets[] = {{":func_offset", func_offset},
                                           {":source_offset", source_offset}};
    int rc = pdb_query_run(db, pdb_buf_str(&sql), offsets, 2);
    pdb_buf_free(&sql);
    return rc == PDB_OK ? check_counts(db, path) : rc;
}
