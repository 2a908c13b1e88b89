/* diff_trace.c: `profdb diff BASE TEST ops|kernels|kernel-types|gpu`.
 *
 * Totals per name from the analysis tables of the two runs (summed over
 * ranks; 'exact' mode), joined by name: base, test, absolute and relative
 * change, sorted by the absolute change of the total (the impact on run
 * time). Names present in one run only are marked in only_in. With
 * --normalize-names kernels are matched on their names without template
 * arguments and addresses, so two builds of one kernel line up. */
#include "compare/diff.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"

#include <ctype.h>
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

/* What one totals kind reads: per side "SELECT key, calls, total_ns[, self_ns]
 * FROM %s.table WHERE run_id = ?R ..." with %s the schema and ?R the run. */
typedef struct {
    const char *title;
    const char *key;        /* output column of the name */
    const char *side_sql;   /* with %1$s-free single %s for the schema, ?R for the run */
    bool calls, self;       /* the side has a calls / a self_ns column */
} totals_kind;

static void side(pdb_buf *sql, const totals_kind *k, const char *alias, const char *schema,
                 int run_param)
{
    char param[8];
    snprintf(param, sizeof param, "?%d", run_param);
    pdb_buf fmt = PDB_BUF_INIT;
    /* ?R in the template becomes ?1 or ?2. */
    for (const char *p = k->side_sql; *p; p++) {
        if (p[0] == '?' && p[1] == 'R') {
            pdb_buf_adds(&fmt, param);
            p++;
        } else
            pdb_buf_addc(&fmt, *p);
    }
    pdb_buf_addf(sql, "%s AS (", alias);
    pdb_buf_addf(sql, fmt.p, schema);
    pdb_buf_adds(sql, ")");
    pdb_buf_free(&fmt);
}

static int diff_totals(pdb_diff_ctx *ctx, const totals_kind *k)
{
    pdb_buf sql = PDB_BUF_INIT;
    pdb_buf_adds(&sql, "WITH ");
    side(&sql, k, "b", ctx->base_schema, 1);
    pdb_buf_adds(&sql, ", ");
    side(&sql, k, "t", ctx->test_schema, 2);
    pdb_buf_addf(&sql, ", k AS (SELECT key FROM b UNION SELECT key FROM t)"
                       " SELECT k.key AS %s, CASE WHEN b.key IS NULL THEN 'test'"
                       " WHEN t.key IS NULL THEN 'base' ELSE '' END AS only_in,", k->key);
    if (k->calls)
        pdb_buf_adds(&sql, " b.calls AS base_calls, t.calls AS test_calls,");
    pdb_buf_adds(&sql,
                 " b.total_ns AS base_total_ns, t.total_ns AS test_total_ns,"
                 " coalesce(t.total_ns, 0) - coalesce(b.total_ns, 0) AS change_ns,"
                 " CASE WHEN b.total_ns > 0 THEN round(100.0 * (coalesce(t.total_ns, 0)"
                 " - b.total_ns) / b.total_ns, 2) END AS change_pct");
    if (k->self)
        pdb_buf_adds(&sql, ", b.self_ns AS base_self_ns, t.self_ns AS test_self_ns,"
                           " coalesce(t.self_ns, 0) - coalesce(b.self_ns, 0) AS self_change_ns");
    pdb_buf_adds(&sql, " FROM k LEFT JOIN b ON b.key = k.key LEFT JOIN t ON t.key = k.key"
                       " ORDER BY abs(coalesce(t.total_ns, 0) - coalesce(b.total_ns, 0)) DESC,"
                       " k.key LIMIT ?4");
    sqlite3_stmt *st;
    int rc = pdb_db_prepare(ctx->db, sql.p, &st);
    pdb_buf_free(&sql);
    if (rc != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->base_id);
    sqlite3_bind_int64(st, 2, ctx->test_id);
    sqlite3_bind_int(st, 3, ctx->normalize);
    sqlite3_bind_int64(st, 4, ctx->top >= 0 ? ctx->top : -1);
    if (ctx->titles && ctx->render.format == PDB_OUT_TABLE)
        fprintf(ctx->out, "\n== %s ==\n", k->title);
    if (ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD)
        fprintf(ctx->out, "%s: %s -> %s\n\n", k->title, ctx->base_name, ctx->test_name);
    rc = pdb_render_stmt(st, &ctx->render, ctx->out);
    sqlite3_finalize(st);
    return rc;
}

static int register_key_fn(pdb_diff_ctx *ctx)
{
    if (sqlite3_create_function(ctx->db, "pdb_kernel_key", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                NULL, kernel_key_fn, NULL, NULL) != SQLITE_OK)
        return pdb_db_fail(ctx->db, "cannot register pdb_kernel_key");
    return PDB_OK;
}

int pdb_diff_ops(pdb_diff_ctx *ctx)
{
    static const totals_kind k = {
        "ops (CPU, all ranks and shapes)", "op",
        "SELECT name AS key, sum(count) AS calls, sum(total_ns) AS total_ns,"
        " sum(self_ns) AS self_ns FROM %s.analysis_ops WHERE run_id = ?R GROUP BY name",
        true, true};
    return diff_totals(ctx, &k);
}

int pdb_diff_kernels(pdb_diff_ctx *ctx)
{
    static const totals_kind k = {
        "kernels (GPU, all ranks)", "kernel",
        "SELECT pdb_kernel_key(name, ?3) AS key, sum(count) AS calls,"
        " sum(total_ns) AS total_ns FROM %s.analysis_kernels"
        " WHERE run_id = ?R AND mode = 'exact' GROUP BY 1",
        true, false};
    if (register_key_fn(ctx) != PDB_OK)
        return PDB_ERR;
    return diff_totals(ctx, &k);
}

int pdb_diff_kernel_types(pdb_diff_ctx *ctx)
{
    static const totals_kind k = {
        "kernel types (GPU, all ranks)", "kernel_type",
        "SELECT kernel_type AS key, sum(time_ns) AS total_ns FROM %s.analysis_kernel_types"
        " WHERE run_id = ?R AND mode = 'exact' GROUP BY kernel_type",
        false, false};
    return diff_totals(ctx, &k);
}

int pdb_diff_gpu(pdb_diff_ctx *ctx)
{
    /* The breakdown's columns as rows, so they join and sort like names. */
    static const totals_kind k = {
        "GPU time breakdown (all ranks)", "metric",
        "SELECT column1 AS key, column2 AS total_ns FROM (VALUES"
        " ('kernel_time', (SELECT sum(kernel_time_ns) FROM %1$s.analysis_gpu"
        "   WHERE run_id = ?R AND mode = 'exact')),"
        " ('busy', (SELECT sum(busy_ns) FROM %1$s.analysis_gpu WHERE run_id = ?R AND mode = 'exact')),"
        " ('idle', (SELECT sum(idle_ns) FROM %1$s.analysis_gpu WHERE run_id = ?R AND mode = 'exact')),"
        " ('compute', (SELECT sum(compute_ns) FROM %1$s.analysis_gpu WHERE run_id = ?R AND mode = 'exact')),"
        " ('non_compute', (SELECT sum(non_compute_ns) FROM %1$s.analysis_gpu"
        "   WHERE run_id = ?R AND mode = 'exact')),"
        " ('communication', (SELECT sum(comm_ns) FROM %1$s.analysis_gpu"
        "   WHERE run_id = ?R AND mode = 'exact')),"
        " ('comm_comp_overlap', (SELECT sum(comm_comp_overlap_ns) FROM %1$s.analysis_gpu"
        "   WHERE run_id = ?R AND mode = 'exact'))) WHERE column2 IS NOT NULL",
        false, false};
    return diff_totals(ctx, &k);
}
