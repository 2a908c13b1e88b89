/* utf8.c: counting UTF-8 text in code points; spotting bytes that are not
 * UTF-8. */
#include "common/utf8.h"

size_t pdb_utf8_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) /* not a continuation byte */
            w++;
    return w;
}

size_t pdb_utf8_invalid(const unsigned char *s, size_t len)
{
    size_t bad = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2 : (c & 0xF0) == 0xE0 ? 3
                 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4 : 0;
        if (n == 0) {
            bad++;
            i++;
            continue;
        }
        size_t k = 1;
        while (k < n && i + k < len && (s[i + k] & 0xC0) == 0x80)
            k++;
        if (k < n && i + k < len) {
            bad++; /* a lead byte without its continuation bytes */
            i++;
            continue;
        }
        i += k; /* well formed, or cut off by the end of the prefix */
    }
    return bad;
}
