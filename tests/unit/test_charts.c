/* test_charts.c: chart data files (report/charts.c): long-form rows are
 * pivoted into one row per label with a column per series, also when a new
 * series first appears after many rows (the matrix is re-laid out), missing
 * cells of stacked charts are 0, charts without data are not written, and
 * 100 ranks take the form of stacked columns, not 100 horizontal bars. */
#include "check.h"
#include "common/db.h"
#include "common/error.h"
#include "report/charts.h"
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

int main(void)
{
    sqlite3 *db;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    pdb_db_exec(db, "INSERT INTO runs VALUES (1, 'r', 'now')");
    /* 100 ranks with COMPUTATION; only rank 99 has COMMUNICATION. */
    for (int r = 0; r < 100; r++) {
        char sql[200];
        snprintf(sql, sizeof sql, "INSERT INTO analysis_kernel_types VALUES"
                                  " (1, 'exact', %d, 'COMPUTATION', %d)", r, (r + 1) * 1000000);
        pdb_db_exec(db, sql);
    }
    pdb_db_exec(db, "INSERT INTO analysis_kernel_types VALUES (1, 'exact', 99, 'COMMUNICATION', 5e8)");
    char dir[] = "/tmp/profdb-test-charts-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    pdb_chart_list made;
    CHECK_INT(pdb_charts_write(db, 1, "r", dir, 0, &made), PDB_OK);
    CHECK_INT(made.n, 1); /* only kernel-types has data */
    CHECK_STR(made.n ? made.v[0].name : "", "kernel-types");
    char path[256];
    snprintf(path, sizeof path, "%s/kernel-types.dat", dir);
    char *dat = slurp(path);
    CHECK(dat != NULL);
    if (dat) {
        /* Kernel types in words, compute first (the first rank has only it). */
        CHECK(strstr(dat, "\"label\" \"compute\" \"communication\"\n") != NULL);
        CHECK(strstr(dat, "\"rank 0\" 1 0\n") != NULL);
        CHECK(strstr(dat, "\"rank 99\" 100 500\n") != NULL);
        int lines = 0;
        for (char *p = dat; *p; p++)
            lines += *p == '\n';
        CHECK_INT(lines, 102); /* comment, header, 100 ranks */
    }
    pdb_chart_list_free(&made);
    snprintf(path, sizeof path, "%s/kernel-types.gp", dir);
    CHECK(slurp(path) && strstr(slurp(path), "set output 'kernel-types.svg'"));
    CHECK(slurp(path) && strstr(slurp(path), "set style histogram rowstacked"));
    const char *files[] = {"kernel-types.dat", "kernel-types.gp"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    pdb_db_close(db);
    return check_report();
}
