/* reports.c: the report table and helpers shared by reports. */
#include "report/reports.h"
#include "common/db.h"
#include "common/error.h"

#include <string.h>

const pdb_report pdb_reports[] = {
    {"summary", pdb_report_summary, "what the run contains: sources, ranks, records, skips"},
    {"pstats", pdb_report_pstats, "pstats print_stats(): --sort KEY, --limit N|FRACTION, --match REGEX"},
    {"callers", pdb_report_callers, "pstats print_callers(): who calls the selected functions"},
    {"callees", pdb_report_callees, "pstats print_callees(): what the selected functions call"},
    {"pstats-dot", pdb_report_pstats_dot, "pstats call graph as Graphviz DOT (gprof2dot style)"},
    {"pstats-chart", pdb_report_pstats_chart, "gnuplot script: bar chart of the top functions (--top N)"},
    {NULL, NULL, NULL},
};

const pdb_report *pdb_report_find(const char *name)
{
    for (const pdb_report *r = pdb_reports; r->name; r++)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

void pdb_report_title(pdb_report_ctx *ctx, const char *title)
{
    if (!ctx->titles)
        return;
    if (ctx->render.format == PDB_OUT_MD)
        fprintf(ctx->out, "\n### %s\n\n", title);
    else if (ctx->render.format == PDB_OUT_TABLE)
        fprintf(ctx->out, "\n== %s ==\n", title);
}

int pdb_report_query(pdb_report_ctx *ctx, const char *sql)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(ctx->db, sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    int rc = pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}
