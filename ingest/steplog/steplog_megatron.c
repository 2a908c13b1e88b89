/* steplog_megatron.c: Megatron-LM and DeepSpeed log lines.
 *
 * Megatron prints `iteration N/ M | name: value | ...` every log interval,
 * with `elapsed time per iteration (ms)` and the loss averaged over that
 * interval, then a `time (ms) | forward-compute: ... |` timer line that
 * carries no iteration number (it belongs to the iteration line before it)
 * and `validation loss at iteration N | ...` blocks. DeepSpeed adds
 * `[Rank 0] step=N, skipped=K, lr=[...]`, the throughput timer
 * `RunningAvgSamplesPerSec=..., MemAllocated=1.64GB` (GB computed as GiB),
 * `wall_clock_breakdown` timer lines, and DeepSpeed-Chat's PPO lines
 * `epoch: 0|step: N|...` with `|E2E latency=3.73s |Generate time=...`. */
#include "ingest/steplog/steplog.h"
#include "common/strbuf.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strutil.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void set_wall(pdb_steplog *w, const char *s, size_t len)
{
    size_t lim = len < 60 ? len : 60;
    for (size_t i = 0; i + 19 <= lim; i++)
        if (isdigit((unsigned char)s[i]) && (i == 0 || !isdigit((unsigned char)s[i - 1])) &&
            pdb_steplog_timestamp(s + i, len - i, &w->wall)) {
            w->has_wall = true;
            return;
        }
}

/* The length of the run of s[0..len) without any of the characters in set
 * (strcspn for strings that are not NUL-terminated). */
static size_t strcspn_mem(const char *s, size_t len, const char *set)
{
    size_t n = 0;
    while (n < len && !strchr(set, s[n]))
        n++;
    return n;
}

/* Whether every field of a "name: value" bar has a name made of name
 * characters and a number for value: a line cut off or glued to other
 * output fails this and is rejected whole rather than stored in part. */
static bool fields_valid(const char *s, size_t len, char sep)
{
    size_t pos = 0, fl;
    const char *f;
    while (pdb_steplog_next_field(s, len, sep, &pos, &f, &fl)) {
        const char *colon = memchr(f, ':', fl);
        if (!colon || colon == f)
            return false;
        for (const char *c = f; c < colon; c++)
            if (!(isalnum((unsigned char)*c) || strchr(" _/.-()", *c)))
                return false;
        const char *v = colon + 1;
        size_t vl = pdb_steplog_trim(&v, (size_t)(f + fl - v));
        double x;
        const char *unit;
        if (!pdb_units_quantity(v, vl, &x, &unit))
            return false;
    }
    return true;
}

/* How a Megatron iteration-line field aggregates the log interval. */
static const char *iteration_agg(const char *name, size_t nl)
{
    if (pdb_steplog_find(name, nl, "consumed"))
        return "cumulative";
    if (pdb_steplog_find(name, nl, "elapsed time") ||
        (pdb_steplog_find(name, nl, "loss") && !pdb_steplog_find(name, nl, "scale")) ||
        pdb_steplog_find(name, nl, "number of"))
        return "interval_mean";
    return "point";
}

/* Stores "name: value" fields separated by sep. A header such as "time (ms)"
 * or "memory (MB)" gives bare numbers their unit (hdr_unit, times hdr_scale).
 * Returns 1, or 0 when a field is not "name: number" (a cut or glued line),
 * PDB_ERR on a database error. */
static int bar_fields(pdb_steplog *w, const char *s, size_t len, char sep, bool iteration,
                      const char *agg, int64_t window, const char *hdr_unit, double hdr_scale)
{
    if (!fields_valid(s, len, sep))
        return 0;
    size_t pos = 0, fl;
    const char *f;
    while (pdb_steplog_next_field(s, len, sep, &pos, &f, &fl)) {
        const char *colon = memchr(f, ':', fl);
        const char *name = f;
        size_t nl = pdb_steplog_trim(&name, (size_t)(colon - f));
        const char *val = colon + 1;
        size_t vl = (size_t)(f + fl - val);
        const char *a = iteration ? iteration_agg(name, nl) : agg;
        double x;
        const char *unit;
        const char *v = val;
        size_t tvl = pdb_steplog_trim(&v, vl);
        int r;
        if (hdr_unit && pdb_units_quantity(v, tvl, &x, &unit) && unit[0] == '\0')
            r = pdb_steplog_value(w, name, nl, x * hdr_scale, hdr_unit, a, window) == PDB_OK
                    ? 1 : PDB_ERR;
        else
            r = pdb_steplog_text_value(w, name, nl, val, vl, a, window);
        if (r < 0)
            return PDB_ERR;
        if (r == 0)
            pdb_skip(w->src, "field value that is not a number");
    }
    return 1;
}

/* `time (ms) | name: v | ...` from Megatron (after an iteration line) or
 * DeepSpeed's wall_clock_breakdown (after an optional "rank=N"). */
static int timer_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *p = pdb_steplog_find(s, len, "time (ms) |");
    if (!p)
        return 0;
    /* DeepSpeed prefixes its timers ("[...log_dist] [Rank 0] rank=0 time (ms)");
     * Megatron's line starts with "time (ms)" */
    bool deepspeed = p != s && (pdb_steplog_find(s, (size_t)(p - s), "log_dist") ||
                                pdb_steplog_find(s, (size_t)(p - s), "[Rank ") ||
                                pdb_steplog_find(s, (size_t)(p - s), "rank="));
    if (!deepspeed && !w->has_iter) {
        pdb_skip(w->src, "setup timer line before the first iteration");
        return 1;
    }
    pdb_steplog_record(w, deepspeed ? "ds_timer" : "timer", lineno);
    set_wall(w, s, len);
    if (deepspeed) {
        w->has_rank = pdb_steplog_int_after(s, (size_t)(p - s), "rank=", &w->rank) ||
                      pdb_steplog_launcher_rank(w);
        w->timer_lines++;
        /* no step number: the last `step=N` line, else the line count */
        w->has_step = true;
        w->step = w->has_ds_step ? w->ds_step : w->timer_lines;
        if (!w->has_ds_step)
            PDB_SL_SAW_COUNTER(w, "timer lines counted (no step number)");
    } else {
        w->has_step = true;
        w->step = w->iter;
        w->split = "train";
    }
    const char *f = pdb_steplog_after(p, (size_t)(s + len - p), "time (ms) |");
    /* Megatron timers are averaged over the log interval. */
    int r = bar_fields(w, f, (size_t)(s + len - f), '|', false, "interval_mean",
                       deepspeed ? 0 : w->iter_window, PDB_UNIT_SECONDS, 1e-3);
    if (r == 0) {
        pdb_steplog_malformed(w, lineno, "expected 'name: milliseconds' timer fields");
    }
    return r < 0 ? PDB_ERR : 1;
}

/* "[Rank 0] (after 10 iterations) memory (MB) | allocated: 1.5 | max allocated: ..." */
static int memory_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *p = pdb_steplog_find(s, len, "memory (MB) |");
    if (!p)
        return 0;
    pdb_steplog_record(w, "memory", lineno);
    w->has_step = pdb_steplog_int_after(s, (size_t)(p - s), "(after ", &w->step);
    w->has_rank = pdb_steplog_int_after(s, (size_t)(p - s), "[Rank ", &w->rank) ||
                  pdb_steplog_launcher_rank(w);
    const char *f = pdb_steplog_after(p, (size_t)(s + len - p), "memory (MB) |");
    int r = bar_fields(w, f, (size_t)(s + len - f), '|', false, "point", 0, PDB_UNIT_BYTES,
                       1048576.0);
    if (r == 0)
        pdb_steplog_malformed(w, lineno, "expected 'name: megabytes' fields");
    return r < 0 ? PDB_ERR : 1;
}

/* Newer Megatron prints its timers as a block:
 *     (min, max) time across ranks (ms):
 *         forward-backward ...............................: (1234.56, 1240.12)
 * The max over ranks is what the step waits for: it is stored under the
 * timer's name (interval mean, like the one-line timers), the min as
 * "NAME (min across ranks)". */
static int timer_block_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    if (pdb_steplog_find(s, len, "(min, max) time across ranks (ms):")) {
        w->meg_timer_block = w->has_iter;
        if (!w->has_iter)
            pdb_skip(w->src, "setup timer line before the first iteration");
        else
            pdb_steplog_record(w, "timer", lineno);
        w->blk_record = w->record;
        return 1;
    }
    if (!w->meg_timer_block)
        return 0;
    const char *dots = pdb_steplog_find(s, len, "...");
    const char *open = dots ? memchr(dots, '(', (size_t)(s + len - dots)) : NULL;
    const char *comma = open ? memchr(open, ',', (size_t)(s + len - open)) : NULL;
    const char *close = comma ? memchr(comma, ')', (size_t)(s + len - comma)) : NULL;
    double mn, mx;
    const char *u;
    const char *name = s;
    size_t nl = dots ? pdb_steplog_trim(&name, (size_t)(dots - s)) : 0;
    if (!close || nl == 0 || !pdb_units_quantity(open + 1, (size_t)(comma - open - 1), &mn, &u) ||
        !pdb_units_quantity(comma + 1, (size_t)(close - comma - 1), &mx, &u)) {
        w->meg_timer_block = false; /* the block is over */
        return 0;
    }
    w->record = w->blk_record;
    w->line = lineno;
    w->kind = "timer";
    w->has_step = true;
    w->step = w->iter;
    w->split = "train";
    char minname[160];
    snprintf(minname, sizeof minname, "%.*s (min across ranks)", (int)(nl < 120 ? nl : 120), name);
    if (pdb_steplog_value(w, name, nl, mx * 1e-3, PDB_UNIT_SECONDS, "interval_mean",
                          w->iter_window) != PDB_OK ||
        pdb_steplog_value(w, minname, strlen(minname), mn * 1e-3, PDB_UNIT_SECONDS,
                          "interval_mean", w->iter_window) != PDB_OK)
        return PDB_ERR;
    return 1;
}

int pdb_steplog_megatron_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    int handled;
    if ((handled = timer_block_line(w, s, len, lineno)) != 0 ||
        (handled = memory_line(w, s, len, lineno)) != 0)
        return handled;
    const char *p = pdb_steplog_find(s, len, "validation loss at iteration");
    if (p) {
        int64_t it = 0;
        const char *bar = memchr(s, '|', len);
        if (!pdb_steplog_int_after(s, len, "validation loss at iteration", &it) || !bar) {
            pdb_steplog_malformed(w, lineno, "expected 'validation loss at iteration N | ...'");
            return 1;
        }
        pdb_steplog_record(w, "validation", lineno);
        w->has_step = true;
        w->step = it;
        w->split = "val";
        int r = bar_fields(w, bar + 1, (size_t)(s + len - bar - 1), '|', false, "point", 0, NULL, 0);
        if (r == 0)
            pdb_steplog_malformed(w, lineno, "expected 'name: value' fields");
        return r < 0 ? PDB_ERR : 1;
    }
    p = pdb_steplog_find(s, len, " iteration ");
    if (p && (pdb_steplog_find(s, len, "elapsed time per iteration") ||
              pdb_steplog_find(s, len, "consumed samples"))) {
        size_t i = (size_t)(pdb_steplog_after(p, (size_t)(s + len - p), " iteration ") - s);
        int64_t it = 0, total = 0;
        if (!pdb_steplog_read_int(s, len, &i, &it) || i >= len || s[i] != '/' ||
            (i++, !pdb_steplog_read_int(s, len, &i, &total))) {
            pdb_steplog_malformed(w, lineno, "expected 'iteration N/ M |'");
            return 1;
        }
        const char *bar = memchr(s + i, '|', len - i);
        if (!bar) {
            pdb_steplog_malformed(w, lineno, "expected '|' after 'iteration N/ M'");
            return 1;
        }
        /* The log interval is the distance to the previous iteration line;
         * the first line's is unknown (a run resumed at iteration 43 does
         * not average over 43): left NULL here, set to the next interval by
         * pdb_steplog_finish(). */
        w->iter_window = w->has_iter && it > w->iter ? it - w->iter : 0;
        w->has_iter = true;
        w->iter = it;
        pdb_steplog_record(w, "iteration", lineno);
        set_wall(w, s, (size_t)(p - s));
        w->has_step = true;
        w->step = it;
        PDB_SL_SAW_COUNTER(w, "\"iteration N/ M\"");
        w->split = "train";
        int r = bar_fields(w, bar + 1, (size_t)(s + len - bar - 1), '|', true, NULL,
                           w->iter_window, NULL, 0);
        if (r == 0)
            pdb_steplog_malformed(w, lineno, "expected 'name: value' fields after the iteration");
        return r < 0 ? PDB_ERR : 1;
    }
    return timer_line(w, s, len, lineno);
}

/* ---- DeepSpeed ----------------------------------------------------------- */

/* "name=value" fields separated by ", " (throughput timer) or "|" (E2E).
 * Values may carry units; "(74.61%)" after a value is its share. */
static int eq_fields(pdb_steplog *w, const char *s, size_t len, char sep)
{
    size_t pos = 0, fl;
    const char *f;
    while (pdb_steplog_next_field(s, len, sep, &pos, &f, &fl)) {
        const char *eq = memchr(f, '=', fl);
        if (!eq)
            continue;
        const char *name = f;
        size_t nl = pdb_steplog_trim(&name, (size_t)(eq - f));
        const char *val = eq + 1;
        size_t vl = (size_t)(f + fl - val);
        const char *paren = memchr(val, '(', vl);
        if (paren) {
            const char *close = memchr(paren, ')', (size_t)(val + vl - paren));
            if (close) {
                char pct[80];
                snprintf(pct, sizeof pct, "%.*s share", (int)(nl < 60 ? nl : 60), name);
                if (pdb_steplog_text_value(w, pct, strlen(pct), paren + 1,
                                           (size_t)(close - paren - 1), "point", 0) < 0)
                    return PDB_ERR;
            }
            vl = (size_t)(paren - val);
        }
        const char *v = val;
        size_t vvl = pdb_steplog_trim(&v, vl);
        double x;
        const char *unit;
        if (!pdb_units_quantity(v, vvl, &x, &unit)) {
            pdb_skip(w->src, "field value that is not a number");
            continue;
        }
        /* DeepSpeed prints memory as "GB" but divides by 1024**3 */
        if (strcmp(unit, "B") == 0 && pdb_skip_suffix_mem(v, vvl, "GB", NULL))
            x = x / 1e9 * 1073741824.0;
        bool running = pdb_steplog_find(name, nl, "RunningAvg") || pdb_skip_prefix_mem(name, nl, "Avg", NULL, NULL);
        bool latency = pdb_steplog_find(name, nl, "latency") || pdb_steplog_find(name, nl, "time") ||
                       pdb_mem_is(name, nl, "Others");
        if (!unit[0] && latency)
            unit = PDB_UNIT_SECONDS; /* "Others=0.21" lacks the s its siblings have */
        if (pdb_steplog_value(w, name, nl, x, unit[0] ? unit : NULL,
                              running ? "running_mean" : "point", 0) != PDB_OK)
            return PDB_ERR;
    }
    return 1;
}

/* The values of a "step=N, skipped=K, lr=[...]" line: stored as they are,
 * or kept in w->ds_held until the next such line says which engine it was. */
static int step_values(pdb_steplog *w, const char *skipped, size_t skl, const char *lr,
                       size_t lrl, bool has_lr)
{
    if (pdb_steplog_text_value(w, "skipped", 7, skipped, skl, "cumulative", 0) < 0)
        return PDB_ERR;
    if (has_lr && pdb_steplog_text_value(w, "lr", 2, lr, lrl, "point", 0) < 0)
        return PDB_ERR;
    return PDB_OK;
}

/* Stores the held first-engine line in its own record, as engine0 when a
 * second engine's line for the same step followed, else without a loader.
 * The record's number and the first positions in it were reserved when it
 * was read, so it reads back as if stored then. */
static int store_held(pdb_steplog *w, const char *loader)
{
    pdb_steplog_held *h = &w->ds_held;
    if (!h->held)
        return PDB_OK;
    h->held = false;
    int64_t record = w->record, pos = w->pos;
    w->record = h->record;
    w->line = h->line;
    w->kind = "ds_step";
    w->has_rank = h->has_rank;
    w->rank = h->rank;
    w->has_step = true;
    w->step = h->step;
    w->has_epoch = false;
    w->has_wall = h->has_wall;
    w->wall = h->wall;
    snprintf(w->loader, sizeof w->loader, "%s", loader);
    w->split = NULL;
    w->is_step = true;
    w->pos = 0;
    const char *t = pdb_buf_str(&h->text);
    int rc = step_values(w, t, h->skipped_len, t + h->skipped_len, h->text.len - h->skipped_len,
                         h->has_lr);
    /* the reader's current record is another one: only its number and
     * position matter to what comes next (a new record resets the rest) */
    w->record = record;
    w->pos = pos;
    return rc;
}

int pdb_steplog_deepspeed_end(pdb_steplog *w)
{
    return store_held(w, "");
}

/* The "name: value" pairs after the counter of a pipeline-engine line:
 * names are the words up to a word ending in ':' ("lm loss:", "iter time
 * (s):"), values one number each. iter time is stored as "iter time" with
 * its unit (a step time by the metric rules), samples/sec as a rate. */
static int pipeline_values(pdb_steplog *w, const char *t, size_t tl, size_t i, int64_t window,
                           bool *has_time)
{
    size_t name_at = i;
    while (i < tl) {
        while (i < tl && t[i] == ' ')
            i++;
        size_t e = i;
        while (e < tl && t[e] != ' ')
            e++;
        if (e == i)
            break;
        if (t[e - 1] != ':') {
            i = e;
            continue;
        }
        const char *name = t + name_at;
        size_t nl = e - 1 - name_at;
        while (nl > 0 && *name == ' ')
            name++, nl--;
        size_t v = e;
        while (v < tl && t[v] == ' ')
            v++;
        size_t ve = v;
        while (ve < tl && t[ve] != ' ')
            ve++;
        double x;
        i = name_at = ve;
        if (ve == v || pdb_units_number(t + v, ve - v, &x) != ve - v)
            continue;
        int rc;
        if (nl == 13 && memcmp(name, "iter time (s)", 13) == 0) {
            /* the first line's window is unknown: kept, not as a step time */
            const char *n = window ? "iter time" : "iter time (first window)";
            rc = pdb_steplog_value(w, n, strlen(n), x, PDB_UNIT_SECONDS, "interval_mean", window);
            *has_time = true;
        } else if (nl == 11 && memcmp(name, "samples/sec", 11) == 0) {
            /* named as the general reader names a rate: PRINTED/samples_per_second */
            rc = pdb_steplog_value(w, "samples/sec/samples_per_second", 30, x, "samples/s",
                                   "interval_mean", window);
        } else {
            rc = pdb_steplog_value(w, name, nl, x, NULL, "interval_mean", window);
        }
        if (rc != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

/* DeepSpeed's pipeline engine (and Megatron-DeepSpeed, diffusion-pipe on
 * it), every steps_per_print steps: "steps: 10 loss: 0.6882 iter time (s):
 * 0.291 samples/sec: 109.922", iter time being the mean over the steps since
 * its last line (train_batch's timer); MoE runs add "lm loss: ... moe loss:
 * ..." before it. */
static int pipeline_line(pdb_steplog *w, const char *t, size_t tl, int64_t lineno)
{
    size_t i = strlen("steps: ");
    int64_t step;
    if (!pdb_steplog_read_int(t, tl, &i, &step)) {
        pdb_steplog_malformed(w, lineno, "expected 'steps: N loss: X iter time (s): T'");
        return 1;
    }
    int64_t window = w->has_pipe_step && step > w->pipe_step ? step - w->pipe_step : 0;
    w->has_pipe_step = true;
    w->pipe_step = step;
    pdb_steplog_record(w, "ds_pipe", lineno);
    w->has_step = true;
    w->step = step;
    PDB_SL_SAW_COUNTER(w, "\"steps: N\" (pipeline engine)");
    bool has_time = false;
    if (pipeline_values(w, t, tl, i, window, &has_time) != PDB_OK)
        return PDB_ERR;
    if (!has_time)
        pdb_steplog_malformed(w, lineno, "expected 'iter time (s): T' after 'steps: N'");
    return 1;
}

int pdb_steplog_deepspeed_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *p;
    {
        const char *t = s;
        size_t tl = pdb_steplog_trim(&t, len);
        if (pdb_skip_prefix_mem(t, tl, "steps: ", NULL, NULL) &&
            pdb_steplog_find(t, tl, " iter time (s): "))
            return pipeline_line(w, t, tl, lineno);
    }
    if ((p = pdb_steplog_find(s, len, "] step=")) && pdb_steplog_find(s, len, "skipped=")) {
        int64_t step = 0;
        if (!pdb_steplog_int_after(s, len, "] step=", &step)) {
            pdb_steplog_malformed(w, lineno, "expected 'step=N'");
            return 1;
        }
        /* DeepSpeed-Chat runs two engines (actor, critic) that both print
         * "[Rank 0] step=N": a repeated N is the next engine's line. Until
         * the next step line, a first engine's line may be engine0 or the
         * only engine: it is held, its record reserved, and stored then. */
        int64_t engine = w->has_ds_step && step == w->ds_step ? w->ds_engine + 1 : 0;
        if (store_held(w, engine == 1 ? "engine0" : "") != PDB_OK)
            return PDB_ERR;
        pdb_steplog_record(w, "ds_step", lineno);
        set_wall(w, s, len);
        w->has_rank = pdb_steplog_int_after(s, (size_t)(p - s), "[Rank ", &w->rank) ||
                  pdb_steplog_launcher_rank(w);
        w->has_step = true;
        w->step = step;
        PDB_SL_SAW_COUNTER(w, "\"[Rank R] step=N\"");
        w->has_ds_step = true;
        w->ds_step = step;
        w->ds_engine = engine;
        const char *sk = pdb_steplog_after(s, len, "skipped=");
        size_t skl = strcspn_mem(sk, (size_t)(s + len - sk), ",");
        const char *lr = pdb_steplog_after(s, len, "lr=[");
        size_t lrl = lr ? strcspn_mem(lr, (size_t)(s + len - lr), ",]") : 0;
        if (engine > 0) {
            snprintf(w->loader, sizeof w->loader, "engine%lld", (long long)engine);
            return step_values(w, sk, skl, lr, lrl, lr != NULL) == PDB_OK ? 1 : PDB_ERR;
        }
        pdb_steplog_held *h = &w->ds_held;
        h->held = true;
        h->record = w->record;
        h->line = lineno;
        h->has_rank = w->has_rank;
        h->rank = w->rank;
        h->step = step;
        h->has_wall = w->has_wall;
        h->wall = w->wall;
        h->has_lr = lr != NULL;
        pdb_buf_reset(&h->text);
        pdb_buf_add(&h->text, sk, skl);
        h->skipped_len = skl;
        if (lr)
            pdb_buf_add(&h->text, lr, lrl);
        w->pos = 2; /* its two values come first in the record */
        return 1;
    }
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    const char *rest;
    size_t restlen;
    if (pdb_skip_prefix_mem(t, tl, "epoch: ", &rest, &restlen) &&
        (p = pdb_steplog_after(t, tl, "|step: "))) {
        size_t i = (size_t)(p - t), ei = (size_t)(rest - t);
        int64_t step = 0, epoch = 0;
        if (!pdb_steplog_read_int(t, tl, &i, &step) || !pdb_steplog_read_int(t, tl, &ei, &epoch)) {
            pdb_steplog_malformed(w, lineno, "expected 'epoch: E|step: N|...'");
            return 1;
        }
        pdb_steplog_record(w, "ppo", lineno);
        w->has_step = true;
        w->step = step;
        PDB_SL_SAW_COUNTER(w, "\"epoch: E|step: N\"");
        w->has_epoch = true;
        w->epoch = (double)epoch;
        w->has_ppo = true;
        w->ppo_step = step;
        w->ppo_epoch = (double)epoch;
        const char *bar = memchr(t + i, '|', tl - i);
        if (!bar)
            return 1;
        int r = bar_fields(w, bar + 1, (size_t)(t + tl - bar - 1), '|', false, "point", 0, NULL, 0);
        if (r == 0)
            pdb_steplog_malformed(w, lineno, "expected 'name: value' fields");
        return r < 0 ? PDB_ERR : 1;
    }
    if (tl > 1 && t[0] == '|' && pdb_steplog_find(t, tl, "latency=")) {
        pdb_steplog_record(w, "e2e", lineno);
        /* the lines after "epoch: E|step: N" are its step's: step and epoch */
        w->has_step = w->has_epoch = w->has_ppo;
        w->step = w->ppo_step;
        w->epoch = w->ppo_epoch;
        return eq_fields(w, t + 1, tl - 1, '|');
    }
    if (pdb_skip_prefix_mem(t, tl, "average reward score:", &rest, &restlen) && w->has_ppo) {
        pdb_steplog_record(w, "reward", lineno);
        w->has_step = w->has_epoch = true;
        w->step = w->ppo_step;
        w->epoch = w->ppo_epoch;
        int r = pdb_steplog_text_value(w, "reward", 6, rest, restlen, "point", 0);
        if (r == 0)
            pdb_steplog_malformed(w, lineno, "expected a number after 'average reward score:'");
        return r < 0 ? PDB_ERR : 1;
    }
    if ((p = pdb_steplog_find(s, len, "SamplesPerSec="))) {
        /* "stop] 0/10, RunningAvg..." or "stop] epoch=0/micro_step=10/global_step=10, ..." */
        const char *stop = pdb_steplog_find(s, len, "] ");
        const char *q = pdb_steplog_find(s, len, "global_step=");
        pdb_steplog_record(w, "ds_throughput", lineno);
        set_wall(w, s, len);
        int64_t step = 0, epoch = 0;
        size_t i;
        if (q) {
            i = (size_t)(pdb_steplog_after(q, (size_t)(s + len - q), "global_step=") - s);
            w->has_step = pdb_steplog_read_int(s, len, &i, &step);
            if (pdb_steplog_int_after(s, len, "epoch=", &epoch)) {
                w->has_epoch = true;
                w->epoch = (double)epoch;
            }
        } else {
            const char *tp = pdb_steplog_find(s, len, "timer.py");
            const char *after = tp ? pdb_steplog_after(tp, (size_t)(s + len - tp), "] ")
                                   : stop ? pdb_steplog_after(stop, (size_t)(s + len - stop), "] ")
                                          : NULL;
            i = after ? (size_t)(after - s) : 0;
            if (after && pdb_steplog_read_int(s, len, &i, &epoch) && i < len && s[i] == '/') {
                i++;
                w->has_step = pdb_steplog_read_int(s, len, &i, &step);
                w->has_epoch = true;
                w->epoch = (double)epoch;
            }
        }
        if (!w->has_step) {
            pdb_steplog_malformed(w, lineno, "expected 'EPOCH/STEP' before the throughput");
            return 1;
        }
        w->step = step;
        if (q)
            PDB_SL_SAW_COUNTER(w, "\"global_step=N\"");
        else
            PDB_SL_SAW_COUNTER(w, "\"E/N, ...SamplesPerSec\"");
        const char *comma = memchr(s + i, ',', len - i);
        if (!comma)
            return 1;
        return eq_fields(w, comma + 1, (size_t)(s + len - comma - 1), ',');
    }
    return 0;
}
