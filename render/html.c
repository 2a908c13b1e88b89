/* html.c: index.md as index.html (see html.h): a line-by-line reader of the
 * Markdown profdb writes, and the page around it. */
#include "render/html.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "render/files.h"
#include "render/shorten.h"
#include "render/text.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef enum { BLOCK_NONE, BLOCK_PARA, BLOCK_LIST } block_kind;

struct pdb_html {
    FILE *out;
    pdb_buf pending;   /* a line not yet ended */
    block_kind block;
    /* A table: its header (cells), the alignment, rows held until it ends. */
    int table;         /* 0: none; 1: header read; 2: in the rows */
    char **head;
    int ncols;
    bool *right;
    char ***rows;      /* ncols cells each, Markdown as written */
    int nrows;
};

/* ---- text ------------------------------------------------------------------ */

/* s[0..n) HTML-escaped (and valid UTF-8: pdb_text_xml). */
static void esc(pdb_buf *b, const char *s, size_t n)
{
    char *t = pdb_xmalloc(n + 1);
    memcpy(t, s, n);
    t[n] = 0;
    pdb_text_xml(b, t);
    free(t);
}

static void esc_str(pdb_buf *b, const char *s)
{
    esc(b, s, strlen(s));
}

/* The Markdown text as it reads: escapes undone, nothing else. */
static void unescape(pdb_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1]))
            i++;
        pdb_buf_addc(b, s[i]);
    }
}

/* A file of the folder ("kernels.csv", "gpu.png"): the only targets kept. */
static bool local_target(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
            return false;
    return true;
}

static void add_inline(pdb_buf *b, const char *s, size_t n);

/* At s[0] == '[': "[label](target)", its parts; false when it is none. */
static bool link_at(const char *s, size_t n, size_t *label_end, size_t *target, size_t *end)
{
    int depth = 0;
    size_t i = 0;
    for (; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            i++;
            continue;
        }
        if (s[i] == '[')
            depth++;
        else if (s[i] == ']' && --depth == 0)
            break;
    }
    if (i >= n || i + 1 >= n || s[i + 1] != '(')
        return false;
    size_t j = i + 2;
    while (j < n && s[j] != ')' && s[j] != ' ')
        j++;
    if (j >= n || s[j] != ')')
        return false;
    *label_end = i;
    *target = i + 2;
    *end = j + 1;
    return true;
}

/* A code span at s[0] == '`': its text, and where it ends; false when the
 * backticks are not closed (then they are text). */
static bool code_at(const char *s, size_t n, size_t *from, size_t *to, size_t *end)
{
    size_t k = 0;
    while (k < n && s[k] == '`')
        k++;
    for (size_t i = k; i < n;) {
        if (s[i] != '`') {
            i++;
            continue;
        }
        size_t run = 0;
        while (i + run < n && s[i + run] == '`')
            run++;
        if (run == k) {
            *from = k;
            *to = i;
            /* One space at each end is the fence's padding (CommonMark). */
            if (*to - *from >= 2 && s[*from] == ' ' && s[*to - 1] == ' ') {
                (*from)++;
                (*to)--;
            }
            *end = i + run;
            return true;
        }
        i += run;
    }
    return false;
}

/* Whether a "**" follows in s[0..n): bold needs its end (else it is text). */
static bool closes(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] == '\\') {
            i++;
            continue;
        }
        if (s[i] == '*' && s[i + 1] == '*')
            return true;
    }
    return false;
}

/* Markdown inline text as HTML: escapes, code spans, **bold**, images and
 * links to the folder's files; everything else escaped as text. */
static void add_inline(pdb_buf *b, const char *s, size_t n)
{
    bool strong = false;
    for (size_t i = 0; i < n;) {
        size_t le, tg, end, from, to;
        if (s[i] == '\\' && i + 1 < n && ispunct((unsigned char)s[i + 1])) {
            esc(b, s + i + 1, 1);
            i += 2;
        } else if (s[i] == '`' && code_at(s + i, n - i, &from, &to, &end)) {
            pdb_buf_adds(b, "<code>");
            esc(b, s + i + from, to - from);
            pdb_buf_adds(b, "</code>");
            i += end;
        } else if (s[i] == '*' && i + 1 < n && s[i + 1] == '*' &&
                   (strong || closes(s + i + 2, n - i - 2))) {
            pdb_buf_adds(b, strong ? "</strong>" : "<strong>");
            strong = !strong;
            i += 2;
        } else if (s[i] == '!' && i + 1 < n && s[i + 1] == '[' &&
                   link_at(s + i + 1, n - i - 1, &le, &tg, &end)) {
            const char *p = s + i + 1;
            pdb_buf alt = PDB_BUF_INIT;
            unescape(&alt, p + 1, le - 1);
            if (local_target(p + tg, end - 1 - tg)) {
                pdb_buf_adds(b, "<img src=\"");
                esc(b, p + tg, end - 1 - tg);
                pdb_buf_adds(b, "\" alt=\"");
                esc_str(b, pdb_buf_str(&alt));
                pdb_buf_adds(b, "\">");
            } else {
                esc_str(b, pdb_buf_str(&alt));
            }
            pdb_buf_free(&alt);
            i += 1 + end;
        } else if (s[i] == '[' && link_at(s + i, n - i, &le, &tg, &end)) {
            const char *p = s + i;
            bool keep = local_target(p + tg, end - 1 - tg);
            if (keep) {
                pdb_buf_adds(b, "<a href=\"");
                esc(b, p + tg, end - 1 - tg);
                pdb_buf_adds(b, "\">");
            }
            add_inline(b, p + 1, le - 1);
            if (keep)
                pdb_buf_adds(b, "</a>");
            i += end;
        } else {
            size_t j = i + 1;
            while (j < n && !strchr("\\`*![", s[j]))
                j++;
            esc(b, s + i, j - i);
            i = j;
        }
    }
    if (strong)
        pdb_buf_adds(b, "</strong>"); /* a "**" inside a code span or link closed none */
}

/* Whether a cell is plain text (no code, link, image or bold), which may be
 * shortened: markup cut in the middle would not read. */
static bool plain_cell(const char *s)
{
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '\\' && s[i + 1]) {
            i++;
            continue;
        }
        if (strchr("`[", s[i]) || (s[i] == '*' && s[i + 1] == '*'))
            return false;
    }
    return true;
}

/* ---- blocks ----------------------------------------------------------------- */

static void end_block(pdb_html *h)
{
    if (h->block == BLOCK_PARA)
        fputs("</p>\n", h->out);
    else if (h->block == BLOCK_LIST)
        fputs("</li>\n</ul>\n", h->out);
    h->block = BLOCK_NONE;
}

static void put_inline(pdb_html *h, const char *s, size_t n)
{
    pdb_buf b = PDB_BUF_INIT;
    add_inline(&b, s, n);
    fputs(pdb_buf_str(&b), h->out);
    pdb_buf_free(&b);
}

/* The cells of a table line, trimmed, split at each unescaped '|'. */
static int split_cells(const char *line, char ***cells)
{
    const char *s = line + 1; /* after the leading '|' */
    size_t n = strlen(s);
    int count = 0, cap = 8;
    *cells = pdb_xmalloc((size_t)cap * sizeof **cells);
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] == '\\' && i + 1 < n) {
            i++;
            continue;
        }
        if (i < n && s[i] != '|')
            continue;
        size_t a = start, z = i;
        while (a < z && s[a] == ' ')
            a++;
        while (z > a && s[z - 1] == ' ')
            z--;
        if (i < n || z > a) { /* the text after the last '|' only when not blank */
            if (count == cap) {
                cap *= 2;
                *cells = pdb_xrealloc(*cells, (size_t)cap * sizeof **cells);
            }
            char *c = pdb_xmalloc(z - a + 1);
            memcpy(c, s + a, z - a);
            c[z - a] = 0;
            (*cells)[count++] = c;
        }
        start = i + 1;
    }
    return count;
}

static void free_cells(char **cells, int n)
{
    for (int i = 0; i < n; i++)
        free(cells[i]);
    free(cells);
}

/* Columns of sentences, not names: they wrap, never shortened (a cut
 * sentence does not read). */
static bool prose_column(const char *header)
{
    static const char *const prose[] = {"evidence", "why", "advice", "note", "notes",
                                        "suggestion", "description", "skip_reasons", "what"};
    for (size_t i = 0; i < sizeof prose / sizeof prose[0]; i++)
        if (strcmp(header, prose[i]) == 0)
            return true;
    return false;
}

/* The held rows, their long plain cells shortened per column. */
static void flush_rows(pdb_html *h)
{
    int nr = h->nrows, nc = h->ncols;
    char **shown = pdb_xcalloc((size_t)nr * (size_t)(nc ? nc : 1), sizeof *shown);
    char **full = pdb_xcalloc((size_t)nr * (size_t)(nc ? nc : 1), sizeof *full);
    const char **names = pdb_xcalloc((size_t)(nr ? nr : 1), sizeof *names);
    char **cut = pdb_xcalloc((size_t)(nr ? nr : 1), sizeof *cut);
    int *at = pdb_xcalloc((size_t)(nr ? nr : 1), sizeof *at);
    for (int c = 0; c < nc; c++) {
        int n = 0;
        for (int r = 0; r < nr && !prose_column(h->head[c]); r++) {
            const char *cell = h->rows[r][c];
            if (!plain_cell(cell))
                continue;
            pdb_buf t = PDB_BUF_INIT;
            unescape(&t, cell, strlen(cell));
            if (pdb_utf8_width(t.p ? t.p : "", t.len) > PDB_HTML_CELL) {
                full[r * nc + c] = pdb_xstrdup(pdb_buf_str(&t));
                names[n] = full[r * nc + c];
                at[n++] = r;
            }
            pdb_buf_free(&t);
        }
        if (n) {
            pdb_shorten_column(names, (size_t)n, PDB_HTML_CELL, cut);
            for (int i = 0; i < n; i++)
                shown[at[i] * nc + c] = cut[i];
        }
    }
    for (int r = 0; r < nr; r++) {
        pdb_buf b = PDB_BUF_INIT;
        pdb_buf_adds(&b, "<tr>");
        for (int c = 0; c < nc; c++) {
            pdb_buf_adds(&b, h->right[c]                 ? "<td class=\"n\""
                             : prose_column(h->head[c]) ? "<td class=\"w\""
                                                        : "<td");
            if (shown[r * nc + c]) {
                pdb_buf_adds(&b, " title=\"");
                esc_str(&b, full[r * nc + c]);
                pdb_buf_adds(&b, "\">");
                esc_str(&b, shown[r * nc + c]);
            } else {
                pdb_buf_addc(&b, '>');
                add_inline(&b, h->rows[r][c], strlen(h->rows[r][c]));
            }
            pdb_buf_adds(&b, "</td>");
        }
        pdb_buf_adds(&b, "</tr>\n");
        fputs(pdb_buf_str(&b), h->out);
        pdb_buf_free(&b);
        free_cells(h->rows[r], nc);
    }
    for (int i = 0; i < nr * nc; i++) {
        free(shown[i]);
        free(full[i]);
    }
    free(shown);
    free(full);
    free(names);
    free(cut);
    free(at);
    h->nrows = 0;
}

static void start_rows(pdb_html *h)
{
    fputs("<div class=\"tw\"><table>\n<thead><tr>", h->out);
    for (int c = 0; c < h->ncols; c++) {
        fputs(h->right[c] ? "<th class=\"n\">" : "<th>", h->out);
        put_inline(h, h->head[c], strlen(h->head[c]));
        fputs("</th>", h->out);
    }
    fputs("</tr></thead>\n<tbody>\n", h->out);
    h->rows = pdb_xcalloc(PDB_HTML_ROWS, sizeof *h->rows);
    h->nrows = 0;
    h->table = 2;
}

static void end_table(pdb_html *h)
{
    if (h->table == 1) /* a header without its separator: text after all */
        start_rows(h);
    flush_rows(h);
    fputs("</tbody></table></div>\n", h->out);
    free_cells(h->head, h->ncols);
    free(h->right);
    free(h->rows);
    h->head = NULL;
    h->right = NULL;
    h->rows = NULL;
    h->table = 0;
}

static void table_line(pdb_html *h, const char *line)
{
    char **cells;
    int n = split_cells(line, &cells);
    if (h->table == 0) {
        end_block(h);
        h->head = cells;
        h->ncols = n;
        h->right = pdb_xcalloc((size_t)(n ? n : 1), sizeof *h->right);
        h->table = 1;
        return;
    }
    if (h->table == 1) {
        for (int c = 0; c < n && c < h->ncols; c++)
            h->right[c] = cells[c][0] && cells[c][strlen(cells[c]) - 1] == ':';
        free_cells(cells, n);
        start_rows(h);
        return;
    }
    /* A row of as many cells as the header (GFM: extra ones are dropped). */
    cells = pdb_xrealloc(cells, (size_t)(n > h->ncols ? n : h->ncols ? h->ncols : 1) *
                                    sizeof *cells);
    for (int c = n; c < h->ncols; c++)
        cells[c] = pdb_xstrdup("");
    for (int c = h->ncols; c < n; c++)
        free(cells[c]);
    h->rows[h->nrows++] = cells;
    if (h->nrows == PDB_HTML_ROWS)
        flush_rows(h);
}

static void line(pdb_html *h, const char *s)
{
    size_t n = strlen(s);
    if (s[0] == '|') {
        table_line(h, s);
        return;
    }
    if (h->table)
        end_table(h);
    if (n == 0) {
        end_block(h);
        return;
    }
    size_t level = 0;
    while (level < n && level < 7 && s[level] == '#')
        level++;
    if (level >= 1 && level <= 6 && s[level] == ' ') {
        end_block(h);
        fprintf(h->out, "<h%zu>", level);
        put_inline(h, s + level + 1, n - level - 1);
        fprintf(h->out, "</h%zu>\n", level);
    } else if (s[0] == '-' && s[1] == ' ') {
        if (h->block == BLOCK_LIST) {
            fputs("</li>\n<li>", h->out);
        } else {
            end_block(h);
            fputs("<ul>\n<li>", h->out);
            h->block = BLOCK_LIST;
        }
        put_inline(h, s + 2, n - 2);
    } else if (h->block == BLOCK_LIST && s[0] == ' ') { /* a list item's next line */
        fputc('\n', h->out);
        put_inline(h, s, n);
    } else {
        if (h->block == BLOCK_PARA) {
            fputc('\n', h->out);
        } else {
            end_block(h);
            fputs("<p>", h->out);
            h->block = BLOCK_PARA;
        }
        put_inline(h, s, n);
    }
}

/* ---- the page --------------------------------------------------------------- */

/* Tables read like the terminal's: numbers right-aligned in tabular
 * figures, long tables scroll sideways in their box, not the page. */
static const char style[] =
    "body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#222;"
    "margin:0;background:#fff}\n"
    "main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}\n"
    "h1{font-size:1.6em;margin:.4em 0}h2{font-size:1.3em;margin-top:1.6em;"
    "border-bottom:1px solid #ddd;padding-bottom:.2em}h3{font-size:1.1em;margin-top:1.3em}\n"
    "code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f3f3;"
    "padding:0 .25em;border-radius:3px}\n"
    "img{max-width:100%;height:auto;border:1px solid #eee}\n"
    ".tw{overflow-x:auto;margin:.6em 0}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top;"
    "white-space:nowrap}\n"
    "th{background:#f6f6f6;cursor:pointer;user-select:none}\n"
    "th[data-sort=asc]::after{content:' \\25B2'}th[data-sort=desc]::after{content:' \\25BC'}\n"
    ".n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".w{white-space:normal;min-width:22em;max-width:46em}\n"
    "td[title]{text-decoration:underline dotted #999}\n"
    "tbody tr:nth-child(even){background:#fafafa}\n";

/* Click a column's header: its rows sorted, again: the other way. Numbers
 * (the column's every non-empty cell starts with one) sort as numbers. */
static const char script[] =
    "document.querySelectorAll('th').forEach(function (th) {\n"
    "  th.addEventListener('click', function () {\n"
    "    var table = th.closest('table'), body = table.tBodies[0], i = th.cellIndex;\n"
    "    var asc = th.dataset.sort !== 'asc';\n"
    "    table.querySelectorAll('th').forEach(function (o) { delete o.dataset.sort; });\n"
    "    th.dataset.sort = asc ? 'asc' : 'desc';\n"
    "    var rows = Array.prototype.slice.call(body.rows);\n"
    "    var text = function (r) { return r.cells[i] ? r.cells[i].textContent.trim() : ''; };\n"
    "    var num = function (r) { return parseFloat(text(r).replace(/,/g, '')); };\n"
    "    var numeric = rows.every(function (r) { return text(r) === '' || !isNaN(num(r)); });\n"
    "    var key = function (r) {\n"
    "      if (!numeric) return text(r);\n"
    "      var v = num(r);\n"
    "      return isNaN(v) ? -Infinity : v;\n"
    "    };\n"
    "    rows.sort(function (a, b) {\n"
    "      var x = key(a), y = key(b);\n"
    "      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);\n"
    "    });\n"
    "    rows.forEach(function (r) { body.appendChild(r); });\n"
    "  });\n"
    "});\n";

pdb_html *pdb_html_open(FILE *out, const char *title)
{
    pdb_html *h = pdb_xcalloc(1, sizeof *h);
    h->out = out;
    pdb_buf t = PDB_BUF_INIT;
    esc_str(&t, title);
    /* The policy lets nothing load from the network: images from the
     * folder, the inline style and script only. */
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                 "img-src 'self' file:; style-src 'unsafe-inline'; "
                 "script-src 'unsafe-inline'\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<meta name=\"generator\" content=\"profdb\">\n<title>%s</title>\n"
                 "<style>\n%s</style>\n</head>\n<body>\n<main>\n",
            pdb_buf_str(&t), style);
    pdb_buf_free(&t);
    return h;
}

void pdb_html_md(pdb_html *h, const char *md)
{
    for (const char *p = md; *p;) {
        const char *nl = strchr(p, '\n');
        if (!nl) {
            pdb_buf_adds(&h->pending, p);
            return;
        }
        pdb_buf_add(&h->pending, p, (size_t)(nl - p));
        char *l = pdb_xstrdup(pdb_buf_str(&h->pending));
        pdb_buf_reset(&h->pending);
        size_t n = strlen(l);
        if (n && l[n - 1] == '\r')
            l[n - 1] = 0;
        line(h, l);
        free(l);
        p = nl + 1;
    }
}

void pdb_html_close(pdb_html *h)
{
    if (h->pending.len) {
        char *l = pdb_xstrdup(pdb_buf_str(&h->pending));
        line(h, l);
        free(l);
    }
    if (h->table)
        end_table(h);
    end_block(h);
    fprintf(h->out, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", script);
    pdb_buf_free(&h->pending);
    free(h);
}

int pdb_html_page(const char *dir, const char *title)
{
    pdb_buf path = PDB_BUF_INIT;
    pdb_out_path(&path, dir, "index", "md");
    FILE *md = fopen(pdb_buf_str(&path), "r");
    if (!md) {
        int rc = pdb_fail("cannot read %s", pdb_buf_str(&path));
        pdb_buf_free(&path);
        return rc;
    }
    pdb_buf_free(&path);
    FILE *out = pdb_out_create(dir, "index", "html");
    if (!out) {
        fclose(md);
        return PDB_ERR;
    }
    pdb_html *h = pdb_html_open(out, title);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk - 1, md)) > 0) {
        chunk[n] = 0;
        pdb_html_md(h, chunk); /* a NUL in the file ends its chunk early: never written */
    }
    bool bad = ferror(md) != 0;
    fclose(md);
    pdb_html_close(h);
    int rc = pdb_out_close(out, "index.html");
    return bad ? pdb_fail("cannot read index.md in %s", dir) : rc;
}
