/* utf8.c: counting UTF-8 text, and making it valid and printable (see
 * utf8.h). The decoder follows the Unicode standard's table of well-formed
 * byte sequences (Table 3-7), so overlong forms and surrogates are refused. */
#include "common/utf8.h"

#include <stdio.h>

size_t pdb_utf8_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80) /* not a continuation byte */
            w++;
    return w;
}

static bool cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

size_t pdb_utf8_decode(const char *str, size_t len, uint32_t *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    if (len == 0)
        return 0;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || n > len || s[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!cont(s[i]))
            return 0;
    /* The second byte's range excludes overlongs, surrogates and > U+10FFFF. */
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F))
        return 0;
    uint32_t c = s[0] & (0xFF >> (n + 1));
    for (size_t i = 1; i < n; i++)
        c = c << 6 | (s[i] & 0x3F);
    *cp = c;
    return n;
}

static bool is_control(uint32_t c, int flags)
{
    if (!(flags & PDB_UTF8_CONTROLS))
        return false;
    if ((flags & PDB_UTF8_KEEP_WS) && (c == '\t' || c == '\n' || c == '\r'))
        return false;
    return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0);
}

bool pdb_utf8_needs_clean(const char *s, size_t len, int flags)
{
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = pdb_utf8_decode(s + i, len - i, &c);
        if (n == 0 || is_control(c, flags))
            return true;
        i += n;
    }
    return false;
}

size_t pdb_utf8_clean(pdb_buf *out, const char *s, size_t len, int flags)
{
    size_t bad = 0;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = pdb_utf8_decode(s + i, len - i, &c);
        if (n == 0) {
            pdb_buf_adds(out, "\xEF\xBF\xBD");
            bad++;
            i++;
            while (i < len && cont((unsigned char)s[i]))
                i++; /* one replacement per broken sequence */
            continue;
        }
        if (is_control(c, flags))
            pdb_buf_addf(out, c < 0x80 ? "\\x%02X" : "\\u%04X", (unsigned)c);
        else
            pdb_buf_add(out, s + i, n);
        i += n;
    }
    return bad;
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
