/* shard_dir.h: the private folders where ingest and merge build shards.
 *
 * `ingest --jobs`, a first ingest (fresh_db.c) and `merge` write their
 * temporary databases in a folder `.profdb-shards-XXXXXX` next to the
 * target. profdb deletes only what it made itself: a folder it removes must
 * be a real directory (never a symbolic link) of this user holding the
 * owner mark profdb writes when it makes one, and in it only regular files
 * named as profdb names its shards, plus one level of nested shard folder
 * (a first ingest's --jobs folder) marked the same way. */
#ifndef PDB_SHARD_DIR_H
#define PDB_SHARD_DIR_H

/* A new private folder for shards next to target (or in $TMPDIR when that
 * folder is not writable); *dir is malloc'ed. It stays locked while this
 * process (or a worker forked from it) lives; shard folders there that no
 * live process locks and that are older than a minute are removed first
 * (left by a killed ingest), with a warning. */
int pdb_shard_dir_make(const char *target, char **dir);
/* The same, only next to target: PDB_ERR (no message) where that fails. */
int pdb_shard_dir_beside(const char *target, char **dir);
/* Deletes the files profdb put in a shard folder it made, then the folder. */
void pdb_shard_dir_remove(const char *dir);

#endif
