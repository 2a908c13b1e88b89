/* hash.h: the hash of profdb's in-memory hash tables (strmap, the analysis's
 * idmap and record stores). Nothing hashed is stored or compared across
 * runs, so the function may change; it is not meant to resist chosen
 * collisions, which only make probes longer. */
#ifndef PDB_HASH_H
#define PDB_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* MurmurHash3's finaliser: every bit of h reaches the low bits a table
 * takes its slot from. */
static inline uint64_t pdb_hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

/* Bytes, eight a step (FNV-1a's byte a step was 12% of an ingest of
 * 400-character names). */
static inline uint64_t pdb_hash_bytes(const void *p, size_t len)
{
    const unsigned char *s = p;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ len, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    w = 0;
    if (len > i)
        memcpy(&w, s + i, len - i);
    return pdb_hash_mix(h ^ w);
}

#endif
