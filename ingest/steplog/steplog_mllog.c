/* steplog_mllog.c: MLPerf training logs (mlperf_logging's mllog).
 *
 * An MLPerf benchmark prints one event per line among its own output:
 *   :::MLLOG {"namespace": "", "time_ms": 1695775634977, "event_type":
 *   "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.65, "metadata":
 *   {"file": "fit.py", "lineno": 1043, "epoch_num": 19}}
 * The event's key names the value; its step is in the metadata, under a
 * name that differs between benchmarks (step_num, step, samples_count,
 * epoch_num), so the reading names the one it used. Events of one step
 * (consecutive, same counter value and split) form one record. Intervals
 * (INTERVAL_START/END) give durations: epochs and blocks (a block is the
 * epochs or samples between two evaluations) are stored as
 * epoch/step_time or block/step_time at the stop event's step; such a
 * step is an epoch or a block, not an optimizer step, and the reading warns
 * so. run_stop - run_start is the run's time to train. Only numbers are
 * stored: string values (submission_*) are counted as skipped. Each line is
 * parsed on its own (yajl's tree of one line), so memory is bounded by the
 * longest line. */
#include "ingest/steplog/steplog.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/strutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#define MLLOG_TAG ":::MLLOG "
/* how far into a line the tag may start: launcher prefixes ("[0] ",
 * "ray-training  | [0] ") the line reader did not strip */
#define MLLOG_TAG_REACH 64
#define MLLOG_MAX_DEPTH 16
#define MLLOG_MAX_SETTINGS 4096

/* The metadata names of a step, most specific first. epoch_num last: an
 * event that gives both counts in steps. first_epoch_num is a block's. */
static const char *const counter_keys[] = {"step_num", "step", "samples_count", "epoch_num",
                                           "first_epoch_num", NULL};

typedef struct {
    pdb_buf text;            /* the line's JSON, NUL-terminated for yajl */
    pdb_strmap *settings;    /* keys of settings stored (each stored once) */
    int nsettings;
    bool open;               /* a record is open */
    int64_t open_step;
    const char *open_counter, *open_split;
    double start_ms[4];      /* INTERVAL_START times of run, init, epoch, block; NAN: none */
    bool saw_epoch_stop;     /* epoch durations stored: block durations are redundant */
    int64_t interval_steps;  /* records whose step time is an epoch's or block's */
    const char *interval_what;
} mllog_state;

enum { IV_RUN, IV_INIT, IV_EPOCH, IV_BLOCK };

/* Intel MPI's -l label "[N] " before the tag names the rank (the line
 * reader strips only the launcher prefixes every flavor may carry). */
static void bracket_rank(pdb_steplog *w, const char *line, size_t len)
{
    size_t i = 1;
    int64_t rank;
    if (len > 3 && line[0] == '[' && pdb_steplog_read_int(line, len, &i, &rank) && i + 1 < len &&
        line[i] == ']' && line[i + 1] == ' ' && rank >= 0)
        w->line_rank = rank;
}

/* The JSON of an MLLOG line, or NULL when the line is not one. */
static const char *mllog_json(const char *line, size_t len, size_t *jl)
{
    size_t reach = MLLOG_TAG_REACH + sizeof MLLOG_TAG;
    if (reach > len)
        reach = len;
    const char *tag = pdb_steplog_find(line, reach, MLLOG_TAG);
    if (!tag)
        return NULL;
    const char *j = tag + strlen(MLLOG_TAG);
    *jl = (size_t)(line + len - j);
    return pdb_steplog_trim(&j, *jl) ? j : NULL;
}

bool pdb_steplog_mllog_line(const char *line, size_t len)
{
    size_t jl;
    const char *j = mllog_json(line, len, &jl);
    return j && j[0] == '{';
}

static yajl_val member(yajl_val obj, const char *name)
{
    const char *path[] = {name, NULL};
    return obj ? yajl_tree_get(obj, path, yajl_t_any) : NULL;
}

static const char *string_of(yajl_val obj, const char *name)
{
    yajl_val v = member(obj, name);
    return YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : "";
}

/* The step the metadata gives, and the name it is under. A fractional
 * epoch_num (DLRM evaluates every 0.05 epoch) is an epoch, not a step:
 * *step is then NO_STEP and the record has its epoch only. */
#define NO_STEP INT64_MIN
static const char *event_counter(yajl_val meta, int64_t *step)
{
    for (int k = 0; counter_keys[k]; k++) {
        yajl_val v = member(meta, counter_keys[k]);
        if (!YAJL_IS_NUMBER(v))
            continue;
        if (pdb_steplog_to_int(YAJL_GET_DOUBLE(v), step))
            return counter_keys[k];
        if (strcmp(counter_keys[k], "epoch_num") == 0) {
            *step = NO_STEP;
            return counter_keys[k];
        }
    }
    return NULL;
}

/* Starts a record unless the open one has this step, counter and split. */
static void event_record(pdb_steplog *w, mllog_state *s, const char *counter, int64_t step,
                         const char *split, double time_ms, yajl_val meta)
{
    /* the counter's name may change within a step (NeMo's tracked_stats give
     * "step", its block_stop "samples_count", of one value) */
    if (s->open && (s->open_counter != NULL) == (counter != NULL) && s->open_split == split &&
        (!counter || s->open_step == step))
        return;
    pdb_steplog_record(w, w->flavor, w->lineno);
    s->open = true;
    s->open_counter = counter;
    s->open_step = step;
    s->open_split = split;
    if (counter && step != NO_STEP) {
        w->has_step = true;
        w->step = step;
        pdb_steplog_saw_counter_named(w, "metadata \"%.*s\"", counter, strlen(counter));
    }
    yajl_val ep = member(meta, "epoch_num");
    if (YAJL_IS_NUMBER(ep)) {
        w->has_epoch = true;
        w->epoch = YAJL_GET_DOUBLE(ep);
    }
    if (isfinite(time_ms) && time_ms > 1e11) {
        w->has_wall = true;
        w->wall = time_ms / 1000;
    }
    if (strcmp(split, "train") != 0) {
        w->split = split;
        w->is_step = false;
        w->kind = strcmp(split, "val") == 0 ? "eval" : "summary";
    }
}

static bool is_setting(const char *key)
{
    return strcmp(key, "global_batch_size") == 0 || strncmp(key, "opt_", 4) == 0 ||
           strcmp(key, "seed") == 0 || strncmp(key, "gradient_accumulation", 21) == 0 ||
           strncmp(key, "max_", 4) == 0 || strncmp(key, "train_samples", 13) == 0 ||
           strncmp(key, "eval_samples", 12) == 0;
}

/* A numeric value of a POINT_IN_TIME event (an object's numeric members
 * as KEY/MEMBER). */
static int point_value(pdb_steplog *w, const char *key, yajl_val v)
{
    if (YAJL_IS_NUMBER(v))
        return pdb_steplog_value(w, key, strlen(key), YAJL_GET_DOUBLE(v), NULL, "point", 0);
    if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
        pdb_skip(w->src, "boolean value (cache_clear and the like)");
        return PDB_OK;
    }
    if (!YAJL_IS_OBJECT(v)) {
        pdb_skip(w->src, YAJL_IS_STRING(v) ? "string value (submission_* and the like)"
                                           : "event without a number");
        return PDB_OK;
    }
    pdb_buf name = PDB_BUF_INIT;
    int rc = PDB_OK;
    for (size_t i = 0; i < v->u.object.len && rc == PDB_OK; i++) {
        yajl_val m = v->u.object.values[i];
        if (!YAJL_IS_NUMBER(m))
            continue;
        pdb_buf_reset(&name);
        pdb_buf_addf(&name, "%s/%s", key, v->u.object.keys[i]);
        rc = pdb_steplog_value(w, pdb_buf_str(&name), name.len, YAJL_GET_DOUBLE(m), NULL,
                               "point", 0);
    }
    pdb_buf_free(&name);
    return rc;
}

static int point_event(pdb_steplog *w, mllog_state *s, const char *key, yajl_val v,
                       yajl_val meta, double time_ms)
{
    int64_t step = 0;
    const char *counter = event_counter(meta, &step);
    bool numeric = YAJL_IS_NUMBER(v) || YAJL_IS_OBJECT(v);
    if (numeric && (is_setting(key) || !counter)) {
        /* a setting, or a value of no step: once, in the run's summary */
        int64_t seen;
        if (pdb_strmap_get(s->settings, key, strlen(key), &seen)) {
            pdb_skip(w->src, "setting repeated");
            return PDB_OK;
        }
        if (s->nsettings >= MLLOG_MAX_SETTINGS) {
            /* a bounded set of names: a log of ever new keys is not a run's settings */
            pdb_skip(w->src, "setting past the first 4096 names");
            return PDB_OK;
        }
        s->nsettings++;
        pdb_strmap_put(s->settings, key, strlen(key), 1);
        event_record(w, s, NULL, 0, "summary", time_ms, NULL);
        return point_value(w, key, v);
    }
    if (numeric)
        event_record(w, s, counter, step, strncmp(key, "eval_", 5) == 0 ? "val" : "train",
                     time_ms, meta);
    return point_value(w, key, v);
}

static int interval_of(const char *key, bool *start)
{
    static const char *const names[] = {"run", "init", "epoch", "block"};
    for (int k = 0; k < 4; k++) {
        size_t nl = strlen(names[k]);
        if (strncmp(key, names[k], nl) != 0)
            continue;
        if (strcmp(key + nl, "_start") == 0 || strcmp(key + nl, "_stop") == 0) {
            *start = key[nl + 3] == 'a';
            return k;
        }
    }
    return -1;
}

/* An epoch's or block's duration at the stop event's step; the run's and
 * initialisation's in the summary. */
static int interval_event(pdb_steplog *w, mllog_state *s, const char *key, yajl_val meta,
                          double time_ms)
{
    bool start;
    int iv = interval_of(key, &start);
    if (iv < 0 || !isfinite(time_ms)) {
        pdb_skip(w->src, "interval of no duration stored (eval_start, ...)");
        return PDB_OK;
    }
    if (start) {
        s->start_ms[iv] = time_ms;
        return PDB_OK;
    }
    double secs = (time_ms - s->start_ms[iv]) / 1000;
    s->start_ms[iv] = NAN;
    if (!isfinite(secs) || secs < 0) {
        pdb_skip(w->src, "interval stop without its start");
        return PDB_OK;
    }
    if (iv == IV_RUN || iv == IV_INIT) {
        event_record(w, s, NULL, 0, "summary", time_ms, NULL);
        const char *name = iv == IV_RUN ? "time_to_train" : "init_time";
        return pdb_steplog_value(w, name, strlen(name), secs, "s", "point", 0);
    }
    s->saw_epoch_stop |= iv == IV_EPOCH;
    int64_t step;
    const char *counter = event_counter(meta, &step);
    if (!counter || (iv == IV_BLOCK && s->saw_epoch_stop)) {
        pdb_skip(w->src, counter ? "block duration (its epochs are timed)"
                                 : "interval without a step");
        return PDB_OK;
    }
    event_record(w, s, counter, step, "train", time_ms, meta);
    s->interval_steps++;
    s->interval_what = iv == IV_EPOCH ? "epoch" : "block";
    const char *name = iv == IV_EPOCH ? "epoch/step_time" : "block/step_time";
    return pdb_steplog_value(w, name, strlen(name), secs, "s", "point", 0);
}

/* Whether the JSON nests deeper than an event does (its value an object of
 * numbers, its metadata flat) by far: yajl's tree is built and freed
 * recursively, so a hostile line must not reach it. */
static bool too_deep(const char *json, size_t jl)
{
    int depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < jl; i++) {
        char c = json[i];
        if (in_str) {
            i += c == '\\';
            in_str = c != '"';
        } else if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            if (++depth > MLLOG_MAX_DEPTH)
                return true;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return false;
}

static int read_event(pdb_steplog *w, mllog_state *s, const char *json, size_t jl)
{
    if (too_deep(json, jl)) {
        pdb_steplog_malformed(w, w->lineno, "an MLLOG line nested deeper than an event");
        return PDB_OK;
    }
    pdb_buf_reset(&s->text);
    pdb_buf_add(&s->text, json, jl);
    char err[128];
    yajl_val ev = yajl_tree_parse(pdb_buf_str(&s->text), err, sizeof err);
    if (!YAJL_IS_OBJECT(ev)) {
        yajl_tree_free(ev);
        pdb_steplog_malformed(w, w->lineno, "an MLLOG line whose JSON does not parse");
        return PDB_OK;
    }
    const char *key = string_of(ev, "key");
    const char *type = string_of(ev, "event_type");
    yajl_val t = member(ev, "time_ms");
    double time_ms = YAJL_IS_NUMBER(t) ? YAJL_GET_DOUBLE(t) : NAN;
    yajl_val meta = member(ev, "metadata");
    int rc = PDB_OK;
    if (strcmp(type, "POINT_IN_TIME") == 0)
        rc = point_event(w, s, key, member(ev, "value"), meta, time_ms);
    else if (strncmp(type, "INTERVAL_", 9) == 0)
        rc = interval_event(w, s, key, meta, time_ms);
    else
        pdb_skip(w->src, "MLLOG event of an unknown type");
    yajl_tree_free(ev);
    return rc;
}

/* When the step is an epoch or a block, the reading says so and warns. */
static void interval_note(pdb_steplog *w, const mllog_state *s)
{
    if (!s->interval_steps)
        return;
    snprintf(w->hf_bar_note, sizeof w->hf_bar_note,
             "%s/step_time is the %s_start..%s_stop time (time_ms)", s->interval_what,
             s->interval_what, s->interval_what);
    snprintf(w->hf_bar_warn, sizeof w->hf_bar_warn,
             "a step time here is one %s's (%lld %s durations), not an optimizer step's",
             s->interval_what, (long long)s->interval_steps, s->interval_what);
}

int pdb_steplog_read_mllog(pdb_steplog *w)
{
    mllog_state s = {.text = PDB_BUF_INIT, .settings = pdb_strmap_new()};
    for (int k = 0; k < 4; k++)
        s.start_ms[k] = NAN;
    const char *line;
    size_t len, jl;
    int r, rc = PDB_OK;
    while (rc == PDB_OK && (r = pdb_steplog_getline(w, &line, &len)) == 1) {
        const char *json = mllog_json(line, len, &jl);
        if (!json) {
            pdb_skip(w->src, "not an MLLOG line (the benchmark's own output)");
            continue;
        }
        bracket_rank(w, line, len);
        rc = read_event(w, &s, json, jl);
    }
    interval_note(w, &s);
    pdb_buf_free(&s.text);
    pdb_strmap_free(s.settings);
    return rc != PDB_OK || r < 0 ? PDB_ERR : PDB_OK;
}
