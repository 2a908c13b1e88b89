/* pyspy_svg.c: the reader for py-spy's flame-graph SVG (`--format
 * flamegraph`, drawn by inferno) -> pyspy_* tables.
 *
 * Each drawn box is `<g><title>FRAME (N samples, P%)</title><rect ... y=..
 * fg:x=.. fg:w=..>`; `total_samples` on `<svg id="frames">` is the
 * profile's exact total, and `<text id="title">` holds py-spy's command line
 * (kept as the profile's options, its --rate as rate_hz). Boxes narrower
 * than 0.1% are not drawn, so the profile is marked inexact: a drawn box's
 * self (its width less its children's) absorbs its undrawn children.
 *
 * The file is scanned with a small streaming XML tokenizer (comments,
 * CDATA, processing instructions and the script skipped; entities
 * decoded). Boxes are staged in a temp table as they come, then resolved
 * row by row from the root (the widest box, inferno's "all", which is not
 * stored): a box's parent is the box one row up whose [x, x + w) holds it.
 * inferno splits frames on ';' like any collapsed-stack tool, so a process
 * frame whose command line holds ';' is drawn as a chain of pieces; they
 * are joined again into one process frame. */
#include "ingest/readers.h"
#include "ingest/pyspy/pyspy_store.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK (1 << 16)
/* A tag or a text this long is no flame graph's (titles are short). */
#define MAX_TOKEN ((size_t)16 << 20)

typedef struct {
    pdb_source *src;
    pdb_pyspy_store *store;
    unsigned char *buf;
    size_t pos, end;
    bool eof;
    int64_t base;           /* input offset of buf[0] */
    pdb_buf tag, text, title, frame;
    int64_t total;          /* total_samples, -1 until seen */
    bool in_title, in_doc_title, in_g, saw_svg;
    int64_t g_at;           /* where the <g> of the box being read starts */
    bool have_title;
    pdb_buf options;
    sqlite3_stmt *add_box;
    int64_t boxes;
} svg;

/* ---- sniffing ----------------------------------------------------------- */

static const void *find(const unsigned char *d, size_t len, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= len; i++)
        if (d[i] == (unsigned char)s[0] && memcmp(d + i, s, n) == 0)
            return d + i;
    return NULL;
}

/* An SVG (or XML) document that says it is a flame graph. */
int pdb_sniff_pyspy_svg(const unsigned char *d, size_t len)
{
    size_t i = 0;
    if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF)
        i = 3;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    if (i >= len || d[i] != '<' || !find(d, len, "<svg"))
        return PDB_SNIFF_NO;
    if (find(d, len, "Flame graph") || find(d, len, "flamegraph") || find(d, len, "inferno") ||
        find(d, len, "fg:w="))
        return PDB_SNIFF_SURE;
    return PDB_SNIFF_NO;
}

/* ---- input -------------------------------------------------------------- */

static int fill(svg *r)
{
    if (r->pos < r->end || r->eof)
        return PDB_OK;
    r->base += (int64_t)r->end;
    r->pos = r->end = 0;
    ssize_t got = pdb_input_read(r->src->in, r->buf, CHUNK);
    if (got < 0)
        return PDB_ERR;
    if (got == 0)
        r->eof = true;
    r->end = (size_t)got;
    return PDB_OK;
}

static int64_t offset(const svg *r)
{
    return r->base + (int64_t)r->pos;
}

/* Copies bytes up to the first byte of stop (not consumed) or the end into
 * out (NULL: dropped); *found says whether stop was met. Quotes are
 * honoured when quoted (inside a tag, '>' may sit in an attribute). */
static int take_until(svg *r, const char *stop, pdb_buf *out, bool quoted, bool *found)
{
    size_t n = strlen(stop), have = 0; /* bytes of stop matched so far */
    char quote = 0;
    *found = false;
    for (;;) {
        if (fill(r) != PDB_OK)
            return PDB_ERR;
        if (r->pos == r->end)
            return PDB_OK;
        unsigned char c = r->buf[r->pos++];
        if (quoted && quote) {
            if (c == quote)
                quote = 0;
        } else if (quoted && (c == '"' || c == '\'')) {
            quote = (char)c;
        } else if (c == (unsigned char)stop[have]) {
            if (++have == n) {
                *found = true;
                if (out)
                    out->len -= n - 1 > out->len ? out->len : n - 1;
                if (out && out->p)
                    out->p[out->len] = 0;
                return PDB_OK;
            }
            if (out)
                pdb_buf_addc(out, (char)c);
            continue;
        } else {
            have = c == (unsigned char)stop[0] ? 1 : 0;
        }
        if (out) {
            if (out->len >= MAX_TOKEN)
                return pdb_fail_at(r->src->path, offset(r), "an XML tag or text longer than "
                                   "%zu MiB (not a flame graph?)", MAX_TOKEN >> 20);
            pdb_buf_addc(out, (char)c);
        }
    }
}

/* ---- XML details -------------------------------------------------------- */

/* Decodes the five XML entities and numeric references in place. */
static void decode(pdb_buf *b)
{
    size_t o = 0;
    for (size_t i = 0; i < b->len;) {
        if (b->p[i] != '&') {
            b->p[o++] = b->p[i++];
            continue;
        }
        const char *semi = memchr(b->p + i, ';', b->len - i < 12 ? b->len - i : 12);
        size_t n = semi ? (size_t)(semi - (b->p + i)) + 1 : 0;
        static const struct {
            const char *e;
            char c;
        } named[] = {{"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (size_t k = 0; n && k < sizeof named / sizeof *named && !done; k++)
            if (strlen(named[k].e) == n && memcmp(b->p + i, named[k].e, n) == 0) {
                b->p[o++] = named[k].c;
                done = true;
            }
        if (!done && n > 3 && b->p[i + 1] == '#') {
            bool hex = b->p[i + 2] == 'x' || b->p[i + 2] == 'X';
            char *endp;
            unsigned long cp = strtoul(b->p + i + 2 + hex, &endp, hex ? 16 : 10);
            if (endp == b->p + i + n - 1 && cp > 0 && cp <= 0x10FFFF &&
                !(cp >= 0xD800 && cp <= 0xDFFF)) {
                unsigned char u[4];
                size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (k == 1)
                    u[0] = (unsigned char)cp;
                else {
                    for (size_t j = k - 1; j > 0; j--, cp >>= 6)
                        u[j] = (unsigned char)(0x80 | (cp & 0x3F));
                    u[0] = (unsigned char)((k == 2 ? 0xC0 : k == 3 ? 0xE0 : 0xF0) | cp);
                }
                memcpy(b->p + o, u, k); /* k <= n: fits in place */
                o += k;
                done = true;
            }
        }
        if (done)
            i += n;
        else
            b->p[o++] = b->p[i++];
    }
    b->len = o;
    if (b->p)
        b->p[o] = 0;
}

/* The value of attribute name in a tag's text, decoded into out. */
static bool attr(const pdb_buf *tag, const char *name, pdb_buf *out)
{
    size_t n = strlen(name);
    const char *t = pdb_buf_str(tag);
    for (const char *p = t; (p = strstr(p, name)) != NULL; p += n) {
        bool starts = p == t || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t' || p[-1] == '\r';
        if (!starts || p[n] != '=' || (p[n + 1] != '"' && p[n + 1] != '\''))
            continue;
        const char *v = p + n + 2, *e = strchr(v, p[n + 1]);
        if (!e)
            return false;
        pdb_buf_reset(out);
        pdb_buf_add(out, v, (size_t)(e - v));
        decode(out);
        return true;
    }
    return false;
}

/* The tag's name ("g", "/g", "title", "rect", "svg", ...). */
static bool tag_is(const pdb_buf *tag, const char *name)
{
    size_t n = strlen(name);
    const char *t = pdb_buf_str(tag);
    return tag->len >= n && memcmp(t, name, n) == 0 &&
           (tag->len == n || strchr(" \t\r\n/>", t[n]));
}

/* ---- boxes -------------------------------------------------------------- */

static bool get_int(const pdb_buf *tag, const char *name, pdb_buf *tmp, int64_t *out)
{
    if (!attr(tag, name, tmp) || tmp->len == 0 || tmp->len > 18)
        return false;
    char *e;
    long long v = strtoll(pdb_buf_str(tmp), &e, 10);
    if (*e)
        return false;
    *out = v;
    return true;
}

/* "FRAME (N samples, P%)": the frame, and N (thousands separators). */
static bool split_title(const pdb_buf *t, size_t *frame_len, int64_t *n)
{
    const char *s = pdb_buf_str(t);
    size_t len = t->len;
    if (len < 4 || s[len - 1] != ')' || s[len - 2] != '%')
        return false;
    const char *open = NULL;
    for (size_t i = len; i-- > 1;)
        if (s[i] == '(' && s[i - 1] == ' ') {
            open = s + i;
            break;
        }
    if (!open)
        return false;
    int64_t v = 0;
    const char *p = open + 1;
    bool digits = false;
    for (; (*p >= '0' && *p <= '9') || *p == ','; p++)
        if (*p != ',') {
            if (v > INT64_MAX / 10 - 10)
                return false;
            v = v * 10 + (*p - '0');
            digits = true;
        }
    if (!digits || (strncmp(p, " samples, ", 10) != 0 && strncmp(p, " sample, ", 9) != 0))
        return false;
    *frame_len = (size_t)(open - 1 - s);
    *n = v;
    return true;
}

static int box(svg *r, pdb_buf *tmp)
{
    int64_t x, w, n;
    size_t flen;
    if (!r->have_title || !split_title(&r->title, &flen, &n))
        return pdb_fail_at(r->src->path, r->g_at, "a flame-graph box whose <title> is not "
                           "'FRAME (N samples, P%%)' ('%.60s')", pdb_buf_str(&r->title));
    if (!get_int(&r->tag, "fg:x", tmp, &x) || !get_int(&r->tag, "fg:w", tmp, &w))
        return pdb_fail_at(r->src->path, r->g_at, "a flame-graph box without fg:x and fg:w "
                           "(not drawn by inferno/py-spy?)");
    if (!attr(&r->tag, "y", tmp))
        return pdb_fail_at(r->src->path, r->g_at, "a flame-graph box without y");
    char *e;
    double y = strtod(pdb_buf_str(tmp), &e);
    if (*e || !isfinite(y))
        return pdb_fail_at(r->src->path, r->g_at, "a flame-graph box whose y is no number");
    if (w != n || x < 0 || w <= 0)
        return pdb_fail_at(r->src->path, r->g_at, "a flame-graph box whose width (fg:w %lld) "
                           "is not its title's %lld samples", (long long)w, (long long)n);
    sqlite3_stmt *st = r->add_box;
    sqlite3_bind_double(st, 1, y);
    sqlite3_bind_int64(st, 2, x);
    sqlite3_bind_int64(st, 3, w);
    sqlite3_bind_int64(st, 4, r->g_at);
    sqlite3_bind_text(st, 5, pdb_buf_str(&r->title), (int)flen, SQLITE_STATIC);
    r->boxes++;
    r->src->records++;
    pdb_progress(r->src, r->src->records);
    return pdb_db_step_done(r->src->db, st);
}

/* ---- the scan ----------------------------------------------------------- */

/* One tag (its text after '<', without the '>'). */
static int on_tag(svg *r, pdb_buf *tmp, int64_t at)
{
    pdb_buf *t = &r->tag;
    if (tag_is(t, "svg")) {
        r->saw_svg = true;
        if (attr(t, "id", tmp) && strcmp(pdb_buf_str(tmp), "frames") == 0) {
            if (!get_int(t, "total_samples", tmp, &r->total) || r->total < 0)
                return pdb_fail_at(r->src->path, at, "<svg id=\"frames\"> without a "
                                   "total_samples count");
        }
    } else if (tag_is(t, "g")) {
        r->in_g = true;
        r->have_title = false;
        r->g_at = at;
    } else if (tag_is(t, "/g")) {
        r->in_g = false;
    } else if (tag_is(t, "title") && r->in_g) {
        r->in_title = true;
        pdb_buf_reset(&r->text);
    } else if (tag_is(t, "/title") && r->in_title) {
        r->in_title = false;
        decode(&r->text);
        pdb_buf_reset(&r->title);
        pdb_buf_add(&r->title, r->text.p ? r->text.p : "", r->text.len);
        r->have_title = true;
    } else if (tag_is(t, "rect") && r->in_g && r->have_title) {
        int rc = box(r, tmp);
        r->have_title = false;
        return rc;
    } else if (tag_is(t, "text") && attr(t, "id", tmp) && strcmp(pdb_buf_str(tmp), "title") == 0) {
        r->in_doc_title = true;
        pdb_buf_reset(&r->text);
    } else if (tag_is(t, "/text") && r->in_doc_title) {
        r->in_doc_title = false;
        decode(&r->text);
        pdb_buf_reset(&r->options);
        pdb_buf_add(&r->options, r->text.p ? r->text.p : "", r->text.len);
    }
    return PDB_OK;
}

static int scan(svg *r)
{
    pdb_buf tmp = PDB_BUF_INIT;
    int rc = PDB_OK;
    bool found;
    while (rc == PDB_OK) {
        /* text up to the next '<' (kept inside a title) */
        bool keep = r->in_title || r->in_doc_title;
        rc = take_until(r, "<", keep ? &r->text : NULL, false, &found);
        if (rc != PDB_OK || !found)
            break;
        int64_t at = offset(r) - 1;
        if (fill(r) != PDB_OK) {
            rc = PDB_ERR;
            break;
        }
        /* peek far enough to tell comments and CDATA from tags */
        pdb_buf_reset(&r->tag);
        if (r->pos < r->end && (r->buf[r->pos] == '!' || r->buf[r->pos] == '?')) {
            char c = (char)r->buf[r->pos++];
            if (c == '?') {
                rc = take_until(r, "?>", NULL, false, &found);
            } else {
                /* "<!--", "<![CDATA[" or a declaration */
                pdb_buf head = PDB_BUF_INIT;
                for (int k = 0; k < 7 && rc == PDB_OK; k++) {
                    if ((rc = fill(r)) != PDB_OK || r->pos == r->end)
                        break;
                    pdb_buf_addc(&head, (char)r->buf[r->pos++]);
                    if (strcmp(pdb_buf_str(&head), "--") == 0 ||
                        strcmp(pdb_buf_str(&head), "[CDATA[") == 0)
                        break;
                    if (head.p[head.len - 1] == '>')
                        break;
                }
                const char *h = pdb_buf_str(&head);
                if (rc == PDB_OK && strcmp(h, "--") == 0)
                    rc = take_until(r, "-->", NULL, false, &found);
                else if (rc == PDB_OK && strcmp(h, "[CDATA[") == 0)
                    rc = take_until(r, "]]>", keep ? &r->text : NULL, false, &found);
                else if (rc == PDB_OK && head.len && h[head.len - 1] != '>')
                    rc = take_until(r, ">", NULL, true, &found);
                else
                    found = true;
                pdb_buf_free(&head);
            }
            if (rc == PDB_OK && !found)
                rc = pdb_fail_at(r->src->path, at, "an XML comment, CDATA section or "
                                 "declaration without its end (truncated file?)");
            continue;
        }
        rc = take_until(r, ">", &r->tag, true, &found);
        if (rc == PDB_OK && !found)
            rc = pdb_fail_at(r->src->path, at, "an XML tag without its '>' (truncated file?)");
        if (rc == PDB_OK)
            rc = on_tag(r, &tmp, at);
    }
    pdb_buf_free(&tmp);
    return rc;
}

/* ---- resolving the boxes ------------------------------------------------ */

typedef struct {
    sqlite3_stmt *boxes, *parent, *set;
} resolver;

/* --rate N / -r N / --rate=N in py-spy's command line, or 0. */
static double rate_of(const char *cmd)
{
    const char *p = cmd, *want = NULL;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        const char *v = NULL;
        if (want)
            v = p;
        else if (n > 7 && strncmp(p, "--rate=", 7) == 0)
            v = p + 7;
        want = NULL;
        if ((n == 2 && strncmp(p, "-r", 2) == 0) || (n == 6 && strncmp(p, "--rate", 6) == 0))
            want = p;
        if (n == 2 && strncmp(p, "--", 2) == 0)
            break; /* the profiled program's own arguments */
        if (v) {
            char *e;
            double rate = strtod(v, &e);
            return e != v && (*e == ' ' || *e == 0) && rate > 0 && isfinite(rate) ? rate : 0;
        }
        p += n;
    }
    return 0;
}

static int free_buf_rc(pdb_buf *b, int rc)
{
    pdb_buf_free(b);
    return rc;
}

/* Joins a box into the tree: its parent one row up, its frame, its node. */
static int resolve_box(svg *r, resolver *z, int64_t id, int64_t depth, int64_t x, int64_t w,
                       int64_t at, const char *text)
{
    int64_t parent = 0, parent_real = 0, ndepth = 0, base = 0;
    bool parent_open = false;
    pdb_buf open = PDB_BUF_INIT;
    if (depth > 0) {
        sqlite3_bind_int64(z->parent, 1, depth - 1);
        sqlite3_bind_int64(z->parent, 2, x);
        int rc = sqlite3_step(z->parent);
        bool ok = rc == SQLITE_ROW && x + w <= sqlite3_column_int64(z->parent, 1) +
                                                  sqlite3_column_int64(z->parent, 2);
        if (ok) {
            parent = sqlite3_column_int64(z->parent, 0);
            parent_real = sqlite3_column_int64(z->parent, 3);
            ndepth = sqlite3_column_int64(z->parent, 4) + 1;
            parent_open = sqlite3_column_type(z->parent, 5) != SQLITE_NULL;
            if (parent_open) {
                pdb_buf_adds(&open, (const char *)sqlite3_column_text(z->parent, 5));
                base = sqlite3_column_int64(z->parent, 6);
                ndepth--; /* the pieces are one frame */
            }
        }
        sqlite3_reset(z->parent);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return free_buf_rc(&open, pdb_db_fail(r->src->db, "database error"));
        if (!ok)
            return free_buf_rc(&open, pdb_fail_at(r->src->path, at, "a flame-graph box "
                                                      "that no box of the row above holds"));
    }
    bool real_null = false;
    int64_t real = 0, frame;
    int rc = PDB_OK;
    size_t len = strlen(text);
    if (parent_open) { /* a piece of a process frame cut at ';' */
        pdb_buf_addc(&open, ';');
        pdb_buf_add(&open, text, len);
        if (text[len ? len - 1 : 0] == '"' && len) {
            rc = pdb_pyspy_frame_printed(r->store, PDB_PYSPY_PROCESS, open.p, open.len, &frame);
            if (rc == PDB_OK)
                rc = pdb_pyspy_node(r->store, base, frame, ndepth, &real);
            pdb_buf_reset(&open);
        } else {
            real_null = true;
        }
    } else if (depth == 0 && strcmp(text, "all") == 0) {
        ndepth = -1; /* inferno's root: not stored, its children are roots */
    } else {
        pdb_pyspy_kind kind = PDB_PYSPY_PYTHON;
        if (pdb_pyspy_is_process(text, len))
            kind = PDB_PYSPY_PROCESS;
        else if (pdb_pyspy_is_thread(text, len))
            kind = PDB_PYSPY_THREAD;
        if (kind == PDB_PYSPY_PROCESS && text[len - 1] != '"') {
            pdb_buf_add(&open, text, len);
            base = parent_real;
            real_null = true;
        } else {
            rc = pdb_pyspy_frame_printed(r->store, kind, text, len, &frame);
            if (rc == PDB_OK)
                rc = pdb_pyspy_node(r->store, parent_real, frame, ndepth, &real);
        }
    }
    if (rc == PDB_OK) {
        sqlite3_stmt *st = z->set;
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_int64(st, 2, parent);
        if (real_null)
            sqlite3_bind_null(st, 3);
        else
            sqlite3_bind_int64(st, 3, real);
        sqlite3_bind_int64(st, 4, ndepth);
        if (open.len)
            sqlite3_bind_text(st, 5, open.p, (int)open.len, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, 5);
        sqlite3_bind_int64(st, 6, base);
        rc = pdb_db_step_done(r->src->db, st);
    }
    pdb_buf_free(&open);
    return rc;
}

static int query_one(svg *r, const char *name, int nargs, double arg, int64_t *out, bool *found)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(r->src->db, name, &st) != PDB_OK)
        return PDB_ERR;
    if (nargs)
        sqlite3_bind_double(st, 1, arg);
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL;
    if (*found)
        *out = sqlite3_column_int64(st, 0);
    pdb_db_release(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(r->src->db,
                                                                        "database error");
}

static int resolve_all(svg *r)
{
    sqlite3 *db = r->src->db;
    sqlite3_stmt *st;
    double root_y = 0;
    if (pdb_ingest_prepare(db, "pyspy.svg_root_y", &st) != PDB_OK)
        return PDB_ERR;
    if (sqlite3_step(st) == SQLITE_ROW)
        root_y = sqlite3_column_double(st, 0);
    pdb_db_release(st);
    if (pdb_ingest_prepare(db, "pyspy.svg_depths", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_double(st, 1, root_y);
    int rc = pdb_db_step_done(db, st);
    pdb_db_release(st);
    int64_t at;
    bool found;
    if (rc == PDB_OK)
        rc = query_one(r, "pyspy.svg_wrong_side", 1, root_y, &at, &found);
    if (rc == PDB_OK && found)
        return pdb_fail_at(r->src->path, at, "a flame-graph box on the other side of the root "
                           "row than the rest");
    resolver z = {0};
    if (rc == PDB_OK)
        rc = pdb_ingest_prepare(db, "pyspy.svg_boxes", &z.boxes);
    if (rc == PDB_OK)
        rc = pdb_ingest_prepare(db, "pyspy.svg_parent", &z.parent);
    if (rc == PDB_OK)
        rc = pdb_ingest_prepare(db, "pyspy.svg_set", &z.set);
    int step = SQLITE_DONE;
    while (rc == PDB_OK && (step = sqlite3_step(z.boxes)) == SQLITE_ROW)
        rc = resolve_box(r, &z, sqlite3_column_int64(z.boxes, 0),
                         sqlite3_column_int64(z.boxes, 1), sqlite3_column_int64(z.boxes, 2),
                         sqlite3_column_int64(z.boxes, 3), sqlite3_column_int64(z.boxes, 4),
                         (const char *)sqlite3_column_text(z.boxes, 5));
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(db, "database error");
    pdb_db_release(z.boxes);
    pdb_db_release(z.parent);
    pdb_db_release(z.set);
    if (rc == PDB_OK)
        rc = query_one(r, "pyspy.svg_negative_self", 0, 0, &at, &found);
    if (rc == PDB_OK && found)
        return pdb_fail_at(r->src->path, at, "a flame-graph box narrower than its children");
    return rc;
}

static int store_samples(svg *r, int64_t profile, int64_t *visible)
{
    sqlite3 *db = r->src->db;
    int64_t lost = 0;
    bool found;
    if (query_one(r, "pyspy.svg_lost", 0, 0, &lost, &found) != PDB_OK ||
        query_one(r, "pyspy.svg_visible", 0, 0, visible, &found) != PDB_OK)
        return PDB_ERR;
    if (lost > 0)
        pdb_skip(r->src, "pyspy-svg: samples in a process frame whose pieces never close");
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, "pyspy.svg_samples", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, profile);
    sqlite3_bind_int64(st, 2, r->src->run_id);
    int rc = pdb_db_step_done(db, st);
    pdb_db_release(st);
    return rc;
}

/* ---- the reader -------------------------------------------------------- */

static int read_svg(svg *r)
{
    if (pdb_ingest_exec(r->src->db, "pyspy.create_svg") != PDB_OK ||
        pdb_ingest_exec(r->src->db, "pyspy.clear_svg") != PDB_OK ||
        pdb_ingest_prepare(r->src->db, "pyspy.svg_add_box", &r->add_box) != PDB_OK)
        return PDB_ERR;
    if (scan(r) != PDB_OK)
        return PDB_ERR;
    if (!r->saw_svg)
        return pdb_fail_at(r->src->path, 0, "no <svg> element (not a flame graph)");
    if (r->total < 0)
        return pdb_fail_at(r->src->path, offset(r), "no <svg id=\"frames\" total_samples=\"N\">"
                           " (not a py-spy/inferno flame graph, or truncated)");
    if (r->boxes == 0)
        return pdb_fail_at(r->src->path, offset(r), "a flame graph without a box");
    int64_t profile, visible = 0;
    if (pdb_pyspy_profile(r->store, "pyspy-svg", NULL, 0, false, &profile) != PDB_OK ||
        resolve_all(r) != PDB_OK || store_samples(r, profile, &visible) != PDB_OK)
        return PDB_ERR;
    if (visible > r->total)
        return pdb_fail("%s: the flame graph's boxes hold %lld samples, more than its "
                        "total_samples %lld", r->src->path, (long long)visible,
                        (long long)r->total);
    const char *opts = r->options.len ? pdb_buf_str(&r->options) : NULL;
    return pdb_pyspy_profile_done(r->store, profile, r->total, opts ? rate_of(opts) : 0, opts,
                                  NULL, 0);
}

int pdb_read_pyspy_svg(pdb_source *src)
{
    src->format = "pyspy-svg";
    svg r = {.src = src, .total = -1};
    r.store = pdb_pyspy_store_open(src);
    if (!r.store)
        return PDB_ERR;
    r.buf = pdb_xmalloc(CHUNK);
    int rc = read_svg(&r);
    pdb_db_release(r.add_box);
    if (pdb_ingest_exec(src->db, "pyspy.clear_svg") != PDB_OK)
        rc = PDB_ERR;
    pdb_pyspy_store_close(r.store);
    pdb_buf_free(&r.tag);
    pdb_buf_free(&r.text);
    pdb_buf_free(&r.title);
    pdb_buf_free(&r.frame);
    pdb_buf_free(&r.options);
    free(r.buf);
    return rc;
}
