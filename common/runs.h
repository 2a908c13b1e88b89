/* runs.h: finding a run, deleting one, forgetting what was derived from it.
 *
 * A run is one row of runs (schemas/10_core.sql); every other row that
 * belongs to it carries its run_id, or the trace_id of one of its traces.
 * This is the one place that looks runs up (by name, the newest, the name
 * of an id) and removes them: ingest (--replace, refusing a name that
 * exists), merge, analyze, report, runs and the comparisons all come here.
 * The queries are common/queries/runs.sql. */
#ifndef PDB_RUNS_H
#define PDB_RUNS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* The run called name in schema ("main", or the name of an attached
 * database), or with name NULL the newest run there (the largest id).
 * *found says whether there is one; *run_id is set when there is. PDB_ERR
 * only on a database error. */
int pdb_run_find(sqlite3 *db, const char *schema, const char *name, int64_t *run_id,
                 bool *found);

/* The newest run of schema: its id and name (the caller frees it), read
 * in one statement; *name is NULL when there is no run. */
int pdb_run_newest(sqlite3 *db, const char *schema, int64_t *run_id, char **name);

/* The run called name in main, or the error "no run named 'NAME' (see
 * 'profdb runs')", with "did you mean 'NAME2'?" when a run's name is close
 * (pdb_run_unknown). */
int pdb_run_need(sqlite3 *db, const char *name, int64_t *run_id);
/* Fails with "no run named 'NAME'WHERE (did you mean 'CLOSE'? see 'profdb
 * runs')", CLOSE the name of a run of schema closest to name (edit
 * distance, common/strutil.h), if one is; where may be "". PDB_ERR. */
int pdb_run_unknown(sqlite3 *db, const char *schema, const char *name, const char *where);
/* The number of runs in main. */
int pdb_run_count(sqlite3 *db, int64_t *count);

/* The shard files a run of schema (main, an attached database) merged
 * without --full keeps its ranks' events in (schemas/90_shards.sql; 0: its
 * events are all in db). */
int pdb_run_shard_files(sqlite3 *db, const char *schema, int64_t run_id, int64_t *count);

/* The name of run run_id in schema, in *name (the caller frees it; NULL
 * when there is no such run). */
int pdb_run_name(sqlite3 *db, const char *schema, int64_t run_id, char **name);

/* Creates the run called name (which must not exist) and sets *run_id. */
int pdb_run_create(sqlite3 *db, const char *name, int64_t *run_id);

/* The largest run id of main (0 when there is no run): the runs created
 * after this call have larger ones. */
int pdb_run_last_id(sqlite3 *db, int64_t *run_id);

/* Calls fn for each run of main, oldest first, until it fails. */
int pdb_run_each(sqlite3 *db, int (*fn)(sqlite3 *db, int64_t run_id, void *arg), void *arg);

/* Deletes a run and every row that belongs to it: the rows of every table
 * with a run_id or a trace_id column (found in the schema, so tables added
 * later are covered), the trend summaries among them, and the saved diffs
 * (schemas/80_diffs.sql) with the run on either side. */
int pdb_run_delete(sqlite3 *db, int64_t run_id);

/* Forgets what was derived from a run's rows and is kept to be read fast
 * (the trend summaries) or was saved (the diffs with the run on either
 * side): for a run whose rows changed (analysed again, or given more ranks
 * by a merge). Summaries are computed again when next needed; a diff when
 * saved again. */
int pdb_run_forget_caches(sqlite3 *db, int64_t run_id);

#endif
