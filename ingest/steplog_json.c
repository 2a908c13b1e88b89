/* steplog_json.c: step logs written as JSON.
 *
 * Three shapes: JSON Lines with one flat object per step (generic loggers,
 * detectron2's metrics.json, which also writes bare NaN), HuggingFace
 * Trainer's trainer_state.json (`log_history` array) and Megatron-LM's
 * metric-major golden values ({metric: {values: {"step": v}}}). JSON Lines
 * are parsed line by line; the two whole documents are small and are parsed
 * with yajl's tree API from a size-capped buffer. */
#include "ingest/steplog.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "ingest/steplog_units.h"

#include <math.h>
#include <stdio.h>
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
                                        "current_steps",
                                        "trainer/global_step", "train/global_step", NULL};
static const char *const epoch_keys[] = {"epoch", "train/epoch", NULL};
static const char *const wall_keys[] = {"_timestamp", "timestamp", "wall_time", "walltime", NULL};
static const char *const rank_keys[] = {"rank", "global_rank", NULL};

/* Sets step/epoch/wall/rank of the record from an object's keys. */
static void object_context(pdb_steplog *w, yajl_val obj)
{
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const char *k = obj->u.object.keys[i];
        yajl_val v = obj->u.object.values[i];
        if (!YAJL_IS_NUMBER(v))
            continue;
        double d = YAJL_GET_DOUBLE(v);
        if (key_is(k, step_keys) && !w->has_step) {
            w->has_step = pdb_steplog_to_int(d, &w->step);
        } else if (key_is(k, epoch_keys)) {
            w->has_epoch = true;
            w->epoch = d;
        } else if (key_is(k, wall_keys) && d > 1e8) {
            w->has_wall = true;
            w->wall = d > 1e12 ? d / 1000 : d;
        } else if (key_is(k, rank_keys)) {
            w->has_rank = pdb_steplog_to_int(d, &w->rank);
        }
    }
}

/* Time counters since the start (LLaMA-Factory's elapsed_time "0:01:23",
 * wandb's _runtime): stored as cumulative, per-step times derived. */
static const char *const cumulative_keys[] = {"elapsed_time", "_runtime", "train_time",
                                              "time_elapsed", "elapsed", NULL};

static bool is_context_key(const char *k)
{
    return key_is(k, step_keys) || key_is(k, epoch_keys) || key_is(k, wall_keys) ||
           key_is(k, rank_keys);
}

/* How a key's value aggregates steps in a given flavor. */
static const char *agg_for(const pdb_steplog *w, const char *key, int64_t *window)
{
    *window = 0;
    if ((key[0] == 't' || key[0] == 'd') && strcmp(w->flavor, "detectron2") == 0 &&
        (strcmp(key, "time") == 0 || strcmp(key, "data_time") == 0)) {
        *window = 20; /* detectron2's CommonMetricPrinter: median of the last 20 */
        return "window_median";
    }
    return "point";
}

/* A time value as a number of seconds or a text like "0:01:23" or "83s". */
static bool seconds_of(yajl_val v, double *secs)
{
    if (YAJL_IS_NUMBER(v)) {
        *secs = YAJL_GET_DOUBLE(v);
        return true;
    }
    const char *t = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
    const char *u;
    return t && pdb_units_quantity(t, strlen(t), secs, &u) &&
           (u[0] == '\0' || strcmp(u, PDB_UNIT_SECONDS) == 0);
}

/* Stores every number (and number-like string, boolean) of an object,
 * flattening nested objects as "outer/inner". */
static int object_values(pdb_steplog *w, yajl_val obj, const char *prefix, int depth)
{
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const char *k = obj->u.object.keys[i];
        yajl_val v = obj->u.object.values[i];
        if (depth == 0 && is_context_key(k))
            continue;
        char buf[256];
        const char *name = k;
        if (*prefix) {
            snprintf(buf, sizeof buf, "%s/%s", prefix, k);
            name = buf;
        }
        int64_t window;
        const char *agg = agg_for(w, name, &window);
        int rc = PDB_OK;
        double secs;
        if (depth == 0 && key_is(k, cumulative_keys) && seconds_of(v, &secs))
            rc = pdb_steplog_cumulative_time(w, name, strlen(name), secs);
        else if (YAJL_IS_NUMBER(v))
            rc = pdb_steplog_value(w, name, strlen(name), YAJL_GET_DOUBLE(v), NULL, agg, window);
        else if (YAJL_IS_NULL(v))
            rc = pdb_steplog_value(w, name, strlen(name), NAN, NULL, agg, window);
        else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v))
            rc = pdb_steplog_value(w, name, strlen(name), YAJL_IS_TRUE(v), "", agg, window);
        else if (YAJL_IS_STRING(v)) {
            const char *t = YAJL_GET_STRING(v);
            rc = pdb_steplog_text_value(w, name, strlen(name), t, strlen(t), agg, window) < 0
                     ? PDB_ERR : PDB_OK;
        } else if (YAJL_IS_OBJECT(v) && depth < 3)
            rc = object_values(w, v, name, depth + 1);
        if (rc != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

/* A record whose keys are evaluation metrics where the training records
 * have their loss and learning rate (MMEngine's scalars.json writes
 * {"accuracy/top1": 83.7, "time": 0.1, "step": 5} with step = epoch), or
 * whose keys all say validation, is split val and is not a step. */
static void object_split(pdb_steplog *w, yajl_val obj, bool log_trains)
{
    bool train = false, val = false, eval = false, other = false;
    for (size_t i = 0; i < obj->u.object.len; i++) {
        const char *k = obj->u.object.keys[i];
        size_t kl = strlen(k);
        if (is_context_key(k))
            continue;
        bool t = pdb_steplog_train_key(k, kl), v = pdb_steplog_val_name(k, kl);
        train |= t;
        val |= v;
        eval |= pdb_steplog_eval_metric(k, kl);
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

int pdb_steplog_read_jsonl(pdb_steplog *w)
{
    pdb_input *in = w->src->in;
    bool log_trains = log_has_train_keys(w);
    pdb_buf buf = PDB_BUF_INIT;
    const char *line;
    size_t len;
    int r, rc = PDB_OK;
    char err[128];
    while (rc == PDB_OK && (r = pdb_input_getline(in, &line, &len)) == 1) {
        len = pdb_steplog_trim(&line, len);
        if (len == 0) {
            pdb_skip(w->src, "blank line");
            continue;
        }
        if (line[0] != '{') {
            pdb_skip(w->src, "not a JSON object line");
            continue;
        }
        normalise_json(line, len, &buf);
        yajl_val obj = yajl_tree_parse(pdb_buf_str(&buf), err, sizeof err);
        if (!obj || !YAJL_IS_OBJECT(obj)) {
            pdb_steplog_malformed(w, pdb_input_lineno(in), "expected one JSON object per line");
            yajl_tree_free(obj);
            continue;
        }
        pdb_steplog_record(w, w->flavor, pdb_input_lineno(in));
        object_context(w, obj);
        object_split(w, obj, log_trains);
        rc = object_values(w, obj, "", 0);
        yajl_tree_free(obj);
    }
    pdb_buf_free(&buf);
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
static int read_trainer_state(pdb_steplog *w, yajl_val root)
{
    const char *path[] = {"log_history", NULL};
    yajl_val hist = yajl_tree_get(root, path, yajl_t_array);
    if (!hist)
        return pdb_fail("%s: expected a \"log_history\" array (a trainer_state.json)", w->src->path);
    for (size_t i = 0; i < hist->u.array.len; i++) {
        yajl_val e = hist->u.array.values[i];
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
        object_context(w, e);
        /* evaluations and the end-of-training summary are not steps; the
         * summary's train_loss is not a point of the loss curve */
        w->split = strcmp(kind, "eval") == 0 ? "val" : strcmp(kind, "summary") == 0 ? "summary"
                                                                                   : "train";
        w->is_step = strcmp(kind, "train") == 0;
        if (object_values(w, e, "", 0) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
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

/* Where yajl stops in a document yajl_tree_parse refused (it does not
 * say): the copy is parsed again, without callbacks, under the tree
 * parser's settings; the end of the document when it is cut short. */
static size_t error_offset(const pdb_buf *norm)
{
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    yajl_config(h, yajl_allow_comments, 1);
    const unsigned char *p = (const unsigned char *)(norm->p ? norm->p : "");
    size_t at = norm->len;
    if (yajl_parse(h, p, norm->len) != yajl_status_ok)
        at = yajl_get_bytes_consumed(h);
    else if (yajl_complete_parse(h) != yajl_status_ok)
        at = norm->len;
    yajl_free(h);
    return at;
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
    char err[256];
    yajl_val root = yajl_tree_parse(pdb_buf_str(&norm), err, sizeof err);
    if (!root || !YAJL_IS_OBJECT(root)) {
        char *nl = strchr(err, '\n');
        if (nl)
            *nl = '\0';
        /* a value that is not an object is wrong from its first byte */
        size_t at = root ? 0 : original_offset(text, doc.len, error_offset(&norm));
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
