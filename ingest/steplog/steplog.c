/* steplog.c: per-step training logs: the flavor table, sniffing, dispatch.
 *
 * Many training jobs leave no trace, only a log with a line per step. This
 * reader recognises the common flavors from content (or takes the one named
 * by --format steplog:FLAVOR), hands the stream to that flavor's reader, and
 * sends every log no flavor claims to the general text reader
 * (steplog_general.c). Values become rows of steplog_values through the
 * writer (steplog_writer.c). A file that yields no step record is refused
 * with a message naming what was tried. */
#define _GNU_SOURCE /* memmem */
#include "ingest/steplog/steplog.h"
#include "ingest/readers.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text helpers ------------------------------------------------------ */

bool pdb_steplog_to_int(double d, int64_t *out)
{
    if (!(d > -9.2e18 && d < 9.2e18)) /* also false for NaN */
        return false;
    *out = (int64_t)d;
    return true;
}

const char *pdb_steplog_find(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0 || n > len)
        return NULL;
    if (len > 512)
        return memmem(s, len, needle, n); /* glibc's two-way search: linear on long lines */
    /* A log line is short and a reader asks it for many needles: memmem's
     * setup costs more than the search there. The first byte by memchr, then
     * the rest; at most len * n byte compares, with n a short literal. */
    const char *p = s, *last = s + len - n;
    while (p <= last && (p = memchr(p, needle[0], (size_t)(last - p) + 1)) != NULL) {
        if (memcmp(p + 1, needle + 1, n - 1) == 0)
            return p;
        p++;
    }
    return NULL;
}

const char *pdb_steplog_after(const char *s, size_t len, const char *needle)
{
    const char *p = pdb_steplog_find(s, len, needle);
    return p ? p + strlen(needle) : NULL;
}

bool pdb_steplog_int_after(const char *s, size_t len, const char *needle, int64_t *out)
{
    const char *p = pdb_steplog_after(s, len, needle);
    if (!p)
        return false;
    size_t i = (size_t)(p - s);
    return pdb_steplog_read_int(s, len, &i, out);
}

bool pdb_steplog_next_field(const char *s, size_t len, char sep, size_t *pos, const char **f,
                            size_t *fl)
{
    while (*pos <= len) {
        const char *start = s + *pos;
        const char *end = memchr(start, sep, len - *pos);
        size_t n = end ? (size_t)(end - start) : len - *pos;
        *pos += n + 1;
        *f = start;
        *fl = pdb_steplog_trim(f, n);
        if (*fl)
            return true;
    }
    return false;
}

bool pdb_steplog_read_int(const char *s, size_t len, size_t *i, int64_t *out)
{
    while (*i < len && s[*i] == ' ')
        (*i)++;
    if (*i >= len || !isdigit((unsigned char)s[*i]))
        return false;
    int64_t v = 0;
    while (*i < len && isdigit((unsigned char)s[*i]) && v < INT64_MAX / 10)
        v = v * 10 + (s[(*i)++] - '0');
    *out = v;
    return true;
}

size_t pdb_steplog_trim(const char **s, size_t len)
{
    const char *p = *s;
    while (len && isspace((unsigned char)*p)) {
        p++;
        len--;
    }
    while (len && isspace((unsigned char)p[len - 1]))
        len--;
    *s = p;
    return len;
}

/* ---- lines ----------------------------------------------------------------- */

#define SL_MAX_LINE (16 * 1024 * 1024) /* as pdb_input_getline's */
#define SL_CHUNK 65536

bool pdb_steplog_cr_lines(const unsigned char *d, size_t len)
{
    const unsigned char *lf = memchr(d, '\n', len);
    if (lf && !(lf == d + len - 1 && len < PDB_INPUT_PEEK))
        return false;
    for (const unsigned char *cr = memchr(d, '\r', len); cr;
         cr = memchr(cr + 1, '\r', len - (size_t)(cr + 1 - d)))
        if (cr + 1 == d + len ? len < PDB_INPUT_PEEK : cr[1] != '\n')
            return true;
    return false;
}

/* A line of a log of bare-CR lines: ends at CR, LF or CRLF. */
static int cr_getline(pdb_steplog *w, const char **line, size_t *len)
{
    pdb_input *in = w->src->in;
    if (!w->cr.buf)
        w->cr.buf = pdb_xmalloc(SL_CHUNK);
    pdb_buf *b = &w->cr.line;
    pdb_buf_reset(b);
    for (;;) {
        if (w->cr.pos == w->cr.len) {
            if (w->cr.eof)
                break;
            ssize_t n = pdb_input_read(in, w->cr.buf, SL_CHUNK);
            if (n < 0)
                return PDB_ERR;
            if (n == 0) {
                w->cr.eof = true;
                break;
            }
            w->cr.len = (size_t)n;
            w->cr.pos = 0;
        }
        if (w->cr.after_cr) { /* a CRLF split between two reads */
            w->cr.after_cr = false;
            if (w->cr.buf[w->cr.pos] == '\n') {
                w->cr.pos++;
                continue;
            }
        }
        const unsigned char *s = w->cr.buf + w->cr.pos;
        size_t avail = w->cr.len - w->cr.pos, k = 0;
        while (k < avail && s[k] != '\n' && s[k] != '\r')
            k++;
        if (b->len + k > SL_MAX_LINE)
            return pdb_fail_line(w->src->path, w->lineno + 1, "line longer than %d bytes",
                                 SL_MAX_LINE);
        pdb_buf_add(b, s, k);
        w->cr.pos += k;
        if (k < avail) {
            w->cr.pos++;
            if (s[k] == '\r') {
                if (w->cr.pos < w->cr.len && w->cr.buf[w->cr.pos] == '\n')
                    w->cr.pos++;
                else
                    w->cr.after_cr = w->cr.pos == w->cr.len;
            }
            goto got_line;
        }
    }
    if (b->len == 0)
        return 0;
got_line:
    w->lineno++;
    *line = pdb_buf_str(b);
    *len = b->len;
    return 1;
}

int pdb_steplog_getline(pdb_steplog *w, const char **line, size_t *len)
{
    /* a long run of lines that store nothing runs no SQL, whose progress
     * handler would see the flag: the reader looks itself */
    if (pdb_ingest_interrupted())
        return pdb_fail("%s: interrupted", w->src->path); /* the session says by what */
    if (w->cr_lines)
        return cr_getline(w, line, len);
    int r = pdb_input_getline(w->src->in, line, len);
    if (r == 1)
        w->lineno = pdb_input_lineno(w->src->in);
    return r < 0 ? PDB_ERR : r;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static bool digits_at(const char *s, size_t len, size_t i, size_t n, int *out)
{
    if (i + n > len)
        return false;
    int v = 0;
    for (size_t k = i; k < i + n; k++) {
        if (!isdigit((unsigned char)s[k]))
            return false;
        v = v * 10 + (s[k] - '0');
    }
    *out = v;
    return true;
}

size_t pdb_steplog_timestamp(const char *s, size_t len, double *out)
{
    int y, mo, d, h, mi, se;
    if (!digits_at(s, len, 0, 4, &y) || len < 19 || (s[4] != '-' && s[4] != '/') ||
        s[7] != s[4] || !digits_at(s, len, 5, 2, &mo) || !digits_at(s, len, 8, 2, &d) ||
        (s[10] != ' ' && s[10] != 'T') || !digits_at(s, len, 11, 2, &h) || s[13] != ':' ||
        !digits_at(s, len, 14, 2, &mi) || s[16] != ':' || !digits_at(s, len, 17, 2, &se))
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return 0;
    size_t i = 19;
    double frac = 0, scale = 0.1;
    if (i < len && (s[i] == ',' || s[i] == '.') && i + 1 < len && isdigit((unsigned char)s[i + 1])) {
        for (i++; i < len && isdigit((unsigned char)s[i]); i++, scale /= 10)
            frac += (s[i] - '0') * scale;
    }
    *out = (double)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
                    mi * 60 + se) + frac;
    return i;
}

/* "HH:MM:SS[.fff]" at s[i]: seconds of the day, or -1. */
static double clock_at(const char *s, size_t len, size_t i, size_t *end)
{
    int h, mi, se;
    if (!digits_at(s, len, i, 2, &h) || i + 8 > len || s[i + 2] != ':' ||
        !digits_at(s, len, i + 3, 2, &mi) || s[i + 5] != ':' ||
        !digits_at(s, len, i + 6, 2, &se) || h > 23 || mi > 59 || se > 60)
        return -1;
    size_t k = i + 8;
    double frac = 0, scale = 0.1;
    if (k + 1 < len && (s[k] == '.' || s[k] == ',') && isdigit((unsigned char)s[k + 1]))
        for (k++; k < len && isdigit((unsigned char)s[k]); k++, scale /= 10)
            frac += (s[k] - '0') * scale;
    if (k < len && isdigit((unsigned char)s[k]))
        return -1;
    *end = k;
    return h * 3600 + mi * 60 + se + frac;
}

size_t pdb_steplog_timestamp_any(const char *s, size_t len, double *out)
{
    size_t n = pdb_steplog_timestamp(s, len, out);
    if (n)
        return n;
    int mo, d, y = 2000; /* a date without a year is read in 2000 (a leap year) */
    size_t i, end;
    if (digits_at(s, len, 0, 2, &mo) && len > 5 && s[2] == '/' && digits_at(s, len, 3, 2, &d) &&
        mo >= 1 && mo <= 12 && d >= 1 && d <= 31) {
        i = 5;
        if (len > 10 && s[5] == '/' && digits_at(s, len, 6, 4, &y))
            i = 10; /* MM/DD/YYYY, as nanotron prints it */
        if (i < len && s[i] == ' ') {
            double secs = clock_at(s, len, i + 1, &end);
            if (secs >= 0) {
                *out = (double)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400) + secs;
                return end;
            }
        }
        return 0;
    }
    double secs = clock_at(s, len, 0, &end);
    if (secs < 0)
        return 0;
    *out = (double)(days_from_civil(2000, 1, 1) * 86400) + secs; /* a time of day */
    return end;
}

/* ---- classifying lines (sniffing and the text reader) ---------------- */

/* A `name: number` line of the generic trainer ("profile/train/dl_main/
 * time_forward_ms: 3.21", optionally bulleted or in backticks). */
static bool kv_line(const char *s, size_t len)
{
    len = pdb_steplog_trim(&s, len);
    if (len && (*s == '-' || *s == '*')) {
        s++;
        len = pdb_steplog_trim(&s, len - 1);
    }
    if (len && *s == '`') {
        s++;
        len--;
    }
    size_t i = 0;
    bool sep = false;
    while (i < len && (isalnum((unsigned char)s[i]) || strchr("_/.-", s[i]))) {
        sep |= s[i] == '/'; /* profile/train/..., profiling/...: not YAML keys */
        i++;
    }
    if (i == 0 || !sep || !isalpha((unsigned char)s[0]))
        return false;
    if (i < len && s[i] == '`')
        i++;
    if (i >= len || s[i] != ':')
        return false;
    const char *v = s + i + 1;
    size_t vl = pdb_steplog_trim(&v, len - i - 1);
    double x;
    const char *u;
    return vl > 0 && pdb_units_quantity(v, vl, &x, &u);
}

/* Whether "KEY" in s is followed by blanks and an integer (and then, when
 * after is not NULL, by that character): the numbered shape of a record,
 * which prose that merely names the format lacks. */
static bool numbered(const char *s, size_t len, const char *key, char after)
{
    const char *p = pdb_steplog_find(s, len, key);
    if (!p)
        return false;
    size_t i = (size_t)(p - s) + strlen(key);
    while (i < len && s[i] == ' ')
        i++;
    size_t d = i;
    while (i < len && isdigit((unsigned char)s[i]))
        i++;
    if (i == d)
        return false;
    while (after && after != ' ' && i < len && s[i] == ' ')
        i++;
    return !after || (i < len && s[i] == after);
}

pdb_steplog_linekind pdb_steplog_classify(const char *s, size_t len)
{
    const char *t = s, *rest;
    size_t tl = pdb_steplog_trim(&t, len), restlen;
    /* Markdown (a README describing these formats) quotes them in backticks */
    if (memchr(s, '`', len))
        return PDB_SL_NONE;
    if (pdb_steplog_find(s, len, "=== Profiling Report") ||
        pdb_steplog_find(s, len, "=== Final Profiling Summary"))
        return PDB_SL_RECTFLOW;
    if (pdb_skip_prefix_mem(t, tl, "=== Epoch ", NULL, NULL) && pdb_steplog_find(s, len, "Profiling Summary"))
        return PDB_SL_MAE;
    if ((numbered(s, len, " iteration ", '/') &&
         (pdb_steplog_find(s, len, "elapsed time per iteration") ||
          pdb_steplog_find(s, len, "consumed samples"))) ||
        numbered(s, len, "validation loss at iteration", 0) ||
        pdb_steplog_find(s, len, "(min, max) time across ranks (ms):") ||
        (pdb_skip_prefix_mem(t, tl, "time (ms) |", &rest, &restlen) && memchr(rest, ':', restlen)))
        return PDB_SL_MEGATRON;
    if (pdb_steplog_find(s, len, "SamplesPerSec=") ||
        (numbered(s, len, "] step=", ',') && pdb_steplog_find(s, len, "skipped=")) ||
        (pdb_steplog_find(s, len, "] time (ms) |") || pdb_steplog_find(s, len, " rank=0 time (ms) |")) ||
        pdb_steplog_find(s, len, "|E2E latency=") ||
        (numbered(t, tl, "epoch:", '|') && numbered(s, len, "|step:", '|')))
        return PDB_SL_DEEPSPEED;
    if (pdb_skip_prefix_mem(t, tl, "iter ", NULL, NULL) && numbered(t, tl, "iter", ':') && pdb_steplog_find(s, len, ": loss "))
        return PDB_SL_NANOGPT;
    if (pdb_skip_prefix_mem(t, tl, "step:", NULL, NULL) && numbered(t, tl, "step:", '/') &&
        (pdb_steplog_find(t, tl, " train_time:") || pdb_steplog_find(t, tl, " val_loss:") ||
         pdb_steplog_find(t, tl, " train_loss:")))
        return PDB_SL_NANOGPT; /* modded-nanogpt */
    if (numbered(s, len, "step:", ' ') && pdb_steplog_find(s, len, "loss:") &&
        (pdb_steplog_find(s, len, "tps:") || pdb_steplog_find(s, len, "mfu:")))
        return PDB_SL_TORCHTITAN;
    if ((pdb_skip_prefix_mem(t, tl, "{'", NULL, NULL) && (pdb_steplog_find(s, len, "'loss'") ||
                                 pdb_steplog_find(s, len, "'epoch'") ||
                                 pdb_steplog_find(s, len, "'eval_loss'"))) ||
        pdb_steplog_find(s, len, "s/it]") || pdb_steplog_find(s, len, "it/s]"))
        return PDB_SL_HF;
    if (kv_line(s, len))
        return PDB_SL_KV;
    return PDB_SL_NONE;
}

/* ---- the flavor table (steplog_flavors.def) --------------------------------- */

enum { R_JSONL, R_DOC, R_CSV, R_TEXT };

typedef enum {
    F_NONE,
#define FLAVOR(id, name, reader, what) F_##id,
#include "ingest/steplog/steplog_flavors.def"
#undef FLAVOR
    F_COUNT
} flavor_id;

static const struct {
    const char *format; /* "steplog:NAME", as stored in sources.format */
    int reader;
} flavors[F_COUNT] = {
    {"steplog:", R_TEXT},
#define FLAVOR(id, name, reader, what) {"steplog:" name, R_##reader},
#include "ingest/steplog/steplog_flavors.def"
#undef FLAVOR
};

static const char *flavor_name(flavor_id f)
{
    const char *name = flavors[f].format;
    bool ok = pdb_skip_prefix(name, "steplog:", &name);
    assert(ok);
    (void)ok;
    return name;
}

/* Text flavors in the order of pdb_steplog_linekind. */
static const flavor_id line_flavor[] = {
    F_NONE, F_MEGATRON, F_DEEPSPEED, F_NANOGPT, F_TORCHTITAN, F_HF, F_RECTFLOW, F_MAE, F_KV,
};

/* Short names --format also accepts. */
static const struct {
    const char *alias;
    flavor_id flavor;
} aliases[] = {
    {"tsv", F_CSV}, {"hf-state", F_HF_STATE}, {"trainer-state", F_HF_STATE},
    {"golden", F_GOLDEN}, {"hf", F_HF}, {"log", F_TEXT}, {"general", F_TEXT},
};

static flavor_id flavor_named(const char *name)
{
    for (int f = 1; f < F_COUNT; f++)
        if (strcmp(flavor_name((flavor_id)f), name) == 0)
            return (flavor_id)f;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, name) == 0)
            return aliases[i].flavor;
    return F_NONE;
}

/* "jsonl, detectron2, ..., text": for messages. */
static void flavor_list(pdb_buf *out)
{
    for (int f = 1; f < F_COUNT; f++)
        pdb_buf_addf(out, "%s%s", f > 1 ? ", " : "", flavor_name((flavor_id)f));
}

/* ---- sniffing ------------------------------------------------------------ */

static bool has(const unsigned char *d, size_t len, const char *needle)
{
    return pdb_steplog_find((const char *)d, len, needle) != NULL;
}

/* A header row: at least two cells split by sep, each a column name (no
 * number, no '=' or quotes as in "TrainingArguments(a=1, b=2)"). Returns
 * the number of cells, 0 when it is not a header. */
static int header_cells(const char *s, size_t len, char sep)
{
    int cells = 1;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == sep) {
            const char *c = s + start;
            size_t cl = pdb_steplog_trim(&c, i - start);
            double x;
            if (cl == 0 || pdb_units_number(c, cl, &x) == cl)
                return 0;
            for (size_t k = 0; k < cl; k++)
                if (strchr("=\"'{}:", c[k]))
                    return 0;
            if (i < len)
                cells++;
            start = i + 1;
        }
    }
    return cells;
}

/* Cells of a data row (quoted separators are rare in logs; not counted). */
static int row_cells(const char *s, size_t len, char sep)
{
    int cells = 1;
    for (size_t i = 0; i < len; i++)
        cells += s[i] == sep;
    return cells;
}

/* Whether the whole prefix looks like one JSON document (not JSON Lines). */
static flavor_id sniff_json_doc(const unsigned char *d, size_t len)
{
    if (has(d, len, "\"log_history\""))
        return F_HF_STATE;
    if (has(d, len, "\"start_step\"") && has(d, len, "\"values\""))
        return F_GOLDEN;
    return F_NONE;
}

/* Whether the prefix is text (no NUL; control bytes besides ESC and bytes
 * that are not UTF-8 at most 1%) that does not parse as JSON: what the text
 * readers take. */
static bool is_text(const unsigned char *d, size_t len)
{
    size_t bad = pdb_utf8_invalid(d, len);
    for (size_t k = 0; k < len; k++) {
        if (d[k] == 0)
            return false;
        bad += d[k] < 0x20 && !isspace(d[k]) && d[k] != 0x1b;
    }
    return bad * 100 <= len && !pdb_sniff_json(d, len);
}

/* Per-line evidence gathered from the prefix. */
typedef struct {
    int counts[F_COUNT];   /* lines of each text flavor */
    int general;           /* step records of the general reader */
    int jsonl, detectron, lines, nonblank;
    const char *first, *second;
    size_t first_len, second_len;
} evidence;

/* A JSON Lines record that does not end in '}' (cut off by the peek, or
 * broken: a line nesting too deep) still opens like one when it names a
 * step the way step logs do ({"step": 1, ...); the JSON Lines reader then
 * says what is wrong with the line, not the trace reader. */
static bool jsonl_step_key(const char *t, size_t tl)
{
    static const char *const keys[] = {"{\"step\":", "{\"iteration\":", "{\"global_step\":",
                                       "{\"_step\":", "{\"iter\":", ", \"step\":",
                                       ", \"iteration\":", ", \"global_step\":", NULL};
    size_t lim = tl < 4096 ? tl : 4096;
    for (int k = 0; keys[k]; k++)
        if (pdb_steplog_find(t, lim, keys[k]))
            return true;
    return false;
}

static void count_line(evidence *ev, const char *s, size_t l)
{
    /* tqdm and nested bars put many updates on one line */
    const char *cr = memchr(s, '\r', l);
    size_t seg = cr && cr != s + l - 1 ? (size_t)(cr - s) : l;
    if (!ev->first) {
        ev->first = s;
        ev->first_len = l;
    } else if (!ev->second && l > 0) {
        ev->second = s;
        ev->second_len = l;
    }
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, l);
    ev->nonblank += tl > 0;
    if (tl >= 2 && t[0] == '{' && t[1] == '"' && (t[tl - 1] == '}' || jsonl_step_key(t, tl))) {
        ev->jsonl++;
        if (pdb_steplog_find(t, tl, "\"data_time\"") && pdb_steplog_find(t, tl, "\"iteration\""))
            ev->detectron++;
    } else {
        ev->counts[line_flavor[pdb_steplog_classify(s, l)]]++;
        if (seg < l)
            ev->counts[line_flavor[pdb_steplog_classify(s + seg, l - seg)]]++;
        ev->general += pdb_steplog_general_is_step_line(s, l);
    }
    ev->lines++;
}

/* A CSV or TSV table: a header row and a second row with as many cells. */
static flavor_id sniff_table(const evidence *ev)
{
    if (!ev->first || ev->first[0] == '{' || ev->first[0] == '[' || !ev->second)
        return F_NONE;
    const char *h = ev->first;
    size_t hl = pdb_steplog_trim(&h, ev->first_len);
    char sep = memchr(h, '\t', hl) ? '\t' : ',';
    int cells = header_cells(h, hl, sep);
    const char *r2 = ev->second;
    size_t r2l = pdb_steplog_trim(&r2, ev->second_len);
    if (cells < 2 || row_cells(r2, r2l, sep) != cells)
        return F_NONE;
    if (pdb_steplog_find(h, hl, "utilization.") || pdb_steplog_find(h, hl, "memory.used") ||
        pdb_steplog_find(h, hl, "power.draw"))
        return F_NVSMI;
    return F_CSV;
}

/* Picks a flavor from a prefix of the input and reports how sure it is.
 * JSON is JSON only when it parses from its first byte; everything else
 * that is text goes to the text readers: a flavor when its lines are there,
 * else the general reader. */
static flavor_id sniff_flavor(const unsigned char *d, size_t len, int *score)
{
    *score = PDB_SNIFF_NO;
    size_t i = 0;
    while (i < len && isspace(d[i]))
        i++;
    if (i == len)
        return F_NONE;
    /* a document with its defining key, parsing as JSON or at least opening
     * like it ({"...): a broken one is the JSON reader's to report */
    size_t k = i + 1;
    while (k < len && isspace(d[k]))
        k++;
    bool opens = d[i] == '{' && (pdb_sniff_json(d, len) || (k < len && d[k] == '"'));
    flavor_id doc = opens ? sniff_json_doc(d, len) : F_NONE;
    if (doc != F_NONE) {
        *score = PDB_SNIFF_LIKELY + 10;
        return doc;
    }
    if (has(d, len, "\"traceEvents\"") && pdb_sniff_json(d, len))
        return F_NONE;
    evidence ev = {0};
    size_t pos = i;
    char eol = pdb_steplog_cr_lines(d, len) ? '\r' : '\n';
    while (pos < len && ev.lines < 2000) {
        const char *s = (const char *)d + pos;
        const char *nl = memchr(s, eol, len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;
        if (!nl && pos > 0 && len >= PDB_INPUT_PEEK)
            break; /* a cut-off last line */
        count_line(&ev, s, l);
        pos += l + 1;
    }
    if (ev.jsonl > 0 && ev.jsonl * 2 >= ev.lines) {
        *score = PDB_SNIFF_LIKELY + 5;
        return ev.detectron ? F_DETECTRON2 : F_JSONL;
    }
    flavor_id table = sniff_table(&ev);
    if (table != F_NONE) {
        *score = PDB_SNIFF_LIKELY;
        return table;
    }
    flavor_id best = F_NONE;
    for (int f = F_MEGATRON; f < F_COUNT; f++)
        if (ev.counts[f] > (best ? ev.counts[best] : 0))
            best = (flavor_id)f;
    /* The block flavors print few lines; their header alone decides. */
    if (ev.counts[F_RECTFLOW])
        best = F_RECTFLOW;
    else if (ev.counts[F_MAE])
        best = F_MAE;
    else if (ev.counts[F_MEGATRON] && best == F_DEEPSPEED)
        best = F_MEGATRON;
    /* A few lines of a flavor in a log of another trainer (a stray tqdm bar)
     * do not make it that flavor: the general reader reads it. */
    if (best != F_NONE && best != F_RECTFLOW && best != F_MAE &&
        ev.general > 2 * ev.counts[best] + 2)
        best = F_NONE;
    if (best != F_NONE) {
        *score = ev.counts[best] >= 2 || best == F_RECTFLOW || best == F_MAE ? PDB_SNIFF_LIKELY
                                                                               : PDB_SNIFF_MAYBE;
        return best;
    }
    if (!is_text(d + i, len - i))
        return F_NONE;
    /* Any other text: the general reader. Sure enough for a directory
     * ingest when a good part of the lines are step records. */
    *score = ev.general >= 3 && ev.general * 4 >= ev.nonblank ? PDB_SNIFF_LIKELY
                                                              : PDB_SNIFF_MAYBE;
    return F_TEXT;
}

int pdb_sniff_steplog(const unsigned char *data, size_t len)
{
    int score;
    sniff_flavor(data, len, &score);
    return score;
}

/* ---- the reader ------------------------------------------------------------ */

static int read_flavor(pdb_steplog *w, flavor_id f)
{
    switch (flavors[f].reader) {
    case R_JSONL:
        return pdb_steplog_read_jsonl(w);
    case R_DOC:
        return pdb_steplog_read_json_doc(w);
    case R_CSV:
        return pdb_steplog_read_csv(w);
    default:
        return pdb_steplog_read_text(w);
    }
}

/* Adds "N reason" for each skip reason of the source (at most 4, largest
 * first is not needed: reasons are few). */
typedef struct {
    pdb_buf *out;
    int shown;
} skip_list;

static void list_skip(const char *reason, size_t len, int64_t n, void *arg)
{
    skip_list *l = arg;
    if (l->shown++ < 4)
        pdb_buf_addf(l->out, "%s%lld %.*s", l->shown > 1 ? ", " : ": ", (long long)n, (int)len,
                     reason);
}

/* The refusal of a file that held no step record: what was tried, what the
 * lines were taken for, and how to force a flavor. No byte offset: the
 * problem is the whole file, not a place in it. */
static int refuse(pdb_steplog *w, flavor_id f, bool forced)
{
    pdb_buf msg = PDB_BUF_INIT;
    int64_t lines = w->lineno;
    if (forced)
        pdb_buf_addf(&msg, "no step records found in the '%s' shapes (--format steplog:%s",
                     flavor_name(f), flavor_name(f));
    else if (f == F_TEXT && w->src->records > 0)
        pdb_buf_addf(&msg, "no step records found (read with the general text reader: the "
                           "lines with a counter held only validation, evaluation or summary "
                           "values (%lld values), no training step",
                     (long long)w->src->records);
    else if (f == F_TEXT)
        pdb_buf_addf(&msg, "no step records found (read with the general text reader: no line "
                           "has a step counter such as 'step', 'iter', 'epoch' or 'N/M'");
    else
        pdb_buf_addf(&msg, "no step records found (sniffed as '%s'", flavor_name(f));
    if (flavors[f].reader != R_DOC) {
        pdb_buf_addf(&msg, "; %lld lines", (long long)lines);
        skip_list l = {&msg, 0};
        pdb_strmap_each(w->src->skips, list_skip, &l);
    }
    pdb_buf_adds(&msg, "); step-log flavors: ");
    flavor_list(&msg);
    pdb_buf_adds(&msg, forced ? "" : "; force one with --format steplog:FLAVOR");
    int rc = pdb_fail("%s: %s", w->src->path, pdb_buf_str(&msg));
    pdb_buf_free(&msg);
    return rc;
}

int pdb_read_steplog(pdb_source *src)
{
    flavor_id f;
    bool forced = src->flavor && *src->flavor;
    const unsigned char *d;
    size_t len;
    if (pdb_input_peek(src->in, &d, &len) != PDB_OK)
        return PDB_ERR;
    if (forced) {
        f = flavor_named(src->flavor);
        if (f == F_NONE) {
            pdb_buf names = PDB_BUF_INIT;
            flavor_list(&names);
            int rc = pdb_fail("unknown step log flavor '%s' (step-log flavors: %s)", src->flavor,
                              pdb_buf_str(&names));
            pdb_buf_free(&names);
            return rc;
        }
    } else {
        int score;
        f = sniff_flavor(d, len, &score);
        if (f == F_NONE)
            return pdb_fail("%s: not a step log: the text is JSON that is not a step log, or "
                            "binary (step-log flavors are sniffed from text; use --format "
                            "steplog:FLAVOR to force one)", src->path);
    }
    src->format = flavors[f].format;
    pdb_steplog w = {.src = src, .flavor = flavor_name(f)};
    w.cr_lines = pdb_steplog_cr_lines(d, len);
    if (f == F_TEXT) {
        w.gen = pdb_steplog_general_new();
        pdb_steplog_general_profile(w.gen, (const char *)d, len, w.cr_lines ? '\r' : '\n');
    }
    int rc = pdb_steplog_open(&w);
    if (rc == PDB_OK)
        rc = read_flavor(&w, f);
    if (rc == PDB_OK && f == F_TEXT) {
        /* named after what it held, when a flavor's handlers read it */
        int best = 0;
        for (int k = 1; k < (int)(sizeof line_flavor / sizeof line_flavor[0]); k++)
            if (w.family_hits[k] > w.family_hits[best])
                best = k;
        if (best)
            src->format = flavors[line_flavor[best]].format;
    }
    if (rc == PDB_OK && w.malformed > 20)
        pdb_warn("%s: %lld more malformed records not shown (counted in 'profdb runs')",
                 src->path, (long long)(w.malformed - 20));
    if (rc == PDB_OK && w.step_records == 0)
        rc = refuse(&w, f, forced);
    if (rc == PDB_OK)
        rc = pdb_steplog_finish(&w);
    /* what was understood is said and stored, and a weak reading warned
     * (issue 32): steplog_reading.c */
    if (rc == PDB_OK)
        rc = pdb_sl_reading_finish(&w, flavors[f].reader != R_DOC, src->quiet);
    pdb_steplog_close(&w);
    pdb_sl_reading_free(w.reading);
    free(w.cr.buf);
    pdb_buf_free(&w.cr.line);
    return rc;
}
