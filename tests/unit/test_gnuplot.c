/* test_gnuplot.c: escaping of strings placed in gnuplot scripts and data
 * files (report/gnuplot.c). The end-to-end proof that gnuplot runs nothing
 * from data is tests/corpus/test_report_charts.py. */
#include "check.h"
#include "render/gnuplot.h"

#include <stdlib.h>
#include <string.h>

static char *quote(const char *s)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_gp_quote(&b, s);
    return b.p;
}

static char *label(const char *s, size_t width)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_gp_data_label(&b, s, width);
    return b.p;
}

int main(void)
{
    char *s = quote("it's `touch x` @m\nsystem(\"y\")");
    CHECK_STR(s, "'it''s `touch x` @m system(\"y\")'");
    free(s);
    s = quote("");
    CHECK_STR(s, "''");
    free(s);
    pdb_buf tic = PDB_BUF_INIT;
    pdb_gp_quote_tic(&tic, "it's 100% d%s");
    CHECK_STR(tic.p, "'it''s 100%% d%%s'");
    pdb_buf_free(&tic);
    s = label("a\"b\\c\n`d`@e\t", 0);
    CHECK_STR(s, "\"a'b\\\\c `d`@e \"");
    free(s);
    s = label("", 0);
    CHECK_STR(s, "\"-\"");
    free(s);
    /* Cut before escaping: an escape is never split. */
    s = label("\\\\\\\\\\\\\\\\\\\\", 5);
    CHECK_STR(s, "\"\\\\\\\\\xE2\x80\xA6\\\\\\\\\"");
    free(s);
    /* Multi-byte labels (short names hold '…', values 'µs') are cut by code
     * points, never inside one: 5 of them, all whole. */
    s = label("a\xC2\xB5" "b\xC2\xB5" "c\xC2\xB5" "d\xC2\xB5", 5);
    size_t points = 0;
    for (const char *p = s + 1; *p && *p != '"'; p++)
        points += ((unsigned char)*p & 0xC0) != 0x80;
    CHECK_INT((int)points, 5);
    CHECK(strstr(s, "\xE2\x80\xA6") != NULL);
    CHECK(s[strlen(s) - 2] == '\xB5' && s[strlen(s) - 3] == '\xC2');
    free(s);
    char path[4096];
    setenv("PROFDB_GNUPLOT", "", 1);
    CHECK(!pdb_gp_find(path, sizeof path));
    setenv("PROFDB_GNUPLOT", "/nonexistent/gnuplot", 1);
    CHECK(!pdb_gp_find(path, sizeof path));
    return check_report();
}
