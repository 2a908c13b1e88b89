/* test_text.c: the escaping layer per output format (render/text.h), and
 * the renderer's cells where they differ from it (CSV's formula guard in a
 * quoted field, C1 controls in JSON, column names in Markdown). */
#include "render/render.h"
#include "render/text.h"
#include "common/error.h"
#include "check.h"

#include <stdlib.h>

typedef size_t (*text_fn)(pdb_buf *, const char *);

static void expect(text_fn f, const char *in, const char *want, size_t bad)
{
    pdb_buf b = PDB_BUF_INIT;
    CHECK_INT(f(&b, in), bad);
    CHECK_STR(pdb_buf_str(&b), want);
    pdb_buf_free(&b);
}

static char *render(sqlite3 *db, const char *sql, pdb_out_format f)
{
    pdb_render_opts o = PDB_RENDER_DEFAULTS;
    o.format = f;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK_INT(pdb_render_query(db, sql, NULL, 0, &o, out), PDB_OK);
    fclose(out);
    return text;
}

int main(void)
{
    /* ESC ] 0 ; x BEL, a newline, a tab, an 8-bit CSI, a stray byte. */
    const char *hostile = "a\x1b]0;x\x07\nb\tc\xc2\x9b" "d\xff";
    expect(pdb_text_term, hostile, "a\\x1B]0;x\\x07 b c\\u009Bd\xEF\xBF\xBD", 1);
    expect(pdb_text_md, hostile, "a\\\\x1B\\]0;x\\\\x07 b c\\\\u009Bd\xEF\xBF\xBD", 1);
    expect(pdb_text_xml, hostile, "a\\x1B]0;x\\x07&#10;b&#9;c\\u009Bd\xEF\xBF\xBD", 1);
    expect(pdb_text_plain, hostile, "a ]0;x  b c d\xEF\xBF\xBD", 1);
    /* Markdown: HTML, links, images, tables, code, math; snake_case stays. */
    expect(pdb_text_md, "<img onerror=x>![i](u)[l](v)|`c`$m$ __init__ snake_case",
           "\\<img onerror=x>\\!\\[i\\](u)\\[l\\](v)\\|\\`c\\`\\$m\\$ \\_\\_init\\_\\_ snake_case",
           0);
    /* XML: entities; U+FFFF and a lone surrogate are no XML characters. */
    expect(pdb_text_xml, "<a href=\"x\">&'\xef\xbf\xbf\xed\xa0\x80",
           "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\xEF\xBF\xBD\xEF\xBF\xBD", 1);
    expect(pdb_text_plain, "\xef\xbf\xbe", "\xEF\xBF\xBD", 0);
    /* Code spans: a fence longer than any backtick run, padded at a backtick. */
    expect(pdb_text_md_code, "a`b", "``a`b``", 0);
    expect(pdb_text_md_code, "`x``", "``` `x`` ```", 0);
    expect(pdb_text_md_code, "x\ny<b>", "`x y<b>`", 0);
    pdb_buf b = PDB_BUF_INIT;
    pdb_text_term_mem(&b, "k\0tail", 6);
    CHECK_STR(pdb_buf_str(&b), "k\\x00tail");
    pdb_buf_free(&b);

    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    /* A formula-like CSV cell that needs quotes: the ' goes inside them. */
    char *s = render(db, "SELECT '=1,2' AS \"=h\", '-x' AS b", PDB_OUT_CSV);
    CHECK_STR(s, "'=h,b\r\n\"'=1,2\",'-x\r\n");
    free(s);
    /* JSON: a C1 control is escaped like C0 ones. */
    s = render(db, "SELECT CAST(X'61C29B1B62' AS TEXT) AS t", PDB_OUT_JSON);
    CHECK_STR(s, "[{\"t\":\"a\\u009B\\u001Bb\"}]\n");
    free(s);
    /* Markdown: column names are text like cells. */
    s = render(db, "SELECT 1 AS \"<b>|x\"", PDB_OUT_MD);
    CHECK_STR(s, "| \\<b>\\|x |\n| ------: |\n|       1 |\n");
    free(s);
    sqlite3_close(db);
    return check_report();
}
