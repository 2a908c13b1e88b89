/* strmap.h: a hash map from byte strings to 64-bit integers.
 *
 * Used to intern names and categories during ingest: each distinct string is
 * looked up in SQLite once, then answered from here. Keys are copied. */
#ifndef PDB_STRMAP_H
#define PDB_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pdb_strmap pdb_strmap;

pdb_strmap *pdb_strmap_new(void);
void pdb_strmap_free(pdb_strmap *m);
bool pdb_strmap_get(const pdb_strmap *m, const char *key, size_t len, int64_t *val);
void pdb_strmap_put(pdb_strmap *m, const char *key, size_t len, int64_t val);
size_t pdb_strmap_count(const pdb_strmap *m);
/* Calls fn for every entry, in key order (bytes, a prefix first), so what
 * it lists does not depend on the hash (skip reasons in messages). */
void pdb_strmap_each(const pdb_strmap *m,
                     void (*fn)(const char *key, size_t len, int64_t val, void *arg),
                     void *arg);

#endif
