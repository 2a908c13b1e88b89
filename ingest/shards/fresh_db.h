/* fresh_db.h: a database that does not exist yet, built aside and put in
 * place whole (see fresh_db.c). */
#ifndef PDB_FRESH_DB_H
#define PDB_FRESH_DB_H

#include <sqlite3.h>
#include <stdbool.h>

typedef struct pdb_fresh_db pdb_fresh_db;

/* Opens path for writing, creating it if missing (PDB_DB_CREATE). When
 * path names no file yet, the new database is opened in a private folder
 * beside it and *f is set; otherwise (path exists, is ":memory:" or a URI,
 * or its folder takes no new entries) path itself is opened and *f is NULL. */
int pdb_fresh_db_open(const char *path, sqlite3 **db, pdb_fresh_db **f);
/* Ends what pdb_fresh_db_open began and closes db; rc is the caller's
 * result. Without f, only closes. With f and rc PDB_OK (the caller has
 * committed): puts the database at the path; if another process created a
 * database there meanwhile, the new one is merged into it in one
 * transaction with these options (as_ingest and replace: as an ingest's
 * --jobs shard; neither: as `profdb merge`). With f and a failure: deletes
 * the new database and its folder. Returns rc, or the publishing error. */
int pdb_fresh_db_close(pdb_fresh_db *f, sqlite3 *db, int rc, bool as_ingest, bool replace,
                       bool quiet);

#endif
