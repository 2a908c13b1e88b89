/* runs_reading.c: `profdb runs --reading`: how each step log was read.
 *
 * The reading's fields are sentences (where step times come from, why it
 * is weak), too long for a table's columns: the table format prints each
 * source as "column = value" lines, as sqlite3's .mode line does; csv, tsv,
 * json and md print the rows as every listing does. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "report/queries.h"

#include <stdio.h>
#include <string.h>

int pdb_cli_print_lines(sqlite3_stmt *st, FILE *out)
{
    int ncol = sqlite3_column_count(st), width = 0, r, rows = 0;
    for (int i = 0; i < ncol; i++) {
        int n = (int)strlen(sqlite3_column_name(st, i));
        width = n > width ? n : width;
    }
    pdb_buf b = PDB_BUF_INIT;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (rows++)
            fputc('\n', out);
        for (int i = 0; i < ncol; i++) {
            const char *v = (const char *)sqlite3_column_text(st, i);
            fprintf(out, "%*s = %s\n", width, sqlite3_column_name(st, i),
                    v ? pdb_cli_text(&b, v) : "");
        }
    }
    pdb_buf_free(&b);
    return r == SQLITE_DONE ? PDB_OK : pdb_db_fail(sqlite3_db_handle(st), "runs --reading");
}

int pdb_cli_runs_reading(sqlite3 *db, const int64_t *run_ids, int nruns,
                         const pdb_render_opts *ro)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "steplog_reading.sources", &st) != PDB_OK)
        return PDB_ERR;
    pdb_buf ids = PDB_BUF_INIT;
    if (nruns > 0) {
        for (int i = 0; i < nruns; i++)
            pdb_buf_addf(&ids, "%s%lld", i ? "," : "[", (long long)run_ids[i]);
        pdb_buf_addc(&ids, ']');
        sqlite3_bind_text(st, 1, pdb_buf_str(&ids), -1, SQLITE_STATIC);
    }
    int rc = ro->format == PDB_OUT_TABLE ? pdb_cli_print_lines(st, stdout)
                                         : pdb_render_stmt(st, ro, stdout);
    sqlite3_finalize(st);
    pdb_buf_free(&ids);
    return rc;
}
