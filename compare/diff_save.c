/* diff_save.c: `profdb diff ... --save`: each comparison printed is also
 * stored in diffs and diff_rows (schemas/80_diffs.sql), replacing the one
 * saved before for the same BASE, TEST and kind. A row is stored as the
 * query gives it (times in nanoseconds, whatever --unit says), as a JSON
 * object of its columns; rows are read back one at a time, so memory does
 * not grow with their number. The queries are in
 * compare/queries/diff_save.sql. */
#include "compare/diff.h"
#include "compare/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_gen.h>

static void json_append(void *ctx, const char *s, size_t len)
{
    pdb_buf_add(ctx, s, len);
}

/* The current row of st as a JSON object in out: integers and reals as
 * numbers (a NaN or infinity, which JSON lacks, as null), text as strings
 * (bytes that are not UTF-8 as U+FFFD), NULL as null. */
static void row_json(sqlite3_stmt *st, pdb_buf *out)
{
    pdb_buf_reset(out);
    yajl_gen g = yajl_gen_alloc(NULL);
    yajl_gen_config(g, yajl_gen_validate_utf8, 1);
    yajl_gen_config(g, yajl_gen_print_callback, json_append, out);
    yajl_gen_map_open(g);
    for (int c = 0; c < sqlite3_column_count(st); c++) {
        const char *name = sqlite3_column_name(st, c);
        yajl_gen_string(g, (const unsigned char *)name, strlen(name));
        switch (sqlite3_column_type(st, c)) {
        case SQLITE_INTEGER:
            yajl_gen_integer(g, sqlite3_column_int64(st, c));
            break;
        case SQLITE_FLOAT: {
            double v = sqlite3_column_double(st, c);
            if (isfinite(v)) {
                char num[32];
                int n = snprintf(num, sizeof num, "%.17g", v);
                yajl_gen_number(g, num, (size_t)n);
            } else
                yajl_gen_null(g);
            break;
        }
        case SQLITE_NULL:
            yajl_gen_null(g);
            break;
        default: {
            const unsigned char *t = sqlite3_column_text(st, c);
            size_t n = (size_t)sqlite3_column_bytes(st, c);
            if (yajl_gen_string(g, t ? t : (const unsigned char *)"", t ? n : 0) != yajl_gen_status_ok)
                yajl_gen_string(g, (const unsigned char *)"\xEF\xBF\xBD", 3);
        }
        }
    }
    yajl_gen_map_close(g);
    yajl_gen_free(g);
}

/* The options that chose the rows of this kind. */
static void kind_options(const pdb_diff_ctx *ctx, pdb_buf *out)
{
    if (ctx->top >= 0)
        pdb_buf_addf(out, "--top %ld", ctx->top);
    if (strcmp(ctx->kind, "kernels") == 0 && ctx->normalize)
        pdb_buf_addf(out, "%s--normalize-names", out->len ? " " : "");
    if (strcmp(ctx->kind, "pstats") == 0 && ctx->sort)
        pdb_buf_addf(out, "%s--sort %s", out->len ? " " : "", ctx->sort);
}

static void bind_key(const pdb_diff_ctx *ctx, sqlite3_stmt *st)
{
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    sqlite3_bind_text(st, 3, ctx->kind, -1, SQLITE_STATIC);
}

static int run_key_query(pdb_diff_ctx *ctx, const char *query)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, query, NULL, &st) != PDB_OK)
        return PDB_ERR;
    bind_key(ctx, st);
    int rc = pdb_db_step_done(ctx->db, st);
    sqlite3_finalize(st);
    return rc;
}

int pdb_diff_save(pdb_diff_ctx *ctx, sqlite3_stmt *rows)
{
    if (run_key_query(ctx, "diff_save.delete_rows") != PDB_OK ||
        run_key_query(ctx, "diff_save.delete") != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *ins;
    if (pdb_compare_prepare(ctx->db, "diff_save.add_row", NULL, &ins) != PDB_OK)
        return PDB_ERR;
    bind_key(ctx, ins);
    sqlite3_reset(rows);
    pdb_buf json = PDB_BUF_INIT;
    int64_t n = 0;
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(rows)) == SQLITE_ROW) {
        row_json(rows, &json);
        sqlite3_bind_int64(ins, 4, ++n);
        if (sqlite3_column_type(rows, 0) == SQLITE_NULL)
            sqlite3_bind_null(ins, 5);
        else
            sqlite3_bind_text(ins, 5, (const char *)sqlite3_column_text(rows, 0), -1,
                              SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 6, pdb_buf_str(&json), (int)json.len, SQLITE_STATIC);
        rc = pdb_db_step_done(ctx->db, ins);
    }
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(ctx->db, "database error");
    sqlite3_finalize(ins);
    pdb_buf_free(&json);
    if (rc != PDB_OK || pdb_compare_prepare(ctx->db, "diff_save.add", NULL, &ins) != PDB_OK)
        return PDB_ERR;
    pdb_buf opts = PDB_BUF_INIT;
    kind_options(ctx, &opts);
    bind_key(ctx, ins);
    sqlite3_bind_text(ins, 4, pdb_buf_str(&opts), (int)opts.len, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 5, n);
    rc = pdb_db_step_done(ctx->db, ins);
    sqlite3_finalize(ins);
    pdb_buf_free(&opts);
    return rc;
}

int pdb_diff_emit(pdb_diff_ctx *ctx, sqlite3_stmt *rows)
{
    int rc = pdb_render_stmt(rows, &ctx->render, ctx->out);
    if (rc == PDB_OK && ctx->save)
        rc = pdb_diff_save(ctx, rows);
    return rc;
}
