/* pstats_graph.c: pictures of a run's pstats statistics.
 *
 *   pstats-dot    the call graph as Graphviz DOT, drawn the way gprof2dot
 *                 draws pstats input: a node per function coloured by its
 *                 cumulative-time share (gprof2dot's temperature colormap),
 *                 labelled module:line:name, total %, (self %), calls; an
 *                 edge per caller -> callee labelled with its share and call
 *                 count. Like gprof2dot, nodes under 0.5% and edges under
 *                 0.1% of the total time are left out.
 *   pstats-chart  a gnuplot script (data inline) drawing the top functions
 *                 (--top N, default 20; order from --sort, default
 *                 cumulative) as horizontal bars of cumtime and tottime:
 *                 `profdb report pstats-chart | gnuplot > top.svg`.
 * Every string placed in DOT or gnuplot text is escaped. The edges come
 * from report/queries/pstats.sql. */
#include "render/gnuplot.h"
#include "render/text.h"
#include "report/pstats_model.h"
#include "report/queries.h"
#include "report/reports.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_THRESHOLD 0.005
#define EDGE_THRESHOLD 0.001

/* ---- colours (gprof2dot's Theme with TEMPERATURE_COLORMAP) ------------ */

static double hue_to_rgb(double m1, double m2, double h)
{
    if (h < 0.0)
        h += 1.0;
    else if (h > 1.0)
        h -= 1.0;
    if (h * 6 < 1.0)
        return m1 + (m2 - m1) * h * 6.0;
    if (h * 2 < 1.0)
        return m2;
    if (h * 3 < 2.0)
        return m1 + (m2 - m1) * (2.0 / 3.0 - h) * 6.0;
    return m1;
}

static int to_byte(double f)
{
    return f <= 0 ? 0 : f >= 1 ? 255 : (int)(255.0 * f + 0.5);
}

/* From dark blue (weight 0) to saturated red (weight 1). */
static void weight_color(double w, char out[8])
{
    w = w < 0 ? 0 : w > 1 ? 1 : w;
    double h = 2.0 / 3.0 + w * (0.0 - 2.0 / 3.0), s = 0.80 + w * (1.0 - 0.80),
           l = 0.25 + w * (0.5 - 0.25);
    double m2 = l <= 0.5 ? l * (s + 1.0) : l + s - l * s, m1 = l * 2.0 - m2;
    snprintf(out, 8, "#%02x%02x%02x", to_byte(hue_to_rgb(m1, m2, h + 1.0 / 3.0)),
             to_byte(hue_to_rgb(m1, m2, h)), to_byte(hue_to_rgb(m1, m2, h - 1.0 / 3.0)));
}

/* ---- DOT ------------------------------------------------------------- */

/* A name in a DOT string: valid UTF-8, controls as spaces (render/text.h),
 * " and \\ escaped. */
static void dot_escape(pdb_buf *b, const char *s, size_t n)
{
    pdb_buf t = PDB_BUF_INIT;
    pdb_text_plain_mem(&t, s, n);
    for (size_t i = 0; i < t.len; i++) {
        if (t.p[i] == '"' || t.p[i] == '\\')
            pdb_buf_addc(b, '\\');
        pdb_buf_addc(b, t.p[i]);
    }
    pdb_buf_free(&t);
}

/* gprof2dot's function name for pstats: module (file base name without
 * extension), line and name. */
static void node_name(pdb_buf *b, const pdb_pfunc *f)
{
    const char *base = f->file;
    for (const char *p = f->file; *p; p++)
        if (*p == '/')
            base = p + 1;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    dot_escape(b, base, n);
    pdb_buf_addf(b, ":%lld:", (long long)f->line);
    dot_escape(b, f->name, f->name_len);
}

static double share(double t, double total)
{
    double r = total > 0 ? t / total : 0;
    return r > 1 ? 1 : r;
}

static void dot_nodes(FILE *out, const pdb_pstats *ps, char *keep)
{
    pdb_buf b = PDB_BUF_INIT;
    for (size_t i = 0; i < ps->n; i++) {
        const pdb_pfunc *f = &ps->f[i];
        double w = share(f->ct, ps->total_tt);
        keep[i] = w >= NODE_THRESHOLD;
        if (!keep[i])
            continue;
        char color[8];
        weight_color(w, color);
        pdb_buf_reset(&b);
        node_name(&b, f);
        fprintf(out, "\t%lld [color=\"%s\", fontcolor=\"#ffffff\", fontsize=\"10.00\","
                     " label=\"%s\\n%.2f%%\\n(%.2f%%)\\n%lld\xc3\x97\"];\n",
                (long long)f->id, color, b.p, 100 * w, 100 * share(f->tt, ps->total_tt),
                (long long)f->nc);
    }
    pdb_buf_free(&b);
}

static int dot_edges(pdb_report_ctx *ctx, const pdb_pstats *ps, const char *keep)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(ctx->db, "pstats.dot_edges", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    /* func_id -> index, to check both ends are drawn. */
    pdb_strmap *index = pdb_strmap_new();
    for (size_t i = 0; i < ps->n; i++)
        pdb_strmap_put(index, (const char *)&ps->f[i].id, sizeof ps->f[i].id, (int64_t)i);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t caller = sqlite3_column_int64(st, 0), callee = sqlite3_column_int64(st, 1), a, b;
        if (!pdb_strmap_get(index, (const char *)&caller, sizeof caller, &a) ||
            !pdb_strmap_get(index, (const char *)&callee, sizeof callee, &b) || !keep[a] ||
            !keep[b])
            continue;
        double w = share(sqlite3_column_double(st, 3), ps->total_tt);
        if (w < EDGE_THRESHOLD)
            continue;
        char color[8];
        weight_color(w, color);
        double pen = 0.5 + w * (4.0 - 0.5);
        fprintf(ctx->out, "\t%lld -> %lld [arrowsize=\"%.2f\", color=\"%s\", fontcolor=\"%s\","
                          " fontsize=\"10.00\", label=\"%.2f%%\\n%lld\xc3\x97\","
                          " labeldistance=\"%.2f\", penwidth=\"%.2f\"];\n",
                (long long)caller, (long long)callee, 0.5 * sqrt(pen), color, color, 100 * w,
                (long long)sqlite3_column_int64(st, 2), pen, pen);
    }
    pdb_strmap_free(index);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(ctx->db, "database error");
}

int pdb_report_pstats_dot(pdb_report_ctx *ctx)
{
    pdb_pstats ps;
    int rc = pdb_pstats_load(ctx->db, ctx->run_id, &ps);
    if (rc == PDB_OK) {
        FILE *out = ctx->out;
        fputs("digraph {\n"
              "\tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25];\n"
              "\tnode [fontcolor=white, fontname=Arial, height=0, shape=box, style=filled,"
              " width=0];\n"
              "\tedge [fontname=Arial];\n", out);
        char *keep = pdb_xcalloc(ps.n ? ps.n : 1, 1);
        dot_nodes(out, &ps, keep);
        rc = dot_edges(ctx, &ps, keep);
        fputs("}\n", out);
        free(keep);
    }
    pdb_pstats_free(&ps);
    return rc;
}

/* ---- gnuplot ---------------------------------------------------------- */

int pdb_report_pstats_chart(pdb_report_ctx *ctx)
{
    pdb_pstats ps;
    pdb_report_ctx c = *ctx;
    if (!c.sort)
        c.sort = "cumulative";
    int rc = pdb_pstats_load(ctx->db, ctx->run_id, &ps);
    if (rc == PDB_OK)
        rc = pdb_pstats_select(&ps, &c);
    if (rc != PDB_OK) {
        pdb_pstats_free(&ps);
        return rc;
    }
    size_t n = ps.nlist, top = ctx->top > 0 ? (size_t)ctx->top : 20;
    if (n > top)
        n = top;
    FILE *out = ctx->out;
    char label[256];
    fprintf(out, "# profdb pstats-chart: top %zu functions (%s)\n", n, c.sort);
    fputs("# usage: profdb report pstats-chart | gnuplot > top.svg\n", out);
    fprintf(out, "set terminal svg size 1100,%zu noenhanced font 'sans,10'\n", 120 + 22 * n);
    fputs("set title ", out);
    snprintf(label, sizeof label, "Top %zu functions, sorted by %s", n, c.sort);
    pdb_gp_quote_file(out, label);
    fputs("\nset xlabel 'seconds'\nset key below\nset grid xtics\n"
          "set style fill solid 0.8 border -1\n", out);
    /* The first function on top: the y axis runs downwards. */
    fprintf(out, "set yrange [%zu.4:-0.6]\nset xrange [0:*]\nset ytics (", n ? n - 1 : 0);
    pdb_buf tic = PDB_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const pdb_pfunc *f = &ps.f[ps.list[i]];
        pdb_ellipsize(f->std, 70, label, sizeof label);
        pdb_buf_reset(&tic);
        pdb_gp_quote_tic(&tic, label);
        fprintf(out, "%s%s %zu", i ? ", " : "", pdb_buf_str(&tic), i);
    }
    pdb_buf_free(&tic);
    fputs(")\n$data << EOD\n", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%zu %.9g %.9g\n", i, ps.f[ps.list[i]].ct, ps.f[ps.list[i]].tt);
    fputs("EOD\n"
          "plot $data using (0):1:(0):2:($1-0.35):($1) with boxxyerror lc rgb '#4e79a7'"
          " title 'cumtime', \\\n"
          "     $data using (0):1:(0):3:($1):($1+0.35) with boxxyerror lc rgb '#e15759'"
          " title 'tottime'\n", out);
    pdb_pstats_free(&ps);
    return PDB_OK;
}
