/* strbuf.h: a growable byte string, always NUL-terminated. */
#ifndef PDB_STRBUF_H
#define PDB_STRBUF_H

#include <stddef.h>
#include <string.h>
#include "common/error.h"

typedef struct pdb_buf {
    char *p;
    size_t len;
    size_t cap;
} pdb_buf;

#define PDB_BUF_INIT {NULL, 0, 0}

void pdb_buf_grow(pdb_buf *b, size_t extra);
/* Appends in place when there is room, else through pdb_buf_add_grow.
 * Inline: the trace reader appends a few bytes at a time (each key, each
 * string value), about 1.5 million times for a 300-step trace, and the
 * calls alone were 3.5% of its parse thread's instructions. */
void pdb_buf_add_grow(pdb_buf *b, const void *data, size_t n);
static inline void pdb_buf_add(pdb_buf *b, const void *data, size_t n)
{
    if (b->cap - b->len > n) {
        memcpy(b->p + b->len, data, n);
        b->len += n;
        b->p[b->len] = '\0';
    } else
        pdb_buf_add_grow(b, data, n);
}
void pdb_buf_adds(pdb_buf *b, const char *s);
static inline void pdb_buf_addc(pdb_buf *b, char c)
{
    if (b->cap - b->len > 1) {
        b->p[b->len++] = c;
        b->p[b->len] = '\0';
    } else
        pdb_buf_add_grow(b, &c, 1);
}
void pdb_buf_addf(pdb_buf *b, const char *fmt, ...) PDB_PRINTF(2, 3);
static inline void pdb_buf_reset(pdb_buf *b)
{
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}
void pdb_buf_free(pdb_buf *b);
/* Returns the string (never NULL; "" when empty). */
static inline const char *pdb_buf_str(const pdb_buf *b)
{
    return b->p ? b->p : "";
}

#endif
