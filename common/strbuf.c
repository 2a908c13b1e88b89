/* strbuf.c: growable byte strings (see strbuf.h). */
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pdb_buf_grow(pdb_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->p = pdb_xrealloc(b->p, cap);
    b->cap = cap;
}

void pdb_buf_add_grow(pdb_buf *b, const void *data, size_t n)
{
    pdb_buf_grow(b, n);
    memcpy(b->p + b->len, data, n);
    b->len += n;
    assert(b->len < b->cap); /* room for the terminating NUL */
    b->p[b->len] = '\0';
}

void pdb_buf_adds(pdb_buf *b, const char *s)
{
    pdb_buf_add(b, s, strlen(s));
}

void pdb_buf_addf(pdb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    pdb_buf_grow(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void pdb_buf_free(pdb_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

