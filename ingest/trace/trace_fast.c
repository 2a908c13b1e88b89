/* trace_fast.c: a tokenizer specialised for trace-event JSON.
 *
 * Kineto's traces are flat event objects of short ASCII strings and plain
 * numbers, written without escapes. yajl walks every byte through a
 * general lexer and parser; this tokenizer scans them directly and calls
 * the reader's own callbacks (trace_parse.h: the state machine of
 * trace_json.c, which extracts the fields profdb stores and converts ts and
 * dur from their decimal text) with the same tokens, in the same order,
 * with the same byte offsets, so the events, the errors they raise and
 * the counts are the same by construction.
 *
 * It follows yajl's grammar state for state (yajl_parser.c: map_start,
 * map_need_key, map_sep, map_need_val, map_got_val, array_start,
 * array_need_val, array_need_comma, parse_complete) and takes only tokens
 * that yajl would take in that state, lexed as yajl lexes them (literals
 * without look-ahead, numbers ended by the next byte). At anything else
 * (a \u escape, a control character, a byte that is not JSON there, a
 * number yajl would read differently, nesting deeper than its stack, a
 * token longer than MAX_FAST_TOKEN, the end of the input) it stops before
 * that token and hands the rest to yajl: a fresh yajl handle is fed, with
 * the callbacks off, a few bytes of JSON that open the same containers in
 * the same states (replay below), then the bytes not parsed yet and the
 * input after them, read as the yajl loop reads it. yajl then reports the
 * error, or reads on, exactly as if it had read the whole input.
 *
 * Memory: one buffer of MAX_FAST_TOKEN + CHUNK bytes; a token that does
 * not end within MAX_FAST_TOKEN goes to yajl, whose limit (16 MiB, the
 * quiet-chunk check) applies as before. */
#include "ingest/trace/trace_parse.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* An unfinished token longer than this goes to yajl. */
#define MAX_FAST_TOKEN (1024 * 1024)
/* Containers open at once; the callbacks refuse past 1000 levels of a
 * captured value, so this is never reached by an input they accept. */
#define MAX_NEST 1100

/* yajl's parser states (yajl_parser.h), one per open container. */
enum {
    Y_START, Y_COMPLETE,
    Y_MAP_START, Y_MAP_NEED_KEY, Y_MAP_SEP, Y_MAP_NEED_VAL, Y_MAP_GOT_VAL,
    Y_ARR_START, Y_ARR_NEED_VAL, Y_ARR_GOT_VAL,
};

typedef struct {
    parser *p;
    const yajl_callbacks *cb;
    int depth;              /* st[depth] is the innermost; st[0] the root */
    unsigned char st[MAX_NEST];
    pdb_buf text;           /* a string with escapes, decoded */
} tok;

/* What run() ends with. */
enum { T_MORE, T_STOP, T_ERR };

/* Bytes a string scan stops at: the closing quote, an escape, and the
 * control characters yajl refuses inside a string. */
static const unsigned char stop_byte[256] = {
    [0] = 1, [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1,
    [8] = 1, [9] = 1, [10] = 1, [11] = 1, [12] = 1, [13] = 1, [14] = 1, [15] = 1,
    [16] = 1, [17] = 1, [18] = 1, [19] = 1, [20] = 1, [21] = 1, [22] = 1, [23] = 1,
    [24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1,
    ['"'] = 1, ['\\'] = 1,
};

/* yajl_lex.c's whitespace: "case '\t': case '\n': case '\v': case '\f':
 * case '\r': case ' ':". */
static const unsigned char ws_byte[256] = {
    [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1, ['\v'] = 1, ['\f'] = 1,
};

static bool is_ws(unsigned char c) { return ws_byte[c]; }

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* A value was read where st[depth] wanted one: yajl's transition. */
static void got_value(tok *t)
{
    unsigned char *s = &t->st[t->depth];
    *s = *s == Y_START ? Y_COMPLETE : *s == Y_MAP_NEED_VAL ? Y_MAP_GOT_VAL : Y_ARR_GOT_VAL;
}

/* Lexes a string from buf[i] (its quote). Returns 1 with the text (in buf,
 * or decoded into t->text) and *end past the closing quote; 0 when the
 * buffer ends first; -1 for what yajl must read (a \u escape, a control
 * character, an escape JSON does not have). Escapes are decoded as
 * yajl_string_decode does. */
static int lex_string(tok *t, const unsigned char *buf, size_t i, size_t len, size_t *end,
                      const unsigned char **s, size_t *slen)
{
    size_t j = i + 1;
    for (;;) {
        while (j + 4 <= len && !stop_byte[buf[j]] && !stop_byte[buf[j + 1]] &&
               !stop_byte[buf[j + 2]] && !stop_byte[buf[j + 3]])
            j += 4;
        while (j < len && !stop_byte[buf[j]])
            j++;
        if (j >= len)
            return 0;
        if (buf[j] == '"')
            break;
        if (buf[j] != '\\')
            return -1; /* a control character: yajl's error */
        /* Escapes: decode from here on. */
        pdb_buf_reset(&t->text);
        size_t from = i + 1;
        for (;;) {
            pdb_buf_add(&t->text, buf + from, j - from);
            if (buf[j] == '"') {
                *end = j + 1;
                *s = (const unsigned char *)t->text.p;
                *slen = t->text.len;
                return 1;
            }
            if (buf[j] != '\\')
                return -1;
            if (j + 1 >= len)
                return 0;
            char c;
            switch (buf[j + 1]) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            default: return -1; /* \u (surrogates are rewritten first) or an error */
            }
            pdb_buf_addc(&t->text, c);
            from = j = j + 2;
            while (j < len && !stop_byte[buf[j]])
                j++;
            if (j >= len)
                return 0;
        }
    }
    *end = j + 1;
    *s = buf + i + 1;
    *slen = j - i - 1;
    return 1;
}

/* Lexes a number from buf[i] as yajl does (-?(0|[1-9][0-9]*)(.[0-9]+)?
 * ([eE][+-]?[0-9]+)?, ended by the next byte). Returns 1 with *end; 0 when
 * the buffer ends first; -1 for what yajl must read (a malformed number, or
 * one followed by a byte that is no delimiter: yajl may read such text
 * differently from version to version). */
static int lex_number(const unsigned char *buf, size_t i, size_t len, size_t *end)
{
    size_t j = i;
    if (buf[j] == '-')
        j++;
    if (j >= len)
        return 0;
    if (buf[j] == '0') {
        j++;
    } else if (buf[j] >= '1' && buf[j] <= '9') {
        while (j < len && is_digit(buf[j]))
            j++;
    } else {
        return -1;
    }
    if (j >= len)
        return 0;
    if (buf[j] == '.') {
        j++;
        size_t d = j;
        while (j < len && is_digit(buf[j]))
            j++;
        if (j >= len)
            return 0;
        if (j == d)
            return -1;
    }
    if (buf[j] == 'e' || buf[j] == 'E') {
        j++;
        if (j < len && (buf[j] == '+' || buf[j] == '-'))
            j++;
        size_t d = j;
        while (j < len && is_digit(buf[j]))
            j++;
        if (j >= len)
            return 0;
        if (j == d)
            return -1;
    }
    unsigned char c = buf[j];
    if (!(c == ',' || c == '}' || c == ']' || is_ws(c)))
        return -1;
    *end = j;
    return 1;
}

/* A literal (true, false, null) from buf[i]: yajl matches it byte by byte
 * and takes it without looking further. Returns its length, 0 when the
 * buffer ends while it still matches, -1 when it does not match. */
static int lex_literal(const unsigned char *buf, size_t i, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t k = 0; k < n; k++) {
        if (i + k >= len)
            return 0;
        if (buf[i + k] != (unsigned char)word[k])
            return -1;
    }
    return (int)n;
}

/* Tokens from buf[*pos..len) (base: the input offset of buf[0]) until the
 * buffer ends within a token (T_MORE, *pos at its start) or at something
 * yajl must read (T_STOP, *pos there), or a callback fails (T_ERR). */
static int run(tok *t, const unsigned char *buf, size_t *pos, size_t len, int64_t base)
{
    parser *p = t->p;
    const yajl_callbacks *cb = t->cb;
    size_t i = *pos;
    int rc = T_MORE;
#define CALL(off, call)                                                                        \
    do {                                                                                       \
        p->fast_off = base + (int64_t)(off);                                                   \
        if (!(call)) {                                                                         \
            rc = T_ERR;                                                                        \
            goto out;                                                                          \
        }                                                                                      \
    } while (0)
#define STOP()                                                                                 \
    do {                                                                                       \
        rc = T_STOP;                                                                           \
        goto out;                                                                              \
    } while (0)
    for (;;) {
        while (i < len && is_ws(buf[i]))
            i++;
        if (i >= len)
            goto out;
        unsigned char c = buf[i];
        unsigned char s = t->st[t->depth];
        switch (s) {
        case Y_COMPLETE:
            STOP(); /* trailing garbage: yajl's error */
        case Y_MAP_SEP:
            if (c != ':')
                STOP();
            t->st[t->depth] = Y_MAP_NEED_VAL;
            i++;
            continue;
        case Y_MAP_GOT_VAL:
        case Y_ARR_GOT_VAL:
            if (c == ',') {
                t->st[t->depth] = s == Y_MAP_GOT_VAL ? Y_MAP_NEED_KEY : Y_ARR_NEED_VAL;
                i++;
                continue;
            }
            if (s == Y_MAP_GOT_VAL && c == '}') {
                CALL(i + 1, cb->yajl_end_map(p));
                t->depth--;
                i++;
                continue;
            }
            if (s == Y_ARR_GOT_VAL && c == ']') {
                CALL(i + 1, cb->yajl_end_array(p));
                t->depth--;
                i++;
                continue;
            }
            STOP();
        case Y_MAP_START:
        case Y_MAP_NEED_KEY: {
            if (c == '}' && s == Y_MAP_START) {
                CALL(i + 1, cb->yajl_end_map(p));
                t->depth--;
                i++;
                continue;
            }
            if (c != '"')
                STOP();
            size_t end;
            const unsigned char *k;
            size_t klen;
            int r = lex_string(t, buf, i, len, &end, &k, &klen);
            if (r < 0)
                STOP();
            if (r == 0)
                goto out;
            CALL(end, cb->yajl_map_key(p, k, klen));
            t->st[t->depth] = Y_MAP_SEP;
            i = end;
            continue;
        }
        default: /* Y_START, Y_MAP_NEED_VAL, Y_ARR_START, Y_ARR_NEED_VAL: a value */
            break;
        }
        switch (c) {
        case '{':
        case '[':
            if (t->depth + 1 >= MAX_NEST)
                STOP();
            CALL(i + 1, c == '{' ? cb->yajl_start_map(p) : cb->yajl_start_array(p));
            got_value(t);
            t->st[++t->depth] = c == '{' ? Y_MAP_START : Y_ARR_START;
            i++;
            continue;
        case ']':
            if (s != Y_ARR_START)
                STOP();
            CALL(i + 1, cb->yajl_end_array(p));
            t->depth--;
            i++;
            continue;
        case '"': {
            size_t end;
            const unsigned char *v;
            size_t vlen;
            int r = lex_string(t, buf, i, len, &end, &v, &vlen);
            if (r < 0)
                STOP();
            if (r == 0)
                goto out;
            CALL(end, cb->yajl_string(p, v, vlen));
            got_value(t);
            i = end;
            continue;
        }
        case 't':
        case 'f':
        case 'n': {
            int r = lex_literal(buf, i, len, c == 't' ? "true" : c == 'f' ? "false" : "null");
            if (r < 0)
                STOP();
            if (r == 0)
                goto out;
            CALL(i + (size_t)r, c == 'n' ? cb->yajl_null(p) : cb->yajl_boolean(p, c == 't'));
            got_value(t);
            i += (size_t)r;
            continue;
        }
        default:
            if (c == '-' || is_digit(c)) {
                size_t end;
                int r = lex_number(buf, i, len, &end);
                if (r < 0)
                    STOP();
                if (r == 0)
                    goto out;
                CALL(end, cb->yajl_number(p, (const char *)buf + i, end - i));
                got_value(t);
                i = end;
                continue;
            }
            STOP();
        }
    }
out:
    *pos = i;
    return rc;
#undef CALL
#undef STOP
}

/* JSON text that brings a fresh yajl handle to the tokenizer's state: each
 * open container with the state it is in (an enclosing one is waiting for
 * its open child's end: yajl set it to got-value when the child opened).
 * Placeholders are "" keys and {} values, which yajl lexes without
 * looking past them (a number would need the next byte). */
static void replay_text(const tok *t, pdb_buf *out)
{
    pdb_buf_reset(out);
    if (t->depth == 0 && t->st[0] == Y_COMPLETE)
        pdb_buf_adds(out, "{}");
    for (int d = 1; d <= t->depth; d++) {
        unsigned char s = t->st[d];
        bool map = s >= Y_MAP_START && s <= Y_MAP_GOT_VAL;
        if (d < t->depth) {
            pdb_buf_adds(out, map ? "{\"\":" : "[");
            continue;
        }
        switch (s) {
        case Y_MAP_START: pdb_buf_adds(out, "{"); break;
        case Y_MAP_NEED_KEY: pdb_buf_adds(out, "{\"\":{},"); break;
        case Y_MAP_SEP: pdb_buf_adds(out, "{\"\""); break;
        case Y_MAP_NEED_VAL: pdb_buf_adds(out, "{\"\":"); break;
        case Y_MAP_GOT_VAL: pdb_buf_adds(out, "{\"\":{}"); break;
        case Y_ARR_START: pdb_buf_adds(out, "["); break;
        case Y_ARR_NEED_VAL: pdb_buf_adds(out, "[{},"); break;
        default: pdb_buf_adds(out, "[{}"); break; /* Y_ARR_GOT_VAL */
        }
    }
}

/* After a chunk is parsed: consecutive chunks without a single token mean
 * one token (or padding) keeps growing (inside yajl's buffer, or the
 * tokenizer's). Both readers count the same chunks and tokens. */
int pdb_trace_quiet(parser *p, size_t n, uint64_t *tokens_before, size_t *quiet)
{
    *quiet = p->tokens == *tokens_before ? *quiet + n : 0;
    *tokens_before = p->tokens;
    if (*quiet > MAX_TOKEN_BYTES)
        return pdb_fail_at(p->src->path, pdb_input_offset(p->src->in),
                           "no complete JSON value in %d MiB (a string or number this long "
                           "is not a trace); refusing to buffer it", MAX_TOKEN_BYTES >> 20);
    if (!p->q) /* else the store thread shows it */
        pdb_progress(p->src, p->src->records);
    return PDB_OK;
}

int pdb_trace_fast(parser *p, const yajl_callbacks *cb, pdb_trace_resume *r)
{
    tok *t = pdb_xcalloc(1, sizeof *t);
    t->p = p;
    t->cb = cb;
    t->st[0] = Y_START;
    r->cap = MAX_FAST_TOKEN + CHUNK + 16;
    r->buf = pdb_xmalloc(r->cap);
    unsigned char *buf = r->buf;
    size_t pos = 0, len = 0;   /* buf[pos..len): not parsed yet */
    int64_t base = 0;          /* input offset of buf[0] */
    uint64_t tokens_before = 0;
    size_t quiet = 0;
    int rc = PDB_OK;
    bool first = true;
    for (;;) {
        /* What is left is a token the buffer ended in: it goes first. */
        memmove(buf, buf + pos, len - pos);
        base += (int64_t)pos;
        len -= pos;
        pos = 0;
        size_t window = len;   /* where this read's bytes start */
        ssize_t n = pdb_input_read(p->src->in, buf + len, CHUNK);
        atomic_store_explicit(&p->raw_read, pdb_input_raw_bytes(p->src->in),
                              memory_order_relaxed);
        if (n < 0) {
            rc = PDB_ERR;
            break;
        }
        len += (size_t)n;
        if (first && len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF)
            pos = 3; /* a UTF-8 byte order mark, skipped as the yajl loop skips it */
        first = false;
        int tr = run(t, buf, &pos, len, base);
        if (tr == T_ERR) {
            rc = PDB_ERR;
            break;
        }
        if (tr == T_STOP || n == 0 || len - pos >= MAX_FAST_TOKEN) {
            r->start = pos;
            r->end = len;
            r->window = window < pos ? window : pos;
            r->base = base + (int64_t)pos;
            r->n = n;
            r->tokens_before = tokens_before;
            r->quiet = quiet;
            replay_text(t, &r->replay);
            break;
        }
        if ((rc = pdb_trace_quiet(p, (size_t)n, &tokens_before, &quiet)) != PDB_OK)
            break;
    }
    pdb_buf_free(&t->text);
    free(t);
    return rc;
}
