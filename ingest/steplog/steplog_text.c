/* steplog_text.c: line-oriented text step logs.
 *
 * One loop serves every text flavor: it removes ANSI escapes, splits tqdm's
 * carriage-return updates into segments and offers each segment to the line
 * handlers (summary blocks, Megatron, DeepSpeed, nanoGPT, torchtitan, HF
 * Trainer dicts and progress bars, generic `key: value` lines). Output of
 * several tools is often interleaved in one log, so all handlers are tried;
 * only the loose `key: value` handler is limited to the flavors that print
 * such lines. Lines no handler claims are counted as skipped. */
#include "ingest/steplog/steplog.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Copies s without ANSI CSI escapes (ESC [ ... final byte) and other ESCs. */
/* Control characters printed visibly: rsyslog (and so CloudWatch and the
 * SageMaker training logs it keeps) writes a tab as "#011" ("Batch
 * [5]#011Speed: 207.89 samples/sec"), `cat -v` a carriage return as "^M"
 * (tqdm's updates: "^MSteps:   2%|...| 2/100 [00:26<21:13, 12.99s/it]^MSteps:
 * ..."). They become the characters again, in place. */
static void visible_controls(pdb_buf *b)
{
    char *p = b->len >= 2 ? memchr(b->p, '#', b->len) : NULL;
    char *q = b->len >= 2 ? memchr(b->p, '^', b->len) : NULL;
    if (!p || (q && q < p))
        p = q;
    if (!p)
        return;
    size_t o = (size_t)(p - b->p);
    for (size_t i = o; i < b->len; i++) {
        if (b->p[i] == '#' && i + 3 < b->len && memcmp(b->p + i + 1, "011", 3) == 0) {
            b->p[o++] = '\t';
            i += 3;
        } else if (b->p[i] == '^' && i + 1 < b->len && b->p[i + 1] == 'M') {
            b->p[o++] = '\r';
            i += 1;
        } else {
            b->p[o++] = b->p[i];
        }
    }
    b->len = o;
    b->p[o] = '\0';
}

static void strip_ansi(const char *s, size_t len, pdb_buf *out)
{
    pdb_buf_reset(out);
    for (size_t i = 0; i < len; i++) {
        const char *esc = memchr(s + i, '\033', len - i);
        size_t plain = esc ? (size_t)(esc - (s + i)) : len - i;
        pdb_buf_add(out, s + i, plain); /* the text up to the next escape, in one copy */
        i += plain;
        if (i == len)
            break;
        if (s[i] == '\033') {
            if (i + 1 < len && s[i + 1] == '[') {
                i += 2;
                while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    i++;
            } else
                i++;
            continue;
        }
        pdb_buf_addc(out, s[i]);
    }
    visible_controls(out);
}

/* Finds a "YYYY-MM-DD HH:MM:SS" timestamp in the first part of a line, or
 * "MM/DD/YYYY HH:MM:SS" (the HF examples' logging datefmt, "01/18/2021
 * 14:15:18 - INFO - transformers.trainer - {'loss': ...}"). */
static bool line_timestamp(const char *s, size_t len, double *out)
{
    size_t lim = len < 80 ? len : 80;
    for (size_t i = 0; i + 19 <= lim; i++)
        if (isdigit((unsigned char)s[i]) && (i == 0 || !isdigit((unsigned char)s[i - 1])) &&
            (pdb_steplog_timestamp(s + i, len - i, out) ||
             (s[i + 2] == '/' && s[i + 5] == '/' && pdb_steplog_timestamp_any(s + i, len - i, out))))
            return true;
    return false;
}

/* "[rank3]:" prefixes (torchrun --tee / --local-ranks-filter). */
static bool line_rank(const char *s, size_t len, int64_t *rank)
{
    const char *p = pdb_steplog_after(s, len < 40 ? len : 40, "[rank");
    if (!p)
        return false;
    size_t i = (size_t)(p - s);
    return pdb_steplog_read_int(s, len, &i, rank) && i < len && s[i] == ']';
}

/* ---- nanoGPT ------------------------------------------------------------ */

/* "name value[unit]" parts separated by commas after "iter N:". */
static int comma_fields(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    size_t pos = 0, fl;
    const char *f;
    while (pdb_steplog_next_field(s, len, ',', &pos, &f, &fl)) {
        size_t sp = fl;
        while (sp > 0 && f[sp - 1] != ' ')
            sp--;
        if (sp == 0) {
            pdb_steplog_malformed(w, lineno, "expected 'name value' fields separated by commas");
            return 0;
        }
        size_t nl = sp - 1;
        while (nl > 0 && f[nl - 1] == ' ')
            nl--;
        double v;
        const char *unit;
        if (!pdb_units_quantity(f + sp, fl - sp, &v, &unit)) {
            pdb_skip(w->src, "field value that is not a number");
            continue;
        }
        const char *agg = "point";
        if (pdb_mem_is(f, nl, "mfu")) {
            agg = "moving_avg"; /* nanoGPT smooths MFU with an EMA */
            if (v == -100)
                v = NAN; /* "not computed yet" */
        }
        if (pdb_steplog_value(w, f, nl, v, unit[0] ? unit : NULL, agg, 0) != PDB_OK)
            return PDB_ERR;
    }
    return 1;
}

/* nanoGPT: "iter 5: loss 4.2, time 12.3ms, mfu 3.2%" per step, and the
 * evaluation "step 250: train loss 4.1, val loss 4.2" (not a step record). */
static int nanogpt_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *t = s, *rest;
    size_t tl = pdb_steplog_trim(&t, len), restlen;
    bool eval = pdb_skip_prefix_mem(t, tl, "step ", &rest, &restlen);
    if (!eval && !pdb_skip_prefix_mem(t, tl, "iter ", &rest, &restlen))
        return 0;
    size_t i = 0;
    int64_t step = 0;
    if (!pdb_steplog_read_int(rest, restlen, &i, &step) || i >= restlen || rest[i] != ':' ||
        !pdb_steplog_find(t, tl, "loss"))
        return 0;
    pdb_steplog_record(w, eval ? "eval" : "iter", lineno);
    w->has_step = true;
    w->step = step;
    w->is_step = !eval;
    return comma_fields(w, rest + i + 1, restlen - i - 1, lineno);
}

/* modded-nanogpt: "step:11/1750 train_time:36633ms step_avg:621.73ms". The
 * train_time is cumulative (its differences are exact per-step times, taken
 * in steplog_writer.c between training lines only) and step_avg is its
 * running mean. A line with val_loss is a validation (kind "val", split
 * val): its train_time is read after a synchronisation the step lines skip,
 * so differencing across it would give a step of a few milliseconds. */
static int modded_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *t = s, *rest;
    size_t tl = pdb_steplog_trim(&t, len), restlen;
    if (!pdb_skip_prefix_mem(t, tl, "step:", &rest, &restlen))
        return 0;
    t = rest;
    tl = restlen;
    size_t i = 0;
    int64_t step = 0, total = 0;
    if (!pdb_steplog_read_int(t, tl, &i, &step) || i >= tl || t[i] != '/' || (i++, !pdb_steplog_read_int(t, tl, &i, &total)) ||
        !pdb_steplog_find(t, tl, ":"))
        return 0;
    if (!pdb_steplog_find(t + i, tl - i, "train_time:") && !pdb_steplog_find(t + i, tl - i, "loss:"))
        return 0;
    bool val = pdb_steplog_find(t + i, tl - i, "val_loss:") != NULL;
    pdb_steplog_record(w, val ? "val" : "step", lineno);
    w->has_step = true;
    w->step = step;
    if (val) {
        w->split = "val";
        w->is_step = false;
    }
    while (i < tl) {
        while (i < tl && t[i] == ' ')
            i++;
        size_t ns = i;
        while (i < tl && t[i] != ':' && t[i] != ' ')
            i++;
        if (i >= tl || t[i] != ':') {
            pdb_steplog_malformed(w, lineno, "expected 'name:value' fields after 'step:N/M'");
            return 1;
        }
        size_t nl = i - ns;
        size_t vs = ++i;
        while (i < tl && t[i] != ' ')
            i++;
        double v;
        const char *unit;
        if (!pdb_units_quantity(t + vs, i - vs, &v, &unit)) {
            pdb_skip(w->src, "field value that is not a number");
            continue;
        }
        bool cum = pdb_mem_is(t + ns, nl, "train_time");
        bool avg = pdb_mem_is(t + ns, nl, "step_avg");
        int rc;
        if (cum)
            rc = pdb_steplog_cumulative_time(w, t + ns, nl, v * (unit[0] ? 1 : 1e-3));
        else
            rc = pdb_steplog_value(w, t + ns, nl, v, unit[0] ? unit : NULL,
                                   avg ? "running_mean" : "point", avg ? step : 0);
        if (rc != PDB_OK)
            return PDB_ERR;
    }
    return 1;
}

/* ---- torchtitan ------------------------------------------------------------ */

/* "step:  2  loss: 12.39  memory: 116.16GiB(83.14%)  tps: 5,970  mfu: 30.47%". */
static int torchtitan_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *p = pdb_steplog_find(s, len, "step:");
    if (!p || !pdb_steplog_find(s, len, "loss:") ||
        !(pdb_steplog_find(s, len, "tps:") || pdb_steplog_find(s, len, "mfu:")))
        return 0;
    size_t i = (size_t)(p - s) + 5;
    int64_t step = 0;
    if (!pdb_steplog_read_int(s, len, &i, &step)) {
        pdb_steplog_malformed(w, lineno, "expected 'step: N' before the metrics");
        return 1;
    }
    double wall;
    bool has_wall = line_timestamp(s, (size_t)(p - s), &wall);
    if (has_wall && w->has_tt && wall == w->tt_wall && step == w->tt_step) {
        pdb_skip(w->src, "duplicate step line from another rank");
        return 1;
    }
    pdb_steplog_record(w, "titan", lineno);
    w->has_step = true;
    w->step = step;
    w->has_wall = has_wall;
    w->wall = wall;
    w->has_rank = line_rank(s, len, &w->rank) || pdb_steplog_launcher_rank(w);
    while (i < len) {
        while (i < len && s[i] == ' ')
            i++;
        size_t ns = i;
        while (i < len && s[i] != ':')
            i++;
        if (i >= len)
            break;
        const char *name = s + ns;
        size_t nl = pdb_steplog_trim(&name, i - ns);
        i++;
        while (i < len && s[i] == ' ')
            i++;
        size_t vs = i;
        while (i < len && s[i] != ' ')
            i++;
        const char *val = s + vs;
        size_t vl = i - vs;
        const char *paren = memchr(val, '(', vl);
        if (paren && val[vl - 1] == ')') {
            /* "116.16GiB(83.14%)": two values in one field */
            char pct[64];
            snprintf(pct, sizeof pct, "%.*s_pct", (int)(nl < 50 ? nl : 50), name);
            int r = pdb_steplog_text_value(w, pct, strlen(pct), paren + 1,
                                           (size_t)(val + vl - 1 - paren - 1), "point", 0);
            if (r < 0)
                return PDB_ERR;
            vl = (size_t)(paren - val);
        }
        int r = pdb_steplog_text_value(w, name, nl, val, vl, "point", 0);
        if (r < 0)
            return PDB_ERR;
        if (r == 0)
            pdb_skip(w->src, "field value that is not a number");
    }
    /* No step time is printed: derive it from timestamp deltas, exactly. */
    if (has_wall && w->has_tt && step > w->tt_step) {
        int64_t n = step - w->tt_step;
        if (pdb_steplog_value(w, "timestamp delta", 15, (wall - w->tt_wall) / (double)n,
                              PDB_UNIT_SECONDS, "derived", n) != PDB_OK)
            return PDB_ERR;
    }
    if (has_wall) {
        w->has_tt = true;
        w->tt_wall = wall;
        w->tt_step = step;
    }
    return 1;
}

/* ---- HuggingFace Trainer: printed dicts and tqdm bars ---------------------- */

typedef struct {
    const char *k, *v;
    size_t kl, vl;
} kv_pair;

/* Splits a flat Python dict repr "{'k': v, 'k2': 'v2'}" into pairs. Returns
 * the number of pairs, or -1 when it is not a flat dict of scalars. */
static int split_dict(const char *t, size_t tl, kv_pair *p, int cap)
{
    size_t i = 1;
    int n = 0;
    for (;;) {
        while (i < tl - 1 && (t[i] == ' ' || t[i] == ','))
            i++;
        if (i >= tl - 1)
            return n;
        if (t[i] != '\'' || n == cap)
            return -1;
        size_t ks = ++i;
        while (i < tl - 1 && t[i] != '\'')
            i++;
        if (i >= tl - 1)
            return -1;
        p[n].k = t + ks;
        p[n].kl = i - ks;
        i++;
        while (i < tl - 1 && t[i] == ' ')
            i++;
        if (i >= tl - 1 || t[i] != ':')
            return -1;
        i++;
        while (i < tl - 1 && t[i] == ' ')
            i++;
        size_t vs = i;
        if (i < tl - 1 && t[i] == '\'') {
            for (i++; i < tl - 1 && t[i] != '\''; i++)
                ;
            if (i >= tl - 1)
                return -1;
            i++;
        } else {
            while (i < tl - 1 && t[i] != ',') {
                if (strchr("{}[]()", t[i]))
                    return -1;
                i++;
            }
        }
        p[n].v = t + vs;
        p[n].vl = i - vs;
        n++;
    }
}

/* Keys of the Trainer's log dicts: a printed dict without one is something
 * else (a configuration). */
static bool trainer_key(const char *k, size_t kl)
{
    static const char *const keys[] = {"loss", "learning_rate", "grad_norm", "train_runtime",
                                       "train_loss", NULL};
    for (int i = 0; keys[i]; i++)
        if (pdb_mem_is(k, kl, keys[i]))
            return true;
    return pdb_skip_prefix_mem(k, kl, "eval_", NULL, NULL);
}

/* A Trainer log value: a number, possibly quoted ("'2.602'"), or nan/inf. */
static bool trainer_value(const char *v, size_t vl)
{
    double x;
    const char *u;
    vl = pdb_steplog_trim(&v, vl);
    if (vl >= 2 && (v[0] == '\'' || v[0] == '"') && v[vl - 1] == v[0]) {
        v++;
        vl -= 2;
    }
    return pdb_units_quantity(v, vl, &x, &u);
}

/* {'loss': 4.7047, 'grad_norm': 11.2, 'epoch': 0.0} (Python repr, values may
 * be quoted strings in recent transformers). Training dicts carry no step
 * unless the Trainer adds 'step'; when the log printed logging_steps, a
 * training dict's step is its ordinal times logging_steps. An eval dict
 * (eval_*) is split val, the end-of-training dict (train_runtime, ...) is a
 * summary; neither is a step. A printed dict that is not a Trainer log (a
 * configuration: strings, lists, no Trainer key) is not a record. */
/* Keys of a printed dict that count the steps since the start when it has
 * no 'step': "global_step", ParlAI's "total_train_updates". */
static bool step_total_key(const char *k, size_t kl)
{
    static const char *const keys[] = {"global_step", "total_train_updates", "num_updates",
                                       "total_updates", "train_step", NULL};
    for (int i = 0; keys[i]; i++)
        if (pdb_mem_is(k, kl, keys[i]))
            return true;
    return false;
}

/* ms-swift's Trainer dicts quote every value and add strings of their own:
 * the step as 'global_step/max_steps': '5/60', the clock since the start as
 * 'elapsed_time': '3m 53s' (and an estimate, 'remaining_time'). */
static bool swift_step(const kv_pair *p, int64_t *step)
{
    size_t i = 0;
    return pdb_mem_is(p->k, p->kl, "global_step/max_steps") &&
           pdb_steplog_read_int(p->v, p->vl, &i, step) && i < p->vl && p->v[i] == '/';
}

static bool swift_clock(const kv_pair *p, double *secs)
{
    return (pdb_mem_is(p->k, p->kl, "elapsed_time") || pdb_mem_is(p->k, p->kl, "remaining_time")) &&
           pdb_units_span(p->v, p->vl, secs);
}

static void unquote(kv_pair *p)
{
    p->vl = pdb_steplog_trim(&p->v, p->vl);
    if (p->vl >= 2 && (p->v[0] == '\'' || p->v[0] == '"') && p->v[p->vl - 1] == p->v[0]) {
        p->v++;
        p->vl -= 2;
    }
}

static int hf_dict_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    if (tl < 4 || t[0] != '{' || t[1] != '\'')
        return 0;
    kv_pair p[64];
    int n = t[tl - 1] == '}' ? split_dict(t, tl, p, 64) : -1;
    bool keyed = false, numeric = n > 0;
    for (int k = 0; k < n; k++) {
        int64_t i;
        double x;
        unquote(&p[k]);
        keyed |= trainer_key(p[k].k, p[k].kl);
        numeric &= trainer_value(p[k].v, p[k].vl) || swift_step(&p[k], &i) || swift_clock(&p[k], &x);
    }
    if (n < 0 && (pdb_steplog_find(t, tl, "'loss'") || pdb_steplog_find(t, tl, "'eval_loss'"))) {
        pdb_steplog_malformed(w, lineno, "expected a flat Trainer log dict {'name': value, ...}");
        return 1;
    }
    if (n < 0 || !keyed || !numeric) {
        pdb_skip(w->src, "printed dict that is not a Trainer log");
        return 1;
    }
    pdb_steplog_record(w, "hf-log", lineno);
    w->has_wall = w->has_prefix_wall;
    w->wall = w->prefix_wall;
    bool training = false;
    int step_key = -1;
    for (int k = 0; k < n; k++) {
        double v;
        const char *u;
        if (pdb_mem_is(p[k].k, p[k].kl, "epoch") && pdb_units_quantity(p[k].v, p[k].vl, &v, &u)) {
            w->has_epoch = true;
            w->epoch = v;
        } else if (pdb_mem_is(p[k].k, p[k].kl, "step") &&
                   pdb_units_quantity(p[k].v, p[k].vl, &v, &u)) {
            w->has_step = pdb_steplog_to_int(v, &w->step);
        } else if (!w->has_step && step_total_key(p[k].k, p[k].kl) &&
                   pdb_units_quantity(p[k].v, p[k].vl, &v, &u)) {
            /* ParlAI's report dicts count the updates so far */
            w->has_step = pdb_steplog_to_int(v, &w->step);
            step_key = k;
        } else if (!w->has_step && swift_step(&p[k], &w->step)) {
            w->has_step = true;
            step_key = k;
        } else if (pdb_skip_prefix_mem(p[k].k, p[k].kl, "eval_", NULL, NULL)) {
            w->split = "val";
            w->is_step = false;
        } else if (pdb_mem_is(p[k].k, p[k].kl, "train_runtime")) {
            w->kind = "summary";
            w->split = "summary";
            w->is_step = false;
        } else if (pdb_mem_is(p[k].k, p[k].kl, "loss")) {
            training = true;
        }
    }
    if (training && !w->split) {
        w->split = "train";
        w->hf_train_dicts++;
        if (!w->has_step && w->hf_logging_steps > 0) {
            w->has_step = true;
            w->step = w->hf_train_dicts * w->hf_logging_steps;
        }
    } else if (!w->split) {
        w->is_step = false; /* a dict of other numbers: kept, but not a step */
    }
    for (int k = 0; k < n; k++) {
        if (pdb_mem_is(p[k].k, p[k].kl, "epoch") || pdb_mem_is(p[k].k, p[k].kl, "step") ||
            k == step_key || pdb_mem_is(p[k].k, p[k].kl, "remaining_time"))
            continue;
        double secs;
        int r;
        if (swift_clock(&p[k], &secs))
            r = pdb_steplog_cumulative_time(w, p[k].k, p[k].kl, secs) == PDB_OK ? 1 : -1;
        else if (pdb_skip_prefix_mem(p[k].k, p[k].kl, "train_speed(", NULL, NULL))
            /* ms-swift's speed is elapsed_time over the steps so far */
            r = pdb_steplog_text_value(w, p[k].k, p[k].kl, p[k].v, p[k].vl, "running_mean",
                                       w->has_step ? w->step : 0);
        else
            r = pdb_steplog_text_value(w, p[k].k, p[k].kl, p[k].v, p[k].vl, "point", 0);
        if (r < 0)
            return PDB_ERR;
        if (r == 0)
            pdb_skip(w->src, "field value that is not a number");
    }
    return 1;
}

/* Trainer lines that say how to read the rest: "Total optimization steps =
 * 8264" (the training bar's total) and TrainingArguments' "logging_steps=10".
 * They are not records. */
static void hf_settings(pdb_steplog *w, const char *s, size_t len)
{
    const char *p = pdb_steplog_after(s, len, "Total optimization steps =");
    size_t i;
    if (p) {
        i = (size_t)(p - s);
        pdb_steplog_read_int(s, len, &i, &w->hf_max_steps);
    }
    p = pdb_steplog_after(s, len, "logging_steps=");
    if (p) {
        i = (size_t)(p - s);
        pdb_steplog_read_int(s, len, &i, &w->hf_logging_steps);
    }
    /* the training bar's total is epochs x steps per epoch (steplog_writer.c) */
    p = pdb_steplog_after(s, len, "num_train_epochs=");
    if (!p)
        p = pdb_steplog_after(s, len, "Num Epochs =");
    if (p) {
        i = (size_t)(p - s);
        while (i < len && s[i] == ' ')
            i++;
        pdb_steplog_read_int(s, len, &i, &w->hf_epochs);
    }
}

/* A bar that is not known as the training loop's (evaluation, datasets.map,
 * loading checkpoint shards) is kept apart: split "progress", loader "bar of
 * T", so its rate is no step time unless the pass after the file finds, from
 * the Trainer's dicts, that T is the training loop's total. At most 16 totals
 * are kept apart; more share one loader, which no pass picks. */
static void other_bar(pdb_steplog *w, int64_t total)
{
    int k = 0;
    while (k < w->hf_bars && w->hf_bar_totals[k] != total)
        k++;
    if (k == w->hf_bars && k < (int)(sizeof w->hf_bar_totals / sizeof *w->hf_bar_totals))
        w->hf_bar_totals[w->hf_bars++] = total;
    w->split = "progress";
    if (k < w->hf_bars)
        snprintf(w->loader, sizeof w->loader, "bar of %lld", (long long)total);
    else
        snprintf(w->loader, sizeof w->loader, "bar of other totals");
}

/* A tqdm update "N/T [mm:ss<hh:mm:ss,  7.03s/it]"; bars in other units
 * (examples/s from datasets.map) are counted and skipped. */
static int tqdm_segment(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *br = pdb_steplog_find(s, len, " [");
    while (br) {
        size_t b = (size_t)(br - s);
        size_t k = b;
        while (k > 0 && isdigit((unsigned char)s[k - 1]))
            k--;
        size_t slash = k;
        if (k > 0 && s[k - 1] == '/' && k < b) {
            size_t n0 = k - 1;
            while (n0 > 0 && isdigit((unsigned char)s[n0 - 1]))
                n0--;
            if (n0 < k - 1) {
                const char *end = memchr(s + b, ']', len - b);
                if (!end)
                    return 0;
                int64_t n = 0, total = 0;
                size_t i = n0;
                pdb_steplog_read_int(s, len, &i, &n);
                i = slash;
                pdb_steplog_read_int(s, len, &i, &total);
                const char *inner;
                size_t il;
                pdb_skip_prefix_mem(br, (size_t)(end - br), " [", &inner, &il);
                const char *comma = memchr(inner, ',', il);
                const char *rate = comma ? comma + 1 : inner + il;
                size_t rl = (size_t)(end - rate), numlen = 0;
                rl = pdb_steplog_trim(&rate, rl);
                bool s_it = pdb_skip_suffix_mem(rate, rl, "s/it", &numlen) && numlen > 0;
                bool it_s = !s_it && pdb_skip_suffix_mem(rate, rl, "it/s", &numlen) && numlen > 0;
                if (!s_it && !it_s) {
                    pdb_skip(w->src, "progress bar in other units");
                    return 1;
                }
                pdb_steplog_record(w, "tqdm", lineno);
                w->has_step = true;
                w->step = n;
                if (w->hf_max_steps > 0 && total == w->hf_max_steps)
                    w->split = "train"; /* the training bar, by its total */
                else
                    other_bar(w, total);
                if (pdb_steplog_value(w, "progress_total", 14, (double)total, "", "point", 0) !=
                    PDB_OK)
                    return PDB_ERR;
                double v;
                if (pdb_units_number(rate, numlen, &v) == numlen && v > 0) {
                    double secs = s_it ? v : 1.0 / v;
                    /* tqdm smooths its rate (EMA, smoothing=0.3) */
                    if (pdb_steplog_value(w, "tqdm", 4, secs, PDB_UNIT_SECONDS, "moving_avg", 0) !=
                        PDB_OK)
                        return PDB_ERR;
                }
                return 1;
            }
        }
        const char *next = pdb_steplog_after(br, len - b, " [");
        br = pdb_steplog_find(next, (size_t)(s + len - next), " [");
    }
    return 0;
}

/* ---- generic `key: value` lines --------------------------------------------- */

static int kv_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    if (tl && (*t == '-' || *t == '*')) {
        t++;
        tl = pdb_steplog_trim(&t, tl - 1);
    }
    const char *colon = memchr(t, ':', tl);
    if (!colon || colon == t)
        return 0;
    const char *name = t;
    size_t nl = (size_t)(colon - t);
    if (name[0] == '`') {
        name++;
        nl--;
    }
    if (nl && name[nl - 1] == '`')
        nl--;
    for (size_t i = 0; i < nl; i++)
        if (!(isalnum((unsigned char)name[i]) || strchr("_/.-", name[i])))
            return 0;
    if (nl == 0)
        return 0;
    const char *val = colon + 1;
    size_t vl = pdb_steplog_trim(&val, (size_t)(t + tl - val));
    double v;
    const char *u;
    if (!pdb_units_quantity(val, vl, &v, &u))
        return 0;
    /* step/epoch lines set the context of the lines after them */
    if (pdb_mem_is(name, nl, "step") || pdb_mem_is(name, nl, "global_step") ||
        pdb_mem_is(name, nl, "iteration")) {
        w->has_iter = pdb_steplog_to_int(v, &w->iter);
        pdb_skip(w->src, "step marker line");
        return 1;
    }
    pdb_steplog_record(w, "kv", lineno);
    w->has_step = w->has_iter;
    w->step = w->iter;
    return pdb_steplog_text_value(w, name, nl, val, vl, "point", 0) < 0 ? PDB_ERR : 1;
}

/* ---- the loop ------------------------------------------------------------------ */

/* The line handlers in the order they are tried, with the family each
 * stands for (used to name the format of a log whose flavor was not
 * sniffed from its first 64 KiB). */
static const struct {
    int (*fn)(pdb_steplog *w, const char *s, size_t len, int64_t lineno);
    pdb_steplog_linekind family;
} handlers[] = {
    {pdb_steplog_block_line, PDB_SL_RECTFLOW},
    {pdb_steplog_megatron_line, PDB_SL_MEGATRON},
    {pdb_steplog_deepspeed_line, PDB_SL_DEEPSPEED},
    {nanogpt_line, PDB_SL_NANOGPT},
    {modded_line, PDB_SL_NANOGPT},
    {torchtitan_line, PDB_SL_TORCHTITAN},
    {hf_dict_line, PDB_SL_HF},
    {pdb_steplog_lightning_line, PDB_SL_LIGHTNING},
    {tqdm_segment, PDB_SL_HF},
    {kv_line, PDB_SL_KV},
};

static int handle_segment(pdb_steplog *w, const char *s, size_t len, int64_t lineno, bool kv);

/* ParlAI's report line: "[ time:2.0s total_exs:4625 epochs:0.46 ] {'exs':
 * ...}". The bracket's "name:value" fields belong to the dict's record; its
 * time is the clock since the start (steplog_writer.sql's detect_cumulative
 * sees a never-decreasing series that extrapolates to zero). Whether a
 * prefix is such a bracket: '[', fields with ':' and no space around it, ']'. */
static bool bracket_fields(const char *s, size_t len)
{
    size_t tl = pdb_steplog_trim(&s, len);
    if (tl < 5 || s[0] != '[' || s[tl - 1] != ']')
        return false;
    int fields = 0;
    for (size_t i = 1; i + 1 < tl; i++) {
        if (s[i] == ':' && s[i - 1] != ' ' && s[i + 1] != ' ')
            fields++;
        else if (s[i] == '[' || s[i] == ']' || s[i] == '\'' || s[i] == '=')
            return false;
    }
    return fields > 0;
}

static int bracketed_dict(pdb_steplog *w, const char *pre, size_t pl, const char *dict,
                          size_t dl, int64_t lineno, bool kv)
{
    int64_t before = w->record;
    int r = handle_segment(w, dict, dl, lineno, kv);
    if (r <= 0 || w->record == before || !w->is_step)
        return r;
    pl = pdb_steplog_trim(&pre, pl);
    for (size_t i = 1; i + 1 < pl;) {
        while (i + 1 < pl && pre[i] == ' ')
            i++;
        size_t k = i;
        while (k + 1 < pl && pre[k] != ' ')
            k++;
        const char *colon = memchr(pre + i, ':', k - i);
        if (colon && colon > pre + i) {
            size_t nl = (size_t)(colon - (pre + i));
            const char *v = colon + 1;
            if (pdb_steplog_text_value(w, pre + i, nl, v, (size_t)(pre + k - v), "point", 0) < 0)
                return PDB_ERR;
        }
        i = k;
    }
    return r;
}

static int handle_segment(pdb_steplog *w, const char *s, size_t len, int64_t lineno, bool kv)
{
    int r;
    if (len > 12 && (pdb_steplog_find(s, len, "logging_steps=") ||
                     pdb_steplog_find(s, len, "Total optimization steps") ||
                     pdb_steplog_find(s, len, "num_train_epochs=") ||
                     pdb_steplog_find(s, len, "Num Epochs =")))
        hf_settings(w, s, len);
    /* Block-buffered stdout glues a Trainer dict onto a progress bar. */
    const char *dict = pdb_steplog_find(s, len, "{'");
    if (dict && dict > s && s[len - 1] == '}') {
        size_t pl = (size_t)(dict - s);
        if (bracket_fields(s, pl))
            return bracketed_dict(w, s, pl, dict, (size_t)(s + len - dict), lineno, kv);
        if (handle_segment(w, s, pl, lineno, kv) < 0)
            return PDB_ERR;
        /* "01/18/2021 14:15:18 - INFO - transformers.trainer - {'loss': ...}":
         * the logger's timestamp times the dict's step */
        w->has_prefix_wall = line_timestamp(s, pl, &w->prefix_wall);
        r = handle_segment(w, dict, (size_t)(s + len - dict), lineno, kv);
        w->has_prefix_wall = false;
        return r;
    }
    /* a table's row names its values by the header above it, whatever a
     * flavor would take it for (Ultralytics puts a tqdm bar after it) */
    if (w->table && (r = pdb_steplog_table_line(w, s, len, lineno)) != 0)
        return r;
    /* With the general reader on (flavor "text"), the flavors' handlers only
     * see lines in their own shapes, or lines inside a block they opened:
     * another trainer's "iter 5: val loss 1.7" is not a nanoGPT line. */
    bool flavor_line = !w->gen || pdb_steplog_classify(s, len) != PDB_SL_NONE ||
                       w->blk_mode || w->meg_timer_block || w->has_ppo;
    /* a notebook's HTML table is no other reader's (steplog_html.c) */
    if ((memchr(s, '<', len) || memchr(s, '[', len)) &&
        (r = pdb_steplog_html_line(w, s, len, lineno)) != 0)
        return r;
    /* a boxed table's rows are no other reader's (steplog_boxes.c) */
    if ((r = pdb_steplog_box_line(w, s, len, lineno)) != 0)
        return r;
    for (size_t h = 0; flavor_line && h < sizeof handlers / sizeof handlers[0]; h++) {
        if (handlers[h].family == PDB_SL_KV && !kv)
            continue;
        int64_t before = w->record;
        if ((r = handlers[h].fn(w, s, len, lineno)) != 0) {
            if (r > 0 && w->record != before)
                w->family_hits[handlers[h].family]++;
            return r;
        }
    }
    if (w->gen)
        return pdb_steplog_general_line(w, s, len, lineno) == PDB_OK ? 1 : PDB_ERR;
    const char *t = s;
    pdb_skip(w->src, pdb_steplog_trim(&t, len) ? "not a step record" : "blank line");
    return 1;
}

int pdb_steplog_read_text(pdb_steplog *w)
{
    bool kv = strcmp(w->flavor, "kv") == 0 || strcmp(w->flavor, "mae") == 0 ||
              strcmp(w->flavor, "rectflow") == 0;
    pdb_buf clean = PDB_BUF_INIT;
    const char *line;
    size_t len;
    int r, rc = PDB_OK;
    while (rc == PDB_OK && (r = pdb_steplog_getline(w, &line, &len)) == 1) {
        int64_t lineno = w->lineno;
        strip_ansi(line, len, &clean);
        const char *s = pdb_buf_str(&clean);
        size_t sl = clean.len, start = 0;
        /* tqdm rewrites its line with '\r': each segment is one update */
        for (size_t i = 0; i <= sl && rc == PDB_OK; i++) {
            if (i < sl && s[i] != '\r')
                continue;
            if (i > start || start == 0)
                rc = handle_segment(w, s + start, i - start, lineno, kv) < 0 ? PDB_ERR : PDB_OK;
            start = i + 1;
        }
    }
    pdb_buf_free(&clean);
    if (rc == PDB_OK && r >= 0)
        rc = pdb_steplog_box_end(w);
    if (rc == PDB_OK && r >= 0)
        rc = pdb_steplog_lightning_end(w);
    if (rc == PDB_OK && r >= 0 && w->gen)
        rc = pdb_steplog_general_end(w);
    if (rc == PDB_OK && r >= 0)
        rc = pdb_steplog_deepspeed_end(w);
    return rc != PDB_OK || r < 0 ? PDB_ERR : PDB_OK;
}
