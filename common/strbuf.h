/* strbuf.h: a growable byte string, always NUL-terminated. */
#ifndef PDB_STRBUF_H
#define PDB_STRBUF_H

#include <stddef.h>
#include "common/error.h"

typedef struct pdb_buf {
    char *p;
    size_t len;
    size_t cap;
} pdb_buf;

#define PDB_BUF_INIT {NULL, 0, 0}

void pdb_buf_grow(pdb_buf *b, size_t extra);
void pdb_buf_add(pdb_buf *b, const void *data, size_t n);
void pdb_buf_adds(pdb_buf *b, const char *s);
void pdb_buf_addc(pdb_buf *b, char c);
void pdb_buf_addf(pdb_buf *b, const char *fmt, ...) PDB_PRINTF(2, 3);
void pdb_buf_reset(pdb_buf *b);
void pdb_buf_free(pdb_buf *b);
/* Returns the string (never NULL; "" when empty). */
const char *pdb_buf_str(const pdb_buf *b);

#endif
