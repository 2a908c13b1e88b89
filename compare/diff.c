/* diff.c: the table of comparisons behind `profdb diff BASE TEST [KIND...]`
 * (see diff.h). Adding a kind is adding a function and one row. */
#include "compare/diff.h"
#include "common/error.h"

#include <string.h>

const pdb_diff_kind pdb_diff_kinds[] = {
    {"pstats", pdb_diff_pstats, "functions by largest change of tottime/cumtime (--sort, --top)"},
    {"steps", pdb_diff_steps, "per-step times and phases: medians, ratio CI, p-value"},
    {"ops", pdb_diff_ops, "CPU ops: calls, total and self time"},
    {"kernels", pdb_diff_kernels, "GPU kernels: launches and total time"},
    {"kernel-types", pdb_diff_kernel_types, "GPU time by kernel type and overlap"},
    {"gpu", pdb_diff_gpu, "GPU temporal breakdown: busy, idle, compute, communication"},
    {NULL, NULL, NULL},
};

const pdb_diff_kind *pdb_diff_find(const char *name)
{
    for (const pdb_diff_kind *k = pdb_diff_kinds; k->name; k++)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

int pdb_diff_run(pdb_diff_ctx *ctx, char **names, int n)
{
    static char *const dflt[] = {"pstats"};
    if (n == 0) {
        names = (char **)dflt;
        n = 1;
    }
    for (int i = 0; i < n; i++) {
        if (!pdb_diff_find(names[i]))
            return pdb_fail("unknown diff kind '%s' (see 'profdb diff --help')", names[i]);
        /* pstats reads both runs from one schema. */
        if (strcmp(names[i], "pstats") == 0 && strcmp(ctx->base_schema, ctx->test_schema) != 0)
            return pdb_fail("the pstats diff needs both runs in one database");
    }
    ctx->titles = n > 1;
    for (int i = 0; i < n; i++)
        if (pdb_diff_find(names[i])->run(ctx) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}
