/* fresh_db.h: a database that does not exist yet, built aside and put in
 * place whole (see fresh_db.c). */
#ifndef PDB_FRESH_DB_H
#define PDB_FRESH_DB_H

#include <sqlite3.h>
#include <stdbool.h>

typedef struct pdb_fresh_db pdb_fresh_db;

/* When path names no file yet, opens a new database for it in a private
 * folder beside it and sets *f; otherwise (path exists, is ":memory:" or a
 * URI, or its folder takes no new entries) *f and *db are NULL and the
 * caller opens path as usual. */
int pdb_fresh_db_open(const char *path, sqlite3 **db, pdb_fresh_db **f);
/* After the caller committed its transaction on db: closes db and puts the
 * database at the path. If another process created a database there
 * meanwhile, the new one is merged into it in one transaction with
 * these options (as_ingest and replace: as an ingest's --jobs shard;
 * neither: as `profdb merge`). */
int pdb_fresh_db_publish(pdb_fresh_db *f, sqlite3 *db, bool as_ingest, bool replace, bool quiet);
/* After a failure: closes db and deletes the new database and its folder. */
void pdb_fresh_db_discard(pdb_fresh_db *f, sqlite3 *db);

#endif
