/* test_chart_forms.c: the form a chart takes follows its data
 * (render/chart_forms.c): where the switches between forms are, which
 * series and classes get which colour and legend, the values printed on
 * bars, and that names from data reach only the data file. Each case runs
 * a query of VALUES through pdb_chart_write and reads NAME.gp and NAME.dat
 * back. tests/golden/chart_forms shows whole scripts. */
#include "check.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "render/chart.h"
#include "render/chart_int.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sqlite3 *db;
static char dir[] = "/tmp/profdb-test-chart-forms-XXXXXX";
static char gp[1 << 16], dat[1 << 16];

static void slurp(const char *name, const char *ext, char *buf)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (!f)
        return;
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
}

/* Draws sql as a chart of kind; gp and dat hold its files. */
static bool draw(const char *sql, pdb_chart_kind kind, bool long_form)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
        return false;
    }
    pdb_chart_spec spec = {"c", "A chart", "milliseconds", kind, long_form, 1};
    bool written = false;
    int rc = pdb_chart_write(st, &spec, "run r", dir, &written);
    sqlite3_finalize(st);
    slurp("c", "gp", gp);
    slurp("c", "dat", dat);
    return rc == PDB_OK && written;
}

/* "SELECT 'x' || value, value % 7 + 1.0 ... FROM generate_series" without the
 * extension: a recursive CTE of n rows. */
static void rows_sql(pdb_buf *b, int n, const char *select)
{
    pdb_buf_reset(b);
    pdb_buf_addf(b, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                    " WHERE i < %d) %s FROM n", n, select);
}

static void forms_follow_the_data(void)
{
    pdb_buf sql = PDB_BUF_INIT;
    /* Distributions: up to 40 samples dots, from 41 a histogram. */
    rows_sql(&sql, 40, "SELECT i, 100 + i % 7 AS \"step time\"");
    CHECK(draw(sql.p, PDB_CHART_HIST, false));
    CHECK(strstr(gp, "with points") && !strstr(gp, "bins="));
    CHECK(strstr(gp, "set label 'median 103 ms, 40 steps'"));
    rows_sql(&sql, 41, "SELECT i, 100 + i % 7 AS \"step time\"");
    CHECK(draw(sql.p, PDB_CHART_HIST, false));
    CHECK(strstr(gp, "bins=") && strstr(gp, "set ytics 1\n")); /* at most 10 per bin */
    CHECK(!strstr(gp, "with points"));
    /* Parts of a whole: up to 16 ranks a bar each, from 17 columns. */
    rows_sql(&sql, 16, "SELECT 'rank ' || i, 1.0 AS compute, 2.0 AS idle");
    CHECK(draw(sql.p, PDB_CHART_SHARES, false));
    CHECK(strstr(gp, "boxxyerror") && strstr(gp, "with labels") && strstr(gp, "set key off"));
    CHECK(strstr(dat, "\"rank 15\" 1 2 \"3.00 ms\" \"compute 33%\" \"idle 67%\"\n"));
    rows_sql(&sql, 17, "SELECT 'rank ' || i, 1.0 AS compute, 2.0 AS idle");
    CHECK(draw(sql.p, PDB_CHART_SHARES, false));
    CHECK(strstr(gp, "rowstacked") && !strstr(gp, "boxxyerror"));
    /* Per step: up to 40 columns with totals, from 41 stacked areas. */
    rows_sql(&sql, 40, "SELECT '#' || i, 1.0 AS kernel, 0.5 AS runtime");
    CHECK(draw(sql.p, PDB_CHART_STACKED, false));
    CHECK(strstr(gp, "rowstacked") && !strstr(gp, "filledcurves"));
    rows_sql(&sql, 41, "SELECT '#' || i, 1.0 AS kernel, 0.5 AS runtime");
    CHECK(draw(sql.p, PDB_CHART_STACKED, false));
    CHECK(strstr(gp, "filledcurves") && strstr(gp, "with lines"));
    pdb_buf_free(&sql);
}

static void bars(void)
{
    /* One series without classes: no legend; value and share printed. */
    CHECK(draw("SELECT 'k1' AS kernel, 46.63 AS total, 80.0 AS share_pct UNION ALL "
               "SELECT 'k2', 0.3, 0.5", PDB_CHART_HBAR, false));
    CHECK(strstr(gp, "set key off"));
    CHECK(strstr(dat, "\"label\" \"total\" \"share_pct\" \"color\" \"text\"\n"));
    CHECK(strstr(dat, "\"k1\" 46.63 80 5142951 \"46.6 ms (80%)\"\n"));
    CHECK(strstr(dat, "\"k2\" 0.3 0.5 5142951 \"300 \xC2\xB5s (0.5%)\"\n"));
    /* Classes: the bar's colour by meaning, and a legend of them. */
    CHECK(draw("SELECT 'a' AS kernel, 3.0 AS total, 'communication' AS class UNION ALL "
               "SELECT 'b', 2.0, 'memory' UNION ALL SELECT 'c', 1.0, 'communication'",
               PDB_CHART_HBAR, false));
    CHECK(strstr(dat, "\"a\" 3 \"communication\" 15896107 "));  /* #f28e2b */
    CHECK(strstr(dat, "\"b\" 2 \"memory\" 5873999 "));          /* #59a14f */
    CHECK(strstr(gp, "keyentry with boxes lc rgb '#f28e2b' fs solid 0.9 title 'communication'"));
    CHECK(strstr(gp, "title 'memory'") && !strstr(gp, "set key off"));
    /* A second series within the first is drawn inside it (tottime in
     * cumtime), in its tint; one larger anywhere: beside it. */
    CHECK(draw("SELECT 'f' AS function, 10.0 AS cumtime, 4.0 AS tottime UNION ALL "
               "SELECT 'g', 3.0, 3.0", PDB_CHART_HBAR, false));
    CHECK(strstr(dat, "\"color_light\""));
    CHECK(strstr(dat, "\"tottime 4.00 ms \xC2\xB7 cumtime 10.0 ms\""));
    CHECK(draw("SELECT 'f' AS function, 10.0 AS a, 4.0 AS b UNION ALL SELECT 'g', 3.0, 5.0",
               PDB_CHART_HBAR, false));
    CHECK(!strstr(dat, "\"color_light\"") && strstr(dat, "\"text2\""));
}

static void paired(void)
{
    CHECK(draw("SELECT 'up' AS kernel, 2.0 AS base, 3.0 AS test, 'compute' AS class UNION ALL "
               "SELECT 'new', 0.0, 1.0, 'compute' UNION ALL SELECT 'gone', 1.5, 0.0, 'memory'",
               PDB_CHART_PAIRED, false));
    CHECK(strstr(dat, "\"up\" 2 3 \"compute\" 5142951 12110300 \"2.00 ms\" \"3.00 ms  +50.0%\" 1\n"));
    CHECK(strstr(dat, "\"3.00 ms  +50.0%\" 1\n") && strstr(dat, "\"1.00 ms  new\" 1\n"));
    CHECK(strstr(dat, "\"0 ms  gone\" -1\n"));
    /* Before and after in the legend, and the classes. */
    CHECK(strstr(gp, "title 'base'") && strstr(gp, "title 'test'") && strstr(gp, "title 'memory'"));
    /* No change: grey, neither red nor green. */
    CHECK(draw("SELECT 'same' AS kernel, 2.0 AS base, 2.0 AS test", PDB_CHART_PAIRED, false));
    CHECK(strstr(dat, "\"2.00 ms  same\" 0\n"));
    CHECK(strstr(gp, "($8 == 0 ? strcol(7) : '') with labels left offset 0.5,0 tc rgb '#7f7f7f'"));
    /* Phases coloured by their own names need no class legend. */
    CHECK(draw("SELECT 'forward' AS phase, 2.0 AS base, 3.0 AS test, 'forward' AS class",
               PDB_CHART_PAIRED, false));
    CHECK(!strstr(gp, "title 'forward'") && strstr(dat, " 5142951 "));
}

static void stacked_series(void)
{
    /* A series zero everywhere is kept in the data, not drawn or keyed. */
    CHECK(draw("SELECT '#1', 1.0 AS kernel, 0.0 AS memset, 2.0 AS cpu_exec UNION ALL "
               "SELECT '#2', 1.5, 0.0, 2.5", PDB_CHART_STACKED, false));
    CHECK(strstr(dat, "\"label\" \"kernel\" \"memset\" \"cpu_exec\" \"text\"\n"));
    CHECK(strstr(gp, "columnheader(2)") && !strstr(gp, "columnheader(3)") &&
          strstr(gp, "columnheader(4)"));
    CHECK(strstr(gp, "lc rgb '#4e79a7' title columnheader(2)")); /* kernel: compute blue */
    CHECK(strstr(gp, "lc rgb '#edc948' title columnheader(4)")); /* cpu_exec */
    CHECK(strstr(dat, "\"#1\" 1 0 2 \"3.00 ms\"\n"));
    /* Long form: series appear as they come; a missing cell is 0. */
    CHECK(draw("SELECT 'rank 0', 'compute', 1.0 UNION ALL SELECT 'rank 1', 'compute', 2.0 "
               "UNION ALL SELECT 'rank 1', 'idle', 1.0", PDB_CHART_SHARES, true));
    CHECK(strstr(dat, "\"rank 0\" 1 0 \"1.00 ms\" \"compute 100%\" \" \"\n") &&
          strstr(dat, "\"rank 1\" 2 1 \"3.00 ms\" \"compute 67%\" \"idle 33%\"\n"));
    /* A part too narrow for its name is named after the bar, with its share. */
    CHECK(draw("SELECT 'rank 0', 'compute', 95.0 UNION ALL SELECT 'rank 0', 'memory', 5.0",
               PDB_CHART_SHARES, true));
    CHECK(strstr(dat, "\"rank 0\" 95 5 \"100 ms  (memory 5.0%)\" \"compute 95%\" \" \"\n"));
}

static void names_stay_in_the_data(void)
{
    CHECK(draw("SELECT 'a\"b\\c' || char(10) || '`touch x`@m system(''y'')' AS kernel, 1.0 AS t, "
               "'c''l' AS class UNION ALL SELECT 'z', 0.5, 'other'", PDB_CHART_HBAR, false));
    CHECK(strstr(dat, "\"a'b\\\\c `touch x`@m system('y')\" 1 \"c'l\""));
    CHECK(!strstr(gp, "touch") && !strstr(gp, "system"));
    /* A class name in the legend is a single-quoted literal. */
    CHECK(strstr(gp, "title 'c''l'"));
}

static void colours_and_values(void)
{
    CHECK_STR(pdb_chart_color("communication"), "#f28e2b");
    CHECK_STR(pdb_chart_color("COMMUNICATION"), pdb_chart_color("communication"));
    CHECK_STR(pdb_chart_color("COMPUTATION"), pdb_chart_color("kernel"));
    CHECK_STR(pdb_chart_color("memcpy"), pdb_chart_color("MEMORY"));
    CHECK_STR(pdb_chart_color("sync"), pdb_chart_color("communication"));
    CHECK(pdb_chart_color("idle") != NULL && pdb_chart_color("GPU 3") == NULL);
    char b[48];
    pdb_chart_value_text(12345, "ms", b, sizeof b);
    CHECK_STR(b, "12.3 s");
    pdb_chart_value_text(46.63, "ms", b, sizeof b);
    CHECK_STR(b, "46.6 ms");
    pdb_chart_value_text(0.052, "ms", b, sizeof b);
    CHECK_STR(b, "52.0 \xC2\xB5s");
    pdb_chart_value_text(0.0004, "ms", b, sizeof b);
    CHECK_STR(b, "0.40 \xC2\xB5s");
    pdb_chart_value_text(0, "ms", b, sizeof b);
    CHECK_STR(b, "0 ms");
    pdb_chart_value_text(45, "%", b, sizeof b);
    CHECK_STR(b, "45.0%");
    pdb_chart_value_text(7, "", b, sizeof b);
    CHECK_STR(b, "7.00");
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    forms_follow_the_data();
    bars();
    paired();
    stacked_series();
    names_stay_in_the_data();
    colours_and_values();
    sqlite3_close(db);
    rmdir(dir);
    return check_report();
}
