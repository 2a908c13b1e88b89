/* utf8.h: counting UTF-8 text in code points, as SQL's length() does, and
 * telling UTF-8 text from binary bytes. */
#ifndef PDB_UTF8_H
#define PDB_UTF8_H

#include <stddef.h>

/* Code points in s[0..len) (one column each when printed). */
size_t pdb_utf8_width(const char *s, size_t len);

/* Bytes of s[0..len) that are not part of a well-formed UTF-8 sequence. A
 * sequence cut off by the end of s is not counted (s may be a prefix). */
size_t pdb_utf8_invalid(const unsigned char *s, size_t len);

#endif
