/* render.c: result sets as tables, CSV, TSV, JSON and Markdown. */
#include "render/render.h"
#include "common/db.h"
#include "render/shorten.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

typedef struct {
    char *name;       /* as printed */
    int src;          /* its column in the result set */
    bool is_time;     /* a *_ns column being converted */
    bool is_pct;
    bool numeric;     /* right-aligned in tables */
    bool has_value;   /* a buffered cell is not empty */
    bool hidden;      /* left out to fit the terminal */
    bool fitted;      /* text shortened to fit the terminal */
    size_t width;
} column;

/* yajl escapes C0 controls; C1 controls (U+0080 to U+009F, bytes C2 80 to
 * C2 9F: an 8-bit CSI is C2 9B) it writes raw, and they are escaped here, as
 * \u00NN. Outside strings JSON text is ASCII, so the bytes are always in a
 * string; a C2 ending one chunk waits for the next. */
typedef struct {
    FILE *out;
    bool c2;
} json_sink;

typedef struct {
    const pdb_render_opts *o;
    FILE *out;
    int ncol;
    column *cols;
    /* Table and Markdown output: the first WIDTH_ROWS rows are buffered to
     * size the columns, later rows stream with those widths. */
    char **cells;
    char **raw;              /* fitting: each cell's text before cutting */
    size_t ncells, capcells;
    bool streaming;          /* the buffered rows are printed */
    yajl_gen json;
    json_sink sink;          /* JSON output */
    size_t invalid_utf8;     /* sequences replaced by U+FFFD */
    int last_col;            /* the last column shown */
} renderer;

/* Rows that size a table's columns. Later rows stream: memory stays flat
 * on millions of rows; a later text cell wider than its column is cut with
 * an ellipsis, a number is printed whole. */
#define WIDTH_ROWS 1000

static const char *const unit_names[] = {"ns", "us", "ms", "s"};
static const double unit_div[] = {1, 1e3, 1e6, 1e9};
static const int unit_decimals[] = {0, 3, 6, 9};

int pdb_parse_format(const char *s, pdb_out_format *f)
{
    static const char *const names[] = {"table", "csv", "tsv", "json", "md"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0) {
            *f = (pdb_out_format)i;
            return PDB_OK;
        }
    if (strcmp(s, "markdown") == 0) {
        *f = PDB_OUT_MD;
        return PDB_OK;
    }
    return pdb_fail("unknown format '%s' (expected table, csv, tsv, json or md)", s);
}

int pdb_parse_unit(const char *s, pdb_time_unit *u)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, unit_names[i]) == 0) {
            *u = (pdb_time_unit)i;
            return PDB_OK;
        }
    return pdb_fail("unknown unit '%s' (expected ns, us, ms or s)", s);
}

const char *pdb_unit_name(pdb_time_unit u)
{
    return unit_names[u];
}

/* ---- UTF-8 ------------------------------------------------------------- */

/* Byte offset of the code point number cp (or len). */
static size_t utf8_offset(const char *s, size_t len, size_t cp)
{
    size_t i = 0, n = 0;
    for (; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && n++ == cp)
            return i;
    return len;
}

void pdb_ellipsize(const char *s, size_t width, char *out, size_t outcap)
{
    size_t len = strlen(s), w = pdb_utf8_width(s, len);
    if (width == 0 || w <= width || width < 5) {
        snprintf(out, outcap, "%s", s);
        return;
    }
    size_t head = (width - 1) / 2 + (width - 1) % 2, tail = (width - 1) / 2;
    size_t hb = utf8_offset(s, len, head), tb = utf8_offset(s, len, w - tail);
    snprintf(out, outcap, "%.*s\xE2\x80\xA6%s", (int)hb, s, s + tb);
}

/* ---- cell text ------------------------------------------------------------ */

/* Shortest decimal that reads back as the same double. */
static void format_real(double v, char *buf, size_t cap)
{
    if (!isfinite(v)) {
        snprintf(buf, cap, "%s", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Tables and Markdown are read by people: three decimals are enough (three
 * significant digits below 0.0005). */
static bool reading_format(pdb_out_format f)
{
    return f == PDB_OUT_TABLE || f == PDB_OUT_MD;
}

static void trimmed_fixed(double v, char *buf, size_t cap)
{
    /* a small non-zero value keeps three significant digits: a p-value of
     * 0.000131 or 7.63e-06 MiB is not "0" (issue 34) */
    if (v != 0 && fabs(v) < 0.0005) {
        snprintf(buf, cap, "%.3g", v);
        return;
    }
    int n = snprintf(buf, cap, "%.3f", v);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, cap, "0");
}

/* Exact nanoseconds in a larger unit, trailing zeros trimmed. */
static void format_time(sqlite3_int64 ns, pdb_time_unit u, char *buf, size_t cap)
{
    if (u == PDB_UNIT_NS) {
        snprintf(buf, cap, "%lld", (long long)ns);
        return;
    }
    long long div = (long long)unit_div[u];
    long long whole = ns / div, frac = ns % div;
    const char *sign = "";
    if (ns < 0) {
        sign = "-";
        whole = -whole;
        frac = -frac;
    }
    int n = snprintf(buf, cap, "%s%lld.%0*lld", sign, whole, unit_decimals[u], frac);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
}

/* Text from the data, made valid UTF-8 and, outside JSON (which escapes
 * them itself), with control characters as visible escapes: an ESC from a
 * kernel name must not reach a terminal. CSV keeps line breaks and tabs
 * (quoted); the other formats turn them into spaces later. */
static void text_cell(renderer *r, const char *s, size_t len, pdb_buf *b)
{
    int flags = r->o->format == PDB_OUT_JSON ? 0 : PDB_UTF8_CONTROLS | PDB_UTF8_KEEP_WS;
    if (!pdb_utf8_needs_clean(s, len, flags)) {
        pdb_buf_add(b, s, len);
        return;
    }
    r->invalid_utf8 += pdb_utf8_clean(b, s, len, flags);
}

/* The text of one cell; *is_num tells JSON to write it unquoted. */
static void cell_text(renderer *r, sqlite3_stmt *st, int c, pdb_buf *b, bool *is_num,
                      bool *is_null)
{
    const column *col = &r->cols[c];
    int sc = col->src;
    char num[64];
    *is_num = false;
    *is_null = false;
    pdb_buf_reset(b);
    switch (sqlite3_column_type(st, sc)) {
    case SQLITE_NULL:
        *is_null = true;
        return;
    case SQLITE_INTEGER:
        *is_num = true;
        if (col->is_time)
            format_time(sqlite3_column_int64(st, sc), r->o->unit, num, sizeof num);
        else
            snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(st, sc));
        pdb_buf_adds(b, num);
        return;
    case SQLITE_FLOAT: {
        double v = sqlite3_column_double(st, sc);
        *is_num = isfinite(v);
        if (col->is_time)
            v /= unit_div[r->o->unit];
        if (col->is_pct && isfinite(v))
            snprintf(num, sizeof num, "%.2f", v);
        else if (reading_format(r->o->format) && isfinite(v) && fabs(v) < 1e15)
            trimmed_fixed(v, num, sizeof num);
        else
            format_real(v, num, sizeof num);
        pdb_buf_adds(b, num);
        return;
    }
    default:
        text_cell(r, (const char *)sqlite3_column_text(st, sc),
                  (size_t)sqlite3_column_bytes(st, sc), b);
    }
}

/* ---- per-format writers ------------------------------------------------- */

/* Spreadsheets run a cell that starts with = + - @ (or tab, CR) as a
 * formula. Such text cells get a leading ' (OWASP's rule), and so does text
 * that already starts with ', so the rule is reversible: drop one leading '
 * from a text cell to get the value back. Numbers are never touched. */
static bool formula_like(const char *s, size_t len)
{
    return len && strchr("=+-@\t\r'", s[0]) != NULL;
}

/* One CSV or TSV field; guard: the text gets the leading ' above, inside
 * the quotes when the field is quoted (a ' before the quote would make the
 * quote part of the text, and the field's commas and line breaks split it). */
static void csv_field(FILE *out, const char *s, size_t len, char sep, bool guard)
{
    bool quote = false;
    if (sep == ',')
        for (size_t i = 0; i < len && !quote; i++)
            quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        if (guard)
            fputc('\'', out);
        for (size_t i = 0; i < len; i++) /* TSV has no quoting: keep rows intact */
            fputc(sep == '\t' && (s[i] == '\t' || s[i] == '\n' || s[i] == '\r') ? ' ' : s[i], out);
        return;
    }
    fputc('"', out);
    if (guard)
        fputc('\'', out);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            fputc('"', out);
        fputc(s[i], out);
    }
    fputc('"', out);
}

static void delimited_row(renderer *r, sqlite3_stmt *st, char sep, pdb_buf *b)
{
    for (int c = 0; c < r->ncol; c++) {
        bool is_num, is_null;
        if (c)
            fputc(sep, r->out);
        if (!st) {
            const char *name = r->cols[c].name;
            csv_field(r->out, name, strlen(name), sep, formula_like(name, strlen(name)));
            continue;
        }
        cell_text(r, st, c, b, &is_num, &is_null);
        const char *text = b->p ? b->p : "";
        csv_field(r->out, text, b->len, sep, !is_num && !is_null && formula_like(text, b->len));
    }
    fputs(sep == ',' ? "\r\n" : "\n", r->out);
}

static void json_print(void *ctx, const char *s, size_t len)
{
    json_sink *j = ctx;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (j->c2) {
            j->c2 = false;
            if (c >= 0x80 && c < 0xA0) {
                fprintf(j->out, "\\u%04X", (unsigned)c);
                continue;
            }
            fputc(0xC2, j->out);
        }
        if (c == 0xC2)
            j->c2 = true;
        else
            fputc(c, j->out);
    }
}

static void json_row(renderer *r, sqlite3_stmt *st, pdb_buf *b)
{
    yajl_gen_map_open(r->json);
    for (int c = 0; c < r->ncol; c++) {
        bool is_num, is_null;
        const char *name = r->cols[c].name;
        yajl_gen_string(r->json, (const unsigned char *)name, strlen(name));
        cell_text(r, st, c, b, &is_num, &is_null);
        if (is_null)
            yajl_gen_null(r->json);
        else if (is_num)
            yajl_gen_number(r->json, b->p, b->len);
        else if (yajl_gen_string(r->json, (const unsigned char *)pdb_buf_str(b), b->len) !=
                 yajl_gen_status_ok)
            yajl_gen_string(r->json, (const unsigned char *)"\xEF\xBF\xBD", 3);
    }
    yajl_gen_map_close(r->json);
}

/* A cell as tables and Markdown show it: cut to --width (text only), then
 * Markdown or terminal text (text.h). malloc'd. */
static char *shown_cell(const renderer *r, const char *s, bool numeric, size_t width)
{
    char cut[4096];
    if (!numeric && width > 0)
        pdb_ellipsize(s, width, cut, sizeof cut);
    else
        snprintf(cut, sizeof cut, "%s", s);
    pdb_buf esc = PDB_BUF_INIT;
    if (r->o->format == PDB_OUT_MD)
        pdb_text_md(&esc, cut);
    else
        pdb_text_term(&esc, cut);
    char *t = pdb_xstrdup(pdb_buf_str(&esc));
    pdb_buf_free(&esc);
    return t;
}

static bool fitting(const renderer *r)
{
    return r->o->format == PDB_OUT_TABLE && r->o->fit_width > 0;
}

static void keep_cell(renderer *r, const char *s, int c, bool numeric)
{
    if (r->ncells == r->capcells) {
        r->capcells = r->capcells ? r->capcells * 2 : 256;
        r->cells = pdb_xrealloc(r->cells, r->capcells * sizeof *r->cells);
        if (fitting(r))
            r->raw = pdb_xrealloc(r->raw, r->capcells * sizeof *r->raw);
    }
    char *t = shown_cell(r, s, numeric, r->o->max_width > 0 ? (size_t)r->o->max_width : 0);
    if (fitting(r))
        r->raw[r->ncells] = pdb_xstrdup(s);
    if (*s)
        r->cols[c].has_value = true;
    r->cells[r->ncells++] = t;
    size_t w = pdb_utf8_width(t, strlen(t));
    if (w > r->cols[c].width)
        r->cols[c].width = w;
}

static void pad(FILE *out, size_t n, char ch)
{
    while (n--)
        fputc(ch, out);
}

static void print_cell(renderer *r, const char *s, int c)
{
    size_t w = pdb_utf8_width(s, strlen(s)), width = r->cols[c].width;
    if (r->cols[c].numeric && w < width)
        pad(r->out, width - w, ' ');
    fputs(s, r->out);
    if (!r->cols[c].numeric && c < r->last_col && w < width)
        pad(r->out, width - w, ' ');
}

/* Columns as wide as their widest buffered cell and their name. */
static void size_columns(renderer *r)
{
    bool md = r->o->format == PDB_OUT_MD;
    for (int c = 0; c < r->ncol; c++) {
        size_t w = pdb_utf8_width(r->cols[c].name, strlen(r->cols[c].name));
        if (w > r->cols[c].width)
            r->cols[c].width = w;
        if (md && r->cols[c].width < 3)
            r->cols[c].width = 3;
    }
}

/* One line: the header (row 0), the rule (row 1) or the given cells. */
static void print_line(renderer *r, int row, char *const *cells)
{
    bool md = r->o->format == PDB_OUT_MD;
    if (md)
        fputs("| ", r->out);
    bool first = true;
    for (int c = 0; c < r->ncol; c++) {
        if (r->cols[c].hidden)
            continue;
        if (!first)
            fputs(md ? " | " : "  ", r->out);
        first = false;
        if (row == 0) {
            print_cell(r, r->cols[c].name, c);
        } else if (row == 1) {
            if (md && r->cols[c].numeric) {
                pad(r->out, r->cols[c].width - 1, '-');
                fputc(':', r->out);
            } else
                pad(r->out, r->cols[c].width, '-');
        } else
            print_cell(r, cells[c], c);
    }
    fputs(md ? " |\n" : "\n", r->out);
}

/* ---- fitting a table to the terminal ------------------------------------ */

/* A fitted cell: terminal text, shortened alone (rows after WIDTH_ROWS). */
static char *fitted_cell(const char *s, size_t width)
{
    pdb_buf esc = PDB_BUF_INIT;
    pdb_text_term(&esc, s);
    char *t = pdb_shorten_one(pdb_buf_str(&esc), width);
    pdb_buf_free(&esc);
    return t;
}

/* The printed width of the table: shown columns and two spaces between. */
static size_t table_width(const renderer *r, const size_t *widths)
{
    size_t w = 0;
    int shown = 0;
    for (int c = 0; c < r->ncol; c++)
        if (!r->cols[c].hidden) {
            w += widths[c];
            shown++;
        }
    return w + (shown > 1 ? 2 * (size_t)(shown - 1) : 0);
}

/* Statistics that the columns around them summarise better: a spread or
 * an extreme (std, min, max), a percentile, a confidence bound, a sample
 * size, an outlier count. Left out first. */
static bool is_statistic(const char *name)
{
    static const char *const parts[] = {"std", "min", "max", "p25", "p50", "p75", "p90",
                                        "p95", "p99", "ci", "n", "outliers", "iqr", NULL};
    for (const char *p = name; *p;) {
        size_t len = strcspn(p, "_");
        for (int i = 0; parts[i]; i++)
            if (len == strlen(parts[i]) && strncmp(p, parts[i], len) == 0)
                return true;
        p += len + (p[len] == '_');
    }
    return false;
}

/* The rank of column c among those left out to fit: columns with nothing
 * in them, then statistics, then the others, each from the right; -1 for
 * the first column and the name column, which stay. */
static int drop_tier(const renderer *r, int c, int name)
{
    const column *col = &r->cols[c];
    if (c == 0 || c == name)
        return -1;
    if (!col->has_value)
        return 0;
    return is_statistic(col->name) ? 1 : 2;
}

/* The next column to leave out, or -1. */
static int next_drop(const renderer *r, int name)
{
    for (int tier = 0; tier <= 2; tier++)
        for (int c = r->ncol - 1; c > 0; c--)
            if (!r->cols[c].hidden && drop_tier(r, c, name) == tier)
                return c;
    return -1;
}

/* The widest text column: the names the table is about. */
static int name_column(const renderer *r)
{
    int name = -1;
    for (int c = 0; c < r->ncol; c++)
        if (!r->cols[c].numeric && (name < 0 || r->cols[c].width > r->cols[name].width))
            name = c;
    return name;
}

/* Text columns narrow down to their floor: the name column to 24 columns,
 * other text to 16 (most labels fit), never below their header. */
static size_t floor_width(const renderer *r, int c, int name)
{
    const column *col = &r->cols[c];
    if (col->numeric)
        return col->width;
    size_t header = pdb_utf8_width(col->name, strlen(col->name));
    size_t f = c == name ? 24 : 16;
    f = f > header ? f : header;
    return f < col->width ? f : col->width;
}

/* Gives room to the text columns, one column at a time to the one that
 * lacks the most, until the table fills width or they are whole. */
static void widen_text(const renderer *r, size_t *widths, size_t width)
{
    while (table_width(r, widths) < width) {
        int best = -1;
        size_t lack = 0;
        for (int c = 0; c < r->ncol; c++)
            if (!r->cols[c].hidden && r->cols[c].width - widths[c] > lack) {
                lack = r->cols[c].width - widths[c];
                best = c;
            }
        if (best < 0)
            return;
        widths[best]++;
    }
}

/* Cuts the buffered cells of text column c to width, as a column. */
static void shorten_cells(renderer *r, int c, size_t width)
{
    size_t nrows = r->ncells / (size_t)r->ncol;
    char **text = pdb_xcalloc(nrows + 1, sizeof *text), **cut = pdb_xcalloc(nrows + 1, sizeof *cut);
    pdb_buf esc = PDB_BUF_INIT;
    for (size_t i = 0; i < nrows; i++) {
        pdb_buf_reset(&esc);
        pdb_text_term(&esc, r->raw[i * (size_t)r->ncol + (size_t)c]);
        text[i] = pdb_xstrdup(pdb_buf_str(&esc));
    }
    pdb_shorten_column((const char *const *)text, nrows, width, cut);
    for (size_t i = 0; i < nrows; i++) {
        free(r->cells[i * (size_t)r->ncol + (size_t)c]);
        r->cells[i * (size_t)r->ncol + (size_t)c] = cut[i];
        free(text[i]);
    }
    pdb_buf_free(&esc);
    free(text);
    free(cut);
    r->cols[c].width = width;
    r->cols[c].fitted = true;
}

/* One line on stderr: what was left out, and how to get it. */
static void say_dropped(const renderer *r, size_t width)
{
    pdb_buf b = PDB_BUF_INIT;
    for (int c = 0; c < r->ncol; c++)
        if (r->cols[c].hidden)
            pdb_buf_addf(&b, "%s%s", b.len ? ", " : "", r->cols[c].name);
    fflush(r->out);
    fprintf(stderr, "profdb: left out column%s %s to fit %zu columns (--wide: all columns;"
                    " --columns a,b,c: choose)\n",
            strchr(pdb_buf_str(&b), ',') ? "s" : "", pdb_buf_str(&b), width);
    pdb_buf_free(&b);
}

/* On a terminal narrower than the table: text columns down to their floor
 * and, while it is still too wide, columns left out (drop_tier); then the
 * room left goes back to the text columns, shortened where they agree. */
static void fit_table(renderer *r)
{
    size_t width = (size_t)r->o->fit_width, *widths = pdb_xcalloc((size_t)r->ncol, sizeof *widths);
    for (int c = 0; c < r->ncol; c++)
        widths[c] = r->cols[c].width;
    if (table_width(r, widths) <= width) {
        free(widths);
        return;
    }
    int name = name_column(r), drop;
    for (int c = 0; c < r->ncol; c++)
        widths[c] = floor_width(r, c, name);
    bool dropped = false;
    while (table_width(r, widths) > width && (drop = next_drop(r, name)) >= 0) {
        r->cols[drop].hidden = true;
        dropped = true;
    }
    widen_text(r, widths, width);
    for (int c = 0; c < r->ncol; c++)
        if (!r->cols[c].hidden && widths[c] < r->cols[c].width)
            shorten_cells(r, c, widths[c]);
    if (dropped)
        say_dropped(r, width);
    free(widths);
}

/* Prints the header and the buffered rows, then frees them. */
static void print_buffered(renderer *r)
{
    size_columns(r);
    if (fitting(r))
        fit_table(r);
    r->last_col = r->ncol - 1;
    while (r->last_col > 0 && r->cols[r->last_col].hidden)
        r->last_col--;
    print_line(r, 0, NULL);
    print_line(r, 1, NULL);
    for (size_t i = 0; i < r->ncells; i += (size_t)r->ncol)
        print_line(r, 2, r->cells + i);
    for (size_t i = 0; i < r->ncells; i++) {
        free(r->cells[i]);
        if (r->raw)
            free(r->raw[i]);
    }
    r->ncells = 0;
}

/* A row after the first WIDTH_ROWS: printed at once with the widths set. */
static void stream_row(renderer *r, sqlite3_stmt *st, pdb_buf *b)
{
    char **cells = pdb_xcalloc((size_t)r->ncol, sizeof *cells);
    for (int c = 0; c < r->ncol; c++) {
        bool is_num, is_null;
        cell_text(r, st, c, b, &is_num, &is_null);
        if (r->cols[c].fitted && !is_num)
            cells[c] = fitted_cell(pdb_buf_str(b), r->cols[c].width);
        else
            cells[c] = shown_cell(r, pdb_buf_str(b), is_num, is_num ? 0 : r->cols[c].width);
    }
    print_line(r, 2, cells);
    for (int c = 0; c < r->ncol; c++)
        free(cells[c]);
    free(cells);
}

static void buffer_row(renderer *r, sqlite3_stmt *st, pdb_buf *b)
{
    if (r->streaming) {
        stream_row(r, st, b);
        return;
    }
    for (int c = 0; c < r->ncol; c++) {
        bool is_num, is_null;
        cell_text(r, st, c, b, &is_num, &is_null);
        if (is_num)
            r->cols[c].numeric = true;
        keep_cell(r, pdb_buf_str(b), c, is_num);
    }
    if (r->ncells / (size_t)r->ncol >= WIDTH_ROWS) {
        print_buffered(r);
        r->streaming = true;
    }
}

/* ---- driver ---------------------------------------------------------------- */

/* Column names come from queries, `profdb sql`'s too: as printed, they are
 * text of the format (text.h) like every cell; CSV, TSV and JSON names are
 * cleaned as their cells are, line breaks escaped too. */
static void setup_columns(renderer *r, sqlite3_stmt *st)
{
    r->ncol = sqlite3_column_count(st);
    r->cols = pdb_xcalloc((size_t)r->ncol + 1, sizeof(column));
    pdb_buf raw = PDB_BUF_INIT, b = PDB_BUF_INIT;
    for (int c = 0; c < r->ncol; c++) {
        const char *name = sqlite3_column_name(st, c);
        size_t len = strlen(name);
        column *col = &r->cols[c];
        col->src = c;
        col->is_pct = len > 4 && strcmp(name + len - 4, "_pct") == 0;
        pdb_buf_reset(&raw);
        if (r->o->convert_times && len > 3 && strcmp(name + len - 3, "_ns") == 0) {
            col->is_time = true;
            pdb_buf_addf(&raw, "%.*s_%s", (int)(len - 3), name, unit_names[r->o->unit]);
        } else {
            pdb_buf_add(&raw, name, len);
        }
        pdb_buf_reset(&b);
        if (r->o->format == PDB_OUT_MD)
            r->invalid_utf8 += pdb_text_md(&b, pdb_buf_str(&raw));
        else if (r->o->format == PDB_OUT_TABLE)
            r->invalid_utf8 += pdb_text_term(&b, pdb_buf_str(&raw));
        else
            r->invalid_utf8 += pdb_utf8_clean(&b, raw.p, raw.len, PDB_UTF8_CONTROLS);
        col->name = pdb_xstrdup(pdb_buf_str(&b));
    }
    pdb_buf_free(&raw);
    pdb_buf_free(&b);
}

/* Whether want (len bytes) names column c: as printed or as the query
 * names it. */
static bool names_column(const renderer *r, sqlite3_stmt *st, int c, const char *want,
                         size_t len)
{
    const char *printed = r->cols[c].name, *query = sqlite3_column_name(st, r->cols[c].src);
    return (strlen(printed) == len && strncmp(printed, want, len) == 0) ||
           (strlen(query) == len && strncmp(query, want, len) == 0);
}

static int unknown_column(const renderer *r, const char *want, size_t len)
{
    pdb_buf b = PDB_BUF_INIT;
    for (int c = 0; c < r->ncol; c++)
        pdb_buf_addf(&b, "%s%s", c ? ", " : "", r->cols[c].name);
    pdb_fail("--columns: no column '%.*s' in this table (its columns: %s)", (int)len, want,
             pdb_buf_str(&b));
    pdb_buf_free(&b);
    return PDB_ERR;
}

/* --columns a,b,c: the table's columns become those, in that order. */
static int choose_columns(renderer *r, sqlite3_stmt *st)
{
    const char *list = r->o->columns;
    column *chosen = pdb_xcalloc(strlen(list) / 2 + 2, sizeof *chosen);
    int n = 0, rc = PDB_OK;
    bool *used = pdb_xcalloc((size_t)r->ncol + 1, sizeof *used);
    for (const char *p = list; rc == PDB_OK && *p;) {
        size_t len = strcspn(p, ",");
        int c = 0;
        while (c < r->ncol && !names_column(r, st, c, p, len))
            c++;
        if (len && c == r->ncol)
            rc = unknown_column(r, p, len);
        else if (len) {
            chosen[n] = r->cols[c];
            chosen[n++].name = pdb_xstrdup(r->cols[c].name);
            used[c] = true;
        }
        p += len + (p[len] == ',');
    }
    for (int c = 0; c < r->ncol; c++)
        free(r->cols[c].name);
    free(r->cols);
    free(used);
    r->cols = chosen;
    r->ncol = n;
    if (rc == PDB_OK && n == 0)
        return pdb_fail("--columns: no column named");
    return rc;
}

static void free_renderer(renderer *r)
{
    for (int c = 0; c < r->ncol; c++)
        free(r->cols[c].name);
    free(r->cols);
    for (size_t i = 0; i < r->ncells; i++) {
        free(r->cells[i]);
        if (r->raw)
            free(r->raw[i]);
    }
    free(r->cells);
    free(r->raw);
    if (r->json)
        yajl_gen_free(r->json);
}

int pdb_render_stmt(sqlite3_stmt *st, const pdb_render_opts *o, FILE *out)
{
    renderer r = {.o = o, .out = out};
    setup_columns(&r, st);
    if (o->columns && choose_columns(&r, st) != PDB_OK) {
        free_renderer(&r);
        return PDB_ERR;
    }
    pdb_buf b = PDB_BUF_INIT;
    char sep = o->format == PDB_OUT_TSV ? '\t' : ',';
    bool delimited = o->format == PDB_OUT_CSV || o->format == PDB_OUT_TSV;
    if (delimited && !o->no_header)
        delimited_row(&r, NULL, sep, &b);
    if (o->format == PDB_OUT_JSON) {
        r.json = yajl_gen_alloc(NULL);
        yajl_gen_config(r.json, yajl_gen_validate_utf8, 1);
        r.sink.out = out;
        yajl_gen_config(r.json, yajl_gen_print_callback, json_print, &r.sink);
        yajl_gen_array_open(r.json);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (delimited)
            delimited_row(&r, st, sep, &b);
        else if (o->format == PDB_OUT_JSON)
            json_row(&r, st, &b);
        else
            buffer_row(&r, st, &b);
    }
    int result = PDB_OK;
    if (rc != SQLITE_DONE)
        result = pdb_db_fail(sqlite3_db_handle(st), "query failed");
    else if (o->format == PDB_OUT_JSON) {
        yajl_gen_array_close(r.json);
        if (r.sink.c2)
            fputc(0xC2, out);
        fputc('\n', out);
    } else if (!delimited && !r.streaming)
        print_buffered(&r);
    if (r.invalid_utf8)
        pdb_warn("%zu invalid UTF-8 sequence%s in the output replaced by U+FFFD",
                 r.invalid_utf8, r.invalid_utf8 == 1 ? "" : "s");
    pdb_buf_free(&b);
    free_renderer(&r);
    return result;
}

int pdb_render_query(sqlite3 *db, const char *sql, const char *const *params, int nparams,
                     const pdb_render_opts *o, FILE *out)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, sql, &st) != PDB_OK)
        return PDB_ERR;
    for (int i = 0; i < nparams; i++)
        sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC);
    int rc = pdb_render_stmt(st, o, out);
    sqlite3_finalize(st);
    return rc;
}

int pdb_render_terminal_width(FILE *out)
{
    int fd = fileno(out);
    if (fd < 0 || !isatty(fd))
        return 0;
    const char *env = getenv("COLUMNS");
    char *end;
    long cols = env ? strtol(env, &end, 10) : 0;
    if (env && *env && *end == '\0' && cols > 0 && cols < 100000)
        return (int)cols;
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}
