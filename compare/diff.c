/* diff.c: the table of comparisons behind `profdb diff BASE TEST [KIND...]`
 * (see diff.h). Adding a kind is adding a function and one row. */
#include "compare/diff.h"
#include "common/db.h"
#include "common/error.h"
#include "compare/queries.h"

#include <string.h>

/* What a kind needs from the runs (both, or either for steps). */
enum { NEEDS_PSTATS = 1, NEEDS_STEPS = 2, NEEDS_TRACES = 4, NEEDS_GPU = 8, NEEDS_PYSPY = 16 };

const pdb_diff_kind pdb_diff_kinds[] = {
    {"steps", pdb_diff_steps, "per-step times and phases: medians, ratio CI, p-value",
     NEEDS_STEPS},
    {"gpu", pdb_diff_gpu, "GPU temporal breakdown: busy, idle, compute, communication",
     NEEDS_GPU},
    {"kernel-types", pdb_diff_kernel_types, "GPU time by kernel type and overlap", NEEDS_GPU},
    {"kernels", pdb_diff_kernels, "GPU kernels: launches and total time", NEEDS_GPU},
    {"ops", pdb_diff_ops, "CPU ops: calls, total and self time", NEEDS_TRACES},
    {"pstats", pdb_diff_pstats, "functions by largest change of tottime/cumtime (--sort, --top)",
     NEEDS_PSTATS},
    {"pyspy", pdb_diff_pyspy, "sampled functions by largest change of share (--top); p-values",
     NEEDS_PYSPY},
    {NULL, NULL, NULL, 0},
};

/* The NEEDS_* bits one run satisfies. */
static int run_holds(sqlite3 *db, const char *schema, int64_t run_id, int *holds)
{
    sqlite3_stmt *st;
    if (pdb_compare_prepare(db, "compare.facts", schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    *holds = 0;
    if (rc == SQLITE_ROW)
        *holds = (sqlite3_column_int64(st, 0) > 0 ? NEEDS_PSTATS : 0) |
                 (sqlite3_column_int64(st, 1) > 0 ? NEEDS_STEPS : 0) |
                 (sqlite3_column_int64(st, 2) > 0 ? NEEDS_TRACES : 0) |
                 (sqlite3_column_int64(st, 3) > 0 ? NEEDS_GPU : 0) |
                 (sqlite3_column_int64(st, 4) > 0 ? NEEDS_PYSPY : 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "database error");
}

int pdb_diff_applicable(pdb_diff_ctx *ctx, const char **names, int cap, int *n)
{
    int b, t;
    *n = 0;
    if (run_holds(ctx->db, ctx->base_schema, ctx->base_id, &b) != PDB_OK ||
        run_holds(ctx->db, ctx->test_schema, ctx->test_id, &t) != PDB_OK)
        return PDB_ERR;
    /* Steps compare when either run has them (the other side shows as
     * only_in); everything else needs both. pstats needs one database. */
    int both = b & t, either = b | t;
    if (strcmp(ctx->base_schema, ctx->test_schema) != 0)
        both &= ~NEEDS_PSTATS;
    for (const pdb_diff_kind *k = pdb_diff_kinds; k->name && *n < cap; k++)
        if ((k->needs & both) || (k->needs == NEEDS_STEPS && (either & NEEDS_STEPS)))
            names[(*n)++] = k->name;
    return PDB_OK;
}

const pdb_diff_kind *pdb_diff_find(const char *name)
{
    for (const pdb_diff_kind *k = pdb_diff_kinds; k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

int pdb_diff_run(pdb_diff_ctx *ctx, char **names, int n)
{
    const char *all[8];
    if (n == 0) {
        if (pdb_diff_applicable(ctx, all, 8, &n) != PDB_OK)
            return PDB_ERR;
        if (n == 0)
            return pdb_fail("nothing to compare: runs '%s' and '%s' share no kind of data "
                            "(steps, traces, pstats, py-spy)", ctx->base_name, ctx->test_name);
        if (n > 1 && ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
            return pdb_fail("several comparisons apply (%s, ...): name one for a machine "
                            "format, e.g. 'profdb diff A B %s --format csv'", all[0], all[0]);
        names = (char **)all;
    }
    for (int i = 0; i < n; i++) {
        if (!pdb_diff_find(names[i]))
            return pdb_fail("unknown diff kind '%s' (see 'profdb diff --help')", names[i]);
        /* pstats reads both runs from one schema. */
        if (strcmp(names[i], "pstats") == 0 && strcmp(ctx->base_schema, ctx->test_schema) != 0)
            return pdb_fail("the pstats diff needs both runs in one database");
    }
    ctx->titles = n > 1;
    for (int i = 0; i < n; i++) {
        ctx->kind = pdb_diff_find(names[i])->name;
        if (pdb_diff_find(names[i])->run(ctx) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}
