/* reports.c: the report table (the rows of reports.def) and helpers shared
 * by reports: they run a report query (queries.h) bound to the report
 * context and render it. */
#include "report/reports.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "report/analysis_state.h"
#include "report/queries.h"

#include <string.h>

const pdb_report pdb_reports[] = {
#define PDB_REPORT(name, function, needs, folder, top, summary) \
    {name, function, summary, needs, folder, top},
#include "report/reports.def"
#undef PDB_REPORT
    {NULL, NULL, NULL, 0, 0, 0},
};

const pdb_report *pdb_report_find(const char *name)
{
    for (const pdb_report *r = pdb_reports; r->name; r++)
        if (strcmp(r->name, name) == 0)
            return r;
    return NULL;
}

bool pdb_report_writes_files(const pdb_report *r)
{
    return r && r->run == pdb_report_flamegraph;
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

int pdb_report_render(pdb_report_ctx *ctx, sqlite3_stmt *st)
{
    int rc = pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}

int pdb_report_query(pdb_report_ctx *ctx, const char *query)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    return pdb_report_render(ctx, st);
}

int pdb_report_mode(const pdb_report_ctx *ctx, const char **mode)
{
    *mode = "exact";
    if (!ctx->compat)
        return PDB_OK;
    if (strcmp(ctx->compat, "hta") != 0)
        return pdb_fail("unknown --compat '%s' (expected hta)", ctx->compat);
    *mode = "hta";
    return PDB_OK;
}

int pdb_report_query_mode(pdb_report_ctx *ctx, const char *query, const char *mode)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, ctx->top);
    return pdb_report_render(ctx, st);
}

/* Says why report shows nothing: the analysis state as (when not NULL),
 * else why; in the output for tables, on stderr otherwise, with "[]" for
 * JSON. */
static void say_missing(pdb_report_ctx *ctx, const char *report, const pdb_analysis_state *as,
                        const char *why)
{
    char missing[768];
    if (as) {
        pdb_buf run = PDB_BUF_INIT;
        const char *name = ctx->run_name ? ctx->run_name : "";
        pdb_utf8_clean(&run, name, strlen(name), PDB_UTF8_CONTROLS);
        pdb_analysis_state_message(as, pdb_buf_str(&run), missing, sizeof missing);
        pdb_buf_free(&run);
        why = missing;
    }
    bool text = ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD;
    fprintf(text ? ctx->out : stderr, "%s%s: %s\n", text ? "" : "profdb: ", report, why);
    if (ctx->render.format == PDB_OUT_JSON)
        fputs("[]\n", ctx->out); /* still a JSON document */
}

int pdb_report_require(pdb_report_ctx *ctx, const char *report, const char *count_query,
                       const char *mode, const char *why, bool *ok)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, count_query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    if (sqlite3_bind_parameter_count(st) >= 2)
        sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    return pdb_report_require_stmt(ctx, report, st, why, ok);
}

int pdb_report_require_stmt(pdb_report_ctx *ctx, const char *report, sqlite3_stmt *st,
                            const char *why, bool *ok)
{
    int step = sqlite3_step(st);
    *ok = step == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return pdb_db_fail(ctx->db, "database error");
    if (*ok)
        return PDB_OK;
    /* Nothing because the analysis is missing or older than the passes
     * (--no-analyze, a migrated database) is not "nothing in the run". */
    pdb_analysis_state as;
    if (pdb_analysis_state_get(ctx->db, ctx->run_id, &as) != PDB_OK)
        return PDB_ERR;
    say_missing(ctx, report, as.missing ? &as : NULL, why);
    /* CSV and TSV still get the report's header line, with no rows: the
     * sentence went to stderr, and a script reading the file finds its
     * columns. */
    *ok = ctx->render.format == PDB_OUT_CSV || ctx->render.format == PDB_OUT_TSV;
    return PDB_OK;
}

int pdb_report_run(pdb_report_ctx *ctx, const pdb_report *r)
{
    if (r->needs & (PDB_NEEDS_TRACE | PDB_NEEDS_GPU | PDB_NEEDS_STEPS | PDB_NEEDS_MEMORY)) {
        pdb_analysis_state as;
        if (pdb_analysis_state_get(ctx->db, ctx->run_id, &as) != PDB_OK)
            return PDB_ERR;
        if (as.never) {
            pdb_report_title(ctx, r->name);
            say_missing(ctx, r->name, &as, NULL);
            return PDB_OK;
        }
    }
    return r->run(ctx);
}
