/* test_charts.c: chart data files (report/charts.c): long-form rows are
 * pivoted into one row per label with a column per series, also when a new
 * series first appears after many rows (the matrix is re-laid out), missing
 * cells of stacked charts are 0, charts without data are not written, 30
 * ranks take the form of stacked columns, not 30 horizontal bars, and 100
 * ranks (more than PDB_CHART_ALL_RANKS) are drawn as the ranks at the
 * quantiles of their busy time and the outliers, each labelled. */
#include "check.h"
#include "common/db.h"
#include "common/error.h"
#include "report/charts.h"
#include "report/thresholds.h"
#include "render/chart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* kernel-types of ranks 0 to n - 1: COMPUTATION (r + 1) ms each, and the
 * last rank also 500 ms of COMMUNICATION; returns the data file (or NULL)
 * and the number of its lines. */
static char *kernel_types(int n, int *lines)
{
    sqlite3 *db;
    *lines = 0;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    pdb_db_exec(db, "INSERT INTO runs VALUES (1, 'r', 'now')");
    for (int r = 0; r < n; r++) {
        char sql[200];
        snprintf(sql, sizeof sql, "INSERT INTO analysis_kernel_types VALUES"
                                  " (1, 'exact', %d, 'COMPUTATION', %d)", r, (r + 1) * 1000000);
        pdb_db_exec(db, sql);
    }
    char sql[200];
    snprintf(sql, sizeof sql,
             "INSERT INTO analysis_kernel_types VALUES (1, 'exact', %d, 'COMMUNICATION', 5e8)",
             n - 1);
    pdb_db_exec(db, sql);
    char dir[] = "/tmp/profdb-test-charts-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    pdb_chart_list made;
    CHECK_INT(pdb_charts_write(db, 1, "r", dir, 0, &made), PDB_OK);
    CHECK_INT(made.n, 1); /* only kernel-types has data */
    CHECK_STR(made.n ? made.v[0].name : "", "kernel-types");
    pdb_chart_list_free(&made);
    char path[256];
    static char dat[1 << 16];
    snprintf(path, sizeof path, "%s/kernel-types.dat", dir);
    char *got = slurp(path);
    if (got) {
        snprintf(dat, sizeof dat, "%s", got);
        for (char *p = dat; *p; p++)
            *lines += *p == '\n';
    }
    snprintf(path, sizeof path, "%s/kernel-types.gp", dir);
    CHECK(slurp(path) && strstr(slurp(path), "set output 'kernel-types.svg'"));
    if (n <= PDB_CHART_ALL_RANKS)
        CHECK(slurp(path) && strstr(slurp(path), "set style histogram rowstacked"));
    const char *files[] = {"kernel-types.dat", "kernel-types.gp"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    pdb_db_close(db);
    return got ? dat : NULL;
}

int main(void)
{
    int lines;
    char *dat = kernel_types(30, &lines);
    CHECK(dat != NULL);
    if (dat) {
        /* Kernel types in words, compute first (the first rank has only it). */
        CHECK(strstr(dat, "\"label\" \"compute\" \"communication\"\n") != NULL);
        CHECK(strstr(dat, "\"rank 0\" 1 0\n") != NULL);
        CHECK(strstr(dat, "\"rank 29\" 30 500\n") != NULL);
        CHECK_INT(lines, 32); /* comment, header, 30 ranks */
    }
    /* 100 ranks: busy 1 to 99 ms, and rank 99 600 ms (far above: an outlier);
     * each row then has what the bar prints (a few labels: horizontal bars) */
    dat = kernel_types(100, &lines);
    CHECK(dat != NULL);
    if (dat) {
        CHECK(strstr(dat, "\"rank 0 (min)\" 1 0 ") != NULL);
        CHECK(strstr(dat, "\"rank 9 (p10)\" 10 0 ") != NULL);      /* ceil(0.1 x 100) = 10th */
        CHECK(strstr(dat, "\"rank 49 (median)\" 50 0 ") != NULL);  /* (100 + 1) / 2 = 50th */
        CHECK(strstr(dat, "\"rank 89 (p90)\" 90 0 ") != NULL);
        CHECK(strstr(dat, "\"rank 99 (max, outlier)\" 100 500 ") != NULL);
        CHECK_INT(lines, 7); /* comment, header, 5 ranks */
    }
    return check_report();
}
