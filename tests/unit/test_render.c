/* test_render.c: output formats (render/render.c) on an in-memory result. */
#include "render/render.h"
#include "common/error.h"
#include "check.h"

#include <stdlib.h>

static char *render(sqlite3 *db, const char *sql, pdb_out_format f, pdb_time_unit u)
{
    pdb_render_opts o = PDB_RENDER_DEFAULTS;
    o.format = f;
    o.unit = u;
    o.max_width = 12;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK_INT(pdb_render_query(db, sql, NULL, 0, &o, out), PDB_OK);
    fclose(out);
    return text;
}

int main(void)
{
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    const char *q = "SELECT 'a,\"b\"' AS name, 1500 AS dur_ns, 12.345 AS share_pct, NULL AS x";
    char *s = render(db, q, PDB_OUT_CSV, PDB_UNIT_US);
    CHECK_STR(s, "name,dur_us,share_pct,x\r\n\"a,\"\"b\"\"\",1.5,12.35,\r\n");
    free(s);
    s = render(db, q, PDB_OUT_JSON, PDB_UNIT_MS);
    CHECK_STR(s, "[{\"name\":\"a,\\\"b\\\"\",\"dur_ms\":0.0015,\"share_pct\":12.35,\"x\":null}]\n");
    free(s);
    s = render(db, "SELECT 'x|y' AS a, 7 AS n", PDB_OUT_MD, PDB_UNIT_NS);
    CHECK_STR(s, "| a    |   n |\n| ---- | --: |\n| x\\|y |   7 |\n");
    free(s);
    /* A backslash before a pipe must not un-escape it (GFM splits cells on
     * a '|' not preceded by an escaping backslash). */
    s = render(db, "SELECT 'a\\|b\\' AS a", PDB_OUT_MD, PDB_UNIT_NS);
    CHECK_STR(s, "| a |\n| -------- |\n| a\\\\\\|b\\\\ |\n");
    free(s);
    /* Data is shown as written: no bold __init__, no HTML <genexpr> (cells
     * are cut to 12 code points first, then escaped). */
    s = render(db, "SELECT '__init__' AS a, 'a_b <x> *p' AS b, '[l](u) `c`' AS c,"
                   " '&amp; ~~s~~' AS d", PDB_OUT_MD, PDB_UNIT_NS);
    CHECK(strstr(s, "| \\_\\_init\\_\\_ | a_b \\<x> \\*p | \\[l\\](u) \\`c\\` |"
                    " \\&amp; \\~\\~s\\~\\~ |") != NULL);
    free(s);
    s = render(db, "SELECT 'abcdefghijklmnopqrstuvwxyz' AS kernel, 3 AS n", PDB_OUT_TABLE,
               PDB_UNIT_NS);
    CHECK_STR(s, "kernel        n\n------------  -\nabcdef\xE2\x80\xA6vwxyz  3\n");
    free(s);
    /* people read three decimals, and three significant digits of a small
     * value: a p-value 0.000131 is not "0" */
    s = render(db, "SELECT 0.000131 AS p, 7.629e-06 AS mib, 0.0015 AS a, 1.23456 AS b, 0.0 AS z",
               PDB_OUT_TABLE, PDB_UNIT_NS);
    CHECK_STR(s, "       p       mib      a      b  z\n--------  --------  -----  -----  -\n"
                 "0.000131  7.63e-06  0.002  1.235  0\n");
    free(s);
    char cut[64];
    pdb_ellipsize("h\xC3\xA9llo w\xC3\xB6rld!", 7, cut, sizeof cut);
    CHECK_STR(cut, "h\xC3\xA9l\xE2\x80\xA6ld!");
    CHECK_INT(pdb_utf8_width("h\xC3\xA9", 3), 2);
    pdb_out_format f;
    CHECK_INT(pdb_parse_format("xml", &f), PDB_ERR);
    CHECK(strstr(pdb_errmsg(), "unknown format 'xml'") != NULL);
    sqlite3_close(db);
    return check_report();
}
