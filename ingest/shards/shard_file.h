/* shard_file.h: what a shard file looked like when a merge left a rank's
 * events in it (schemas/90_shards.sql), read again before a report opens it.
 *
 * One stat(2) and the first 100 bytes (SQLite's header): the size, the
 * modification time, the header's file change counter and page count. It
 * costs the same for a 1 GB shard as for a 1 MB one, which a hash of the
 * file would not; any write changes the mtime (a WAL commit the -wal
 * file's, so a shard with a non-empty -wal is "changing" too). */
#ifndef PDB_SHARD_FILE_H
#define PDB_SHARD_FILE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct pdb_shard_identity {
    int64_t size, mtime_ns, change_counter, page_count;
    bool wal;   /* a -wal file with frames beside it: being written */
} pdb_shard_identity;

/* Reads path's identity; a one-line error naming path when it is missing,
 * unreadable or no SQLite database. */
int pdb_shard_identity_read(const char *path, pdb_shard_identity *id);

/* Whether a and b are the same file state. */
bool pdb_shard_identity_same(const pdb_shard_identity *a, const pdb_shard_identity *b);

/* The drill-down into rank of run run_id (named run) of the job database
 * job: the shard that holds its events, checked against what the merge
 * recorded and opened read-only (*shard, *shard_run: the run's id there;
 * *path malloc'ed). A one-line error naming the file when the rank has no
 * shard file (its events are in job: *shard NULL and PDB_OK), or the shard
 * is missing, changed, or holds other ranks of the run too. */
int pdb_shard_open_rank(sqlite3 *job, int64_t run_id, const char *run, int64_t rank,
                        sqlite3 **shard, int64_t *shard_run, char **path);

#endif
