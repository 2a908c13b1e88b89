/* recstore.h: per-name records of the analysis passes in bounded memory
 * (internal to analyze/).
 *
 * The passes keep one record per distinct kernel, op shape, annotation or
 * launching path. Real traces have thousands; a hostile one can have
 * millions (2 million distinct names took 933 MB). A store keeps records of
 * a fixed size, each under a byte key, numbered 0, 1, 2... as they are
 * created. The first ones (up to a count and a budget of key bytes) live in
 * memory, as a plain array: a typical trace never leaves it and pays
 * nothing. Past that, records live in a temporary table (SQLite's own
 * bounded cache and temp file) behind a small write-back cache, and a Bloom
 * filter spares the table a lookup for a key that is new. The numbers
 * stay, so passes may keep them in other records; results are exact.
 *
 * Pointers returned by pdb_rs_get and pdb_rs_key are valid until the next
 * call on the same store. A database error is sticky: later calls return
 * zeroed scratch records and pdb_rs_error reports it, so passes check once
 * when they write. */
#ifndef PDB_RECSTORE_H
#define PDB_RECSTORE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pdb_recstore pdb_recstore;

/* A store named name (a temp table pdb_rs_NAME is made now: a schema change
 * during the scan would abort its query) for records of rsize bytes; at
 * most mem_max of them (3 under PROFDB_SPILL_TEST, common/bounds.h) and
 * key_budget bytes of keys stay in memory. */
int pdb_rs_new(sqlite3 *db, const char *name, size_t rsize, int64_t mem_max, size_t key_budget,
               pdb_recstore **out);
void pdb_rs_free(pdb_recstore *s);

/* The number of the record with this key, created from init (rsize bytes)
 * when new (*created says which). */
int64_t pdb_rs_find(pdb_recstore *s, const void *key, size_t klen, const void *init,
                    bool *created);
/* The record numbered h (0 <= h < pdb_rs_count), for reading and writing. */
void *pdb_rs_get(pdb_recstore *s, int64_t h);
/* The same, for reading only (a table record then need not be written back). */
const void *pdb_rs_read(pdb_recstore *s, int64_t h);
/* The key of record h. */
const void *pdb_rs_key(pdb_recstore *s, int64_t h, size_t *klen);
int64_t pdb_rs_count(const pdb_recstore *s);
/* Whether record h lives in memory: the first records created do, and stay
 * there (a pass may follow those in memory and the others another way). */
bool pdb_rs_in_memory(const pdb_recstore *s, int64_t h);
/* Calls fn for every record in number order; fn may read the record but
 * not call this store. Stops at the first fn that does not return 0. */
int pdb_rs_each(pdb_recstore *s,
                int (*fn)(int64_t h, const void *key, size_t klen, const void *rec, void *arg),
                void *arg);
/* Writes v into a key, most significant byte first: keys made of ids then
 * sort in the order the ids were made, so the table's key index grows at
 * its end instead of at random pages (which made every insert a read). */
static inline void pdb_rs_key_int(unsigned char *out, int64_t v)
{
    for (int i = 7; i >= 0; i--, v = (int64_t)((uint64_t)v >> 8))
        out[i] = (unsigned char)(v & 0xFF);
}

/* PDB_OK, or PDB_ERR (with the message recorded) after a database error. */
int pdb_rs_error(const pdb_recstore *s);
/* Records that went to the table (for tests and bench notes). */
int64_t pdb_rs_spilled(const pdb_recstore *s);

#endif
