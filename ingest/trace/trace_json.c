/* trace_json.c: the streaming reader for Chrome trace-event JSON.
 *
 * Reads PyTorch profiler (Kineto) traces, a JSON object whose traceEvents
 * array holds the events, and the legacy autograd profiler's export, a bare
 * JSON array of events. The input is fed to yajl in fixed-size chunks; a
 * small state machine turns its callbacks into one pdb_trace_event at a time
 * and hands it to the store, so memory does not grow with the file.
 *
 * Values nested below what we model (args objects, trace-level keys) are
 * re-serialised with yajl_gen and kept as JSON text.
 *
 * Text is stored as valid UTF-8, whole (a name with a NUL keeps what follows
 * it). yajl passes overlong forms and encoded surrogates through, refuses a
 * stray byte, turns a lone high-surrogate escape (\ud800) into '?' and a
 * lone low one into an encoded surrogate; so yajl does not check strings,
 * escapes of lone surrogates are rewritten to \ufffd
 * before yajl sees them (same length: byte offsets stay true), and every
 * string with invalid UTF-8 is stored with U+FFFD in place of each bad
 * sequence. Both are counted, and the ingest warns.
 *
 * By default the parsing runs on a thread of its own (read_pipelined): the
 * events go through a bounded queue (trace_queue.h) to the calling thread,
 * which owns the database connection and stores them, in the same order
 * and with the same errors as when one thread does both
 * (PROFDB_PIPELINE=0). */
#define _GNU_SOURCE /* memmem */
#include "ingest/readers.h"
#include "ingest/trace/kineto_spellings.h"
#include "ingest/trace/trace_event.h"
#include "ingest/trace/trace_parse.h"
#include "ingest/trace/trace_queue.h"
#include "common/error.h"
#include "common/rowq.h"
#include "common/numtext.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>


static int64_t offset_now(const parser *p)
{
    if (p->fast)
        return p->fast_off;
    return p->chunk_base + (int64_t)yajl_get_bytes_consumed(p->h);
}

static int fail(parser *p, const char *what)
{
    pdb_fail_at(p->src->path, offset_now(p), "%s", what);
    p->failed = true;
    return 0; /* cancels the parse */
}

static int failf_key(parser *p, const char *expected)
{
    char msg[512];
    snprintf(msg, sizeof msg, "expected %s for \"%.*s\"", expected,
             (int)(p->key.len > 100 ? 100 : p->key.len), pdb_buf_str(&p->key));
    return fail(p, msg);
}

/* ---- values into the event arena ---------------------------------- */

/* Whether text is valid UTF-8; ASCII (most of a trace) is decided fast. */
static bool valid_utf8(const unsigned char *s, size_t len)
{
    size_t i = 0;
    /* Eight bytes a step while no byte has its high bit set. */
    for (uint64_t w; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080u)
            break;
    }
    while (i < len && s[i] < 0x80)
        i++;
    return i == len || !pdb_utf8_needs_clean((const char *)s + i, len - i, 0);
}

/* Appends text to b, each invalid UTF-8 sequence replaced by U+FFFD. */
static void add_valid(parser *p, pdb_buf *b, const unsigned char *s, size_t len)
{
    if (valid_utf8(s, len)) {
        pdb_buf_add(b, s, len);
        return;
    }
    pdb_utf8_clean(b, (const char *)s, len, 0);
    p->src->text_replaced++;
}

static pdb_val text_val(parser *p, const unsigned char *s, size_t len)
{
    pdb_val v = {.type = PDB_V_TEXT, .off = p->ev->arena.len};
    add_valid(p, &p->ev->arena, s, len);
    v.len = p->ev->arena.len - v.off;
    pdb_buf_addc(&p->ev->arena, '\0');
    return v;
}

/* ---- key classification -------------------------------------------- */

static field event_field(const char *k, size_t n)
{
    /* Called for every key of every event: by length, then each compare of
     * a known length (which the compiler inlines, where a loop over a table
     * called memcmp for each candidate). */
#define IS(lit) (memcmp(k, lit, sizeof lit - 1) == 0)
    switch (n) {
    case 1: return k[0] == 's' ? F_S : F_OTHER;
    case 2: return IS("ph") ? F_PH : IS("ts") ? F_TS : IS("id") ? F_ID : IS("bp") ? F_BP : F_OTHER;
    case 3: return IS("pid") ? F_PID : IS("tid") ? F_TID : IS("dur") ? F_DUR : IS("cat") ? F_CAT
                                                                                         : F_OTHER;
    case 4: return IS("name") ? F_NAME : IS("args") ? F_ARGS : F_OTHER;
    default: return F_OTHER;
    }
}

/* What a modelled event key must hold, for error messages. */
static const char *expected_for(field f)
{
    switch (f) {
    case F_TS:
    case F_DUR: return "a number (microseconds)";
    case F_PID:
    case F_TID:
    case F_ID: return "a number or string";
    default: return "a string";
    }
}

static int arg_column(const char *k, size_t n)
{
    switch (n) {
    case 5: return IS("bytes") ? PDB_ARG_BYTES : IS("dtype") ? PDB_ARG_DTYPE : -1;
    case 6: return IS("stream") ? PDB_ARG_STREAM : IS("device") ? PDB_ARG_DEVICE : -1;
    case 7: return IS("context") ? PDB_ARG_CONTEXT : -1;
    case 10: return IS("Input Dims") ? PDB_ARG_INPUT_DIMS : IS("Group size") ? PDB_ARG_GROUP_SIZE
                                                                            : -1;
    case 11: return IS("correlation") ? PDB_ARG_CORRELATION
                    : IS("External id") ? PDB_ARG_EXTERNAL_ID : -1;
    case 13: return IS("In msg nelems") ? PDB_ARG_IN_NELEMS : -1;
    case 14: return IS("Out msg nelems") ? PDB_ARG_OUT_NELEMS : -1;
    case 15: return IS("Collective name") ? PDB_ARG_COLL_NAME : -1;
    default: return -1;
    }
#undef IS
}

/* An args key: a column's name, or an older profiler's spelling of it
 * (kineto_spellings.def). The older spelling fills the column only while
 * the event has no value there; a second one stays in args. */
static void args_key(parser *p, const char *k, size_t n)
{
    p->key_arg = arg_column(k, n);
    p->key_respelled = false;
    if (p->key_arg >= 0)
        return;
    int col = pdb_arg_spelling(k, n);
    if (col >= 0 && p->ev->arg[col].type == PDB_V_NONE) {
        p->key_arg = col;
        p->key_respelled = true;
    }
}

/* Whether a scalar of this type fits the column; if not it stays in args. */
static bool column_accepts(int col, pdb_vtype t)
{
    switch (col) {
    case PDB_ARG_STREAM:
        return t == PDB_V_INT || t == PDB_V_TEXT;
    case PDB_ARG_COLL_NAME:
    case PDB_ARG_DTYPE:
        return t == PDB_V_TEXT;
    case PDB_ARG_INPUT_DIMS:
        return false; /* captured as JSON instead */
    default:
        return t == PDB_V_INT;
    }
}

/* ---- capturing nested values as JSON -------------------------------- */

static yajl_gen capture_gen(parser *p)
{
    return p->cap == CAP_ARGREST ? p->args_gen : p->cap_gen;
}

static void open_args_rest(parser *p)
{
    if (!p->args_open) {
        yajl_gen_map_open(p->args_gen);
        p->args_open = true;
    }
    yajl_gen_string(p->args_gen, (const unsigned char *)p->key.p, p->key.len);
}

/* Hands a top-level key (key and JSON value in p->clean, the key klen
 * bytes) to the store, or to the queue in front of it. */
static int emit_meta(parser *p, size_t klen)
{
    const char *text = pdb_buf_str(&p->clean);
    if (!p->q)
        return pdb_trace_store_meta(p->store, text, klen, text + klen, p->clean.len - klen);
    pdb_tq_item *it = pdb_tq_slot(p->q);
    it->kind = PDB_TQ_META;
    it->key_len = klen;
    pdb_buf_reset(&it->ev.arena);
    pdb_buf_add(&it->ev.arena, text, p->clean.len);
    return pdb_tq_commit(p->q);
}

/* Called when a captured value is complete. */
static int capture_done(parser *p)
{
    capture what = p->cap;
    p->cap = CAP_NONE;
    if (what == CAP_ARGREST || what == CAP_DISCARD)
        return 1;
    const unsigned char *buf;
    size_t len;
    yajl_gen_get_buf(p->cap_gen, &buf, &len);
    int rc = 1;
    if (what == CAP_META) {
        pdb_buf_reset(&p->clean);
        add_valid(p, &p->clean, (const unsigned char *)pdb_buf_str(&p->key), p->key.len);
        size_t klen = p->clean.len;
        add_valid(p, &p->clean, buf, len);
        if (emit_meta(p, klen) != PDB_OK) {
            p->failed = true;
            rc = 0;
        }
    } else { /* CAP_ARGCOL */
        p->ev->arg[p->key_arg] = text_val(p, buf, len);
    }
    yajl_gen_clear(p->cap_gen);
    yajl_gen_reset(p->cap_gen, NULL);
    return rc;
}

static void start_capture(parser *p, capture what)
{
    p->cap = what;
    p->cap_depth = 0;
    if (what == CAP_META || what == CAP_ARGCOL) {
        yajl_gen_clear(p->cap_gen);
        yajl_gen_reset(p->cap_gen, NULL);
    }
}

/* ---- scalars ---------------------------------------------------------- */

typedef struct {
    pdb_vtype type;           /* PDB_V_NONE for null */
    const char *s;            /* string bytes or number text */
    size_t len;
    int boolean;              /* for booleans: type NONE and is_bool */
    bool is_bool;
} scalar;

/* A number's value. Its type is cb_number's: PDB_V_INT when the text is a
 * plain integer (pdb_number_is_integer), so that is not decided again. */
static pdb_val number_val(const scalar *v)
{
    pdb_val n = {.type = PDB_V_INT};
    if (v->type == PDB_V_INT && pdb_decimal_scaled(v->s, v->len, 0, &n.i) == PDB_NUM_OK)
        return n;
    n.type = PDB_V_REAL;
    if (pdb_number_to_double(v->s, v->len, &n.d) != PDB_NUM_OK)
        n.type = PDB_V_NONE;
    return n;
}

static void gen_scalar(yajl_gen g, const scalar *v)
{
    if (v->is_bool)
        yajl_gen_bool(g, v->boolean);
    else if (v->type == PDB_V_NONE)
        yajl_gen_null(g);
    else if (v->type == PDB_V_TEXT)
        yajl_gen_string(g, (const unsigned char *)v->s, v->len);
    else
        yajl_gen_number(g, v->s, v->len);
}

/* A time in microseconds, kept in ns. A number out of range is not an
 * error in the file: the event is skipped and counted (the store sees
 * skip), as other events with unusable values are. */
static int set_time(parser *p, const scalar *v, bool *has, int64_t *ns, const char *what)
{
    if (v->type != PDB_V_INT && v->type != PDB_V_REAL)
        return failf_key(p, "a number (microseconds)");
    int rc = pdb_decimal_scaled(v->s, v->len, 3, ns);
    if (rc != PDB_NUM_OK || *ns <= -PDB_TIME_LIMIT_NS || *ns >= PDB_TIME_LIMIT_NS) {
        p->ev->skip = what;
        *ns = 0;
    }
    *has = true;
    return 1;
}

static int set_idval(parser *p, const scalar *v, pdb_val *out, const char *expected)
{
    if (v->type == PDB_V_TEXT)
        *out = text_val(p, (const unsigned char *)v->s, v->len);
    else if (v->type == PDB_V_INT || v->type == PDB_V_REAL)
        *out = number_val(v);
    else if (v->is_bool)
        return failf_key(p, expected);
    return 1;
}

static int set_text(parser *p, const scalar *v, pdb_val *out, const char *expected)
{
    if (v->type == PDB_V_TEXT)
        *out = text_val(p, (const unsigned char *)v->s, v->len);
    else if (v->type != PDB_V_NONE || v->is_bool)
        return failf_key(p, expected);
    return 1;
}

static int event_scalar(parser *p, const scalar *v)
{
    pdb_trace_event *ev = p->ev;
    switch (p->key_field) {
    case F_PH: return set_text(p, v, &ev->ph, "a string");
    case F_NAME:
        if (v->type == PDB_V_INT || v->type == PDB_V_REAL) { /* some writers use numbers */
            ev->name = text_val(p, (const unsigned char *)v->s, v->len);
            return 1;
        }
        return set_text(p, v, &ev->name, "a string");
    case F_CAT: return set_text(p, v, &ev->cat, "a string");
    case F_PID: return set_idval(p, v, &ev->pid, "a number or string");
    case F_TID: return set_idval(p, v, &ev->tid, "a number or string");
    case F_ID: return set_idval(p, v, &ev->id, "a number or string");
    case F_BP: return set_text(p, v, &ev->bp, "a string");
    case F_S: return set_text(p, v, &ev->scope, "a string");
    case F_TS:
        ev->float_ts = v->type == PDB_V_REAL;
        return set_time(p, v, &ev->has_ts, &ev->ts,
                        "event with ts out of range (beyond +-4.6e15 us)");
    case F_DUR:
        return set_time(p, v, &ev->has_dur, &ev->dur,
                        "event with dur out of range (beyond +-4.6e15 us)");
    case F_ARGS:
        if (v->type == PDB_V_NONE && !v->is_bool)
            return 1; /* "args": null */
        return failf_key(p, "an object");
    case F_OTHER: return 1;
    }
    return 1;
}

static void add_series(parser *p, const pdb_val *n)
{
    if (p->ev->nseries >= PDB_MAX_COUNTER_SERIES)
        return;
    pdb_series *s = &p->ev->series[p->ev->nseries++];
    pdb_val k = text_val(p, (const unsigned char *)pdb_buf_str(&p->key), p->key.len);
    s->key_off = k.off;
    s->key_len = k.len;
    s->value = n->type == PDB_V_INT ? (double)n->i : n->d;
}

/* A stream written as a fraction: 7.0 is stream 7; 7.5 names no stream, and
 * storing the event without one would silently make it a CPU event, so it
 * is skipped and counted. */
static bool stream_from_real(parser *p, const scalar *v)
{
    double d;
    if (pdb_number_to_double(v->s, v->len, &d) == PDB_NUM_OK && d == trunc(d) &&
        fabs(d) < 9007199254740992.0) {
        p->ev->arg[PDB_ARG_STREAM] = (pdb_val){.type = PDB_V_INT, .i = (int64_t)d};
        return true;
    }
    p->ev->skip = "event with a stream that is not an integer or a string";
    return false;
}

static int args_scalar(parser *p, const scalar *v)
{
    /* A number is converted once, for the counter series and the column. */
    pdb_val num = {.type = PDB_V_NONE};
    if (v->type == PDB_V_INT || v->type == PDB_V_REAL) {
        num = number_val(v);
        add_series(p, &num);
    }
    int col = p->key_arg;
    if (col == PDB_ARG_STREAM && v->type == PDB_V_REAL && stream_from_real(p, v))
        return 1;
    if (col >= 0 && column_accepts(col, v->type)) {
        if (p->key_respelled)
            p->ev->respelled_args |= 1u << col;
        else
            p->ev->respelled_args &= ~(1u << col);
        if (v->type == PDB_V_TEXT)
            p->ev->arg[col] = text_val(p, (const unsigned char *)v->s, v->len);
        else
            p->ev->arg[col] = num;
        return 1;
    }
    if (col == PDB_ARG_INPUT_DIMS) {
        start_capture(p, CAP_ARGCOL);
        gen_scalar(p->cap_gen, v);
        return capture_done(p);
    }
    open_args_rest(p);
    gen_scalar(p->args_gen, v);
    return 1;
}

static int on_scalar(parser *p, const scalar *v)
{
    p->tokens++;
    if (p->cap != CAP_NONE) {
        if (p->cap != CAP_DISCARD)
            gen_scalar(capture_gen(p), v);
        return p->cap_depth == 0 ? capture_done(p) : 1;
    }
    switch (p->st) {
    case S_EVENT: return event_scalar(p, v);
    case S_ARGS: return args_scalar(p, v);
    case S_TOP:
        if (p->key.len == 11 && memcmp(p->key.p, "traceEvents", 11) == 0)
            return fail(p, "expected an array for \"traceEvents\"");
        start_capture(p, CAP_META);
        gen_scalar(p->cap_gen, v);
        return capture_done(p);
    case S_EVENTS: return fail(p, "expected an event object in the event array");
    case S_ROOT:
        return fail(p, "expected a JSON object with \"traceEvents\" or an array of events");
    case S_DONE: return 1;
    }
    return 1;
}

static int cb_null(void *ctx)
{
    if (((parser *)ctx)->replay)
        return 1;
    scalar v = {.type = PDB_V_NONE};
    return on_scalar(ctx, &v);
}

static int cb_bool(void *ctx, int b)
{
    if (((parser *)ctx)->replay)
        return 1;
    scalar v = {.type = PDB_V_NONE, .is_bool = true, .boolean = b};
    return on_scalar(ctx, &v);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    if (((parser *)ctx)->replay)
        return 1;
    scalar v = {.type = pdb_number_is_integer(s, len) ? PDB_V_INT : PDB_V_REAL, .s = s, .len = len};
    return on_scalar(ctx, &v);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    if (((parser *)ctx)->replay)
        return 1;
    scalar v = {.type = PDB_V_TEXT, .s = (const char *)s, .len = len};
    return on_scalar(ctx, &v);
}

/* ---- containers ------------------------------------------------------ */

static void begin_event(parser *p)
{
    if (p->q) {
        pdb_tq_item *it = pdb_tq_slot(p->q);
        it->kind = PDB_TQ_EVENT;
        p->ev = &it->ev;
    }
    pdb_trace_event *ev = p->ev;
    pdb_buf arena = ev->arena;
    pdb_buf_reset(&arena);
    /* Counter series past nseries are never read: clearing them (1.5 KB of
     * the event's 2.4) per event would cost more than the rest of it. */
    memset(ev, 0, offsetof(pdb_trace_event, series));
    ev->arena = arena;
    ev->offset = offset_now(p) - 1;
    p->st = S_EVENT;
}

static int end_event(parser *p)
{
    p->st = S_EVENTS;
    int rc = p->q ? pdb_tq_commit(p->q) : pdb_trace_store_event(p->store, p->ev);
    p->ev = &p->own_ev; /* a committed slot belongs to the store thread */
    if (rc != PDB_OK) {
        p->failed = true;
        return 0;
    }
    return 1;
}

static void end_args(parser *p)
{
    p->st = S_EVENT;
    p->ev->has_args = true;
    if (!p->args_open)
        return;
    yajl_gen_map_close(p->args_gen);
    const unsigned char *buf;
    size_t len;
    yajl_gen_get_buf(p->args_gen, &buf, &len);
    pdb_val v = text_val(p, buf, len);
    p->ev->args_off = v.off;
    p->ev->args_len = v.len;
    yajl_gen_clear(p->args_gen);
    yajl_gen_reset(p->args_gen, NULL);
    p->args_open = false;
}

/* A map or array begins where we do not model it: capture or discard it. */
static int nested_value(parser *p, bool is_map)
{
    switch (p->st) {
    case S_TOP:
        if (p->key.len == 11 && memcmp(p->key.p, "traceEvents", 11) == 0) {
            if (is_map)
                return fail(p, "expected an array for \"traceEvents\"");
            p->st = S_EVENTS;
            p->saw_events = true;
            return 2; /* handled: the array is the event list */
        }
        start_capture(p, CAP_META);
        return 1;
    case S_EVENT:
        if (p->key_field == F_ARGS) {
            if (!is_map)
                return failf_key(p, "an object");
            p->st = S_ARGS;
            return 2;
        }
        if (p->key_field != F_OTHER)
            return failf_key(p, expected_for(p->key_field));
        start_capture(p, CAP_DISCARD);
        return 1;
    case S_ARGS:
        if (p->key_arg == PDB_ARG_INPUT_DIMS) {
            start_capture(p, CAP_ARGCOL);
        } else {
            open_args_rest(p);
            start_capture(p, CAP_ARGREST);
        }
        return 1;
    default:
        return 1;
    }
}

static int open_container(parser *p, bool is_map)
{
    p->tokens++;
    if (p->cap == CAP_NONE) {
        switch (p->st) {
        case S_ROOT:
            if (is_map) {
                p->st = S_TOP;
            } else {
                p->st = S_EVENTS;
                p->legacy = true;
                p->saw_events = true;
            }
            return 1;
        case S_EVENTS:
            if (!is_map)
                return fail(p, "expected an event object in the event array, found an array");
            begin_event(p);
            return 1;
        default: {
            int r = nested_value(p, is_map);
            if (r != 1)
                return r ? 1 : 0;
        }
        }
    }
    if (++p->cap_depth > MAX_DEPTH)
        return fail(p, "JSON nested deeper than 1000 levels");
    if (p->cap != CAP_DISCARD && p->cap_depth > MAX_CAPTURE_DEPTH)
        return fail(p, "event args or metadata nested deeper than 100 levels");
    if (p->cap != CAP_DISCARD) {
        yajl_gen g = capture_gen(p);
        if (is_map)
            yajl_gen_map_open(g);
        else
            yajl_gen_array_open(g);
    }
    return 1;
}

static int close_container(parser *p, bool is_map)
{
    p->tokens++;
    if (p->cap != CAP_NONE) {
        if (p->cap != CAP_DISCARD) {
            yajl_gen g = capture_gen(p);
            if (is_map)
                yajl_gen_map_close(g);
            else
                yajl_gen_array_close(g);
        }
        return --p->cap_depth == 0 ? capture_done(p) : 1;
    }
    switch (p->st) {
    case S_ARGS: end_args(p); return 1;
    case S_EVENT: return end_event(p);
    case S_EVENTS: p->st = p->legacy ? S_DONE : S_TOP; return 1;
    case S_TOP: p->st = S_DONE; return 1;
    default: return 1;
    }
}

static int cb_start_map(void *ctx)
{
    return ((parser *)ctx)->replay ? 1 : open_container(ctx, true);
}

static int cb_end_map(void *ctx)
{
    return ((parser *)ctx)->replay ? 1 : close_container(ctx, true);
}

static int cb_start_array(void *ctx)
{
    return ((parser *)ctx)->replay ? 1 : open_container(ctx, false);
}

static int cb_end_array(void *ctx)
{
    return ((parser *)ctx)->replay ? 1 : close_container(ctx, false);
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t len)
{
    parser *p = ctx;
    if (p->replay)
        return 1;
    p->tokens++;
    if (p->cap != CAP_NONE) {
        if (p->cap != CAP_DISCARD)
            yajl_gen_string(capture_gen(p), k, len);
        return 1;
    }
    pdb_buf_reset(&p->key);
    pdb_buf_add(&p->key, k, len);
    if (p->st == S_EVENT)
        p->key_field = event_field((const char *)k, len);
    else if (p->st == S_ARGS)
        args_key(p, (const char *)k, len);
    return 1;
}

static const yajl_callbacks callbacks = {
    cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
    cb_start_map, cb_map_key, cb_end_map, cb_start_array, cb_end_array,
};

/* ---- driving yajl ----------------------------------------------------- */

/* Whether the bytes around a lexical error spell NaN or Infinity. */
static bool near_nan(const unsigned char *chunk, size_t len, size_t at)
{
    size_t from = at > 16 ? at - 16 : 0, to = at + 16 < len ? at + 16 : len;
    return from < to && (memmem(chunk + from, to - from, "NaN", 3) ||
                         memmem(chunk + from, to - from, "Infinity", 8));
}

/* Turns yajl's message ("parse error: ...\n") into our one-line form. The
 * pre bytes before chunk were read with it (parsed by the tokenizer) and
 * count for the NaN hint as if yajl had been given them. */
static int yajl_failure(parser *p, const unsigned char *chunk, size_t len, size_t pre)
{
    unsigned char *msg = yajl_get_error(p->h, 0, chunk, len);
    const char *m = (const char *)msg;
    const char *colon = strstr(m, ": ");
    if (colon && colon - m < 20)
        m = colon + 2;
    char text[256];
    snprintf(text, sizeof text, "invalid JSON: %s", m);
    text[strcspn(text, "\n")] = '\0';
    if (near_nan(chunk - pre, len + pre, yajl_get_bytes_consumed(p->h) + pre))
        snprintf(text, sizeof text, "invalid JSON: NaN and Infinity are not JSON numbers "
                                    "(Python's json.dump writes them; the writer should write null)");
    pdb_fail_at(p->src->path, offset_now(p), "%s", text);
    yajl_free_error(p->h, msg);
    return PDB_ERR;
}

static bool hex4(const unsigned char *s, unsigned *cp)
{
    *cp = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = s[i], d = c >= '0' && c <= '9' ? c - '0'
                             : c >= 'a' && c <= 'f' ? c - 'a' + 10
                             : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
        if (d > 15)
            return false;
        *cp = *cp << 4 | d;
    }
    return true;
}

/* Rewrites escapes of lone surrogates in buf[0..n) to \ufffd, in place
 * (see the file comment); a pair (high then low) stays. Returns how many
 * bytes can go to yajl now: an escape cut by the end of buf is kept for the
 * next chunk, unless this is the last. */
/* The next byte from i that the escape scanner must look at: a quote, or
 * inside a string also a backslash; n when there is none. The scanner sees
 * every byte of the input, and memchr passes over the rest several times
 * faster than a loop testing each byte. */
static size_t next_special(const unsigned char *buf, size_t i, size_t n, bool in_string)
{
    const unsigned char *quote = memchr(buf + i, '"', n - i);
    size_t end = quote ? (size_t)(quote - buf) : n;
    if (in_string) {
        const unsigned char *escape = memchr(buf + i, '\\', end - i);
        if (escape)
            return (size_t)(escape - buf);
    }
    return end;
}

static size_t fix_surrogates(parser *p, unsigned char *buf, size_t n, bool last)
{
    for (size_t i = 0; (i = next_special(buf, i, n, p->in_string)) < n;) {
        if (buf[i] == '"') {
            p->in_string = !p->in_string;
            i++;
            continue;
        }
        assert(p->in_string && buf[i] == '\\');
        unsigned cp, lo;
        if (i + 1 >= n || (buf[i + 1] == 'u' && i + 6 > n))
            return last ? n : i;
        if (buf[i + 1] != 'u' || !hex4(buf + i + 2, &cp)) {
            i += 2; /* another escape (or a bad one, which yajl reports) */
            continue;
        }
        bool high = cp >= 0xD800 && cp <= 0xDBFF, low = cp >= 0xDC00 && cp <= 0xDFFF;
        if (high && i + 12 > n && !last)
            return i; /* its low half may be in the next chunk */
        if (high && i + 12 <= n && buf[i + 6] == '\\' && buf[i + 7] == 'u' &&
            hex4(buf + i + 8, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
            i += 12;
            continue;
        }
        if (high || low) {
            memcpy(buf + i + 2, "fffd", 4);
            p->src->text_replaced++;
        }
        i += 6;
    }
    return n;
}

/* Which reader: the tokenizer unless PROFDB_TRACE_PARSER=yajl (a switch for
 * tests and debugging: both must give the same tables). */
static bool fast_wanted(void)
{
    const char *v = getenv("PROFDB_TRACE_PARSER");
    return !(v && strcmp(v, "yajl") == 0);
}

/* yajl from where r says: the start of the input (r->buf NULL), or where
 * the tokenizer stopped. */
static int parse_yajl(parser *p, pdb_trace_resume *r)
{
    enum { CARRY = 16 }; /* at most an escape pair held back */
    unsigned char *buf = r->buf;
    if (!buf)
        buf = pdb_xmalloc(CHUNK + CARRY);
    size_t carry = 0;
    int rc = PDB_OK;
    uint64_t tokens_before = r->tokens_before;
    size_t quiet = r->quiet;
    bool resumed = r->buf != NULL;
    for (;;) {
        /* at holds the bytes held back from the last chunk, then new ones;
         * chunk_base is the input offset of at[0]. */
        unsigned char *at = buf;
        size_t total, pre = 0;
        ssize_t n;
        if (resumed) { /* the rest of the tokenizer's last chunk */
            at = buf + r->start;
            pre = r->start - r->window;
            p->chunk_base = r->base;
            n = r->n;
            total = r->end - r->start;
        } else {
            p->chunk_base = pdb_input_offset(p->src->in) - (int64_t)carry;
            n = pdb_input_read(p->src->in, buf + carry, CHUNK);
            atomic_store_explicit(&p->raw_read, pdb_input_raw_bytes(p->src->in),
                                  memory_order_relaxed);
            if (n < 0) {
                rc = PDB_ERR;
                break;
            }
            total = carry + (size_t)n;
        }
        resumed = false;
        if (total == 0)
            break;
        size_t feed = fix_surrogates(p, at, total, n == 0);
        assert(total - feed <= CARRY);
        size_t skip = 0;
        if (p->chunk_base == 0 && feed >= 3 && at[0] == 0xEF && at[1] == 0xBB && at[2] == 0xBF)
            skip = 3; /* a UTF-8 byte order mark, which yajl does not accept */
        p->chunk_base += (int64_t)skip;
        yajl_status s = yajl_parse(p->h, at + skip, feed - skip);
        if (s == yajl_status_client_canceled) {
            rc = PDB_ERR;
            break;
        }
        if (s != yajl_status_ok) {
            rc = yajl_failure(p, at + skip, feed - skip, pre + skip);
            break;
        }
        carry = total - feed;
        memmove(buf, at + feed, carry);
        if (n == 0)
            break;
        if ((rc = pdb_trace_quiet(p, (size_t)n, &tokens_before, &quiet)) != PDB_OK)
            break;
    }
    free(buf);
    r->buf = NULL;
    return rc;
}

/* Brings the fresh yajl handle to where the tokenizer stopped: JSON text
 * with the same open containers in the same states, its callbacks off. */
static void replay(parser *p, const pdb_trace_resume *r)
{
    if (r->replay.len == 0)
        return;
    p->replay = true;
    yajl_status s = yajl_parse(p->h, (const unsigned char *)r->replay.p, r->replay.len);
    p->replay = false;
    (void)s;
    assert(s == yajl_status_ok);
}

static int parse_all(parser *p)
{
    pdb_trace_resume r = {0};
    int rc = PDB_OK;
    if (fast_wanted()) {
        p->fast = true;
        rc = pdb_trace_fast(p, &callbacks, &r);
        p->fast = false;
        if (rc == PDB_OK)
            replay(p, &r);
    }
    if (rc == PDB_OK)
        rc = parse_yajl(p, &r);
    free(r.buf);
    pdb_buf_free(&r.replay);
    return rc;
}

static int finish_parse(parser *p)
{
    p->chunk_base = pdb_input_offset(p->src->in);
    /* The trace-event format lets an array trace end without its ']' (a
     * writer may die mid-trace); accept that at an event boundary. */
    if (p->legacy && p->st == S_EVENTS && p->cap == CAP_NONE) {
        p->unclosed = true;
        return PDB_OK;
    }
    if (yajl_complete_parse(p->h) != yajl_status_ok) {
        if (p->failed)
            return PDB_ERR;
        if (p->st == S_ROOT)
            return pdb_fail("%s: empty input: expected JSON", p->src->path);
        return pdb_fail_at(p->src->path, p->chunk_base,
                           "unexpected end of data inside %s (truncated file?)",
                           p->st == S_TOP ? "the trace object" : "the event list");
    }
    if (!p->saw_events)
        return pdb_fail_at(p->src->path, p->chunk_base,
                           "JSON object has no \"traceEvents\" array: not a trace");
    return PDB_OK;
}

/* ---- the pipeline: parsing on a thread of its own ----------------------- */

/* The parser thread: inflates and parses the whole input into the queue.
 * Its errors are recorded in this thread's error message (error.c keeps
 * one per thread), so they are copied out for the store thread, which
 * reports them only once it has stored every event before them: the same
 * error, or an earlier one of the store, as when both run on one thread. */
static void *parse_thread(void *arg)
{
    parser *p = arg;
    pthread_setname_np(pthread_self(), "profdb-parse"); /* for top and perf */
    int rc = parse_all(p);
    if (rc == PDB_OK)
        rc = finish_parse(p);
    p->rc = rc;
    if (rc != PDB_OK)
        snprintf(p->errmsg, sizeof p->errmsg, "%s", pdb_errmsg());
    pdb_tq_close(p->q);
    return NULL;
}

static int store_item(parser *p, pdb_tq_item *it)
{
    if (it->kind == PDB_TQ_EVENT)
        return pdb_trace_store_event(p->store, &it->ev);
    const char *text = pdb_buf_str(&it->ev.arena);
    return pdb_trace_store_meta(p->store, text, it->key_len, text + it->key_len,
                                it->ev.arena.len - it->key_len);
}

/* The store thread's side: every batch in order into the store. A batch's
 * events stay as they are until it is given back, so the store may hold X
 * events until then and insert several with one statement. */
static int store_batches(parser *p)
{
    int rc = PDB_OK;
    pdb_tq_batch *b;
    pdb_trace_store_hold(p->store);
    while (rc == PDB_OK && (b = pdb_tq_take(p->q)) != NULL) {
        int n = pdb_tq_batch_len(b);
        for (int i = 0; i < n && rc == PDB_OK; i++)
            rc = store_item(p, pdb_tq_batch_item(b, i));
        if (rc == PDB_OK)
            rc = pdb_trace_store_flush(p->store);
        pdb_tq_give_back(p->q, b);
        if (rc == PDB_OK && pdb_ingest_interrupted())
            rc = pdb_fail("%s: interrupted", p->src->path); /* the session says by what */
    }
    if (rc != PDB_OK)
        pdb_tq_abort(p->q);
    return rc;
}

/* Parses on a new thread while this one, which owns the database
 * connection, stores. SIGINT and SIGTERM are blocked here meanwhile, so
 * they reach the parser thread: a read blocked on a pipe returns, as it
 * does without the pipeline, and the session's flag stops SQLite. Returns
 * 1 (and nothing done) when no thread can be started. */
static int read_pipelined(parser *p)
{
    p->q = pdb_tq_new();
    p->src->raw_read = &p->raw_read;
    pthread_t thread;
    if (pthread_create(&thread, NULL, parse_thread, p) != 0) {
        pdb_tq_free(p->q);
        p->q = NULL;
        p->src->raw_read = NULL;
        return 1;
    }
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = store_batches(p);
    pthread_join(thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    p->src->raw_read = NULL;
    if (rc == PDB_OK && p->rc != PDB_OK)
        rc = pdb_fail("%s", p->errmsg);
    pdb_tq_free(p->q);
    p->q = NULL;
    return rc;
}


static int read_serial(parser *p)
{
    int rc = parse_all(p);
    if (rc == PDB_OK)
        rc = finish_parse(p);
    return rc;
}

int pdb_read_trace(pdb_source *src)
{
    parser p = {.src = src, .st = S_ROOT, .key_arg = -1};
    p.ev = &p.own_ev;
    const unsigned char *peek;
    size_t plen;
    if (pdb_input_peek(src->in, &peek, &plen) != PDB_OK)
        return PDB_ERR;
    size_t i = 0;
    while (i < plen && (peek[i] == ' ' || peek[i] == '\t' || peek[i] == '\n' || peek[i] == '\r'))
        i++;
    src->format = (i < plen && peek[i] == '[') ? "legacy-json" : "kineto-json";
    p.store = pdb_trace_store_new(src, src->format);
    if (!p.store)
        return PDB_ERR;
    p.h = yajl_alloc(&callbacks, NULL, &p);
    /* Strings are made valid here instead (text_val): yajl would refuse a
     * stray byte but pass an overlong form. */
    yajl_config(p.h, yajl_dont_validate_strings, 1);
    p.cap_gen = yajl_gen_alloc(NULL);
    p.args_gen = yajl_gen_alloc(NULL);
    int rc = pdb_rowq_threads_wanted() ? read_pipelined(&p) : 1;
    if (rc == 1)
        rc = read_serial(&p);
    if (rc == PDB_OK && p.unclosed)
        pdb_skip(src, "event array not closed (allowed by the trace-event format)");
    if (rc == PDB_OK)
        rc = pdb_trace_store_finish(p.store);
    else
        pdb_trace_store_free(p.store);
    yajl_free(p.h);
    yajl_gen_free(p.cap_gen);
    yajl_gen_free(p.args_gen);
    pdb_buf_free(&p.own_ev.arena);
    pdb_buf_free(&p.key);
    pdb_buf_free(&p.clean);
    return rc;
}

/* Sure on "traceEvents" or an array of objects with "ph"; a bare JSON object
 * is a weak guess that other readers (JSON step logs) outbid. */
int pdb_sniff_trace(const unsigned char *d, size_t len)
{
    size_t i = 0;
    if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF)
        i = 3;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    if (i >= len)
        return PDB_SNIFF_NO;
    const char *text = (const char *)d;
    bool has_events = memmem(text, len, "\"traceEvents\"", 13) != NULL;
    bool has_ph = memmem(text, len, "\"ph\"", 4) != NULL;
    /* JSON only when it parses as JSON from its first byte: a pstats dump
     * (marshal) also starts with '{', a text log with "[08/30 12:00:00]".
     * A prefix that does not parse but has the trace keys is a broken trace:
     * the trace reader says where and why. */
    if (d[i] != '{' && d[i] != '[')
        return PDB_SNIFF_NO;
    bool keys = d[i] == '{' ? has_events : has_ph;
    if (pdb_sniff_json(d, len))
        return keys ? PDB_SNIFF_SURE : 1;
    size_t k = i + 1;
    while (k < len && (d[k] == ' ' || d[k] == '\t' || d[k] == '\n' || d[k] == '\r'))
        k++;
    bool opens = k < len && d[k] == (d[i] == '{' ? '"' : '{');
    return keys && opens ? PDB_SNIFF_SURE : PDB_SNIFF_NO;
}
