/* pyspy_graph.c: the py-spy reports over the whole stack tree
 * (pyspy_tree.c, read a node at a time from its temp tables): `pyspy-tree` (a text tree for the terminal), `folded`
 * (one "frame;frame;... COUNT" line per stack, py-spy's raw format, which
 * flamegraph.pl, inferno and speedscope read and profdb ingests again) and
 * `flamegraph` (flamegraph.svg and icicle.svg, render/flamegraph.c). */
#include "report/pyspy.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"
#include "render/files.h"
#include "render/flamegraph.h"
#include "render/text.h"
#include "report/queries.h"

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

/* Checks that the run has py-spy data and builds its tree (pyspy_tree.c). */
static int build(pdb_report_ctx *ctx, const char *report, pdb_pyspy_tree_need need,
                 pdb_pyspy_totals *t, bool *ok)
{
    if (pdb_pyspy_require(ctx, report, ok) != PDB_OK)
        return PDB_ERR;
    if (!*ok)
        return PDB_OK;
    return pdb_pyspy_tree_build(ctx->db, ctx->run_id, ctx->thread, need, t);
}

/* Drops the tree's tables; rc is the report's result so far. */
static int finish(pdb_report_ctx *ctx, const pdb_pyspy_totals *t, int rc)
{
    int dropped = pdb_pyspy_tree_drop(ctx->db, t);
    return rc == PDB_OK ? dropped : rc;
}

/* --- folded ---------------------------------------------------------------- */

/* One line: the stack ending at node, root first, and its samples. Frames
 * as printed (a process frame's command line may hold ';' or a line break,
 * as in py-spy's own files: profdb's raw reader reads them). */
static int folded_line(pdb_report_ctx *ctx, sqlite3_stmt *stack, int64_t node, int64_t samples)
{
    sqlite3_bind_int64(stack, 1, node);
    int rc;
    bool first = true;
    while ((rc = sqlite3_step(stack)) == SQLITE_ROW) {
        if (!first)
            fputc(';', ctx->out);
        const char *frame = (const char *)sqlite3_column_text(stack, 0);
        fputs(frame ? frame : "", ctx->out);
        first = false;
    }
    sqlite3_reset(stack);
    fprintf(ctx->out, " %lld\n", (long long)samples);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(ctx->db, "folded: reading a stack");
}

static int folded_lines(pdb_report_ctx *ctx)
{
    sqlite3_stmt *ends, *stack;
    if (pdb_report_prepare(ctx->db, "pyspy_tree.folded_ends", &ends) != PDB_OK)
        return PDB_ERR;
    if (pdb_report_prepare(ctx->db, "pyspy_tree.folded_stack", &stack) != PDB_OK) {
        sqlite3_finalize(ends);
        return PDB_ERR;
    }
    int rc, err = PDB_OK;
    while (err == PDB_OK && (rc = sqlite3_step(ends)) == SQLITE_ROW)
        err = folded_line(ctx, stack, sqlite3_column_int64(ends, 0),
                          sqlite3_column_int64(ends, 1));
    if (err == PDB_OK && rc != SQLITE_DONE)
        err = pdb_db_fail(ctx->db, "folded: reading the stacks");
    sqlite3_finalize(stack);
    sqlite3_finalize(ends);
    return err;
}

int pdb_report_folded(pdb_report_ctx *ctx)
{
    pdb_pyspy_totals t;
    bool ok;
    if (build(ctx, "folded", PDB_PYSPY_SELF, &t, &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return finish(ctx, &t, folded_lines(ctx));
}

/* --- pyspy-tree -------------------------------------------------------------- */

/* The tree's statements: a node's first child (largest), its next sibling,
 * and the node itself. */
typedef struct tree_walk {
    pdb_report_ctx *ctx;
    sqlite3_stmt *first, *next, *node;
    double min;       /* lines under this many samples are left out */
    int64_t samples;  /* every sample: the base of the shares */
} tree_walk;

/* A node's row (tree_node), or false with the error set. */
typedef struct tree_row {
    int64_t parent, depth, total, self;
} tree_row;

static int read_node(tree_walk *w, int64_t id, tree_row *r, bool print)
{
    sqlite3_bind_int64(w->node, 1, id);
    int rc = sqlite3_step(w->node);
    if (rc == SQLITE_ROW) {
        *r = (tree_row){sqlite3_column_int64(w->node, 0), sqlite3_column_int64(w->node, 1),
                        sqlite3_column_int64(w->node, 2), sqlite3_column_int64(w->node, 3)};
        if (print) {
            FILE *out = w->ctx->out;
            double all = (double)w->samples;
            fprintf(out, "%6.2f%% %6.2f%% %9lld  ", 100.0 * (double)r->total / all,
                    100.0 * (double)r->self / all, (long long)r->total);
            /* Indentation up to TREE_INDENT levels, then the depth as a
             * number: a stack 10^5 frames deep would otherwise print 10^10
             * spaces. */
            int64_t indent = r->depth < TREE_INDENT ? r->depth : TREE_INDENT;
            for (int64_t d = 0; d < indent; d++)
                fputs(d % 2 ? "  " : "| ", out);
            if (r->depth > TREE_INDENT)
                fprintf(out, "[%lld] ", (long long)r->depth);
            const char *frame = (const char *)sqlite3_column_text(w->node, 4);
            pdb_fput_term(out, frame ? frame : "");
            fputc('\n', out);
        }
    }
    sqlite3_reset(w->node);
    return rc == SQLITE_ROW ? PDB_OK
                            : pdb_fail("py-spy stack tree of run %lld: node %lld is missing",
                                       (long long)w->ctx->run_id, (long long)id);
}

/* Steps st (bound to key) to the node it names, 0 when none or when that
 * node is under the share (then so are the siblings after it). */
static int step_to(tree_walk *w, sqlite3_stmt *st, int64_t key, int64_t *to)
{
    sqlite3_bind_int64(st, 1, key);
    int rc = sqlite3_step(st);
    int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    *to = 0;
    if (rc != SQLITE_ROW)
        return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(w->ctx->db, "pyspy-tree");
    tree_row r;
    if (read_node(w, id, &r, false) != PDB_OK)
        return PDB_ERR;
    if ((double)r.total >= w->min)
        *to = id;
    return PDB_OK;
}

/* Depth first, largest child first, holding only the current node: after
 * a node's subtree comes its next sibling, else its parent's, and so on up
 * (each node is entered once and left once: linear in the lines). */
static int tree_lines(tree_walk *w)
{
    int64_t cur;
    if (step_to(w, w->first, 0, &cur) != PDB_OK)
        return PDB_ERR;
    while (cur) {
        tree_row r;
        int64_t child;
        if (read_node(w, cur, &r, true) != PDB_OK || step_to(w, w->first, cur, &child) != PDB_OK)
            return PDB_ERR;
        if (child) {
            cur = child;
            continue;
        }
        for (;;) {
            int64_t sib;
            if (step_to(w, w->next, cur, &sib) != PDB_OK)
                return PDB_ERR;
            if (sib || r.parent == 0) {
                cur = sib;
                break;
            }
            cur = r.parent;
            if (read_node(w, cur, &r, false) != PDB_OK)
                return PDB_ERR;
        }
    }
    return PDB_OK;
}

static int tree_print(pdb_report_ctx *ctx, const pdb_pyspy_totals *t, double share)
{
    if (t->samples <= 0) {
        fputs("pyspy-tree: no samples\n", ctx->out);
        return PDB_OK;
    }
    fprintf(ctx->out, "total%%   self%%   samples  stack (%lld samples; lines under %g%% of them "
                      "left out)\n",
            (long long)t->samples, share);
    tree_walk w = {ctx, NULL, NULL, NULL, share / 100.0 * (double)t->samples, t->samples};
    int rc = pdb_report_prepare(ctx->db, "pyspy_tree.tree_first", &w.first);
    if (rc == PDB_OK)
        rc = pdb_report_prepare(ctx->db, "pyspy_tree.tree_next", &w.next);
    if (rc == PDB_OK)
        rc = pdb_report_prepare(ctx->db, "pyspy_tree.tree_node", &w.node);
    if (rc == PDB_OK)
        rc = tree_lines(&w);
    sqlite3_finalize(w.first);
    sqlite3_finalize(w.next);
    sqlite3_finalize(w.node);
    if (rc == PDB_OK && !t->exact)
        pdb_pyspy_inexact_note(ctx);
    return rc;
}

int pdb_report_pyspy_tree(pdb_report_ctx *ctx)
{
    double share;
    if (min_share(ctx, TREE_MIN_SHARE, &share) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, "pyspy-tree");
    pdb_pyspy_totals t;
    bool ok;
    if (build(ctx, "pyspy-tree", PDB_PYSPY_TOTALS, &t, &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    return finish(ctx, &t, tree_print(ctx, &t, share));
}

/* --- flamegraph -------------------------------------------------------------- */

/* The boxes: "all", then every node of at least min samples (its parent
 * then is too), streamed from the query as they are written. */
static int write_boxes(sqlite3 *db, FILE *f, const pdb_flame_opts *o, double min)
{
    pdb_flame_box all = {"all", 0, o->total, 0, true};
    pdb_flame_box_write(f, &all, o);
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pyspy_tree.flame_boxes", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_double(st, 1, min);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        pdb_flame_box b = {name ? name : "", sqlite3_column_int64(st, 1),
                           sqlite3_column_int64(st, 2), sqlite3_column_int(st, 3) + 1,
                           sqlite3_column_int(st, 4) != 0};
        pdb_flame_box_write(f, &b, o);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "flamegraph: reading the boxes");
}

/* The number of rows and of boxes left out at min samples. */
static int flame_rows(sqlite3 *db, double min, int *rows, int64_t *left_out)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pyspy_tree.flame_rows", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_double(st, 1, min);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *rows = sqlite3_column_int(st, 0);
        *left_out = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "flamegraph: counting the rows");
}

static int write_svg(pdb_report_ctx *ctx, const pdb_pyspy_totals *t, const char *dir,
                     const char *name, bool icicle, double share)
{
    double min = share / 100.0 * (double)t->samples;
    int rows = 1;
    int64_t left_out = 0;
    if (flame_rows(ctx->db, min, &rows, &left_out) != PDB_OK)
        return PDB_ERR;
    pdb_buf title = PDB_BUF_INIT, rule = PDB_BUF_INIT;
    pdb_buf_addf(&title, "profdb %s graph", icicle ? "icicle" : "flame");
    if (ctx->run_name)
        pdb_buf_addf(&title, ": run %s", ctx->run_name);
    if (ctx->thread)
        pdb_buf_addf(&title, ", thread %s", ctx->thread);
    pdb_buf_addf(&rule, "%lld samples; width = samples; boxes under %g%% of the samples are not "
                        "drawn (%lld boxes), their samples stay in their parent's width",
                 (long long)t->samples, share, (long long)left_out);
    if (!t->exact)
        pdb_buf_adds(&rule, "; read from a flame-graph SVG: boxes under its 0.1% were never "
                            "stored");
    pdb_flame_opts o = {pdb_buf_str(&title), pdb_buf_str(&rule), t->samples, icicle, t->rate_hz,
                        rows};
    FILE *f = pdb_out_create(dir, name, "svg");
    int rc = f ? pdb_flame_begin(f, &o) : PDB_ERR;
    if (rc == PDB_OK)
        rc = write_boxes(ctx->db, f, &o, min);
    if (rc == PDB_OK)
        pdb_flame_end(f, &o);
    if (f) {
        int closed = pdb_out_close(f, name);
        if (rc == PDB_OK)
            rc = closed;
    }
    pdb_buf_free(&title);
    pdb_buf_free(&rule);
    return rc;
}

int pdb_pyspy_flamegraph_files(pdb_report_ctx *ctx, const char *dir)
{
    double share;
    if (min_share(ctx, FLAME_MIN_SHARE, &share) != PDB_OK)
        return PDB_ERR;
    pdb_pyspy_totals t;
    if (pdb_pyspy_tree_build(ctx->db, ctx->run_id, ctx->thread, PDB_PYSPY_LAYOUT, &t) != PDB_OK)
        return PDB_ERR;
    int rc = t.samples > 0 ? PDB_OK : pdb_fail("flamegraph: the run's profiles have no samples");
    if (rc == PDB_OK)
        rc = write_svg(ctx, &t, dir, "flamegraph", false, share);
    if (rc == PDB_OK)
        rc = write_svg(ctx, &t, dir, "icicle", true, share);
    return finish(ctx, &t, rc);
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
