/* utf8.h: counting UTF-8 text in code points, as SQL's length() does. */
#ifndef PDB_UTF8_H
#define PDB_UTF8_H

#include <stddef.h>

/* Code points in s[0..len) (one column each when printed). */
size_t pdb_utf8_width(const char *s, size_t len);

#endif
