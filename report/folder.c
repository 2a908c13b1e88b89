/* folder.c: the report folder writer behind `profdb report --out DIR`
 * (see folder.h). */
#include "report/folder.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "render/files.h"
#include "render/text.h"
#include "report/charts.h"
#include "report/overview.h"
#include "report/pyspy.h"
#include "report/queries.h"

#include <stdlib.h>
#include <string.h>

/* Rows of a table shown in index.md; the CSV has them all. */
#define MD_ROWS 40

/* NAME.csv in full (every row, full names). */
static int write_csv(pdb_report_ctx *ctx, const pdb_report *r, const char *dir)
{
    FILE *f = pdb_out_create(dir, r->name, "csv");
    int rc = f ? PDB_OK : PDB_ERR;
    if (f) {
        pdb_report_ctx c = *ctx;
        c.out = f;
        c.titles = false;
        c.top = -1;
        c.render.format = PDB_OUT_CSV;
        rc = r->run(&c);
        int closed = pdb_out_close(f, r->name);
        if (rc == PDB_OK)
            rc = closed;
    }
    return rc;
}

/* One table section of index.md, and its CSV when it has rows. */
static int table_section(pdb_report_ctx *ctx, const pdb_run_facts *facts, const pdb_report *r,
                         const char *dir, FILE *md, pdb_buf *left_out)
{
    const char *why = pdb_report_missing(facts, r->needs);
    if (why) {
        pdb_buf_addf(left_out, "- `%s`: %s\n", r->name, why);
        return PDB_OK;
    }
    pdb_report_ctx c = *ctx;
    c.render.format = PDB_OUT_MD;
    if (c.top < 0)
        c.top = r->folder_top;
    char *text;
    int rows;
    if (pdb_report_capture(&c, r, MD_ROWS, &text, &rows) != PDB_OK)
        return PDB_ERR;
    /* Nothing to show: a one-line note in the "not applicable" list (the
     * report's own note, e.g. "comm: no collectives", when it prints one). */
    if (text[0] != '|' || rows == 0) {
        bool note = text[0] != '|' && text[0] != '\n' && text[0];
        const char *line = note ? text : "no rows";
        size_t nlen = strlen(r->name);
        if (note && strncmp(line, r->name, nlen) == 0 && strncmp(line + nlen, ": ", 2) == 0)
            line += nlen + 2; /* the note's own "NAME: " */
        pdb_buf_addf(left_out, "- `%s`: %.*s\n", r->name, (int)strcspn(line, "\n"), line);
        free(text);
        return PDB_OK;
    }
    fprintf(md, "\n## %s\n\n%s.\n\n", r->name, r->summary);
    fputs(text, md);
    free(text);
    fprintf(md, "\nFull table: [%s.csv](%s.csv)\n", r->name, r->name);
    return write_csv(ctx, r, dir);
}

/* The table after prev in the folder's reading order (the rows' FOLDER;
 * prev NULL: the first), or NULL after the last. */
static const pdb_report *next_table(const pdb_report *prev)
{
    const pdb_report *next = NULL;
    for (const pdb_report *r = pdb_reports; r->name; r++)
        if (r->folder != PDB_NOT_IN_FOLDER && (!prev || r->folder > prev->folder) &&
            (!next || r->folder < next->folder))
            next = r;
    return next;
}

/* Writes the charts, renders them when gnuplot is there, links them. */
static int chart_section(pdb_report_ctx *ctx, const char *dir, FILE *md)
{
    pdb_chart_list charts;
    if (pdb_charts_write(ctx->db, ctx->run_id, ctx->run_name, dir, ctx->top, &charts) != PDB_OK)
        return PDB_ERR;
    int rc = pdb_chart_section(dir, charts.v, charts.n, "No chart applies to this run.", md);
    pdb_chart_list_free(&charts);
    return rc;
}

/* A run with py-spy profiles: its flame and icicle graphs, linked. */
static int flame_section(pdb_report_ctx *ctx, const pdb_run_facts *facts, const char *dir,
                         FILE *md)
{
    int64_t samples = 0;
    if (!facts->pyspy_profiles)
        return PDB_OK;
    if (pdb_report_number(ctx->db, "pyspy_tree.totals", ctx->run_id, &samples) != PDB_OK)
        return PDB_ERR;
    if (samples <= 0)
        return PDB_OK; /* nothing to draw: the pyspy table says so */
    if (pdb_pyspy_flamegraph_files(ctx, dir) != PDB_OK)
        return PDB_ERR;
    fputs("\n## flamegraph\n\nThe py-spy samples of the run as a flame graph (open it in a "
          "browser: hover for a frame's samples, Search for a regular expression): "
          "[flamegraph.svg](flamegraph.svg), and upside down: [icicle.svg](icicle.svg).\n\n"
          "![flame graph](flamegraph.svg)\n",
          md);
    return PDB_OK;
}

int pdb_report_folder(pdb_report_ctx *ctx, const char *dir)
{
    if (pdb_out_dir(dir) != PDB_OK)
        return PDB_ERR;
    pdb_run_facts facts;
    if (pdb_run_facts_get(ctx->db, ctx->run_id, &facts) != PDB_OK)
        return PDB_ERR;
    FILE *md = pdb_out_create(dir, "index", "md");
    if (!md)
        return PDB_ERR;
    fputs("# profdb report", md);
    if (ctx->run_name) {
        fputs(": run ", md);
        pdb_fput_md(md, ctx->run_name);
    }
    fputs("\n\n", md);
    pdb_report_ctx c = *ctx;
    c.out = md;
    c.render.format = PDB_OUT_MD;
    c.titles = false;
    int rc = pdb_report_overview(&c);
    if (rc == PDB_OK)
        rc = chart_section(ctx, dir, md);
    if (rc == PDB_OK)
        rc = flame_section(ctx, &facts, dir, md);
    pdb_buf left_out = PDB_BUF_INIT;
    for (const pdb_report *r = NULL; rc == PDB_OK && (r = next_table(r));)
        rc = table_section(ctx, &facts, r, dir, md, &left_out);
    if (left_out.len)
        fprintf(md, "\n## Not applicable to this run\n\n%s", left_out.p);
    pdb_buf_free(&left_out);
    int closed = pdb_out_close(md, "index.md");
    return rc == PDB_OK ? closed : rc;
}
