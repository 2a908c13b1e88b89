/* merge.h: combining profdb databases ("shards") into one.
 *
 * A shard is an ordinary profdb database of the same schema version, made
 * anywhere: by `profdb ingest --jobs N` (one per worker), by a Slurm array
 * task, by hand. Merging copies every row of every shard into the target
 * with SQL (ATTACH and INSERT ... SELECT), re-keying all ids: runs of the
 * same name become one run with the ranks of all of them, strings are
 * interned again, and source, trace, slice, pstats function and step-log ids
 * are shifted past the target's. The analysis passes work per trace (rank),
 * so their rows are copied, not recomputed; pstats statistics of a run that
 * has some are added to them (Stats.add, merge_pstats.c); trend summaries,
 * which depend on a whole run, are dropped for runs that gained ranks
 * (trend recomputes them). Everything happens inside the caller's
 * transaction. */
#ifndef PDB_MERGE_H
#define PDB_MERGE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct pdb_merge_opts {
    /* As `profdb ingest`: a run the target held before the merge began is
     * refused ("already exists"), or deleted first with replace. Without
     * it (`profdb merge`) shards join such a run. */
    bool as_ingest;
    bool replace;
    /* With as_ingest: the runs the target held before are those up to this
     * id (the caller reads max(run_id) before it adds runs of its own). */
    long long runs_before;
    /* A folder for intermediate merges when there are more shards than
     * SQLite attaches at once (10); NULL: next to the target. */
    const char *tmpdir;
    /* `profdb merge` without --full: the shards' events stay in them; the
     * target gets their runs, traces and analysis tables and a row of
     * shard_files per trace naming the shard (schemas/90_shards.sql). A
     * shard that is itself such a job database brings its shard_files. */
    bool shard_backed;
} pdb_merge_opts;

/* Checks that path is a profdb database of this schema version (a clear
 * one-line message otherwise). */
int pdb_merge_check(const char *path);

/* Merges the shards, in order, into db. The caller holds a write
 * transaction on db and commits or rolls back; shards are only read. */
int pdb_merge(sqlite3 *db, const char *const *shards, int n, const pdb_merge_opts *o);

/* Registers the SQL function the copies of merge.sql call
 * (merge_missing_string: a shard's string id its strings table lacks). */
int pdb_merge_sql_functions(sqlite3 *db);

/* Adds the shard's pstats statistics (attached as schema) of the runs in
 * temp.merge_pstats_runs to the target's, as Stats.add() does
 * (merge_pstats.c; for merge.c). */
int pdb_merge_pstats(sqlite3 *db, const char *schema, const char *path, int64_t func_offset,
                     int64_t source_offset);

#endif
