/* text.c: escaping text from data for each output format (see text.h).
 * One walk over the code points does every format; the formats differ in
 * what they do with line breaks, controls and their own special characters. */
#include "render/text.h"
#include "common/utf8.h"

#include <stdint.h>
#include <string.h>

typedef enum { TERM, MD, XML, PLAIN } text_format;

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* '|' would end a table cell; '\\' is escaped so "a\\|" cannot un-escape the
 * '|'; * < [ ] ! ` & ~ $ would start emphasis, HTML, links, images, code,
 * entities, strikethrough, math; '_' only outside words (__init__ would turn
 * bold; snake_case stays as is). */
static bool md_special(const char *s, size_t i, size_t len)
{
    char c = s[i];
    if (c == '_')
        return !(i > 0 && is_alnum(s[i - 1]) && i + 1 < len && is_alnum(s[i + 1]));
    return c && strchr("|\\*<[]!`&~$", c) != NULL;
}

static bool is_control(uint32_t c)
{
    return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0);
}

static size_t walk_mem(pdb_buf *b, const char *s, size_t len, text_format f)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    size_t bad = 0;
    for (size_t i = 0; i < len;) {
        uint32_t c;
        size_t n = pdb_utf8_decode(s + i, len - i, &c);
        if (n == 0) {
            pdb_buf_adds(b, replacement);
            bad++;
            i++;
            while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
                i++; /* one replacement per broken sequence, as pdb_utf8_clean */
            continue;
        }
        if (c == '\t' || c == '\n' || c == '\r') {
            if (f == XML)
                pdb_buf_addf(b, "&#%u;", (unsigned)c);
            else
                pdb_buf_addc(b, ' ');
        } else if (is_control(c)) {
            if (f == PLAIN)
                pdb_buf_addc(b, ' ');
            else
                pdb_buf_addf(b, "%s%s%0*X", f == MD ? "\\" : "", c < 0x80 ? "\\x" : "\\u",
                             c < 0x80 ? 2 : 4, (unsigned)c);
        } else if ((f == XML || f == PLAIN) && (c == 0xFFFE || c == 0xFFFF)) {
            pdb_buf_adds(b, replacement); /* not XML characters */
        } else if (f == XML && c < 0x80 && strchr("&<>\"'", (int)c)) {
            static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
            pdb_buf_adds(b, ent[strchr("&<>\"'", (int)c) - "&<>\"'"]);
        } else if (f == MD && c < 0x80 && md_special(s, i, len)) {
            pdb_buf_addc(b, '\\');
            pdb_buf_addc(b, (char)c);
        } else {
            pdb_buf_add(b, s + i, n);
        }
        i += n;
    }
    return bad;
}

static size_t walk(pdb_buf *b, const char *s, text_format f)
{
    return walk_mem(b, s, s ? strlen(s) : 0, f);
}

size_t pdb_text_term(pdb_buf *b, const char *s)
{
    return walk(b, s, TERM);
}

size_t pdb_text_md(pdb_buf *b, const char *s)
{
    return walk(b, s, MD);
}

size_t pdb_text_xml(pdb_buf *b, const char *s)
{
    return walk(b, s, XML);
}

size_t pdb_text_plain(pdb_buf *b, const char *s)
{
    return walk(b, s, PLAIN);
}

size_t pdb_text_term_mem(pdb_buf *b, const char *s, size_t len)
{
    return walk_mem(b, s, len, TERM);
}

size_t pdb_text_plain_mem(pdb_buf *b, const char *s, size_t len)
{
    return walk_mem(b, s, len, PLAIN);
}

size_t pdb_text_md_code(pdb_buf *b, const char *s)
{
    pdb_buf t = PDB_BUF_INIT;
    size_t bad = walk(&t, s, TERM), run = 0, longest = 0;
    for (size_t i = 0; i < t.len; i++) {
        run = t.p[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    /* A space inside each fence when the text starts or ends with a backtick
     * or a space (CommonMark strips one space from each end), or is empty. */
    const char *text = pdb_buf_str(&t);
    bool pad = !t.len || strchr("` ", text[0]) || strchr("` ", text[t.len - 1]);
    for (size_t i = 0; i <= longest; i++)
        pdb_buf_addc(b, '`');
    if (pad)
        pdb_buf_addc(b, ' ');
    pdb_buf_add(b, text, t.len);
    if (pad)
        pdb_buf_addc(b, ' ');
    for (size_t i = 0; i <= longest; i++)
        pdb_buf_addc(b, '`');
    pdb_buf_free(&t);
    return bad;
}

static void fput(FILE *out, const char *s, text_format f)
{
    pdb_buf b = PDB_BUF_INIT;
    walk(&b, s, f);
    fputs(pdb_buf_str(&b), out);
    pdb_buf_free(&b);
}

void pdb_fput_md_code(FILE *out, const char *s)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_text_md_code(&b, s);
    fputs(pdb_buf_str(&b), out);
    pdb_buf_free(&b);
}

void pdb_fput_term(FILE *out, const char *s)
{
    fput(out, s, TERM);
}

void pdb_fput_md(FILE *out, const char *s)
{
    fput(out, s, MD);
}

void pdb_fput_xml(FILE *out, const char *s)
{
    fput(out, s, XML);
}

void pdb_fput_text(FILE *out, const char *s, bool md)
{
    fput(out, s, md ? MD : TERM);
}
