/* diff_trace.c: `profdb diff BASE TEST ops|kernels|kernel-types|gpu`.
 *
 * Totals per name from the analysis tables of the two runs (summed over
 * ranks; 'exact' mode), joined by name: base, test, absolute and relative
 * change, sorted by the absolute change of the total (the impact on run
 * time). Names present in one run only are marked in only_in. With
 * --normalize-names kernels are matched on their names without template
 * arguments and addresses, so two builds of one kernel line up. The
 * queries are in compare/queries/diff_trace.sql. */
#include "compare/diff.h"
#include "compare/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "render/text.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

void pdb_normalize_kernel_name(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    int depth = 0;
    if (cap == 0)
        return;
    for (; *s && o + 1 < cap; s++) {
        if (*s == '<') {
            if (depth++ == 0 && o + 5 < cap) {
                memcpy(out + o, "<...", 4);
                o += 4;
            }
            continue;
        }
        if (*s == '>' && depth > 0) {
            if (--depth == 0)
                out[o++] = '>';
            continue;
        }
        if (depth > 0)
            continue;
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
            if (o + 4 < cap) {
                memcpy(out + o, "0x?", 3);
                o += 3;
            }
            s += 2;
            while (isxdigit((unsigned char)s[1]))
                s++;
            continue;
        }
        out[o++] = *s;
    }
    out[o] = '\0';
}

/* SQL function pdb_kernel_key(name, normalize). */
static void kernel_key_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    if (!name || !sqlite3_value_int(argv[1])) {
        sqlite3_result_value(cx, argv[0]);
        return;
    }
    size_t cap = strlen(name) + 8;
    char *buf = sqlite3_malloc((int)cap);
    if (!buf) {
        sqlite3_result_error_nomem(cx);
        return;
    }
    pdb_normalize_kernel_name(name, buf, cap);
    sqlite3_result_text(cx, buf, -1, sqlite3_free);
}

/* One totals kind: its title and its query in compare/queries/diff_trace.sql. */
typedef struct {
    const char *title;
    const char *query;
} totals_kind;

static int diff_totals(pdb_diff_ctx *ctx, const totals_kind *k)
{
    /* The queries read the base run from main (pdb_cmp_open puts it there). */
    assert(strcmp(ctx->base_schema, "main") == 0);
    sqlite3_stmt *st;
    if (pdb_compare_prepare(ctx->db, k->query, ctx->test_schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    sqlite3_bind_int(st, 3, ctx->normalize);
    sqlite3_bind_int64(st, 4, ctx->top >= 0 ? ctx->top : -1);
    if (ctx->titles && ctx->render.format == PDB_OUT_TABLE)
        fprintf(ctx->out, "\n== %s ==\n", k->title);
    if (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD) {
        bool md = ctx->render.format == PDB_OUT_MD; /* run names as text of the format */
        fprintf(ctx->out, "%s: ", k->title);
        pdb_fput_text(ctx->out, ctx->base_name, md);
        fputs(" -> ", ctx->out);
        pdb_fput_text(ctx->out, ctx->test_name, md);
        fputs("\n\n", ctx->out);
    }
    int rc = pdb_diff_emit(ctx, st);
    sqlite3_finalize(st);
    return rc;
}

int pdb_diff_sql_functions(sqlite3 *db)
{
    if (sqlite3_create_function(db, "pdb_kernel_key", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                NULL, kernel_key_fn, NULL, NULL) != SQLITE_OK)
        return pdb_db_fail(db, "cannot register pdb_kernel_key");
    return pdb_diff_pyspy_sql_functions(db);
}

int pdb_diff_ops(pdb_diff_ctx *ctx)
{
    static const totals_kind k = {"ops (CPU, all ranks and shapes)", "diff_trace.ops"};
    return diff_totals(ctx, &k);
}

int pdb_diff_kernels(pdb_diff_ctx *ctx)
{
    static const totals_kind k = {"kernels (GPU, all ranks)", "diff_trace.kernels"};
    if (pdb_diff_sql_functions(ctx->db) != PDB_OK)
        return PDB_ERR;
    return diff_totals(ctx, &k);
}

int pdb_diff_kernel_types(pdb_diff_ctx *ctx)
{
    static const totals_kind k = {"kernel types (GPU, all ranks)", "diff_trace.kernel_types"};
    return diff_totals(ctx, &k);
}

int pdb_diff_gpu(pdb_diff_ctx *ctx)
{
    static const totals_kind k = {"GPU time breakdown (all ranks)", "diff_trace.gpu"};
    return diff_totals(ctx, &k);
}
