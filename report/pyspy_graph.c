/* pyspy_graph.c: the py-spy reports over the whole stack tree
 * (pyspy_tree.c): `pyspy-tree` (a text tree for the terminal), `folded`
 * (one "frame;frame;... COUNT" line per stack, py-spy's raw format, which
 * flamegraph.pl, inferno and speedscope read and profdb ingests again) and
 * `flamegraph` (flamegraph.svg and icicle.svg, render/flamegraph.c). */
#include "report/pyspy.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "render/files.h"
#include "render/flamegraph.h"
#include "render/text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Boxes narrower than this share of the samples are not drawn (inferno's
 * 0.1%, a little over one pixel of 1,180); tree lines below 1% not printed. */
#define FLAME_MIN_SHARE 0.1
#define TREE_MIN_SHARE 1.0
#define TREE_INDENT 60

static int min_share(const pdb_report_ctx *ctx, double dflt, double *out)
{
    *out = dflt;
    if (!ctx->min_share)
        return PDB_OK;
    char *end;
    errno = 0;
    double v = strtod(ctx->min_share, &end);
    if (errno || end == ctx->min_share || *end || !(v >= 0 && v <= 100))
        return pdb_fail("--min-share '%s': expected a percentage from 0 to 100",
                        ctx->min_share);
    *out = v;
    return PDB_OK;
}

static int load(pdb_report_ctx *ctx, const char *report, pdb_pyspy_tree *t, bool *ok)
{
    if (pdb_pyspy_require(ctx, report, ok) != PDB_OK)
        return PDB_ERR;
    if (!*ok)
        return PDB_OK;
    return pdb_pyspy_tree_load(ctx->db, ctx->run_id, t);
}

/* --- folded ---------------------------------------------------------------- */

int pdb_report_folded(pdb_report_ctx *ctx)
{
    pdb_pyspy_tree t;
    bool ok;
    if (load(ctx, "folded", &t, &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    int32_t *path = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.nodes[i].self <= 0)
            continue;
        size_t len = 0;
        for (int32_t k = (int32_t)i; k >= 0; k = t.nodes[k].parent) {
            if (len == cap) {
                cap = cap ? 2 * cap : 256;
                path = pdb_xrealloc(path, cap * sizeof *path);
            }
            path[len++] = k;
        }
        /* Root first, as py-spy writes; frames as printed (a process
         * frame's command line may hold ';' or a line break, as in py-spy's
         * own files: profdb's raw reader reads them). */
        while (len-- > 0) {
            fputs(t.frames[t.nodes[path[len]].frame], ctx->out);
            if (len)
                fputc(';', ctx->out);
        }
        fprintf(ctx->out, " %lld\n", (long long)t.nodes[i].self);
    }
    free(path);
    pdb_pyspy_tree_free(&t);
    return PDB_OK;
}

/* --- pyspy-tree -------------------------------------------------------------- */

static const pdb_pyspy_tree *sort_tree; /* qsort has no context argument */

static int by_total_desc(const void *a, const void *b)
{
    const pdb_pyspy_node *x = &sort_tree->nodes[*(const int32_t *)a];
    const pdb_pyspy_node *y = &sort_tree->nodes[*(const int32_t *)b];
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return (*(const int32_t *)a > *(const int32_t *)b) - (*(const int32_t *)a < *(const int32_t *)b);
}

/* Pushes the children of node p (or the roots, p < 0) that reach min
 * samples onto the stack, largest last so that it prints first. */
static void push_children(const pdb_pyspy_tree *t, int32_t p, double min, int32_t **stack,
                          size_t *n, size_t *cap, int32_t *roots, size_t nroots)
{
    const int32_t *kids = roots;
    size_t nk = nroots;
    int32_t *tmp = NULL;
    if (p >= 0) {
        nk = (size_t)t->nodes[p].children;
        tmp = pdb_xmalloc((nk + 1) * sizeof *tmp);
        for (size_t i = 0; i < nk; i++)
            tmp[i] = t->nodes[p].first_child + (int32_t)i;
        sort_tree = t;
        qsort(tmp, nk, sizeof *tmp, by_total_desc);
        kids = tmp;
    }
    for (size_t i = nk; i-- > 0;) {
        if ((double)t->nodes[kids[i]].total < min)
            continue;
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *stack = pdb_xrealloc(*stack, *cap * sizeof **stack);
        }
        (*stack)[(*n)++] = kids[i];
    }
    free(tmp);
}

static void tree_line(pdb_report_ctx *ctx, const pdb_pyspy_tree *t, const pdb_pyspy_node *nd)
{
    double all = (double)t->samples;
    fprintf(ctx->out, "%6.2f%% %6.2f%% %9lld  ", 100.0 * (double)nd->total / all,
            100.0 * (double)nd->self / all, (long long)nd->total);
    /* Indentation up to TREE_INDENT levels, then the depth as a number: a
     * stack 10^5 frames deep would otherwise print 10^10 spaces. */
    int indent = nd->depth < TREE_INDENT ? nd->depth : TREE_INDENT;
    for (int d = 0; d < indent; d++)
        fputs(d % 2 ? "  " : "| ", ctx->out);
    if (nd->depth > TREE_INDENT)
        fprintf(ctx->out, "[%d] ", nd->depth);
    pdb_fput_term(ctx->out, t->frames[nd->frame]);
    fputc('\n', ctx->out);
}

int pdb_report_pyspy_tree(pdb_report_ctx *ctx)
{
    double share;
    if (min_share(ctx, TREE_MIN_SHARE, &share) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, "pyspy-tree");
    pdb_pyspy_tree t;
    bool ok;
    if (load(ctx, "pyspy-tree", &t, &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    if (t.samples <= 0) {
        pdb_pyspy_tree_free(&t);
        fputs("pyspy-tree: no samples\n", ctx->out);
        return PDB_OK;
    }
    double min = share / 100.0 * (double)t.samples;
    fprintf(ctx->out, "total%%   self%%   samples  stack (%lld samples; lines under %g%% of them "
                      "left out)\n",
            (long long)t.samples, share);
    size_t nroots = 0;
    int32_t *roots = pdb_xmalloc((t.n + 1) * sizeof *roots);
    for (size_t i = 0; i < t.n && t.nodes[i].depth == 0; i++)
        roots[nroots++] = (int32_t)i;
    sort_tree = &t;
    qsort(roots, nroots, sizeof *roots, by_total_desc);
    int32_t *stack = NULL;
    size_t n = 0, cap = 0;
    push_children(&t, -1, min, &stack, &n, &cap, roots, nroots);
    while (n > 0) {
        int32_t k = stack[--n];
        tree_line(ctx, &t, &t.nodes[k]);
        push_children(&t, k, min, &stack, &n, &cap, NULL, 0);
    }
    free(stack);
    free(roots);
    if (!t.exact)
        pdb_pyspy_inexact_note(ctx);
    pdb_pyspy_tree_free(&t);
    return PDB_OK;
}

/* --- flamegraph -------------------------------------------------------------- */

/* The boxes to draw: "all", then every node of at least min samples (its
 * parent then is too). */
static pdb_flame_box *flame_boxes(const pdb_pyspy_tree *t, double min, size_t *n,
                                  size_t *left_out)
{
    pdb_flame_box *boxes = pdb_xmalloc((t->n + 1) * sizeof *boxes);
    boxes[0] = (pdb_flame_box){"all", 0, t->samples, 0, true};
    *n = 1;
    *left_out = 0;
    for (size_t i = 0; i < t->n; i++) {
        const pdb_pyspy_node *nd = &t->nodes[i];
        if ((double)nd->total < min || nd->total <= 0) {
            *left_out += 1;
            continue;
        }
        boxes[(*n)++] = (pdb_flame_box){t->frames[nd->frame], nd->x, nd->total, nd->depth + 1,
                                        t->pseudo[nd->frame]};
    }
    return boxes;
}

static int write_svg(pdb_report_ctx *ctx, const pdb_pyspy_tree *t, const char *dir,
                     const char *name, bool icicle, double share)
{
    size_t n, left_out;
    pdb_flame_box *boxes = flame_boxes(t, share / 100.0 * (double)t->samples, &n, &left_out);
    pdb_buf title = PDB_BUF_INIT, rule = PDB_BUF_INIT;
    pdb_buf_addf(&title, "profdb %s graph", icicle ? "icicle" : "flame");
    if (ctx->run_name)
        pdb_buf_addf(&title, ": run %s", ctx->run_name);
    pdb_buf_addf(&rule, "%lld samples; width = samples; boxes under %g%% of the samples are not "
                        "drawn (%zu boxes), their samples stay in their parent's width",
                 (long long)t->samples, share, left_out);
    if (!t->exact)
        pdb_buf_adds(&rule, "; read from a flame-graph SVG: boxes under its 0.1% were never "
                            "stored");
    pdb_flame_opts o = {pdb_buf_str(&title), pdb_buf_str(&rule), t->samples, icicle, t->rate_hz};
    FILE *f = pdb_out_create(dir, name, "svg");
    int rc = f ? pdb_flame_write(f, boxes, n, &o) : PDB_ERR;
    if (f) {
        int closed = pdb_out_close(f, name);
        if (rc == PDB_OK)
            rc = closed;
    }
    pdb_buf_free(&title);
    pdb_buf_free(&rule);
    free(boxes);
    return rc;
}

int pdb_pyspy_flamegraph_files(pdb_report_ctx *ctx, const char *dir)
{
    double share;
    if (min_share(ctx, FLAME_MIN_SHARE, &share) != PDB_OK)
        return PDB_ERR;
    pdb_pyspy_tree t;
    if (pdb_pyspy_tree_load(ctx->db, ctx->run_id, &t) != PDB_OK)
        return PDB_ERR;
    int rc = t.samples > 0 ? PDB_OK : pdb_fail("flamegraph: the run's profiles have no samples");
    if (rc == PDB_OK)
        rc = write_svg(ctx, &t, dir, "flamegraph", false, share);
    if (rc == PDB_OK)
        rc = write_svg(ctx, &t, dir, "icicle", true, share);
    pdb_pyspy_tree_free(&t);
    return rc;
}

int pdb_report_flamegraph(pdb_report_ctx *ctx)
{
    if (!ctx->outdir)
        return pdb_fail("flamegraph writes files: give --out DIR "
                        "(DIR/flamegraph.svg and DIR/icicle.svg)");
    bool ok;
    if (pdb_pyspy_require(ctx, "flamegraph", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    if (pdb_out_dir(ctx->outdir) != PDB_OK || pdb_pyspy_flamegraph_files(ctx, ctx->outdir) != PDB_OK)
        return PDB_ERR;
    fputs("profdb: wrote ", stderr);
    pdb_fput_term(stderr, ctx->outdir);
    fputs("/flamegraph.svg and icicle.svg\n", stderr);
    return PDB_OK;
}
