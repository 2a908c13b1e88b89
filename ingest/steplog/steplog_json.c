/* steplog_json.c: step logs written as JSON.
 *
 * Three shapes: JSON Lines with one flat object per step (generic loggers,
 * detectron2's metrics.json, which also writes bare NaN), HuggingFace
 * Trainer's trainer_state.json (`log_history` array) and Megatron-LM's
 * metric-major golden values ({metric: {values: {"step": v}}}). JSON Lines
 * are parsed line by line with yajl's event API into a flat list of the
 * line's values (no tree, no allocation per line: this is the hot path of
 * large logs); the two whole documents are small and are parsed with
 * yajl's tree API from a size-capped buffer, and trainer_state's entries
 * are flattened into the same list, so one set of rules reads both. */
#include "ingest/steplog/steplog.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#define JSON_DOC_CAP (64u << 20) /* trainer_state.json of a long run is a few MB */

/* One step of normalise_json at s[i]: copies a character (two for an
 * escape in a string) or replaces a bare token; returns the next i. */
static size_t normalise_at(const char *s, size_t len, size_t i, bool *in_str, pdb_buf *out)
{
    char c = s[i];
    if (*in_str) {
        pdb_buf_addc(out, c);
        if (c == '\\' && i + 1 < len) {
            pdb_buf_addc(out, s[i + 1]);
            return i + 2;
        }
        *in_str = c != '"';
        return i + 1;
    }
    if (c == '"') {
        *in_str = true;
    } else {
        static const char *const bare[] = {"NaN", "-Infinity", "Infinity"};
        const char *rest = NULL;
        for (size_t k = 0; k < sizeof bare / sizeof bare[0] && !rest; k++)
            pdb_skip_prefix_mem(s + i, len - i, bare[k], &rest, NULL);
        if (rest) {
            pdb_buf_adds(out, "null");
            return (size_t)(rest - s);
        }
    }
    pdb_buf_addc(out, c);
    return i + 1;
}

static bool has_bare_tokens(const char *s, size_t len)
{
    return memchr(s, 'N', len) || memchr(s, 'I', len);
}

/* Copies a JSON line replacing bare NaN/Infinity tokens (outside strings),
 * which Python's json module writes but JSON does not allow, by null. */
static void normalise_json(const char *s, size_t len, pdb_buf *out)
{
    pdb_buf_reset(out);
    if (!has_bare_tokens(s, len)) {
        pdb_buf_add(out, s, len); /* the common case: nothing to replace */
        return;
    }
    bool in_str = false;
    for (size_t i = 0; i < len;)
        i = normalise_at(s, len, i, &in_str, out);
}

/* The offset in s of byte `at` of normalise_json's copy of s (the start of
 * a token the copy replaced, if `at` falls inside its replacement). */
static size_t original_offset(const char *s, size_t len, size_t at)
{
    if (!has_bare_tokens(s, len))
        return at < len ? at : len;
    pdb_buf out = PDB_BUF_INIT;
    bool in_str = false;
    size_t i = 0;
    while (i < len) {
        size_t next = normalise_at(s, len, i, &in_str, &out);
        if (out.len > at)
            break;
        i = next;
    }
    pdb_buf_free(&out);
    return i;
}

/* Whether k is one of names; most keys differ in their first byte, which
 * is checked before calling strcmp (this runs for every key of every line). */
static bool key_is(const char *k, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (k[0] == names[i][0] && strcmp(k, names[i]) == 0)
            return true;
    return false;
}

static const char *const step_keys[] = {"step", "iteration", "global_step", "_step", "iter",
                                        "current_steps", "num_updates",
                                        "trainer/global_step", "train/global_step", NULL};
static const char *const epoch_keys[] = {"epoch", "train/epoch", NULL};
static const char *const wall_keys[] = {"_timestamp", "timestamp", "wall_time", "walltime", NULL};
static const char *const rank_keys[] = {"rank", "global_rank", NULL};

/* ---- a record's values, flattened ----------------------------------------- */

/* What a key of the record's object is for (found once per key). */
enum { K_VALUE, K_STEP, K_EPOCH, K_WALL, K_RANK, K_CUMULATIVE };

/* Time counters since the start (LLaMA-Factory's elapsed_time "0:01:23",
 * wandb's _runtime): stored as cumulative, per-step times derived. */
static const char *const cumulative_keys[] = {"elapsed_time", "_runtime", "train_time",
                                              "time_elapsed", "elapsed", NULL};

static int key_kind(const char *k)
{
    return key_is(k, step_keys) ? K_STEP : key_is(k, epoch_keys) ? K_EPOCH
         : key_is(k, wall_keys) ? K_WALL : key_is(k, rank_keys) ? K_RANK
         : key_is(k, cumulative_keys) ? K_CUMULATIVE : K_VALUE;
}

/* One value of a record, in document order. Values of nested objects are
 * named "outer/inner" (at most 255 bytes past the first level) down to
 * three levels below the record's keys; arrays, and whatever a context key
 * holds, are not looked into. Keys and strings end at a NUL they contain,
 * as C strings do. */
typedef enum { J_NUMBER, J_NULL, J_TRUE, J_FALSE, J_STRING, J_OBJECT, J_OTHER } jl_type;

typedef struct {
    int depth;     /* 0: a key of the record's object */
    int kind;      /* K_*, for depth 0 */
    jl_type type;
    size_t name;   /* offsets into the record's text (NUL-terminated there) */
    size_t str;    /* J_STRING */
    double num;    /* J_NUMBER */
} jl_entry;

typedef struct {
    pdb_buf text;
    jl_entry *e;
    size_t n, cap;
    /* the event parser's state */
    int depth;          /* containers open; the record's object is 1 */
    int skip_from;      /* > 0: containers at this depth and deeper are not read */
    size_t key;         /* the current key */
    int key_kind;
    size_t open[3];     /* names of the objects open at depths 0..2 */
    int nkeys;          /* keys of the record's object so far */
    bool too_deep;      /* nested deeper than PDB_SL_JSON_MAX_DEPTH: parsing stopped */
    struct {            /* the key at each position in the last record, and its K_* */
        char text[48];
        int kind;
    } last_key[64];
    char mem[8192];     /* yajl's memory for one line (see jl_malloc) */
    size_t mem_used;
} jl_record;

static void jl_reset(jl_record *r)
{
    pdb_buf_reset(&r->text);
    pdb_buf_addc(&r->text, '\0'); /* offset 0 is "" */
    r->n = 0;
    r->depth = 0;
    r->skip_from = 0;
    r->key = 0;
    r->key_kind = K_VALUE;
    r->nkeys = 0;
    r->too_deep = false;
}

static void jl_record_free(jl_record *r)
{
    pdb_buf_free(&r->text);
    free(r->e);
    free(r);
}

/* Appends s (up to a NUL in it) and a NUL; returns where it starts. */
static size_t jl_add_text(jl_record *r, const char *s, size_t len)
{
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    pdb_buf *b = &r->text;
    pdb_buf_grow(b, len + 1);
    size_t at = b->len;
    memcpy(b->p + at, s, len);
    b->p[at + len] = '\0';
    b->len += len + 1;
    b->p[b->len] = '\0'; /* pdb_buf keeps one past the end (grow left room) */
    return at;
}

static const char *jl_text(const jl_record *r, size_t at)
{
    return r->text.p + at;
}

/* Adds an entry for the current key (named as object_values named it). */
static jl_entry *jl_add(jl_record *r, jl_type type)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 32;
        r->e = pdb_xrealloc(r->e, r->cap * sizeof *r->e);
    }
    jl_entry *e = &r->e[r->n++];
    e->depth = r->depth - 1;
    e->kind = e->depth == 0 ? r->key_kind : K_VALUE;
    e->type = type;
    e->str = 0;
    e->num = 0;
    if (e->depth == 0) {
        e->name = r->key;
    } else {
        char buf[256];
        snprintf(buf, sizeof buf, "%s/%s", jl_text(r, r->open[e->depth - 1]), jl_text(r, r->key));
        e->name = jl_add_text(r, buf, strlen(buf));
    }
    return e;
}

static bool is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

/* The double strtod makes of a JSON number (yajl checked its grammar).
 * Most numbers have at most 15 significant digits and a small exponent:
 * then digits / 10^k (or * 10^k) is exact to round once, as strtod does
 * (both operands are exact doubles). Others go to strtod. */
static double json_number(const char *s, size_t len)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    size_t i = 0;
    bool neg = i < len && s[i] == '-';
    i += neg;
    uint64_t m = 0;
    int digits = 0, scale = 0;
    for (; i < len && is_digit(s[i]); i++) {
        m = m * 10 + (uint64_t)(s[i] - '0');
        digits += m != 0;
    }
    if (i < len && s[i] == '.')
        for (i++; i < len && is_digit(s[i]); i++) {
            m = m * 10 + (uint64_t)(s[i] - '0');
            digits += m != 0;
            scale--;
        }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = i < len && s[i] == '-';
        i += i < len && (s[i] == '-' || s[i] == '+');
        int e = 0;
        for (; i < len && is_digit(s[i]) && e < 10000; i++)
            e = e * 10 + (s[i] - '0');
        scale += eneg ? -e : e;
    }
    if (i == len && digits <= 15 && scale >= -22 && scale <= 22) {
        double d = (double)m;
        d = scale < 0 ? d / pow10[-scale] : d * pow10[scale];
        return neg ? -d : d;
    }
    char buf[64];
    if (len < sizeof buf) {
        memcpy(buf, s, len);
        buf[len] = '\0';
        return strtod(buf, NULL);
    }
    char *copy = pdb_xstrndup(s, len);
    double d = strtod(copy, NULL);
    free(copy);
    return d;
}

/* ---- yajl events ---- */

static bool jl_skipping(const jl_record *r)
{
    return r->skip_from && r->depth >= r->skip_from;
}

static int jl_null(void *ctx)
{
    jl_record *r = ctx;
    if (!jl_skipping(r) && r->depth > 0)
        jl_add(r, J_NULL);
    return 1;
}

static int jl_boolean(void *ctx, int b)
{
    jl_record *r = ctx;
    if (!jl_skipping(r) && r->depth > 0)
        jl_add(r, b ? J_TRUE : J_FALSE);
    return 1;
}

static int jl_number(void *ctx, const char *s, size_t len)
{
    jl_record *r = ctx;
    if (!jl_skipping(r) && r->depth > 0)
        jl_add(r, J_NUMBER)->num = json_number(s, len);
    return 1;
}

static int jl_string(void *ctx, const unsigned char *s, size_t len)
{
    jl_record *r = ctx;
    if (!jl_skipping(r) && r->depth > 0) {
        size_t at = jl_add_text(r, (const char *)s, len);
        jl_add(r, J_STRING)->str = at;
    }
    return 1;
}

/* The K_* of a key of the record's object: lines repeat their keys in the
 * same order, so the key at the same position last time is tried first. */
static int top_key_kind(jl_record *r, const char *k)
{
    int at = r->nkeys++;
    if (at >= (int)(sizeof r->last_key / sizeof r->last_key[0]))
        return key_kind(k);
    size_t n = strlen(k);
    if (n < sizeof r->last_key[at].text && memcmp(r->last_key[at].text, k, n + 1) == 0)
        return r->last_key[at].kind;
    int kind = key_kind(k);
    if (n < sizeof r->last_key[at].text) {
        memcpy(r->last_key[at].text, k, n + 1);
        r->last_key[at].kind = kind;
    }
    return kind;
}

static int jl_key(void *ctx, const unsigned char *s, size_t len)
{
    jl_record *r = ctx;
    if (!jl_skipping(r)) {
        r->key = jl_add_text(r, (const char *)s, len);
        r->key_kind = r->depth == 1 ? top_key_kind(r, jl_text(r, r->key)) : K_VALUE;
    }
    return 1;
}

/* A container: what its values are read as, or that they are not read.
 * Returns 0 (yajl stops) past PDB_SL_JSON_MAX_DEPTH: yajl keeps a byte per
 * open container, and nothing so deep is a step record. */
static int jl_open(jl_record *r, bool is_object)
{
    if (r->depth >= PDB_SL_JSON_MAX_DEPTH) {
        r->too_deep = true;
        return 0;
    }
    if (jl_skipping(r) || r->depth == 0) {
        r->depth++;
        return 1;
    }
    jl_entry *e = jl_add(r, is_object ? J_OBJECT : J_OTHER);
    bool read = is_object && e->depth < 3 && !(e->depth == 0 && e->kind != K_VALUE &&
                                                e->kind != K_CUMULATIVE);
    if (read)
        r->open[e->depth] = e->name;
    else
        r->skip_from = r->depth + 1;
    r->depth++;
    return 1;
}

static int jl_start_map(void *ctx)
{
    return jl_open(ctx, true);
}

static int jl_start_array(void *ctx)
{
    return jl_open(ctx, false);
}

static int jl_end(void *ctx)
{
    jl_record *r = ctx;
    r->depth--;
    if (r->skip_from && r->depth < r->skip_from)
        r->skip_from = 0;
    return 1;
}

static const yajl_callbacks jl_callbacks = {jl_null,   jl_boolean,   NULL,   NULL,
                                            jl_number, jl_string,    jl_start_map,
                                            jl_key,    jl_end,       jl_start_array,
                                            jl_end};

/* yajl's handle, lexer and buffers for one line come from r->mem, given
 * back all at once when the line is done (malloc for the rare big line). */
static void *jl_malloc(void *ctx, size_t n)
{
    jl_record *r = ctx;
    n = (n + 15) & ~(size_t)15;
    if (r->mem_used + n + 16 <= sizeof r->mem) {
        char *p = r->mem + r->mem_used;
        memcpy(p, &n, sizeof n); /* its size, for jl_realloc */
        r->mem_used += n + 16;
        return p + 16;
    }
    char *p = malloc(n + 16);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    return p + 16;
}

static bool jl_own(const jl_record *r, const void *p)
{
    return (const char *)p >= r->mem && (const char *)p < r->mem + sizeof r->mem;
}

static void jl_free(void *ctx, void *p)
{
    if (p && !jl_own(ctx, p))
        free((char *)p - 16);
}

static void *jl_realloc(void *ctx, void *p, size_t n)
{
    if (!p)
        return jl_malloc(ctx, n);
    size_t old;
    memcpy(&old, (char *)p - 16, sizeof old);
    if (n <= old)
        return p;
    /* yajl grows its stack 128 bytes at a time: doubling keeps the copies
     * linear in the line */
    void *q = jl_malloc(ctx, n > 2 * old ? n : 2 * old);
    if (q) {
        memcpy(q, p, old);
        jl_free(ctx, p);
    }
    return q;
}

/* Parses one line (NUL-terminated, as yajl_tree_parse reads it: with
 * comments allowed) into r; false when it is not valid JSON or nests deeper
 * than PDB_SL_JSON_MAX_DEPTH (r->too_deep). */
static bool jl_parse(jl_record *r, const char *text)
{
    jl_reset(r);
    r->mem_used = 0;
    yajl_alloc_funcs afs = {jl_malloc, jl_realloc, jl_free, r};
    yajl_handle h = yajl_alloc(&jl_callbacks, &afs, r);
    if (!h)
        return false;
    yajl_config(h, yajl_allow_comments, 1);
    bool ok = yajl_parse(h, (const unsigned char *)text, strlen(text)) == yajl_status_ok &&
              yajl_complete_parse(h) == yajl_status_ok;
    yajl_free(h);
    return ok;
}

/* The same entries from a parsed object (trainer_state's log_history). */
static void jl_from_tree(jl_record *r, yajl_val obj, int depth)
{
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const char *k = obj->u.object.keys[i];
        yajl_val v = obj->u.object.values[i];
        r->depth = depth + 1;
        jl_key(r, (const unsigned char *)k, strlen(k));
        if (YAJL_IS_NUMBER(v))
            jl_add(r, J_NUMBER)->num = YAJL_GET_DOUBLE(v);
        else if (YAJL_IS_NULL(v))
            jl_add(r, J_NULL);
        else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v))
            jl_add(r, YAJL_IS_TRUE(v) ? J_TRUE : J_FALSE);
        else if (YAJL_IS_STRING(v)) {
            const char *t = v->u.string;
            jl_string(r, (const unsigned char *)t, strlen(t));
        } else {
            jl_open(r, YAJL_IS_OBJECT(v)); /* depth < 5: never too deep */
            if (!r->skip_from)
                jl_from_tree(r, v, depth + 1);
            r->depth = depth + 2;
            jl_end(r);
        }
    }
}

/* ---- the record's rules ---------------------------------------------------- */

/* A context key's number, printed as a number or as a string of one
 * (fairseq's json log quotes its numbers: "num_updates": "100"). */
static bool context_number(const jl_record *r, const jl_entry *e, double *out)
{
    if (e->type == J_NUMBER) {
        *out = e->num;
        return true;
    }
    if (e->type != J_STRING || e->kind == K_VALUE || e->kind == K_CUMULATIVE)
        return false;
    const char *t = jl_text(r, e->str);
    size_t n = strlen(t);
    return n > 0 && pdb_units_number(t, n, out) == n;
}

/* Sets step/epoch/wall/rank of the record from its keys. */
static void record_context(pdb_steplog *w, const jl_record *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const jl_entry *e = &r->e[i];
        double d;
        if (e->depth != 0 || !context_number(r, e, &d))
            continue;
        if (e->kind == K_STEP && !w->has_step) {
            w->has_step = pdb_steplog_to_int(d, &w->step);
            pdb_steplog_saw_counter_named(w, "key \"%.*s\"", r->text.p + e->name,
                                          strlen(r->text.p + e->name));
        } else if (e->kind == K_EPOCH) {
            w->has_epoch = true;
            w->epoch = d;
        } else if (e->kind == K_WALL && d > 1e8) {
            w->has_wall = true;
            w->wall = d > 1e12 ? d / 1000 : d;
        } else if (e->kind == K_RANK) {
            w->has_rank = pdb_steplog_to_int(d, &w->rank);
        }
    }
}

static bool is_context(const jl_entry *e)
{
    return e->depth == 0 && e->kind != K_VALUE && e->kind != K_CUMULATIVE;
}

/* How a key's value aggregates steps in a given flavor. */
static const char *agg_for(bool detectron2, const char *key, int64_t *window)
{
    *window = 0;
    if (detectron2 && (strcmp(key, "time") == 0 || strcmp(key, "data_time") == 0)) {
        *window = 20; /* detectron2's CommonMetricPrinter: median of the last 20 */
        return "window_median";
    }
    return "point";
}

/* A time value as a number of seconds or a text like "0:01:23" or "83s". */
static bool seconds_of(const jl_record *r, const jl_entry *e, double *secs)
{
    if (e->type == J_NUMBER) {
        *secs = e->num;
        return true;
    }
    const char *t = e->type == J_STRING ? jl_text(r, e->str) : NULL;
    const char *u;
    return t && pdb_units_quantity(t, strlen(t), secs, &u) &&
           (u[0] == '\0' || strcmp(u, PDB_UNIT_SECONDS) == 0);
}

/* Stores every number (and number-like string, boolean) of the record. */
static int record_values(pdb_steplog *w, const jl_record *r)
{
    bool detectron2 = strcmp(w->flavor, "detectron2") == 0;
    for (size_t i = 0; i < r->n; i++) {
        const jl_entry *e = &r->e[i];
        if (is_context(e) || e->type == J_OBJECT || e->type == J_OTHER)
            continue;
        const char *name = jl_text(r, e->name);
        size_t nl = strlen(name);
        int64_t window;
        const char *agg = agg_for(detectron2, name, &window);
        int rc = PDB_OK;
        double secs;
        if (e->kind == K_CUMULATIVE && seconds_of(r, e, &secs))
            rc = pdb_steplog_cumulative_time(w, name, nl, secs);
        else if (e->type == J_NUMBER)
            rc = pdb_steplog_value(w, name, nl, e->num, NULL, agg, window);
        else if (e->type == J_NULL)
            rc = pdb_steplog_value(w, name, nl, NAN, NULL, agg, window);
        else if (e->type == J_TRUE || e->type == J_FALSE)
            rc = pdb_steplog_value(w, name, nl, e->type == J_TRUE, "", agg, window);
        else if (e->type == J_STRING) {
            const char *t = jl_text(r, e->str);
            rc = pdb_steplog_text_value(w, name, nl, t, strlen(t), agg, window) < 0 ? PDB_ERR
                                                                                     : PDB_OK;
        }
        if (rc != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

/* A record whose keys are evaluation metrics where the training records
 * have their loss and learning rate (MMEngine's scalars.json writes
 * {"accuracy/top1": 83.7, "time": 0.1, "step": 5} with step = epoch), or
 * whose keys all say validation, is split val and is not a step. */
static void record_split(pdb_steplog *w, const jl_record *r, bool log_trains)
{
    bool train = false, val = false, eval = false, other = false;
    int at = 0;
    for (size_t i = 0; i < r->n; i++) {
        const jl_entry *e = &r->e[i];
        if (e->depth != 0 || is_context(e))
            continue;
        const char *k = jl_text(r, e->name);
        int c = pdb_steplog_name_class(w, k, strlen(k), at++);
        bool t = c & PDB_SL_NAME_TRAIN, v = c & PDB_SL_NAME_VAL;
        train |= t;
        val |= v;
        eval |= (c & PDB_SL_NAME_EVAL) != 0;
        other |= !t && !v;
    }
    if (train)
        w->seen_loss_record = true;
    if ((val && !train && !other) || ((log_trains || w->seen_loss_record) && !train && eval)) {
        w->split = "val";
        w->is_step = false;
    }
}

/* Whether the first bytes hold a training key ("loss", "lr"): the log has
 * training records, even when it opens with an evaluation. */
static bool log_has_train_keys(pdb_steplog *w)
{
    const unsigned char *d;
    size_t len;
    if (pdb_input_peek(w->src->in, &d, &len) != PDB_OK)
        return false;
    const char *t = (const char *)d;
    return pdb_steplog_find(t, len, "loss\"") || pdb_steplog_find(t, len, "\"lr\"") ||
           pdb_steplog_find(t, len, "\"learning_rate\"");
}

/* Whether every value key of the record starts with the same word and '_'
 * ("train_loss", "train_ppl", "train_wall"). */
static bool one_prefix(const jl_record *r)
{
    const char *first = NULL;
    size_t fl = 0;
    int n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const jl_entry *e = &r->e[i];
        if (e->depth != 0 || is_context(e))
            continue;
        const char *k = jl_text(r, e->name);
        const char *us = strchr(k, '_');
        if (!us || us - k < 3)
            return false;
        if (!first) {
            first = k;
            fl = (size_t)(us - k) + 1;
        } else if (strncmp(k, first, fl) != 0) {
            return false;
        }
        n++;
    }
    return n >= 2;
}

int pdb_steplog_read_jsonl(pdb_steplog *w)
{
    bool log_trains = log_has_train_keys(w), stepped = false;
    pdb_buf buf = PDB_BUF_INIT;
    jl_record *rec = pdb_xcalloc(1, sizeof *rec);
    const char *line;
    size_t len;
    int r, rc = PDB_OK;
    while (rc == PDB_OK && (r = pdb_steplog_getline(w, &line, &len)) == 1) {
        len = pdb_steplog_trim(&line, len);
        if (len == 0) {
            pdb_skip(w->src, "blank line");
            continue;
        }
        /* after a log prefix (fairseq --log-format json): its timestamp is
         * the record's wall time */
        size_t jp = pdb_steplog_json_payload(line, len);
        double wall = 0;
        bool has_wall = jp > 0 && pdb_steplog_timestamp_any(line, jp, &wall) > 0;
        line += jp;
        len -= jp;
        if (line[0] != '{') {
            pdb_skip(w->src, "not a JSON object line");
            continue;
        }
        normalise_json(line, len, &buf);
        if (!jl_parse(rec, pdb_buf_str(&buf))) {
            if (rec->too_deep) {
                /* not a record cut short: refused, as the trace reader does */
                rc = pdb_fail_line(w->src->path, w->lineno, "JSON nested deeper than %d levels; "
                                   "expected one JSON object per line", PDB_SL_JSON_MAX_DEPTH);
                break;
            }
            pdb_steplog_malformed(w, w->lineno, "expected one JSON object per line");
            continue;
        }
        pdb_steplog_record(w, w->flavor, w->lineno);
        w->has_wall = has_wall;
        w->wall = wall;
        record_context(w, rec);
        record_split(w, rec, log_trains);
        /* a record without a step after stepped ones, its keys all under one
         * prefix, sums them up (fairseq's end-of-epoch "train" line:
         * train_loss, train_wall, ..., no num_updates) */
        if (!w->has_step && stepped && w->is_step && one_prefix(rec)) {
            w->split = "summary";
            w->is_step = false;
        }
        stepped |= w->has_step && w->is_step;
        rc = record_values(w, rec);
    }
    pdb_buf_free(&buf);
    jl_record_free(rec);
    return rc != PDB_OK || r < 0 ? PDB_ERR : PDB_OK;
}

/* ---- whole documents ---------------------------------------------------- */

static int slurp(pdb_steplog *w, pdb_buf *doc)
{
    unsigned char chunk[65536];
    ssize_t n;
    while ((n = pdb_input_read(w->src->in, chunk, sizeof chunk)) > 0) {
        if (doc->len + (size_t)n > JSON_DOC_CAP)
            return pdb_fail_at(w->src->path, (int64_t)doc->len,
                               "JSON document larger than %u MB; expected a trainer state or "
                               "golden values file", JSON_DOC_CAP >> 20);
        pdb_buf_add(doc, chunk, (size_t)n);
    }
    return n < 0 ? PDB_ERR : PDB_OK;
}

/* HF Trainer: log_history entries are training logs, eval logs (eval_*) or
 * the final summary (train_runtime, ...). */
static int read_log_history(pdb_steplog *w, yajl_val root, jl_record *rec)
{
    const char *path[] = {"log_history", NULL};
    yajl_val hist = yajl_tree_get(root, path, yajl_t_array);
    if (!hist)
        return pdb_fail("%s: expected a \"log_history\" array (a trainer_state.json)", w->src->path);
    for (size_t i = 0; i < hist->u.array.len; i++) {
        yajl_val e = hist->u.array.values[i];
        if (pdb_ingest_interrupted())
            return pdb_fail("%s: interrupted", w->src->path);
        if (!YAJL_IS_OBJECT(e)) {
            pdb_skip(w->src, "log_history entry that is not an object");
            continue;
        }
        const char *kind = "train";
        for (size_t k = 0; k < e->u.object.len; k++) {
            if (strncmp(e->u.object.keys[k], "eval_", 5) == 0)
                kind = "eval";
            else if (strcmp(e->u.object.keys[k], "train_runtime") == 0)
                kind = "summary";
        }
        pdb_steplog_record(w, kind, 0);
        jl_reset(rec);
        jl_from_tree(rec, e, 0);
        record_context(w, rec);
        /* evaluations and the end-of-training summary are not steps; the
         * summary's train_loss is not a point of the loss curve */
        w->split = strcmp(kind, "eval") == 0 ? "val" : strcmp(kind, "summary") == 0 ? "summary"
                                                                                   : "train";
        w->is_step = strcmp(kind, "train") == 0;
        if (record_values(w, rec) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

/* HF Trainer: see read_log_history. */
static int read_trainer_state(pdb_steplog *w, yajl_val root)
{
    jl_record *rec = pdb_xcalloc(1, sizeof *rec);
    int rc = read_log_history(w, root, rec);
    jl_record_free(rec);
    return rc;
}

/* Megatron golden values: {metric: {start_step, end_step, step_interval,
 * values: {"<step>": number | "nan"}}}. */
static int read_golden(pdb_steplog *w, yajl_val root)
{
    for (size_t m = 0; m < root->u.object.len; m++) {
        const char *metric = root->u.object.keys[m];
        yajl_val spec = root->u.object.values[m];
        const char *vp[] = {"values", NULL}, *ip[] = {"step_interval", NULL};
        yajl_val vals = YAJL_IS_OBJECT(spec) ? yajl_tree_get(spec, vp, yajl_t_object) : NULL;
        if (!vals) {
            pdb_skip(w->src, "golden-values entry without values");
            continue;
        }
        yajl_val iv = yajl_tree_get(spec, ip, yajl_t_number);
        int64_t interval = 1;
        if (iv)
            pdb_steplog_to_int(YAJL_GET_DOUBLE(iv), &interval);
        for (size_t i = 0; i < vals->u.object.len; i++) {
            const char *sk = vals->u.object.keys[i];
            if (pdb_ingest_interrupted())
                return pdb_fail("%s: interrupted", w->src->path);
            yajl_val v = vals->u.object.values[i];
            double step;
            int64_t istep;
            if (pdb_units_number(sk, strlen(sk), &step) != strlen(sk) ||
                !pdb_steplog_to_int(step, &istep)) {
                pdb_skip(w->src, "golden-values key that is not a step");
                continue;
            }
            pdb_steplog_record(w, "golden", 0);
            w->has_step = true;
            w->step = istep;
            double d = NAN;
            const char *u;
            if (YAJL_IS_NUMBER(v))
                d = YAJL_GET_DOUBLE(v);
            else if (YAJL_IS_STRING(v)) {
                /* "nan" (180 golden files hold it) or a number as text */
                const char *t = YAJL_GET_STRING(v);
                if (!pdb_units_quantity(t, strlen(t), &d, &u))
                    d = NAN;
            } else if (!YAJL_IS_NULL(v)) {
                pdb_skip(w->src, "golden value that is not a number");
                continue;
            }
            /* Megatron averages over the log interval; 1 means per step. */
            const char *agg = interval <= 1 ? "point" : "interval_mean";
            if (pdb_steplog_value(w, metric, strlen(metric), d, NULL, agg, interval) != PDB_OK)
                return PDB_ERR;
        }
    }
    return PDB_OK;
}

/* ---- checking a document before the tree is built ---- */

/* yajl_tree_free follows a tree down the stack, one frame per level, and
 * yajl_tree_parse keeps a byte per open container in a stack it grows 128
 * bytes at a time: 400,000 nested arrays crashed the free and cost 86 MB
 * before it. So the document is parsed first with callbacks that count
 * containers and stop past PDB_SL_JSON_MAX_DEPTH, in chunks with the
 * interrupt flag checked between them; only a document that passes is made
 * a tree (whose memory is bounded by JSON_DOC_CAP). */
typedef struct {
    int depth;
    bool too_deep;
} doc_scan;

static int scan_open(void *ctx)
{
    doc_scan *d = ctx;
    if (d->depth >= PDB_SL_JSON_MAX_DEPTH) {
        d->too_deep = true;
        return 0;
    }
    d->depth++;
    return 1;
}

static int scan_close(void *ctx)
{
    ((doc_scan *)ctx)->depth--;
    return 1;
}

/* Only containers: yajl checks the rest of the grammar without callbacks
 * (and, with neither a number nor an integer callback, does not convert
 * numbers, as the tree parser's number callback does not either). */
static const yajl_callbacks scan_callbacks = {NULL, NULL, NULL, NULL, NULL, NULL, scan_open,
                                              NULL, scan_close, scan_open, scan_close};

#define SCAN_CHUNK (1u << 20)

/* Parses norm (the document with bare NaN/Infinity replaced) under the tree
 * parser's settings. Returns PDB_OK when it is one JSON value nested at most
 * PDB_SL_JSON_MAX_DEPTH deep; else fails with the byte where yajl stopped
 * (in the text as written; past the byte it refuses, or the end of a
 * document cut short). */
static int scan_document(pdb_steplog *w, const char *text, size_t textlen, const pdb_buf *norm)
{
    doc_scan d = {0};
    yajl_handle h = yajl_alloc(&scan_callbacks, NULL, &d);
    yajl_config(h, yajl_allow_comments, 1);
    const unsigned char *p = (const unsigned char *)(norm->p ? norm->p : "");
    size_t at = 0;
    yajl_status st = yajl_status_ok;
    while (at < norm->len && st == yajl_status_ok) {
        if (pdb_ingest_interrupted()) {
            yajl_free(h);
            return pdb_fail("%s: interrupted", w->src->path);
        }
        size_t n = norm->len - at < SCAN_CHUNK ? norm->len - at : SCAN_CHUNK;
        st = yajl_parse(h, p + at, n);
        at += st == yajl_status_ok ? n : yajl_get_bytes_consumed(h);
    }
    if (st == yajl_status_ok) {
        st = yajl_complete_parse(h);
        at = norm->len;
    }
    int rc = PDB_OK;
    if (d.too_deep) {
        rc = pdb_fail_at(w->src->path, (int64_t)original_offset(text, textlen, at),
                         "JSON nested deeper than %d levels; expected a trainer state or golden "
                         "values document", PDB_SL_JSON_MAX_DEPTH);
    } else if (st != yajl_status_ok) {
        unsigned char *err = yajl_get_error(h, 0, NULL, 0);
        char *nl = strchr((char *)err, '\n');
        if (nl)
            *nl = '\0';
        rc = pdb_fail_at(w->src->path, (int64_t)original_offset(text, textlen, at),
                         "expected a JSON object (%s)", (char *)err);
        yajl_free_error(h, err);
    }
    yajl_free(h);
    return rc;
}

int pdb_steplog_read_json_doc(pdb_steplog *w)
{
    pdb_buf doc = PDB_BUF_INIT;
    int rc = slurp(w, &doc);
    if (rc != PDB_OK) {
        pdb_buf_free(&doc);
        return rc;
    }
    const char *text = doc.p ? doc.p : "";
    pdb_buf norm = PDB_BUF_INIT;
    normalise_json(text, doc.len, &norm);
    if (scan_document(w, text, doc.len, &norm) != PDB_OK) {
        pdb_buf_free(&norm);
        pdb_buf_free(&doc);
        return PDB_ERR;
    }
    char err[256];
    yajl_val root = yajl_tree_parse(pdb_buf_str(&norm), err, sizeof err);
    if (!root || !YAJL_IS_OBJECT(root)) {
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = '\0';
        /* a value that is not an object is wrong from its first byte; a
         * document the scan passed but the tree parser refused (a NUL byte,
         * which ends its text; memory) is blamed on its end */
        size_t at = root ? 0 : doc.len;
        yajl_tree_free(root);
        pdb_buf_free(&norm);
        pdb_buf_free(&doc);
        return pdb_fail_at(w->src->path, (int64_t)at, "expected a JSON object (%s)",
                           root ? "not an object" : err);
    }
    pdb_buf_free(&norm);
    pdb_buf_free(&doc);
    rc = strcmp(w->flavor, "hf-trainer-state") == 0 ? read_trainer_state(w, root)
                                                     : read_golden(w, root);
    yajl_tree_free(root);
    return rc;
}
