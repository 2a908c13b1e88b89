/* idmap.h: a hash map from 64-bit integer keys to 64-bit values, for the
 * analysis passes' per-row lookups (string ids, correlation ids, interned
 * pairs), where hashing and copying byte keys (common/strmap.h) would cost
 * more than the rest of the row's work. Internal to analyze/. */
#ifndef PDB_IDMAP_H
#define PDB_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t *keys, *vals;
    bool *used;
    size_t cap, count;  /* cap a power of two (or 0), count < cap * 3/4 */
} pdb_idmap;

bool pdb_idmap_get(const pdb_idmap *m, int64_t key, int64_t *val);
void pdb_idmap_put(pdb_idmap *m, int64_t key, int64_t val);
/* Removes key if present (maps whose keys come and go: launches in flight). */
void pdb_idmap_del(pdb_idmap *m, int64_t key);
void pdb_idmap_free(pdb_idmap *m);
/* Two 32-bit halves as one key (pairs of small indexes). */
static inline int64_t pdb_idmap_pair(int64_t hi, int64_t lo)
{
    return (int64_t)(((uint64_t)hi << 32) ^ (uint64_t)(uint32_t)lo);
}

#endif
