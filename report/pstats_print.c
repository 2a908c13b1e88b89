/* pstats_print.c: the `pstats`, `callers` and `callees` reports.
 *
 * In table format they print the text pstats prints - print_stats(),
 * print_callers(), print_callees() of Lib/pstats.py - character for
 * character, so a profdb report can be diffed against `python -m pstats`.
 * The other formats (csv, tsv, json, md) render the same selection as a
 * result set through render.h, with numbers unrounded. The queries are in
 * report/queries/pstats.sql. */
#include "report/pstats_model.h"
#include "report/queries.h"
#include "report/reports.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "render/text.h"

#include <stdio.h>
#include <string.h>

/* ---- text, as pstats prints it ------------------------------------------ */

static void pad(FILE *out, size_t n)
{
    while (n--)
        fputc(' ', out);
}

/* Names are data: terminal text (render/text.h), shown as pstats shows them
 * unless they hold control characters or invalid UTF-8. Returns the code
 * points written. */
static size_t put_name(FILE *out, const char *s, size_t len)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_text_term_mem(&b, s, len);
    fwrite(pdb_buf_str(&b), 1, b.len, out);
    size_t width = pdb_utf8_width(pdb_buf_str(&b), b.len);
    pdb_buf_free(&b);
    return width;
}

/* Lines of text holding names (file names, a --match pattern), each as above. */
static void put_lines(FILE *out, const pdb_buf *text)
{
    const char *p = pdb_buf_str(text), *end = p + text->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        put_name(out, p, n);
        if (nl)
            fputc('\n', out);
        p += n + (nl != NULL);
    }
}

/* s.ljust(width): width counts code points. */
static void ljust(FILE *out, const pdb_pfunc *f, size_t width)
{
    size_t w = put_name(out, f->std, f->std_len);
    if (w < width)
        pad(out, width - w);
}

static void rjust(FILE *out, const char *s, size_t width)
{
    size_t n = strlen(s);
    if (n < width)
        pad(out, width - n);
    fputs(s, out);
}

/* The header print_stats() writes before the list. */
static void print_header(FILE *out, const pdb_pstats *ps)
{
    put_lines(out, &ps->files);
    if (ps->nfiles)
        fputc('\n', out);
    for (size_t i = 0; i < ps->n; i++)
        if (ps->f[i].top_level) {
            fputs("         ", out);
            put_name(out, ps->f[i].name, ps->f[i].name_len);
            fputc('\n', out);
        }
    fprintf(out, "         %lld function calls ", (long long)ps->total_calls);
    if (ps->total_calls != ps->prim_calls)
        fprintf(out, "(%lld primitive calls) ", (long long)ps->prim_calls);
    fprintf(out, "in %.3f seconds\n\n", ps->total_tt);
}

/* get_print_list()'s message and the name column width. */
static size_t print_msg(FILE *out, const pdb_pstats *ps)
{
    put_lines(out, &ps->msg);
    fputc('\n', out);
    size_t width = ps->max_name_len;
    if (ps->nlist < ps->n) {
        width = 0;
        for (size_t i = 0; i < ps->nlist; i++)
            if (ps->f[ps->list[i]].width > width)
                width = ps->f[ps->list[i]].width;
    }
    return width + 2;
}

static void print_line(FILE *out, const pdb_pfunc *f)
{
    char c[48];
    if (f->nc != f->cc)
        snprintf(c, sizeof c, "%lld/%lld", (long long)f->nc, (long long)f->cc);
    else
        snprintf(c, sizeof c, "%lld", (long long)f->nc);
    rjust(out, c, 9);
    fprintf(out, " %8.3f ", f->tt);
    if (f->nc == 0)
        fputs("         ", out);
    else
        fprintf(out, "%8.3f ", f->tt / (double)f->nc);
    fprintf(out, "%8.3f ", f->ct);
    if (f->cc == 0)
        fputs("         ", out);
    else
        fprintf(out, "%8.3f ", f->ct / (double)f->cc);
    put_name(out, f->std, f->std_len);
    fputc('\n', out);
}

static void print_stats_text(FILE *out, const pdb_pstats *ps)
{
    print_header(out, ps);
    if (ps->nlist == 0)
        return;
    print_msg(out, ps);
    fputs("   ncalls  tottime  percall  cumtime  percall filename:lineno(function)\n", out);
    for (size_t i = 0; i < ps->nlist; i++)
        print_line(out, &ps->f[ps->list[i]]);
    fputs("\n\n", out);
}

/* print_call_line(): one function and its callers (or callees), the other
 * side sorted by its (file, line, name) key. */
static int print_call_line(FILE *out, sqlite3_stmt *st, const pdb_pfunc *f, size_t width,
                           const char *arrow)
{
    ljust(out, f, width);
    fprintf(out, "%s ", arrow);
    sqlite3_bind_int64(st, 1, f->id);
    int rc, lines = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long nc = sqlite3_column_int64(st, 1), cc = sqlite3_column_int64(st, 2);
        char c[48];
        if (nc != cc)
            snprintf(c, sizeof c, "%lld/%lld", nc, cc);
        else
            snprintf(c, sizeof c, "%lld", nc);
        if (lines)
            pad(out, width + 1);
        rjust(out, c, lines ? 9 : 7);
        fprintf(out, " %8.3f %8.3f  ", sqlite3_column_double(st, 3),
                sqlite3_column_double(st, 4));
        put_name(out, (const char *)sqlite3_column_text(st, 0),
                 (size_t)sqlite3_column_bytes(st, 0));
        fputc('\n', out);
        lines++;
    }
    sqlite3_reset(st);
    if (!lines)
        fputc('\n', out);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(sqlite3_db_handle(st), "database error");
}

/* The other side of each call, by kind (callers, callees): report/queries/pstats.sql. */
static const char *const call_query[2] = {"pstats.callers_of", "pstats.callees_of"};

static int print_calls_text(pdb_report_ctx *ctx, const pdb_pstats *ps, bool callees)
{
    FILE *out = ctx->out;
    if (ps->nlist == 0)
        return PDB_OK;
    size_t width = print_msg(out, ps);
    const char *title = callees ? "called..." : "was called by...";
    fputs("Function ", out);
    if (width > 9)
        pad(out, width - 9);
    fprintf(out, "%s\n", title);
    if (ps->has_edges) {
        pad(out, width);
        fputs("    ncalls  tottime  cumtime\n", out);
    }
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, call_query[callees], &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (size_t i = 0; i < ps->nlist && rc == PDB_OK; i++)
        rc = print_call_line(out, st, &ps->f[ps->list[i]], width, callees ? "->" : "<-");
    sqlite3_finalize(st);
    fputs("\n\n", out);
    return rc;
}

/* ---- result sets (csv, json, ...) --------------------------------------- */

/* The selection as a JSON array of func_ids, for json_each() in queries. */
static void selection_json(const pdb_pstats *ps, pdb_buf *b)
{
    pdb_buf_addc(b, '[');
    for (size_t i = 0; i < ps->nlist; i++)
        pdb_buf_addf(b, "%s%lld", i ? "," : "", (long long)ps->f[ps->list[i]].id);
    pdb_buf_addc(b, ']');
}

static int render_selection(pdb_report_ctx *ctx, const pdb_pstats *ps, const char *query)
{
    pdb_buf ids = PDB_BUF_INIT;
    selection_json(ps, &ids);
    sqlite3_stmt *st;
    int rc = pdb_report_prepare(ctx->db, query, &st);
    if (rc == PDB_OK) {
        sqlite3_bind_text(st, 1, ids.p, (int)ids.len, SQLITE_STATIC);
        rc = pdb_render_stmt(st, &ctx->render, ctx->out);
        sqlite3_finalize(st);
    }
    pdb_buf_free(&ids);
    return rc;
}

/* The selection as rows, by kind (pstats, callers, callees). */
static const char *const rows_query[3] = {"pstats.stats_rows", "pstats.caller_rows",
                                          "pstats.callee_rows"};

/* ---- the reports -------------------------------------------------------- */

static int run_report(pdb_report_ctx *ctx, int kind)
{
    static const char *const titles[] = {"pstats", "callers", "callees"};
    pdb_pstats ps;
    int rc = pdb_pstats_load(ctx->db, ctx->run_id, &ps);
    if (rc == PDB_OK)
        rc = pdb_pstats_select(&ps, ctx);
    if (rc == PDB_OK) {
        pdb_report_title(ctx, titles[kind]);
        if (ctx->render.format != PDB_OUT_TABLE)
            rc = render_selection(ctx, &ps, rows_query[kind]);
        else if (kind == 0)
            print_stats_text(ctx->out, &ps);
        else
            rc = print_calls_text(ctx, &ps, kind == 2);
    }
    pdb_pstats_free(&ps);
    return rc;
}

int pdb_report_pstats(pdb_report_ctx *ctx)
{
    return run_report(ctx, 0);
}

int pdb_report_callers(pdb_report_ctx *ctx)
{
    return run_report(ctx, 1);
}

int pdb_report_callees(pdb_report_ctx *ctx)
{
    return run_report(ctx, 2);
}
