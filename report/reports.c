/* reports.c: the report table and helpers shared by reports. */
#include "report/reports.h"
#include "common/db.h"
#include "common/error.h"

#include <string.h>

const pdb_report pdb_reports[] = {
    {"summary", pdb_report_summary, "what the run contains: sources, ranks, records, skips"},
    {"gpu", pdb_report_gpu, "GPU temporal breakdown per rank: idle, compute, non-compute, overlap"},
    {"kernel-types", pdb_report_kernel_types, "GPU time per kernel type and overlapping combination"},
    {"kernels", pdb_report_kernels, "GPU kernels per rank: count, total, mean, min, max, std (--top N)"},
    {"ops", pdb_report_ops, "CPU operators: count, self and total time (--by-shape, --top N)"},
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
