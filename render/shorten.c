/* shorten.c: a column of names cut together, keeping where they differ
 * (see shorten.h). Each name is split into tokens: words and single
 * separator characters ('_' is a separator, so snake_case parts are words).
 * Tokens are kept greedily while the name fits: first those of its
 * differing part, then its first tokens, then its last; a run of left-out
 * tokens prints as one "…". */
#include "render/shorten.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ELLIPSIS "\xE2\x80\xA6"

typedef struct {
    size_t start, len, width;
} token;

typedef struct {
    const char *s;
    token *t;
    size_t nt;
    bool *keep;
    size_t cost;   /* width of the kept tokens plus one per run left out */
    size_t width;  /* the most cost may reach */
} cut;

static bool word_byte(unsigned char c)
{
    return c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

static token *tokenize(const char *s, size_t *nt)
{
    size_t len = strlen(s), n = 0;
    token *t = pdb_xmalloc((len + 1) * sizeof *t);
    for (size_t i = 0; i < len;) {
        size_t j = i + 1;
        if (word_byte((unsigned char)s[i]))
            while (j < len && word_byte((unsigned char)s[j]))
                j++;
        t[n++] = (token){i, j - i, pdb_utf8_width(s + i, j - i)};
        i = j;
    }
    *nt = n;
    return t;
}

/* The token holding byte i (clamped to the name). */
static long token_at(const cut *c, long i)
{
    long k = 0;
    while (k + 1 < (long)c->nt && (long)(c->t[k].start + c->t[k].len) <= i)
        k++;
    return k;
}

/* Keeps token k if the name still fits; false when it does not. */
static bool try_keep(cut *c, size_t k)
{
    if (c->keep[k])
        return true;
    bool left_out = k > 0 && !c->keep[k - 1], right_out = k + 1 < c->nt && !c->keep[k + 1];
    /* The run of left-out tokens k is in splits in two, shrinks or goes. */
    size_t cost = c->cost + c->t[k].width + (left_out && right_out);
    if (!left_out && !right_out)
        cost--;
    if (cost > c->width)
        return false;
    c->keep[k] = true;
    c->cost = cost;
    return true;
}

/* Tokens from, from + step, ... up to to (inclusive; none when to is
 * before from) while they fit and at most budget columns are spent;
 * returns the first token not kept. */
static long keep_run(cut *c, long from, long to, long step, size_t budget)
{
    if ((to - from) * step < 0)
        return from;
    size_t limit = c->cost + budget < c->width ? c->cost + budget : c->width;
    for (long k = from; k != to + step; k += step) {
        size_t saved = c->width;
        c->width = limit;
        bool kept = try_keep(c, (size_t)k);
        c->width = saved;
        if (!kept)
            return k;
    }
    return to + step;
}

/* The differing part's tokens [lo, hi], from both ends inward. */
static void keep_differing(cut *c, long lo, long hi)
{
    bool lo_open = true, hi_open = true;
    while (lo <= hi && (lo_open || hi_open)) {
        if (lo_open && (lo_open = try_keep(c, (size_t)lo)))
            lo++;
        if (lo <= hi && hi_open && (hi_open = try_keep(c, (size_t)hi)))
            hi--;
    }
}

static void emit(const cut *c, pdb_buf *out)
{
    for (size_t k = 0; k < c->nt; k++) {
        if (c->keep[k])
            pdb_buf_add(out, c->s + c->t[k].start, c->t[k].len);
        else if (k == 0 || c->keep[k - 1])
            pdb_buf_adds(out, ELLIPSIS);
    }
}

/* A cut inside words, for a name whose differing part has no word that
 * fits: its first and last code points around "…". */
static void middle_cut(const char *s, size_t width, pdb_buf *out)
{
    size_t len = strlen(s), w = pdb_utf8_width(s, len);
    size_t head = width / 2, tail = width - 1 - head, n = 0, hb = len, tb = len;
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)s[i] & 0xC0) == 0x80)
            continue;
        if (n == head)
            hb = i;
        if (n == w - tail) {
            tb = i;
            break;
        }
        n++;
    }
    pdb_buf_add(out, s, hb);
    pdb_buf_adds(out, ELLIPSIS);
    pdb_buf_adds(out, s + tb);
}

static char *take(pdb_buf *b)
{
    char *s = pdb_xstrdup(pdb_buf_str(b));
    pdb_buf_free(b);
    return s;
}

/* name in width columns, bytes [a, b) being where it differs from the
 * names closest to it. */
static char *shorten(const char *name, size_t a, size_t b, size_t width)
{
    pdb_buf out = PDB_BUF_INIT;
    size_t len = strlen(name);
    if (pdb_utf8_width(name, len) <= width || width < 2) {
        pdb_buf_adds(&out, width < 2 && len ? ELLIPSIS : name);
        return take(&out);
    }
    cut c = {.s = name, .width = width, .cost = 1};
    c.t = tokenize(name, &c.nt);
    c.keep = pdb_xcalloc(c.nt + 1, sizeof *c.keep);
    /* The differing part: from the first byte that differs from the name
     * sharing the longest prefix (a) to the last that differs from the one
     * sharing the longest suffix (b - 1); when those overlap, both words. */
    long first = (long)a, last = (long)b - 1;
    if (first > last) {
        long t = first;
        first = last;
        last = t;
    }
    if (first < 0)
        first = last;
    if (last >= (long)len)
        last = first;
    long lo = token_at(&c, first), hi = token_at(&c, last);
    keep_differing(&c, lo, hi);
    bool differing_shown = hi < lo || c.keep[lo] || c.keep[hi];
    if (!differing_shown) {
        middle_cut(name, width, &out);
    } else {
        size_t left = c.width - c.cost;
        long head = keep_run(&c, 0, lo - 1, 1, left - left * 2 / 5);
        keep_run(&c, (long)c.nt - 1, hi + 1, -1, c.width);
        keep_run(&c, head, lo - 1, 1, c.width);
        emit(&c, &out);
    }
    free(c.t);
    free(c.keep);
    return take(&out);
}

char *pdb_shorten_one(const char *name, size_t width)
{
    return shorten(name, 0, strlen(name), width);
}

/* ---- where each name differs from its closest names -------------------- */

static size_t common_prefix(const char *x, const char *y)
{
    size_t i = 0;
    while (x[i] && x[i] == y[i])
        i++;
    return i;
}

static size_t common_suffix(const char *x, size_t lx, const char *y, size_t ly)
{
    size_t i = 0;
    while (i < lx && i < ly && x[lx - 1 - i] == y[ly - 1 - i])
        i++;
    return i;
}

typedef struct {
    const char *s;
    size_t len, index;
} entry;

static int by_text(const void *p, const void *q)
{
    return strcmp(((const entry *)p)->s, ((const entry *)q)->s);
}

/* Orders names by their text read backwards. */
static int by_reversed(const void *p, const void *q)
{
    const entry *x = p, *y = q;
    size_t n = common_suffix(x->s, x->len, y->s, y->len);
    if (n == x->len || n == y->len)
        return (x->len > y->len) - (x->len < y->len);
    unsigned char a = (unsigned char)x->s[x->len - 1 - n], b = (unsigned char)y->s[y->len - 1 - n];
    return (a > b) - (a < b);
}

/* For each name, the longest prefix (suffix: reversed) it shares with a
 * different name: in sorted order that name is a neighbour, past the names
 * equal to it. */
static void closest(entry *e, size_t n, bool reversed, size_t *shared)
{
    qsort(e, n, sizeof *e, reversed ? by_reversed : by_text);
    for (size_t i = 0; i < n; i++) {
        size_t best = 0;
        for (int dir = -1; dir <= 1; dir += 2) {
            for (size_t j = i; dir < 0 ? j-- > 0 : ++j < n;) {
                if (e[j].len == e[i].len && memcmp(e[j].s, e[i].s, e[i].len) == 0)
                    continue;
                size_t m = reversed ? common_suffix(e[i].s, e[i].len, e[j].s, e[j].len)
                                    : common_prefix(e[i].s, e[j].s);
                best = m > best ? m : best;
                break;
            }
        }
        shared[e[i].index] = best;
    }
}

void pdb_shorten_column(const char *const *names, size_t n, size_t width, char **out)
{
    entry *e = pdb_xmalloc((n + 1) * sizeof *e);
    size_t *prefix = pdb_xmalloc((n + 1) * sizeof *prefix);
    size_t *suffix = pdb_xmalloc((n + 1) * sizeof *suffix);
    for (size_t i = 0; i < n; i++)
        e[i] = (entry){names[i], strlen(names[i]), i};
    closest(e, n, false, prefix);
    closest(e, n, true, suffix);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]), a = prefix[i], b = len - suffix[i];
        out[i] = shorten(names[i], a, b, width);
    }
    free(e);
    free(prefix);
    free(suffix);
}
