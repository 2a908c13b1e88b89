/* utf8.c: counting UTF-8 text in code points. */
#include "common/utf8.h"

size_t pdb_utf8_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) /* not a continuation byte */
            w++;
    return w;
}
