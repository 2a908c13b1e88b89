/* steplog_writer.c: the row writer of the step-log readers, and the passes
 * that run over a source's values once it is read.
 *
 * Every flavor reader hands its values to pdb_steplog_value(), which maps the
 * raw name to a canonical metric (steplog_metric_rules), infers a unit from
 * the name when the log printed none, and stores the value in its series
 * (steplog_store.c; read back through the view steplog_values). Some meanings
 * only show in the whole series, not in one line: a time column that never
 * decreases and ends near the run's length is a cumulative clock, and a log
 * that prints no step time still times its steps with timestamps.
 * pdb_steplog_finish() works these out with SQL over the values this source
 * stored (the view steplog_points over a chunk_id range, inside the
 * ingest's transaction): no record is held in memory, and each pass is one
 * scan plus a sort. */
#include "ingest/steplog/steplog.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strutil.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_reading.h"
#include "ingest/steplog/steplog_store.h"
#include "ingest/steplog/steplog_units.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pdb_steplog_rule {
    char *pattern;
    char *metric;
    int64_t priority, rowid;
    size_t chars; /* length(pattern) as SQL counts it */
    bool phase;   /* the metric is a phase of a step: a time */
};

/* ---- metric rules ---------------------------------------------------------- */

/* Rule order: priority, then the longer (more specific) pattern, then the
 * order of insertion. Sorted here, not by ORDER BY: SQLite's sorter made
 * loading ~130 rules cost more than parsing a small log. */
static int rule_order(const void *a, const void *b)
{
    const pdb_steplog_rule *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->chars != y->chars)
        return x->chars > y->chars ? -1 : 1;
    return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static int load_rules(pdb_steplog *w)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(w->src->db, "steplog_writer.metric_rules", &st) != PDB_OK)
        return PDB_ERR;
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (w->nrules == cap) {
            cap = cap ? cap * 2 : 64;
            w->rules = pdb_xrealloc(w->rules, (size_t)cap * sizeof *w->rules);
        }
        pdb_steplog_rule *r = &w->rules[w->nrules++];
        r->pattern = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
        r->metric = pdb_xstrdup((const char *)sqlite3_column_text(st, 1));
        r->priority = sqlite3_column_int64(st, 2);
        r->rowid = sqlite3_column_int64(st, 3);
        r->phase = sqlite3_column_int(st, 4) != 0;
        r->chars = pdb_utf8_width(r->pattern, strlen(r->pattern));
    }
    int rc = sqlite3_reset(st) == SQLITE_OK ? PDB_OK : pdb_db_fail(w->src->db, "metric rules");
    pdb_db_release(st);
    if (w->nrules > 1)
        qsort(w->rules, (size_t)w->nrules, sizeof *w->rules, rule_order);
    return rc;
}

/* What a raw name resolves to: its canonical metric (first matching rule,
 * else the name lower-cased), the unit its name implies, the split and
 * loader its name says, and the series its last value went to. Resolved
 * once per distinct raw name and cached, since a log repeats the same names;
 * at most MAX_NAMES are cached (then the cache starts again). */
#define MAX_NAMES 16384

struct pdb_steplog_name {
    char *metric;
    const char *unit;  /* implied by the name, or NULL */
    double factor;
    const char *split; /* implied by the name, or NULL */
    char loader[64];   /* implied by the name, or "" */
    int classes;       /* PDB_SL_NAME_* bits, once class_known */
    bool class_known;
    char *raw;         /* the raw name (the map's key, kept for name_at) */
    size_t rawlen;
    /* the series of the last value: index in the store, and its key */
    int series;
    const char *s_kind, *s_split, *s_unit, *s_agg;
    char s_loader[64];
    bool s_has_rank;
    int64_t s_rank;
};

static void forget_names(pdb_steplog *w)
{
    for (int i = 0; i < w->nnames; i++) {
        free(w->names[i].metric);
        free(w->names[i].raw);
    }
    w->nnames = 0;
    memset(w->name_at, 0, sizeof w->name_at);
    memset(w->class_at, 0, sizeof w->class_at);
    pdb_strmap_free(w->rule_cache);
    w->rule_cache = pdb_strmap_new();
}

/* The store forgot its series: so do the names. */
static void forget_series(pdb_steplog *w)
{
    for (int i = 0; i < w->nnames; i++)
        w->names[i].series = -1;
}

static const char *split_from_name(const char *raw, size_t len);
static void loader_from_name(const char *raw, size_t len, char *out, size_t cap);

/* The metric of the first rule (in priority order) whose pattern matches
 * name, or NULL. part: only patterns with a wildcard (name is a part of
 * what the log printed, not all of it). */
static const char *match_rules(const pdb_steplog *w, const char *name, bool part)
{
    /* a phase is a time: "validation loss", "validation accuracy" (Lasagne's
     * tutorial) are no time of the validation phase, whatever *validation*
     * says */
    size_t nl = strlen(name);
    bool not_time = pdb_steplog_name_has_word(name, nl, "loss") ||
                    pdb_steplog_eval_metric(name, nl) || pdb_ends_with_icase(name, nl, "loss");
    for (int r = 0; r < w->nrules; r++)
        if ((!part || strchr(w->rules[r].pattern, '*')) && !(not_time && w->rules[r].phase) &&
            sqlite3_strglob(w->rules[r].pattern, name) == 0)
            return w->rules[r].metric;
    return NULL;
}

static pdb_steplog_name *resolve(pdb_steplog *w, const char *raw, size_t len)
{
    int64_t idx;
    if (pdb_strmap_get(w->rule_cache, raw, len, &idx))
        return &w->names[idx];
    if (w->nnames >= MAX_NAMES)
        forget_names(w);
    char buf[256];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    /* "Time (avg)", a running mean printed beside the value: same metric */
    const char *base = raw;
    size_t baselen = len;
    if (pdb_ends_with_icase(raw, len, " (avg)"))
        baselen = len - 6;
    if (baselen < n)
        n = baselen;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)tolower((unsigned char)raw[i]);
    buf[n] = '\0';
    const char *metric = match_rules(w, buf, false);
    if (!metric) {
        /* "data_time_ms" is "data_time" in milliseconds: its rule is *data_time.
         * Not whole-name rules: "step_ms" is a step's time, not the timer
         * "step" (the optimizer's). */
        size_t stem = pdb_units_name_stem(buf, n);
        char c = buf[stem];
        buf[stem] = '\0';
        metric = stem < n ? match_rules(w, buf, true) : NULL;
        buf[stem] = c;
    }
    if (!metric)
        metric = buf;
    if (w->nnames == w->names_cap) {
        w->names_cap = w->names_cap ? w->names_cap * 2 : 64;
        w->names = pdb_xrealloc(w->names, (size_t)w->names_cap * sizeof *w->names);
    }
    pdb_steplog_name *e = &w->names[w->nnames];
    memset(e, 0, sizeof *e);
    e->metric = pdb_xstrdup(metric);
    e->factor = 1;
    e->unit = pdb_units_from_name(base, baselen, &e->factor);
    e->split = split_from_name(raw, len);
    loader_from_name(raw, len, e->loader, sizeof e->loader);
    e->series = -1;
    e->raw = pdb_xstrndup(raw, len);
    e->rawlen = len;
    pdb_strmap_put(w->rule_cache, raw, len, w->nnames);
    return &w->names[w->nnames++];
}

/* "val_loss", "eval_runtime", "profile/val/..." -> "val"; "train_loss" -> "train".
 * The boosting libraries name both sets' metrics on one line: XGBoost's
 * "train-rmse" and "eval-rmse"/"test-error", CatBoost's "learn" and "test". */
static const char *split_from_name(const char *raw, size_t len)
{
    static const char *const val[] = {"val_", "val/", "eval_", "eval/", "valid_", "validation/",
                                      "test_", "test/", "val ", "eval ", "profile/val/", "val-",
                                      "eval-", "valid-", "test-", NULL};
    static const char *const train[] = {"train_", "train/", "profile/train/", "train-", NULL};
    for (int i = 0; val[i]; i++)
        if (pdb_skip_prefix_icase(raw, len, val[i], NULL, NULL))
            return "val";
    if (pdb_mem_is(raw, len, "test"))
        return "val";
    /* "validation loss", "validation accuracy" (Lasagne); not "validation
     * time", a phase of the training step */
    if ((pdb_skip_prefix_icase(raw, len, "validation ", NULL, NULL) ||
         pdb_skip_prefix_icase(raw, len, "validation_", NULL, NULL)) &&
        (pdb_steplog_name_has_word(raw, len, "loss") || pdb_steplog_eval_metric(raw, len)))
        return "val";
    for (int i = 0; train[i]; i++)
        if (pdb_skip_prefix_mem(raw, len, train[i], NULL, NULL))
            return "train";
    if (pdb_mem_is(raw, len, "learn"))
        return "train";
    return NULL;
}

/* The generic trainer names its loaders in the metric: ".../dl_NAME/...". */
static void loader_from_name(const char *raw, size_t len, char *out, size_t cap)
{
    out[0] = '\0';
    const char *p = pdb_steplog_find(raw, len, "/dl_");
    size_t left;
    if (!p || !pdb_skip_prefix_mem(p, (size_t)(raw + len - p), "/dl_", &p, &left))
        return;
    size_t n = 0;
    while (p + n < raw + len && p[n] != '/' && n + 1 < cap)
        n++;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* The name at position `at` of a record (-1: unknown), or `raw`: the one at
 * that position last time when it is the same, else from the map. A log
 * prints its names in the same order on every line. */
static pdb_steplog_name *resolve_at(pdb_steplog *w, int *cache, int64_t at, const char *raw,
                                    size_t rawlen)
{
    if (at >= 0 && at < PDB_SL_NAME_AT && cache[at] > 0) {
        pdb_steplog_name *e = &w->names[cache[at] - 1];
        if (e->rawlen == rawlen && memcmp(e->raw, raw, rawlen) == 0)
            return e;
    }
    pdb_steplog_name *e = resolve(w, raw, rawlen);
    if (at >= 0 && at < PDB_SL_NAME_AT)
        cache[at] = (int)(e - w->names) + 1;
    return e;
}

int pdb_steplog_name_class(pdb_steplog *w, const char *name, size_t len, int at)
{
    pdb_steplog_name *e = resolve_at(w, w->class_at, at, name, len);
    if (!e->class_known) {
        bool val = pdb_steplog_val_name(name, len), train = pdb_steplog_train_key(name, len);
        e->classes = (val ? PDB_SL_NAME_VAL : 0) | (!val && train ? PDB_SL_NAME_TRAIN : 0) |
                     (train ? PDB_SL_NAME_TRAIN_KEY : 0) |
                     (pdb_steplog_eval_metric(name, len) ? PDB_SL_NAME_EVAL : 0) |
                     (strcmp(e->metric, "step_time") == 0 ? PDB_SL_NAME_STEP_TIME : 0) |
                     (pdb_steplog_time_name(name, len) ? PDB_SL_NAME_TIME : 0);
        e->class_known = true;
    }
    return e->classes;
}

void pdb_steplog_record(pdb_steplog *w, const char *kind, int64_t line)
{
    w->record++;
    w->line = line;
    w->kind = kind;
    w->has_step = w->has_epoch = w->has_wall = false;
    /* a launcher's prefix ("[default3]:", srun's "3: ") names the rank
     * unless the trainer's own text does */
    w->has_rank = pdb_steplog_launcher_rank(w);
    w->loader[0] = '\0';
    w->split = NULL;
    w->is_step = true;
    w->pos = 0;
}

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Whether the last series of a name has this key (the name fixes metric
 * and raw name). Kinds, splits, units and aggs are strings that outlive the
 * writer (literals, the flavor's name, kinds interned by derive()), so the
 * same pointer is the same text; different pointers are compared. */
static bool same_series(const pdb_steplog_name *e, const pdb_sl_key *k)
{
    return e->series >= 0 && same_str(e->s_kind, k->kind) && same_str(e->s_split, k->split) &&
           same_str(e->s_unit, k->unit) && same_str(e->s_agg, k->agg) &&
           e->s_has_rank == k->has_rank && (!k->has_rank || e->s_rank == k->rank) &&
           strcmp(e->s_loader, k->loader) == 0;
}

/* The store index of the series for key k of name e. */
static int series_of(pdb_steplog *w, pdb_steplog_name *e, const pdb_sl_key *k, int *series)
{
    if (same_series(e, k)) {
        *series = e->series;
        return PDB_OK;
    }
    if (pdb_sl_full(w->store)) {
        if (pdb_sl_forget(w->store) != PDB_OK)
            return PDB_ERR;
        forget_series(w);
    }
    if (pdb_sl_series(w->store, k, series) != PDB_OK)
        return PDB_ERR;
    e->series = *series;
    e->s_kind = k->kind;
    e->s_split = k->split;
    e->s_unit = k->unit;
    e->s_agg = k->agg;
    e->s_has_rank = k->has_rank;
    e->s_rank = k->rank;
    snprintf(e->s_loader, sizeof e->s_loader, "%s", k->loader);
    return PDB_OK;
}

/* ---- step times from timestamps ---------------------------------------------- */

/* Step times from timestamps, for logs that print none (OLMo's text log,
 * wandb histories): the time between consecutive step records (not epoch
 * summaries: their deltas are epochs, not steps) of the same
 * kind, rank and loader over the steps between them. Exact over each
 * window, however coarse the clock; records with the same timestamp give
 * nothing. A record counts with its first training value (by line, then
 * order) whose context has a step and a timestamp, and the time is stored
 * in that value's context as 'timestamp delta', agg 'derived'. It is worked
 * out while reading, in record order, as values with agg TENTATIVE (no
 * reader uses it, and aggs never come from log text); pdb_steplog_finish()
 * makes them 'derived', or deletes them when the source turns out to time
 * its steps (a step_time, perhaps derived from a clock). Reading every value
 * again after the file instead cost ~4 us a value. At most MAX_TS_GROUPS
 * (kind, rank, loader) groups are followed; beyond that they start afresh. */
#define MAX_TS_GROUPS 65536
#define TENTATIVE "tentative"

struct ts_last {
    int64_t step;
    double wall;
};
typedef struct ts_last ts_last;

static int timestamp_delta(pdb_steplog *w, const pdb_sl_key *k, int64_t ctx)
{
    pdb_buf *key = &w->ts_key;
    pdb_buf_reset(key);
    pdb_buf_addf(key, "%s%c%lld%c%s", k->kind, 0, k->has_rank ? (long long)k->rank : -1LL,
                 k->has_rank ? 1 : 0, k->loader);
    int64_t i;
    bool seen = pdb_strmap_get(w->ts_groups, key->p, key->len, &i);
    if (!seen) {
        if (w->nts >= MAX_TS_GROUPS) {
            pdb_strmap_free(w->ts_groups);
            w->ts_groups = pdb_strmap_new();
            w->nts = 0;
        }
        i = w->nts++;
        w->ts_last = pdb_xrealloc(w->ts_last, (size_t)w->nts * sizeof *w->ts_last);
        pdb_strmap_put(w->ts_groups, key->p, key->len, i);
    }
    ts_last *last = &w->ts_last[i];
    int64_t ds = seen ? w->step - last->step : 0;
    double dw = seen ? w->wall - last->wall : 0;
    /* an evaluation between the two records: the steps ran after it ended
     * (the HF Trainer evaluates at a logging step; its "{'eval_loss': ...}"
     * line is printed when the evaluation is over) */
    if (seen && w->has_eval_wall && w->eval_wall > last->wall && w->eval_wall < w->wall)
        dw = w->wall - w->eval_wall;
    last->step = w->step;
    last->wall = w->wall;
    if (!(ds > 0 && dw > 0))
        return PDB_OK;
    /* a derived value of this record: the reader's record state is kept */
    const char *kind = w->kind, *split = w->split;
    char loader[sizeof w->loader];
    memcpy(loader, w->loader, sizeof loader);
    bool is_step = w->is_step, has_rank = w->has_rank;
    int64_t rank = w->rank;
    w->kind = k->kind;
    w->split = NULL;
    snprintf(w->loader, sizeof w->loader, "%s", k->loader);
    w->has_rank = k->has_rank;
    w->rank = k->rank;
    w->is_step = false;
    w->derived = true;
    w->derived_ctx = ctx;
    w->derived_pos = (int64_t)2 << 20;
    int rc = pdb_steplog_value(w, "timestamp delta", 15, dw / (double)ds, PDB_UNIT_SECONDS,
                               TENTATIVE, ds);
    w->derived = false;
    w->kind = kind;
    w->split = split;
    memcpy(w->loader, loader, sizeof loader);
    w->is_step = is_step;
    w->has_rank = has_rank;
    w->rank = rank;
    w->ts_values++;
    return rc;
}

int pdb_steplog_value(pdb_steplog *w, const char *raw, size_t rawlen, double value,
                      const char *unit, const char *agg, int64_t window)
{
    pdb_steplog_name *name = resolve_at(w, w->name_at, w->derived ? -1 : w->pos, raw, rawlen);
    if (!unit) {
        unit = name->unit ? name->unit : "";
        value *= name->factor;
    }
    pdb_sl_key k = {
        .kind = w->kind, .loader = name->loader[0] ? name->loader : w->loader,
        .split = w->split ? w->split : name->split, .metric = name->metric, .unit = unit,
        .agg = agg, .raw = raw, .rawlen = rawlen, .has_rank = w->has_rank, .rank = w->rank,
    };
    int64_t ctx = w->derived_ctx, pos = w->derived_pos;
    if (!w->derived) {
        pdb_sl_ctx c = {.record = w->record, .line = w->line, .has_step = w->has_step,
                        .step = w->step, .has_epoch = w->has_epoch, .epoch = w->epoch,
                        .has_wall = w->has_wall, .wall = w->wall};
        if (pdb_sl_context(w->store, &c, &ctx) != PDB_OK)
            return PDB_ERR;
        pos = w->pos++;
    }
    int series;
    if (series_of(w, name, &k, &series) != PDB_OK ||
        pdb_sl_add(w->store, series, ctx, pos, window, value, !w->derived) != PDB_OK)
        return PDB_ERR;
    if (w->is_step && w->counted_record != w->record) {
        w->counted_record = w->record;
        w->step_records++;
        w->bar_records += k.split && strcmp(k.split, "progress") == 0;
    }
    if (!w->derived)
        pdb_sl_reading_value(w, k.split, raw, rawlen);
    w->src->records++;
    pdb_progress(w->src, w->src->records);
    if (!w->derived && !w->is_step && w->has_wall && isfinite(w->wall) && k.split &&
        strcmp(k.split, "val") == 0) {
        w->has_eval_wall = true;
        w->eval_wall = w->wall;
    }
    if (!w->derived && w->is_step && w->has_step && w->has_wall && isfinite(w->wall) &&
        w->ts_record != w->record && (!k.split || strcmp(k.split, "train") == 0)) {
        w->ts_record = w->record;
        return timestamp_delta(w, &k, ctx);
    }
    return PDB_OK;
}

int pdb_steplog_text_value(pdb_steplog *w, const char *raw, size_t rawlen, const char *text,
                           size_t textlen, const char *agg, int64_t window)
{
    double v;
    const char *unit;
    textlen = pdb_steplog_trim(&text, textlen);
    if (textlen >= 2 && (text[0] == '\'' || text[0] == '"') && text[textlen - 1] == text[0]) {
        text++;
        textlen -= 2;
    }
    if (!pdb_units_quantity(text, textlen, &v, &unit))
        return 0;
    if (unit[0] == '\0') {
        /* a bare number: the name may say the unit */
        return pdb_steplog_value(w, raw, rawlen, v, NULL, agg, window) == PDB_OK ? 1 : PDB_ERR;
    }
    return pdb_steplog_value(w, raw, rawlen, v, unit, agg, window) == PDB_OK ? 1 : PDB_ERR;
}

int pdb_steplog_cumulative_time(pdb_steplog *w, const char *raw, size_t rawlen, double secs)
{
    return pdb_steplog_value(w, raw, rawlen, secs, PDB_UNIT_SECONDS, "cumulative", 0);
}

void pdb_steplog_malformed(pdb_steplog *w, int64_t line, const char *what)
{
    w->malformed++;
    pdb_skip(w->src, "malformed record");
    if (w->malformed <= 20)
        pdb_warn("%s:%lld: %s", w->src->path, (long long)line, what);
}

int pdb_steplog_note(pdb_steplog *w, const char *section, const char *text, size_t len)
{
    pdb_rowq *q = pdb_sl_rowq(w->store);
    pdb_rowq_begin(q, w->ins_note, 0);
    pdb_rowq_int(q, w->src->run_id);
    pdb_rowq_int(q, w->src->source_id);
    pdb_rowq_int(q, w->record);
    pdb_rowq_int(q, w->lineno);
    pdb_rowq_text(q, section, strlen(section));
    pdb_rowq_text(q, text, len);
    return pdb_rowq_end(q);
}

int pdb_steplog_block(pdb_steplog *w, const char *title, size_t len, bool has_step,
                      int64_t step)
{
    pdb_rowq *q = pdb_sl_rowq(w->store);
    pdb_rowq_begin(q, w->ins_block, 0);
    pdb_rowq_int(q, w->src->run_id);
    pdb_rowq_int(q, w->src->source_id);
    pdb_rowq_int(q, w->record);
    pdb_rowq_int(q, w->line);
    pdb_rowq_text(q, title, len);
    pdb_rowq_int_or_null(q, has_step, step);
    return pdb_rowq_end(q);
}

/* ---- opening and closing ---------------------------------------------------- */

int pdb_steplog_open(pdb_steplog *w)
{
    sqlite3 *db = w->src->db;
    if (pdb_ingest_prepare(db, "steplog_writer.add_note", &w->ins_note) != PDB_OK ||
        pdb_ingest_prepare(db, "steplog_writer.add_block", &w->ins_block) != PDB_OK)
        return PDB_ERR;
    w->store = pdb_sl_open(w->src);
    if (!w->store)
        return PDB_ERR;
    w->rule_cache = pdb_strmap_new();
    w->ts_groups = pdb_strmap_new();
    w->ts_record = -1;
    return load_rules(w);
}

void pdb_steplog_close(pdb_steplog *w)
{
    pdb_sl_close(w->store);
    pdb_buf_free(&w->ds_held.text);
    pdb_db_release(w->ins_note);
    pdb_db_release(w->ins_block);
    for (int r = 0; r < w->nrules; r++) {
        free(w->rules[r].pattern);
        free(w->rules[r].metric);
    }
    free(w->rules);
    for (int i = 0; i < w->nnames; i++) {
        free(w->names[i].metric);
        free(w->names[i].raw);
    }
    free(w->names);
    if (w->rule_cache)
        pdb_strmap_free(w->rule_cache);
    if (w->ts_groups)
        pdb_strmap_free(w->ts_groups);
    free(w->ts_last);
    pdb_buf_free(&w->ts_key);
    for (int i = 0; i < w->ninterned; i++)
        free(w->interned_strs[i]);
    free(w->interned_strs);
    if (w->interned)
        pdb_strmap_free(w->interned);
}

/* ---- post-passes over the source's values -------------------------------------- */

/* The passes are steplog_writer.sql's: detect_cumulative (a time column
 * that is a clock since the start of training), first_window (the window
 * of an interval log's first record), derive_cumulative (per-step times
 * from those clocks), then the tentative step times from timestamps kept
 * or dropped. */

/* Prepares pass name (steplog_writer.sql) with ?1 (the source) and
 * :tentative bound, after writing every open chunk. */
static int prepare_pass(pdb_steplog *w, const char *name, sqlite3_stmt **st)
{
    if (pdb_sl_flush(w->store) != PDB_OK || pdb_ingest_prepare(w->src->db, name, st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(*st, 1, w->src->source_id);
    int tentative = sqlite3_bind_parameter_index(*st, ":tentative");
    if (tentative)
        sqlite3_bind_text(*st, tentative, TENTATIVE, -1, SQLITE_STATIC);
    return PDB_OK;
}

/* Runs a pass that returns no rows. */
static int run_pass(pdb_steplog *w, const char *name)
{
    sqlite3_stmt *st;
    if (prepare_pass(w, name, &st) != PDB_OK)
        return PDB_ERR;
    int rc = pdb_db_step_done(w->src->db, st);
    pdb_db_release(st);
    return rc;
}

/* Sets the windows first_window finds. Its rows are sorted before the
 * first is returned, so the rewrites do not feed back into it, and a chunk
 * holds at most one of them (the first value of its series). */
static int set_first_windows(pdb_steplog *w)
{
    sqlite3_stmt *st;
    if (prepare_pass(w, "steplog_writer.first_window", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK, r;
    while (rc == PDB_OK && (r = sqlite3_step(st)) == SQLITE_ROW)
        rc = pdb_sl_set_window(w->store, sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1),
                               sqlite3_column_int64(st, 2));
    if (rc == PDB_OK && r != SQLITE_DONE)
        rc = pdb_db_fail(w->src->db, "step log window pass");
    pdb_db_release(st);
    return rc;
}

/* A kind or split read back from the database, as a string that outlives
 * the writer (see same_series). */
static const char *intern(pdb_steplog *w, const unsigned char *text)
{
    if (!text)
        return NULL;
    size_t n = strlen((const char *)text);
    int64_t i;
    if (!w->interned)
        w->interned = pdb_strmap_new();
    if (pdb_strmap_get(w->interned, (const char *)text, n, &i))
        return w->interned_strs[i];
    w->interned_strs = pdb_xrealloc(w->interned_strs,
                                    (size_t)(w->ninterned + 1) * sizeof *w->interned_strs);
    w->interned_strs[w->ninterned] = pdb_xstrdup((const char *)text);
    pdb_strmap_put(w->interned, (const char *)text, n, w->ninterned);
    return w->interned_strs[w->ninterned++];
}

/* Runs a derivation query and stores each row it returns as a derived value
 * of the row's record and context. Columns: record, ctx_id, kind, rank,
 * loader, split, raw name (or the clock it comes from), pick, value, window.
 * The query's rows are sorted before the first one is returned, so the
 * values stored do not feed back into it. Derived values come after the
 * logged ones in their record: pass p gives positions from p * 2^20, in
 * the order of the rows. */
static int derive(pdb_steplog *w, const char *query, int pass,
                  void (*name_of)(sqlite3_stmt *st, char *out, size_t cap))
{
    sqlite3_stmt *st;
    if (prepare_pass(w, query, &st) != PDB_OK)
        return PDB_ERR;
    char loader[sizeof w->loader], name[200];
    int rc = PDB_OK, r;
    int64_t last_record = -1, k = 0;
    w->derived = true;
    while (rc == PDB_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t record = sqlite3_column_int64(st, 0);
        k = record == last_record ? k + 1 : 0;
        last_record = record;
        w->record = record;
        w->derived_ctx = sqlite3_column_int64(st, 1);
        w->derived_pos = ((int64_t)pass << 20) + k;
        w->kind = intern(w, sqlite3_column_text(st, 2));
        w->has_rank = sqlite3_column_type(st, 3) != SQLITE_NULL;
        w->rank = sqlite3_column_int64(st, 3);
        const unsigned char *ld = sqlite3_column_text(st, 4);
        snprintf(loader, sizeof loader, "%s", ld ? (const char *)ld : "");
        snprintf(w->loader, sizeof w->loader, "%s", loader);
        w->split = intern(w, sqlite3_column_text(st, 5));
        w->is_step = false; /* derived values do not make a file a step log */
        name_of(st, name, sizeof name);
        rc = pdb_steplog_value(w, name, strlen(name), sqlite3_column_double(st, 8),
                               PDB_UNIT_SECONDS, "derived", sqlite3_column_int64(st, 9));
    }
    w->derived = false;
    if (rc == PDB_OK && r != SQLITE_DONE)
        rc = pdb_db_fail(w->src->db, "step time derivation");
    pdb_db_release(st);
    return rc;
}

static void cumulative_name(sqlite3_stmt *st, char *out, size_t cap)
{
    const char *rn = (const char *)sqlite3_column_text(st, 6);
    if (sqlite3_column_int64(st, 7) == 1)
        snprintf(out, cap, "delta %.150s", rn);
    else
        snprintf(out, cap, "%.150s per step", rn);
}

/* HF Trainer stdout without "Total optimization steps": its bars were kept
 * apart (steplog_text.c, other_bar). The training loop's bar has a total of
 * num_train_epochs x the steps per epoch, which the last training dict's step
 * / epoch gives (the epoch printed to 2 decimals, so a range); the one bar
 * whose total falls in that range times the steps. No such bar, or several:
 * no bar does, and the reading says why (an evaluation or datasets.map bar is
 * never taken for the training loop's). */
static int hf_training_bar(pdb_steplog *w)
{
    if (w->hf_max_steps > 0 || w->hf_bars == 0 || w->bar_steps)
        return PDB_OK; /* (a Lightning log's note stays; its bars counted the steps) */
    w->hf_bar_note[0] = w->hf_bar_warn[0] = '\0';
    sqlite3_stmt *st;
    if (prepare_pass(w, "steplog_writer.hf_epoch_evidence", &st) != PDB_OK)
        return PDB_ERR;
    int r = sqlite3_step(st);
    bool have = r == SQLITE_ROW;
    int64_t step = have ? sqlite3_column_int64(st, 0) : 0;
    double epoch = have ? sqlite3_column_double(st, 1) : 0;
    pdb_db_release(st);
    if (!have && r != SQLITE_DONE)
        return pdb_db_fail(w->src->db, "step log bar pass");
    char totals[128] = "";
    for (int k = 0, n = 0; k < w->hf_bars && n < (int)sizeof totals - 1; k++)
        n += snprintf(totals + n, sizeof totals - (size_t)n, "%s%lld", k ? ", " : "",
                      (long long)w->hf_bar_totals[k]);
    if (!have || w->hf_epochs <= 0 || epoch <= 0.005) {
        snprintf(w->hf_bar_warn, sizeof w->hf_bar_warn,
                 "progress bars of totals %s, none known as the training loop's (%s): their "
                 "rates are not step times; a log that prints 'Total optimization steps' names it",
                 totals, !have ? "no Trainer dict with a step and an epoch"
                                : "num_train_epochs not printed");
        return PDB_OK;
    }
    /* epoch e is printed rounded to 2 decimals: steps per epoch in [lo, hi] */
    double lo = (double)w->hf_epochs * (double)step / (epoch + 0.005) * 0.99;
    double hi = (double)w->hf_epochs * (double)step / (epoch - 0.005) * 1.01;
    int found = -1, matches = 0;
    for (int k = 0; k < w->hf_bars; k++)
        if ((double)w->hf_bar_totals[k] >= lo && (double)w->hf_bar_totals[k] <= hi) {
            found = k;
            matches++;
        }
    if (matches != 1) {
        snprintf(w->hf_bar_warn, sizeof w->hf_bar_warn,
                 "progress bars of totals %s: %s in %.0f to %.0f (%lld epochs x step %lld / "
                 "epoch %.2f): their rates are not step times",
                 totals, matches ? "several" : "none", lo, hi, (long long)w->hf_epochs,
                 (long long)step, epoch);
        return PDB_OK;
    }
    char loader[sizeof w->loader];
    snprintf(loader, sizeof loader, "bar of %lld", (long long)w->hf_bar_totals[found]);
    if (prepare_pass(w, "steplog_writer.hf_train_bar", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 2, loader, -1, SQLITE_TRANSIENT);
    int rc = pdb_db_step_done(w->src->db, st);
    pdb_db_release(st);
    snprintf(w->hf_bar_note, sizeof w->hf_bar_note,
             "from the bar N/%lld, the training loop's (%lld epochs x step %lld / epoch "
             "%.2f; other bars are not step times)",
             (long long)w->hf_bar_totals[found], (long long)w->hf_epochs, (long long)step, epoch);
    return rc;
}

int pdb_steplog_finish(pdb_steplog *w)
{
    sqlite3 *db = w->src->db;
    sqlite3_stmt *st;
    int rc = pdb_sl_end_reading(w->store);
    if (rc == PDB_OK)
        rc = pdb_sl_summarise(w->store);
    if (rc == PDB_OK)
        rc = set_first_windows(w);
    if (rc == PDB_OK)
        rc = run_pass(w, "steplog_writer.detect_cumulative");
    if (rc == PDB_OK)
        rc = hf_training_bar(w);
    /* series rows changed under the cache */
    if (rc != PDB_OK || pdb_sl_forget(w->store) != PDB_OK)
        return PDB_ERR;
    forget_series(w);
    if (derive(w, "steplog_writer.derive_cumulative", 1, cumulative_name) != PDB_OK ||
        pdb_sl_flush(w->store) != PDB_OK)
        return PDB_ERR;
    /* a clock that times a part of the step does not time the steps */
    if (w->ts_values > 0 && run_pass(w, "steplog_writer.clock_part") != PDB_OK)
        return PDB_ERR;
    /* the tentative step times from timestamps stay only when nothing else
     * times the steps */
    int64_t timed;
    if (prepare_pass(w, "steplog_writer.steps_timed", &st) != PDB_OK)
        return PDB_ERR;
    rc = sqlite3_step(st);
    timed = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    rc = rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "step time check");
    pdb_db_release(st);
    if (rc == PDB_OK && !timed)
        rc = run_pass(w, "steplog_writer.keep_tentative");
    if (rc == PDB_OK && timed && w->ts_values > 0) {
        rc = run_pass(w, "steplog_writer.drop_tentative_chunks");
        if (rc == PDB_OK)
            rc = run_pass(w, "steplog_writer.drop_tentative_series");
        w->src->records -= w->ts_values;
    }
    return rc;
}
