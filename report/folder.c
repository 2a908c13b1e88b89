/* folder.c: the report folder writer behind `profdb report --out DIR`
 * (see folder.h). */
#include "report/folder.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "render/files.h"
#include "render/html.h"
#include "render/text.h"
#include "report/charts.h"
#include "report/overview.h"
#include "report/pyspy.h"
#include "report/queries.h"
#include "report/shard_guard.h"

#include <stdio.h>
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

/* The two pages of the folder: index.md, and index.html made from the same
 * Markdown (render/html.h). Text for both goes through both(); the tables
 * of index.html are the same tables with full names, uncut (full_names):
 * the page shortens long cells itself and keeps each whole in a title. */
typedef struct {
    FILE *md;
    pdb_html *html;
} pages;

static void both(pages *p, const char *text)
{
    fputs(text, p->md);
    pdb_html_md(p->html, text);
}

/* What write(ctx, arg) prints, as a string (malloc'd; NULL on error). */
static char *captured(pdb_report_ctx *ctx, int (*write)(pdb_report_ctx *, void *), void *arg)
{
    char *mem = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&mem, &len);
    if (!m) {
        pdb_fail("out of memory");
        return NULL;
    }
    pdb_report_ctx c = *ctx;
    c.out = m;
    int rc = write(&c, arg);
    fclose(m);
    if (rc != PDB_OK) {
        free(mem);
        return NULL;
    }
    return mem;
}

/* ctx as the page for the browser shows tables: full names, nothing cut. */
static pdb_report_ctx full_names(const pdb_report_ctx *ctx)
{
    pdb_report_ctx c = *ctx;
    c.render.max_width = 0;
    c.names = "full";
    return c;
}

/* One table section of index.md, and its CSV when it has rows. */
static int table_section(pdb_report_ctx *ctx, const pdb_run_facts *facts, const pdb_report *r,
                         const char *dir, pages *pg, pdb_buf *left_out)
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
    if (pdb_report_capture(&c, r, MD_ROWS, &text, &rows) != PDB_OK) {
        if (!pdb_shard_guard_take())
            return PDB_ERR;
        pdb_buf_addf(left_out, "- `%s`: it needs %s\n", r->name, PDB_SHARD_GUARD_NEEDS);
        return PDB_OK;
    }
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
    char *whole;
    int whole_rows;
    pdb_report_ctx f = full_names(&c);
    if (pdb_report_capture(&f, r, MD_ROWS, &whole, &whole_rows) != PDB_OK) {
        free(text);
        return PDB_ERR;
    }
    pdb_buf head = PDB_BUF_INIT, tail = PDB_BUF_INIT;
    pdb_buf_addf(&head, "\n## %s\n\n%s.\n\n", r->name, r->summary);
    pdb_buf_addf(&tail, "\nFull table: [%s.csv](%s.csv)\n", r->name, r->name);
    both(pg, head.p);
    fputs(text, pg->md);
    pdb_html_md(pg->html, whole);
    both(pg, tail.p);
    pdb_buf_free(&head);
    pdb_buf_free(&tail);
    free(text);
    free(whole);
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

typedef struct {
    const char *dir;
    pdb_chart_draws *draws; /* gnuplot still running, waited for at the end */
} chart_args;

/* Writes the charts and links them; gnuplot, when there, renders them while
 * the tables are written (pdb_report_folder waits for it at the end). */
static int chart_section(pdb_report_ctx *ctx, void *arg)
{
    chart_args *a = arg;
    pdb_chart_list charts;
    if (pdb_charts_write(ctx->db, ctx->run_id, ctx->run_name, a->dir, ctx->top, &charts) !=
        PDB_OK)
        return PDB_ERR;
    int rc = pdb_chart_section_start(a->dir, charts.v, charts.n, "No chart applies to this run.",
                                     ctx->out, &a->draws);
    pdb_chart_list_free(&charts);
    return rc;
}

typedef struct {
    const pdb_run_facts *facts;
    const char *dir;
} flame_args;

/* A run with py-spy profiles: its flame and icicle graphs, linked. */
static int flame_section(pdb_report_ctx *ctx, void *arg)
{
    const pdb_run_facts *facts = ((flame_args *)arg)->facts;
    const char *dir = ((flame_args *)arg)->dir;
    FILE *md = ctx->out;
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

static int overview(pdb_report_ctx *ctx, void *arg)
{
    (void)arg;
    return pdb_report_overview(ctx);
}

/* Appends what write prints to both pages; with for_html, the browser's
 * page gets it written again with full names (tables). */
static int section(pdb_report_ctx *ctx, pages *pg, int (*write)(pdb_report_ctx *, void *),
                   void *arg, bool for_html)
{
    char *text = captured(ctx, write, arg);
    if (!text)
        return PDB_ERR;
    if (for_html) {
        pdb_report_ctx f = full_names(ctx);
        char *whole = captured(&f, write, arg);
        if (!whole) {
            free(text);
            return PDB_ERR;
        }
        fputs(text, pg->md);
        pdb_html_md(pg->html, whole);
        free(whole);
    } else {
        both(pg, text);
    }
    free(text);
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
    FILE *html = pdb_out_create(dir, "index", "html");
    if (!html) {
        fclose(md);
        return PDB_ERR;
    }
    pdb_buf title = PDB_BUF_INIT, head = PDB_BUF_INIT;
    pdb_buf_adds(&title, "profdb report");
    pdb_buf_adds(&head, "# profdb report");
    if (ctx->run_name) {
        pdb_buf_adds(&title, ": run ");
        pdb_text_term(&title, ctx->run_name); /* one line; html.c escapes it */
        pdb_buf_adds(&head, ": run ");
        pdb_text_md(&head, ctx->run_name);
    }
    pdb_buf_adds(&head, "\n\n");
    pages pg = {md, pdb_html_open(html, pdb_buf_str(&title))};
    both(&pg, pdb_buf_str(&head));
    pdb_buf_free(&title);
    pdb_buf_free(&head);
    pdb_report_ctx c = *ctx;
    c.render.format = PDB_OUT_MD;
    c.titles = false;
    flame_args fa = {&facts, dir};
    chart_args ca = {dir, NULL};
    int rc = section(&c, &pg, overview, NULL, true);
    if (rc == PDB_OK)
        rc = section(&c, &pg, chart_section, &ca, false);
    if (rc == PDB_OK)
        rc = section(&c, &pg, flame_section, &fa, false);
    pdb_buf left_out = PDB_BUF_INIT;
    for (const pdb_report *r = NULL; rc == PDB_OK && (r = next_table(r));)
        rc = table_section(ctx, &facts, r, dir, &pg, &left_out);
    if (left_out.len) {
        both(&pg, "\n## Not applicable to this run\n\n");
        both(&pg, left_out.p);
    }
    pdb_buf_free(&left_out);
    int drawn = pdb_chart_draws_wait(ca.draws);
    if (rc == PDB_OK)
        rc = drawn;
    pdb_html_close(pg.html);
    int closed = pdb_out_close(md, "index.md");
    int closed_html = pdb_out_close(html, "index.html");
    return rc != PDB_OK ? rc : closed != PDB_OK ? closed : closed_html;
}
