/* trace_reports.c: reports over the trace analysis tables: gpu,
 * kernel-types, kernels and ops. --compat hta selects HTA's conventions. */
#include "report/reports.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"

#include <string.h>

/* "exact" unless --compat hta. */
static int analysis_mode(const pdb_report_ctx *ctx, const char **mode)
{
    if (!ctx->compat) {
        *mode = "exact";
        return PDB_OK;
    }
    if (strcmp(ctx->compat, "hta") != 0)
        return pdb_fail("unknown --compat '%s' (expected hta)", ctx->compat);
    *mode = "hta";
    return PDB_OK;
}

/* Runs sql with ?1 = run, ?2 = mode, ?3 = --top (or -1). */
static int render_mode_query(pdb_report_ctx *ctx, const char *sql, const char *mode)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(ctx->db, sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, ctx->top);
    int rc = pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}

/* GPU reports on a run without GPU events say so instead of printing nothing. */
static int has_gpu_events(pdb_report_ctx *ctx, const char *report, const char *mode, bool *yes)
{
    char sql[160];
    int64_t n;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM analysis_gpu WHERE run_id = %lld AND mode = '%s'",
             (long long)ctx->run_id, mode);
    if (pdb_db_query_int(ctx->db, sql, 0, &n) != PDB_OK)
        return PDB_ERR;
    *yes = n > 0;
    if (!*yes) {
        const char *msg = "no GPU events in this run (no trace events with a stream arg%s): the "
                          "GPU reports do not apply; 'ops' covers the CPU side";
        if (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD) {
            fprintf(ctx->out, "%s: ", report);
            fprintf(ctx->out, msg, strcmp(mode, "hta") == 0 ? " that HTA counts" : "");
            fputc('\n', ctx->out);
        } else {
            fprintf(stderr, "profdb: %s: ", report);
            fprintf(stderr, msg, strcmp(mode, "hta") == 0 ? " that HTA counts" : "");
            fputc('\n', stderr);
        }
    }
    return PDB_OK;
}

static int gpu_report(pdb_report_ctx *ctx, const char *name, const char *sql)
{
    const char *mode = "exact";
    bool yes;
    if (analysis_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, name);
    if (has_gpu_events(ctx, name, mode, &yes) != PDB_OK)
        return PDB_ERR;
    return yes ? render_mode_query(ctx, sql, mode) : PDB_OK;
}

int pdb_report_gpu(pdb_report_ctx *ctx)
{
    return gpu_report(ctx, "gpu",
        "SELECT rank, kernel_time_ns, idle_ns, compute_ns, non_compute_ns,"
        " 100.0 * idle_ns / kernel_time_ns AS idle_pct,"
        " 100.0 * compute_ns / kernel_time_ns AS compute_pct,"
        " 100.0 * non_compute_ns / kernel_time_ns AS non_compute_pct,"
        " CASE WHEN comm_ns > 0 THEN 100.0 * comm_comp_overlap_ns / comm_ns END"
        "   AS comm_comp_overlap_pct,"
        " gpu_events"
        " FROM analysis_gpu WHERE run_id = ?1 AND mode = ?2 ORDER BY rank");
}

int pdb_report_kernel_types(pdb_report_ctx *ctx)
{
    return gpu_report(ctx, "kernel-types",
        "SELECT rank, kernel_type, time_ns,"
        " 100.0 * time_ns / sum(time_ns) OVER (PARTITION BY rank) AS share_pct"
        " FROM analysis_kernel_types WHERE run_id = ?1 AND mode = ?2"
        " ORDER BY rank, time_ns DESC, kernel_type");
}

int pdb_report_kernels(pdb_report_ctx *ctx)
{
    return gpu_report(ctx, "kernels",
        "WITH k AS (SELECT rank, name, kernel_type, count, total_ns, mean_ns, min_ns, max_ns,"
        "   std_ns, 100.0 * total_ns / sum(total_ns) OVER (PARTITION BY rank) AS share_pct,"
        "   row_number() OVER (PARTITION BY rank ORDER BY total_ns DESC, name) AS n"
        "   FROM analysis_kernels WHERE run_id = ?1 AND mode = ?2)"
        " SELECT rank, name, kernel_type, count, total_ns, mean_ns, min_ns, max_ns, std_ns,"
        "   share_pct FROM ("
        "   SELECT *, 0 AS others FROM k WHERE ?3 < 0 OR n <= ?3"
        "   UNION ALL"
        "   SELECT rank, 'others', NULL, sum(count), sum(total_ns),"
        "     1.0 * sum(total_ns) / sum(count), min(min_ns), max(max_ns), NULL, sum(share_pct),"
        "     NULL, 1 FROM k WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)"
        " ORDER BY rank, others, total_ns DESC, name");
}

int pdb_report_ops(pdb_report_ctx *ctx)
{
    pdb_report_title(ctx, "ops");
    const char *group = ctx->by_shape ? "rank, name, cat, input_dims" : "rank, name, cat";
    const char *shape_col = ctx->by_shape ? "input_dims, " : "";
    pdb_buf sql = PDB_BUF_INIT;
    pdb_buf_addf(&sql,
        "WITH o AS (SELECT rank, name, cat, %s sum(count) AS count, sum(self_ns) AS self_ns,"
        "   sum(total_ns) AS total_ns FROM analysis_ops WHERE run_id = ?1 GROUP BY %s),"
        " r AS (SELECT *, row_number() OVER (PARTITION BY rank ORDER BY self_ns DESC, name) AS n,"
        "   100.0 * self_ns / sum(self_ns) OVER (PARTITION BY rank) AS self_share_pct FROM o)"
        " SELECT rank, name, cat, %s count, self_ns, total_ns, self_share_pct FROM ("
        "   SELECT *, 0 AS others FROM r WHERE ?3 < 0 OR n <= ?3"
        "   UNION ALL"
        "   SELECT rank, 'others', NULL, %s sum(count), sum(self_ns), sum(total_ns), NULL,"
        "     sum(self_share_pct), 1 FROM r WHERE ?3 >= 0 AND n > ?3 GROUP BY rank)"
        " ORDER BY rank, others, self_ns DESC, name",
        shape_col, group, shape_col, ctx->by_shape ? "NULL," : "");
    int rc = render_mode_query(ctx, sql.p, "exact");
    pdb_buf_free(&sql);
    return rc;
}
