/* pyspy_raw.c: the reader for py-spy's raw output (`--format raw`,
 * collapsed stacks) -> pyspy_* tables (pyspy_store.h).
 *
 * One record per distinct stack, root first: "frame;frame;...;leaf COUNT\n".
 * py-spy does not escape its pseudo-frames: a leading process frame
 * `process PID:"CMDLINE"` holds the command line as it is, with quotes,
 * ';' and even newlines, so such a frame is scanned to the first '"' that
 * is followed by ';' and something shaped like the next frame, or by
 * " COUNT" (a stack of process frames only) - the rule of the corpus'
 * oracle (../shared/corpus/pyspy/oracle.py). The rest of a record is split
 * on ';' up to the end of its physical line, whose last " DIGITS" is the
 * count.
 *
 * Streaming: the input is read in chunks and only the frame being read is
 * held (up to MAX_FRAME bytes), so a 100 MB record or a stack of 10^5
 * frames costs no more memory than a short one; the stack is walked down
 * the node tree frame by frame, keeping only the current node. */
#include "ingest/readers.h"
#include "ingest/pyspy/pyspy_store.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK (1 << 16)
/* How far past a '"' the end of a process frame is judged (the oracle's). */
#define WINDOW 200
/* A frame longer than this is no py-spy frame (a Linux command line is at
 * most 2 MiB); refused rather than held. */
#define MAX_FRAME ((size_t)16 << 20)

typedef struct {
    pdb_source *src;
    pdb_pyspy_store *store;
    unsigned char *buf;
    size_t pos, end;   /* unread bytes: buf[pos..end) */
    bool eof;
    int64_t line;      /* physical line of buf[pos], from 1 */
    pdb_buf frame;     /* the frame being read */
    int64_t profile, samples;
    /* the stack of the record being read */
    int64_t node, depth;
    bool leading;      /* no frame but pseudo-frames so far */
} raw;

/* ---- sniffing ----------------------------------------------------------- */

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* A line that ends in a frame and a count: "...;name (file:line) DIGITS"
 * (a frame ends in ')'; a log line that ends in a number, maskrcnn-benchmark's
 * "... lr: 0.014347  max mem: 3508", does not). */
static bool ends_in_count(const unsigned char *l, size_t n)
{
    if (n && l[n - 1] == '\r')
        n--;
    size_t i = n;
    while (i > 0 && is_digit(l[i - 1]))
        i--;
    return i < n && i > 1 && l[i - 1] == ' ' && l[i - 2] == ')';
}

/* Frames shaped "name (file...)" followed by ';' in a line. */
static int frame_marks(const unsigned char *l, size_t n)
{
    int marks = 0;
    for (size_t i = 1; i < n; i++)
        if (l[i] == ';' && l[i - 1] == ')')
            marks++;
    return marks;
}

/* Raw files start with a process frame (--subprocesses) or a line of
 * frames ending in a count; the first lines decide. A record longer than
 * the peek is judged by its frames alone. */
int pdb_sniff_pyspy_raw(const unsigned char *d, size_t len)
{
    if (pdb_pyspy_is_process((const char *)d, len < 64 ? len : 64))
        return PDB_SNIFF_SURE;
    int counted = 0, marks = 0;
    size_t at = 0;
    for (int lines = 0; lines < 8 && at < len; lines++) {
        const unsigned char *nl = memchr(d + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (d + at)) : len - at;
        int m = frame_marks(d + at, n);
        if (!nl) { /* cut off by the peek: its frames only */
            if (lines == 0 && m >= 3)
                return PDB_SNIFF_LIKELY;
            break;
        }
        if (!ends_in_count(d + at, n) || memchr(d + at, '(', n) == NULL) {
            if (counted == 0)
                return PDB_SNIFF_NO;
            break; /* malformed further on: the reader says where */
        }
        counted++;
        marks += m;
        at += n + 1;
    }
    if (counted == 0)
        return PDB_SNIFF_NO;
    /* a single "name (file:line) 12" line could be a log: frames decide */
    if (marks >= 2 || (counted >= 2 && marks >= 1))
        return PDB_SNIFF_SURE;
    return PDB_SNIFF_LIKELY;
}

/* ---- input -------------------------------------------------------------- */

/* Makes at least want bytes available at pos (fewer only at the end). */
static int fill(raw *r, size_t want)
{
    if (r->end - r->pos >= want || r->eof)
        return PDB_OK;
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->end -= r->pos;
        r->pos = 0;
    }
    while (r->end < want && !r->eof) {
        ssize_t got = pdb_input_read(r->src->in, r->buf + r->end, 2 * CHUNK - r->end);
        if (got < 0)
            return PDB_ERR;
        if (got == 0)
            r->eof = true;
        r->end += (size_t)got;
    }
    return PDB_OK;
}

static int frame_add(raw *r, const unsigned char *p, size_t n)
{
    if (r->frame.len + n > MAX_FRAME)
        return pdb_fail_line(r->src->path, r->line, "a frame longer than %zu MiB (not a py-spy "
                             "raw file?)", MAX_FRAME >> 20);
    pdb_buf_add(&r->frame, p, n);
    return PDB_OK;
}

/* ---- the stack ---------------------------------------------------------- */

static int push(raw *r, pdb_pyspy_kind kind, const char *text, size_t len)
{
    int64_t frame;
    if (pdb_pyspy_frame_printed(r->store, kind, text, len, &frame) != PDB_OK ||
        pdb_pyspy_node(r->store, r->node, frame, r->depth, &r->node) != PDB_OK)
        return PDB_ERR;
    r->depth++;
    return PDB_OK;
}

/* A frame split on ';': pseudo while only pseudo-frames came before. */
static int push_split(raw *r)
{
    const char *t = pdb_buf_str(&r->frame);
    size_t n = r->frame.len;
    pdb_pyspy_kind kind = PDB_PYSPY_PYTHON;
    if (r->leading && pdb_pyspy_is_thread(t, n))
        kind = PDB_PYSPY_THREAD;
    else if (r->leading && pdb_pyspy_is_process(t, n))
        kind = PDB_PYSPY_PROCESS;
    else
        r->leading = false;
    return push(r, kind, t, n);
}

/* ---- process frames ----------------------------------------------------- */

/* Whether w[0..n) (the text after '";') starts like the next frame; the
 * two last shapes are matched with a '\n' after the window, as the
 * oracle does. */
static bool next_is_frame(const unsigned char *w, size_t n)
{
    if (pdb_pyspy_is_process((const char *)w, n) || (n >= 8 && memcmp(w, "thread (", 8) == 0))
        return true;
    /* [^;\n]*\)(;| \d+\n) */
    for (size_t i = 0; i < n && w[i] != ';' && w[i] != '\n'; i++) {
        if (w[i] != ')')
            continue;
        if (i + 1 == n || w[i + 1] == ';')
            return i + 1 < n; /* ")" then the appended '\n': no ';', no count */
        if (w[i + 1] == ' ') {
            size_t j = i + 2;
            while (j < n && is_digit(w[j]))
                j++;
            if (j > i + 2 && (j == n || w[j] == '\n'))
                return true;
        }
    }
    /* [^;\n ]+ \d+\n */
    size_t j = 0;
    while (j < n && w[j] != ';' && w[j] != '\n' && w[j] != ' ')
        j++;
    if (j == 0 || j >= n || w[j] != ' ')
        return false;
    size_t k = ++j;
    while (k < n && is_digit(w[k]))
        k++;
    return k > j && (k == n || w[k] == '\n');
}

/* Whether the '"' at buf[pos] ends the process frame. */
static bool quote_ends_frame(const raw *r)
{
    const unsigned char *rest = r->buf + r->pos + 1;
    size_t n = r->end - r->pos - 1;
    if (n > WINDOW - 1)
        n = WINDOW - 1;
    if (n && rest[0] == ';')
        return next_is_frame(rest + 1, n - 1);
    /* " \d+(\n|$)": a stack of process frames only */
    size_t k = 1;
    if (n == 0 || rest[0] != ' ')
        return false;
    while (k < n && is_digit(rest[k]))
        k++;
    return k > 1 && (k == n || rest[k] == '\n');
}

/* Reads a process frame from buf[pos], which starts with process PID:". */
static int read_process(raw *r, int64_t first_line)
{
    pdb_buf_reset(&r->frame);
    size_t head = 0;
    while (r->buf[r->pos + head] != '"')
        head++;
    if (frame_add(r, r->buf + r->pos, head + 1) != PDB_OK)
        return PDB_ERR;
    r->pos += head + 1;
    for (;;) {
        if (fill(r, WINDOW) != PDB_OK)
            return PDB_ERR;
        if (r->pos == r->end)
            return pdb_fail_line(r->src->path, first_line, "a process frame without its end "
                                 "(no closing '\"' before the end of the input)");
        /* copy up to the next quote */
        const unsigned char *q = memchr(r->buf + r->pos, '"', r->end - r->pos);
        size_t n = q ? (size_t)(q - (r->buf + r->pos)) : r->end - r->pos;
        for (size_t i = 0; i < n; i++)
            r->line += r->buf[r->pos + i] == '\n';
        if (frame_add(r, r->buf + r->pos, n) != PDB_OK)
            return PDB_ERR;
        r->pos += n;
        if (!q)
            continue;
        if (fill(r, WINDOW) != PDB_OK)
            return PDB_ERR;
        bool ends = quote_ends_frame(r);
        if (frame_add(r, r->buf + r->pos, 1) != PDB_OK)
            return PDB_ERR;
        r->pos++;
        if (ends)
            return push(r, PDB_PYSPY_PROCESS, pdb_buf_str(&r->frame), r->frame.len);
    }
}

/* Whether buf[pos] starts a process frame (after fill). */
static bool at_process(const raw *r)
{
    size_t n = r->end - r->pos;
    return pdb_pyspy_is_process((const char *)r->buf + r->pos, n < 64 ? n : 64);
}

/* ---- records ------------------------------------------------------------ */

/* The count at the end of the last segment ("leaf COUNT"); *leaf_len the
 * length of the frame before it. */
static int take_count(raw *r, int64_t *count, size_t *leaf_len)
{
    const char *t = pdb_buf_str(&r->frame);
    size_t n = r->frame.len;
    if (n && t[n - 1] == '\r')
        n--;
    size_t i = n;
    while (i > 0 && is_digit((unsigned char)t[i - 1]))
        i--;
    if (i == n || i == 0 || t[i - 1] != ' ') {
        size_t show = n > 60 ? 60 : n;
        return pdb_fail_line(r->src->path, r->line, "a record without a sample count at the end "
                             "of its line (ends with '%.*s'; not a py-spy raw file?)",
                             (int)show, t + n - show);
    }
    int64_t v = 0;
    for (size_t k = i; k < n; k++)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, t[k] - '0', &v))
            return pdb_fail_line(r->src->path, r->line, "a sample count beyond 64-bit integers");
    *count = v;
    *leaf_len = i - 1;
    return PDB_OK;
}

/* Reads the rest of a record's line: frames split on ';', then the count. */
static int read_frames(raw *r, int64_t *count)
{
    int split = 0;
    bool newline = false;
    pdb_buf_reset(&r->frame);
    for (;;) {
        if (fill(r, 1) != PDB_OK)
            return PDB_ERR;
        if (r->pos == r->end)
            break;
        const unsigned char *p = r->buf + r->pos;
        size_t n = r->end - r->pos, i = 0;
        while (i < n && p[i] != ';' && p[i] != '\n')
            i++;
        if (frame_add(r, p, i) != PDB_OK)
            return PDB_ERR;
        r->pos += i;
        if (i == n)
            continue;
        r->pos++;
        if (p[i] == '\n') {
            newline = true;
            break;
        }
        if (push_split(r) != PDB_OK)
            return PDB_ERR;
        split++;
        pdb_buf_reset(&r->frame);
    }
    size_t leaf = 0;
    int rc = take_count(r, count, &leaf); /* the message names the record's line */
    r->line += newline;
    if (rc != PDB_OK)
        return rc;
    /* "a;b; 5" has an empty last frame, " 5" after process frames none */
    if (leaf > 0 || split > 0) {
        r->frame.len = leaf;
        if (r->frame.p)
            r->frame.p[leaf] = 0;
        return push_split(r);
    }
    return PDB_OK;
}

static int read_record(raw *r)
{
    int64_t first_line = r->line, count = 0;
    r->node = 0;
    r->depth = 0;
    r->leading = true;
    for (;;) {
        if (fill(r, 64) != PDB_OK)
            return PDB_ERR;
        if (!at_process(r))
            break;
        if (read_process(r, first_line) != PDB_OK)
            return PDB_ERR;
        if (fill(r, 1) != PDB_OK)
            return PDB_ERR;
        if (r->pos < r->end && r->buf[r->pos] == ';')
            r->pos++;
        else
            break;
    }
    if (read_frames(r, &count) != PDB_OK)
        return PDB_ERR;
    if (r->depth == 0) {
        pdb_skip(r->src, "py-spy raw: a record without frames");
        return PDB_OK;
    }
    if (__builtin_add_overflow(r->samples, count, &r->samples))
        return pdb_fail_line(r->src->path, first_line, "sample counts add up beyond 64-bit "
                             "integers");
    r->src->records++;
    pdb_progress(r->src, r->src->records);
    return pdb_pyspy_samples(r->store, r->profile, r->node, count);
}

static int read_all(raw *r)
{
    for (;;) {
        if (fill(r, 1) != PDB_OK)
            return PDB_ERR;
        if (r->pos == r->end)
            return PDB_OK;
        if (r->buf[r->pos] == '\n') { /* a blank line (py-spy writes none) */
            r->pos++;
            r->line++;
            continue;
        }
        if (read_record(r) != PDB_OK)
            return PDB_ERR;
    }
}

int pdb_read_pyspy_raw(pdb_source *src)
{
    src->format = "pyspy-raw";
    raw r = {.src = src, .line = 1};
    r.store = pdb_pyspy_store_open(src);
    if (!r.store)
        return PDB_ERR;
    r.buf = pdb_xmalloc(2 * CHUNK);
    int rc = pdb_pyspy_profile(r.store, "pyspy-raw", NULL, 0, true, &r.profile);
    if (rc == PDB_OK)
        rc = read_all(&r);
    if (rc == PDB_OK && src->records == 0)
        rc = pdb_fail("%s: no py-spy record in the input", src->path);
    if (rc == PDB_OK)
        rc = pdb_pyspy_profile_done(r.store, r.profile, r.samples, 0, NULL, NULL, 0);
    pdb_pyspy_store_close(r.store);
    pdb_buf_free(&r.frame);
    free(r.buf);
    return rc;
}
