/* shard_guard.h: no report reads a run's events from where they are not.
 *
 * A run merged without --full keeps its ranks' events in their shard files
 * (schemas/90_shards.sql): the job database holds its traces and analysis
 * tables but no slices, instants, counters, flows, metadata events, GPU
 * attribution or memory allocations of those ranks. A report that read
 * those tables there would print an empty or partial answer as if it were
 * the run's. So while such a run is reported on, an SQLite authorizer
 * refuses any statement that reads them (through a view too), and the
 * report fails; the CLI then says which table it wanted and how to get the
 * events (`--rank N` opens one rank's shard; `merge --full`). Queries that
 * only ask whether such rows exist to explain an empty report (the
 * analysis state) pause the guard; they know about shard_files. */
#ifndef PDB_SHARD_GUARD_H
#define PDB_SHARD_GUARD_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

/* Starts the guard on db when run_id of schema (main, or an attached
 * database) has ranks whose events are in shards (*shards: how many shard
 * files; 0 and no guard otherwise). */
int pdb_shard_guard_start(sqlite3 *db, const char *schema, int64_t run_id, int64_t *shards);

/* Starts the guard on db (a comparison of runs, one of them such a run). */
void pdb_shard_guard_on(sqlite3 *db);

/* After a failure with a refused read: replaces the error with one saying
 * that what (a command) compares such a run ("profdb check"); PDB_ERR. */
int pdb_shard_guard_fail(const char *what);

/* Whether the guard is on (a run merged without --full is reported on). */
bool pdb_shard_guard_active(void);

/* Pauses (true) or resumes (false) a started guard on db. */
void pdb_shard_guard_pause(sqlite3 *db, bool pause);

/* The table a refused statement read (static), or NULL. */
const char *pdb_shard_guard_refused(void);

/* Whether a statement was refused since the last call (and forgets it):
 * the overview and the report folder list such a report as one that needs
 * the events, and go on. */
bool pdb_shard_guard_take(void);

/* Why such a report is left out, for the overview's "not applicable". */
#define PDB_SHARD_GUARD_NEEDS \
    "its ranks' events, which stay in their shard files (profdb report --rank N reads one)"

/* Stops the guard. */
void pdb_shard_guard_stop(sqlite3 *db);

#endif
