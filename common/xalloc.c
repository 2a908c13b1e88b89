/* xalloc.c: allocation wrappers that exit cleanly on exhaustion. */
#include "common/xalloc.h"
#include "common/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "profdb: out of memory (allocating %zu bytes)\n", n);
    exit(PDB_EXIT_ERROR);
}

void *pdb_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *pdb_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

void *pdb_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *pdb_xstrndup(const char *s, size_t n)
{
    char *p = pdb_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *pdb_xstrdup(const char *s)
{
    return pdb_xstrndup(s, strlen(s));
}
