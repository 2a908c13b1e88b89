/* steplog_rf.c: the `rf-report` report: rectified-flow profiler blocks.
 *
 * The rectified-flow training profiler prints "=== Profiling Report (Step
 * N) ===" blocks: a Detailed Breakdown (count, total, avg, min, max per
 * section), a Time Distribution (each section's total as a share of the sum
 * of all section totals) and Performance Insights (the slowest section by
 * average; whether data loading is under 15% of the total: the shared
 * PDB_DATA_LOADING_PCT of report/thresholds.h). This report
 * recomputes the distribution and insights from the stored breakdown values
 * and prints them the way the profiler does (table format), or as rows with
 * the printed share next to the recomputed one (other formats), so a
 * disagreement is visible.
 *
 * The log prints totals rounded to 1 ms while the profiler computed shares
 * from unrounded totals, so a recomputed share can differ from the printed
 * one in the last digit. When the printed share lies within that rounding
 * uncertainty it is the profiler's exact answer and is printed as such;
 * otherwise the recomputed share is printed with the logged one beside it.
 * The query is in report/queries/steplog_rf.sql. */
#include "report/steplog_reports.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"
#include "render/text.h"
#include "report/thresholds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Prints the blocks as the profiler does; returns PDB_OK. */
static int print_text(pdb_report_ctx *ctx, sqlite3_stmt *st)
{
    FILE *out = ctx->out;
    char block[256] = "";
    /* two passes per block: breakdown, then distribution and insights */
    typedef struct {
        char name[128], metric[64];
        long long count;
        double total, avg, min, max, pct, printed;
        bool has_printed;
    } row;
    row rows[256];
    int n = 0, blocks = 0;
    for (int rc = sqlite3_step(st);; rc = sqlite3_step(st)) {
        const char *title = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (n > 0 && (!title || strcmp(title, block) != 0)) {
            /* Block and section names are data: terminal text (render/text.h). */
            fprintf(out, "%s=== ", blocks++ ? "\n" : "");
            pdb_fput_term(out, block);
            fputs(" ===\n\nDetailed Breakdown:\n", out);
            for (int i = 0; i < n; i++) {
                pdb_fput_term(out, rows[i].name);
                fprintf(out, ": count=%lld, total=%.3fs, avg=%.4fs, min=%.4fs, max=%.4fs\n",
                        rows[i].count, rows[i].total, rows[i].avg, rows[i].min, rows[i].max);
            }
            fprintf(out, "\nTime Distribution:\n");
            int slowest = 0, data = -1;
            double sum = 0;
            for (int i = 0; i < n; i++)
                sum += rows[i].total;
            /* each printed total may be off by 0.0005 s; the share by 0.05 */
            double tol = sum > 0 ? 100.0 * 0.0005 * n / sum + 0.05 + 1e-9 : 0;
            for (int i = 0; i < n; i++) {
                bool agrees = rows[i].has_printed && fabs(rows[i].printed - rows[i].pct) <= tol;
                if (agrees)
                    rows[i].pct = rows[i].printed;
                pdb_fput_term(out, rows[i].name);
                fprintf(out, ": %.1f%%", rows[i].pct);
                if (rows[i].has_printed && !agrees)
                    fprintf(out, " (log printed %.1f%%)", rows[i].printed);
                fputc('\n', out);
                if (rows[i].avg > rows[slowest].avg)
                    slowest = i;
                if (data < 0 && strcmp(rows[i].metric, "data") == 0)
                    data = i;
            }
            fputs("\nPerformance Insights:\n- Slowest component: ", out);
            pdb_fput_term(out, rows[slowest].name);
            fprintf(out, " (%.4fs avg)\n", rows[slowest].avg);
            if (data >= 0)
                fprintf(out, rows[data].pct > PDB_DATA_LOADING_PCT
                                 ? "- Data loading may be a bottleneck (%.1f%% of total time)\n"
                                 : "- Data loading appears efficient (%.1f%% of total time)\n",
                        rows[data].pct);
            n = 0;
        }
        if (rc != SQLITE_ROW)
            return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(ctx->db, "rf-report");
        snprintf(block, sizeof block, "%s", title);
        if (n == (int)(sizeof rows / sizeof rows[0]))
            continue; /* more sections than any profiler prints */
        row *r = &rows[n++];
        snprintf(r->name, sizeof r->name, "%s", (const char *)sqlite3_column_text(st, 1));
        snprintf(r->metric, sizeof r->metric, "%s", (const char *)sqlite3_column_text(st, 2));
        r->count = sqlite3_column_int64(st, 3);
        r->total = sqlite3_column_double(st, 4) / 1e9;
        r->avg = sqlite3_column_double(st, 5) / 1e9;
        r->min = sqlite3_column_double(st, 6) / 1e9;
        r->max = sqlite3_column_double(st, 7) / 1e9;
        r->pct = sqlite3_column_double(st, 8);
        r->has_printed = sqlite3_column_type(st, 9) != SQLITE_NULL;
        r->printed = sqlite3_column_double(st, 9);
    }
}

int pdb_report_steplog_rf(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "rf-report");
    sqlite3_stmt *st;
    /* Breakdown rows of every rectified-flow block, with shares recomputed. */
    if (pdb_report_prepare(ctx->db, "steplog_rf.rows", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    int rc = ctx->render.format == PDB_OUT_TABLE ? print_text(ctx, st)
                                                 : pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}
