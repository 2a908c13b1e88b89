/* inflate.h: one gzip member inflated from a stream of input chunks, by
 * ISA-L's igzip where profdb was built with it (about six times faster than
 * zlib on real traces) and by zlib otherwise. input.c drives it; both
 * backends give the same bytes and the same error messages (the wording
 * is zlib's), which tests/unit/test_inflate.c checks on real and damaged
 * files. PROFDB_INFLATE=zlib in the environment picks zlib in a build with
 * ISA-L (for that test, and to rule the backend out when chasing a bug). */
#ifndef PDB_INFLATE_H
#define PDB_INFLATE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pdb_inflater pdb_inflater;

typedef enum {
    PDB_INFLATE_MORE,    /* give more input, or more room for output */
    PDB_INFLATE_END,     /* the member ended (its checksum held) */
    PDB_INFLATE_ERROR,   /* corrupt data: pdb_inflater_error says what */
} pdb_inflate_status;

/* A new inflater for one gzip member (header, deflate data, trailer), or
 * NULL when the library cannot start one. */
pdb_inflater *pdb_inflater_new(void);
/* Inflates from *in (*in_len bytes) into out (cap bytes); advances *in and
 * *in_len past what it used and sets *produced. After END, *in is the
 * first byte after the member. */
pdb_inflate_status pdb_inflater_run(pdb_inflater *z, const unsigned char **in, size_t *in_len,
                                    unsigned char *out, size_t cap, size_t *produced);
/* Why the last run returned ERROR, in zlib's words ("incorrect data check"). */
const char *pdb_inflater_error(const pdb_inflater *z);
void pdb_inflater_free(pdb_inflater *z);
/* "isa-l" or "zlib": the backend pdb_inflater_new uses. */
const char *pdb_inflate_backend(void);

#endif
