/* xalloc.h: allocation that never returns NULL.
 *
 * Running out of memory is not an input error we can report per file, so
 * like git's xmalloc() these print a message and exit(2). */
#ifndef PDB_XALLOC_H
#define PDB_XALLOC_H

#include <stddef.h>

void *pdb_xmalloc(size_t n);
void *pdb_xcalloc(size_t count, size_t size);
void *pdb_xrealloc(void *p, size_t n);
char *pdb_xstrdup(const char *s);
char *pdb_xstrndup(const char *s, size_t n);

#endif
