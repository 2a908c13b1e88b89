/* steplog_lightning.c: PyTorch Lightning's tqdm progress bars.
 *
 * Lightning's console output is a handful of tqdm bars named by their
 * description:
 *     Sanity Checking DataLoader 0: 100%|██████████| 1/1 [00:00<00:00,  3.85it/s]
 *     Epoch 1:  50%|█████     | 1/2 [00:00<00:00,  9.30it/s, loss=0.341, v_num=vakz]
 *     Validation DataLoader 0: 100%|██████████| 1/1 [00:00<00:00, 54.39it/s]
 *     Epoch 1: 100%|██████████| 2/2 [00:00<00:00, 10.53it/s, loss=0.341, v_num=vakz]
 * Only the "Epoch E" bar counts training batches: E is the epoch, its n the
 * batches done in the epoch, its rate the (smoothed) time of one, and what
 * follows the rate inside the brackets the metrics set with set_postfix
 * (v_num is the logger's version, not a metric). Sanity-check, validation,
 * test and predict bars are no steps.
 *
 * Lightning before 2.0 counts the validation batches in the epoch bar too
 * (its total is training + validation batches): after a validation run the
 * epoch bar moves on by that run's batches without a training batch. Such
 * an update is recognised (it comes right after the validation bar and
 * moves n by exactly its batches) and its batches are taken off n for the
 * rest of the epoch. A step is numbered as Lightning's loggers number it
 * (metrics.csv): the training batches of the epochs before plus n - 1.
 *
 * tqdm redraws the same n several times (once more with the postfix): the
 * last drawing before n moves is the record; it is held until then.
 *
 * Other trainers draw one bar whose description says it counts the steps
 * themselves: 3D Gaussian Splatting's "Training progress: 33%|...|
 * 10000/30000 [03:35<09:02, 36.88it/s, Loss=0.048756]", kohya's and
 * diffusers' "steps: ...", Rasa's "Epochs: ...": n is the step. */
#include "ingest/steplog/steplog.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LT_POST 16     /* postfix values kept per update */
#define LT_TEXT 48

typedef struct {
    char name[LT_TEXT], value[LT_TEXT];
    size_t nl, vl;
} lt_post;

/* One drawing of a bar. */
typedef struct {
    int kind;
    int64_t epoch, n, total, line;
    int64_t rank;         /* the launcher prefix's rank, or -1 */
    bool has_rate;
    double secs;          /* seconds per batch, from it/s or s/it */
    bool has_elapsed;
    double elapsed;       /* seconds since the bar started ("03:35" of "[03:35<09:02, ...") */
    bool v_num;           /* Lightning's default postfix (the logger's version) */
    int npost;
    lt_post post[LT_POST];
} lt_bar;

struct pdb_steplog_lightning {
    bool held;            /* the last training update, until n moves */
    lt_bar hold;
    int64_t local;        /* training batches of the held update within its epoch */
    bool have_epoch;
    int64_t epoch, base;  /* current epoch; training batches of the epochs before */
    int64_t offset;       /* validation batches the epoch bar counted this epoch */
    int64_t last_n, trained; /* last n drawn; training batches done this epoch */
    bool after_val;       /* a validation bar ran since the epoch bar was drawn */
    int64_t val_done, val_n; /* finished validation dataloaders' batches; current one's */
    int64_t echoes;       /* epoch-bar updates that were validation batches */
    bool steps;           /* the steps came from a bar that counts them (PDB_BAR_STEPS) */
};

void pdb_steplog_lightning_free(pdb_steplog_lightning *lt)
{
    free(lt);
}


static void add_post(lt_bar *b, const char *name, size_t nl, const char *v, size_t vl)
{
    if (b->npost == LT_POST || nl >= LT_TEXT || vl >= LT_TEXT)
        return;
    lt_post *q = &b->post[b->npost++];
    memcpy(q->name, name, nl);
    q->nl = nl;
    memcpy(q->value, v, vl);
    q->vl = vl;
}

/* A dict in the postfix, "metrics={'acc': 0.6151, 'f1': 0.5}" (pytorch-
 * widedeep), split at its commas: field f opens it or goes on with it; its
 * "'name': value" pairs are the bar's values. Returns whether f was one. */
static bool dict_part(lt_bar *b, const char *f, size_t fl, bool *open)
{
    const char *brace = memchr(f, '{', fl);
    if (!*open && !(brace && brace > f && brace[-1] == '='))
        return false;
    const char *t = brace && !*open ? brace + 1 : f;
    size_t tl = fl - (size_t)(t - f);
    tl = pdb_steplog_trim(&t, tl);
    *open = !(tl > 0 && t[tl - 1] == '}');
    if (!*open)
        tl--;
    const char *colon = memchr(t, ':', tl);
    if (colon && tl > 2 && (t[0] == '\'' || t[0] == '"') && colon > t + 1 && colon[-1] == t[0])
        add_post(b, t + 1, (size_t)(colon - t) - 2, colon + 1, (size_t)(t + tl - colon - 1));
    return true;
}

/* "loss=0.341, v_num=vakz": the postfix of a drawing. */
static void postfix(lt_bar *b, const char *p, size_t pl)
{
    size_t pos = 0, fl;
    const char *f;
    bool in_dict = false;
    while (pdb_steplog_next_field(p, pl, ',', &pos, &f, &fl)) {
        if (dict_part(b, f, fl, &in_dict))
            continue;
        const char *eq = memchr(f, '=', fl);
        if (!eq || eq == f)
            continue;
        size_t nl = (size_t)(eq - f), vl = fl - nl - 1;
        if (pdb_mem_is(f, nl, "v_num")) {
            b->v_num = true;
            continue;
        }
        add_post(b, f, nl, eq + 1, vl);
    }
}

/* Parses "DESC: 50%|bar| n/T [elapsed<left, rate, k=v, ...]". */
static bool parse_bar(const char *s, size_t len, lt_bar *b)
{
    const char *t = s, *after;
    size_t tl = pdb_steplog_trim(&t, len);
    memset(b, 0, offsetof(lt_bar, post));
    b->kind = pdb_steplog_lightning_desc(t, tl, &after);
    if (b->kind == PDB_BAR_NONE)
        return false;
    const char *end = t + tl;
    const char *bar = pdb_steplog_after(after, (size_t)(end - after), "%|");
    const char *close = bar ? memchr(bar, '|', (size_t)(end - bar)) : NULL;
    if (!close)
        return false; /* "Validation: 0it [00:00, ?it/s]": no total, nothing counted */
    size_t i = (size_t)(close + 1 - t);
    if (!pdb_steplog_read_int(t, tl, &i, &b->n) || i >= tl || t[i] != '/')
        return false;
    i++;
    if (!pdb_steplog_read_int(t, tl, &i, &b->total))
        return false;
    const char *open = memchr(t + i, '[', tl - i);
    const char *shut = open ? memchr(open, ']', (size_t)(end - open)) : NULL;
    if (!shut)
        return false;
    size_t pos = 0, fl, inl = (size_t)(shut - open - 1);
    const char *f, *in = open + 1;
    if (!pdb_steplog_next_field(in, inl, ',', &pos, &f, &fl)) /* elapsed<left */
        return false;
    const char *lt = memchr(f, '<', fl);
    if (lt && pdb_units_clock(f, (size_t)(lt - f), &b->elapsed))
        b->has_elapsed = true;
    if (pdb_steplog_next_field(in, inl, ',', &pos, &f, &fl)) {
        size_t nl = 0;
        double v;
        bool s_it = pdb_skip_suffix_mem(f, fl, "s/it", &nl);
        if ((s_it || pdb_skip_suffix_mem(f, fl, "it/s", &nl)) && nl > 0 &&
            pdb_units_number(f, nl, &v) == nl && v > 0) {
            b->has_rate = true;
            b->secs = s_it ? v : 1.0 / v;
        }
        if (pos < inl) /* past the last field, pos is beyond it */
            postfix(b, in + pos, inl - pos);
    }
    return true;
}

static pdb_steplog_lightning *state(pdb_steplog *w)
{
    if (!w->lightning)
        w->lightning = pdb_xcalloc(1, sizeof *w->lightning);
    return w->lightning;
}

/* Writes the held training update. */
static int flush(pdb_steplog *w, pdb_steplog_lightning *lt)
{
    if (!lt->held)
        return PDB_OK;
    lt->held = false;
    const lt_bar *b = &lt->hold;
    pdb_steplog_record(w, b->kind == PDB_BAR_EPOCH ? "lightning" : "tqdm", b->line);
    w->bar_steps = true;
    w->split = "train";
    if (b->rank >= 0) {
        w->has_rank = true;
        w->rank = b->rank;
    }
    w->has_step = true;
    if (b->kind == PDB_BAR_STEPS) {
        w->has_epoch = false;
        w->step = b->n;
        PDB_SL_SAW_COUNTER(w, "a steps bar's n/T (DESC: n/T, the description names steps)");
    } else {
        w->has_epoch = true;
        w->epoch = (double)b->epoch;
        if (b->kind == PDB_BAR_EPOCH) {
            w->step = lt->base + lt->local - 1;
            PDB_SL_SAW_COUNTER(w, "Epoch E: n/T bar (step = batches before + n - 1)");
        } else {
            w->step = lt->base + lt->local;
            PDB_SL_SAW_COUNTER(w, "epoch E: n/T bar (step = batches before + n)");
        }
    }
    if (pdb_steplog_value(w, "progress_total", 14, (double)b->total, "", "point", 0) != PDB_OK)
        return PDB_ERR;
    /* a bar that counts the steps from the start: its elapsed time is a
     * clock since the first step, whose differences time the steps exactly
     * (tqdm prints whole seconds) */
    if (b->kind == PDB_BAR_STEPS && b->has_elapsed &&
        pdb_steplog_cumulative_time(w, "tqdm elapsed", 12, b->elapsed) != PDB_OK)
        return PDB_ERR;
    /* tqdm smooths its rate (EMA, smoothing=0.3) */
    if (b->has_rate &&
        pdb_steplog_value(w, "tqdm", 4, b->secs, PDB_UNIT_SECONDS, "moving_avg", 0) != PDB_OK)
        return PDB_ERR;
    for (int k = 0; k < b->npost; k++) {
        /* before 2.0 Lightning put the mean loss of the last 20 batches there
         * ('loss', next to v_num); 2.0 dropped it */
        const char *agg = b->v_num && pdb_mem_is(b->post[k].name, b->post[k].nl, "loss")
                              ? "moving_avg"
                              : "point";
        int r = pdb_steplog_text_value(w, b->post[k].name, b->post[k].nl, b->post[k].value,
                                       b->post[k].vl, agg, 0);
        if (r < 0)
            return PDB_ERR;
        if (r == 0)
            pdb_skip(w->src, "progress bar value that is not a number");
    }
    return PDB_OK;
}

static void new_epoch(pdb_steplog_lightning *lt, const lt_bar *b)
{
    if (lt->have_epoch)
        lt->base += lt->trained;
    else /* a log that starts later: the epochs before had as many batches
          * (Lightning counts epochs from 0, a loop's own bar mostly from 1) */
        lt->base = (b->kind == PDB_BAR_EPOCH_TQDM && b->epoch > 0 ? b->epoch - 1 : b->epoch) *
                   b->total;
    lt->have_epoch = true;
    lt->epoch = b->epoch;
    lt->offset = lt->last_n = lt->trained = 0;
    lt->after_val = false;
}

static int epoch_bar(pdb_steplog *w, pdb_steplog_lightning *lt, lt_bar *b)
{
    if (!lt->have_epoch || b->epoch != lt->epoch) {
        if (flush(w, lt) != PDB_OK)
            return PDB_ERR;
        new_epoch(lt, b);
    }
    if (lt->after_val) {
        int64_t val = lt->val_done + lt->val_n;
        lt->after_val = false;
        if (val > 0 && b->n == lt->last_n + val) {
            lt->offset += val; /* the validation batches, counted in the epoch bar */
            lt->echoes++;
        }
    }
    lt->last_n = b->n;
    int64_t local = b->n - lt->offset;
    if (local > lt->trained) {
        if (flush(w, lt) != PDB_OK)
            return PDB_ERR;
        lt->hold = *b;
        lt->held = true;
        lt->local = lt->trained = local;
        return 1;
    }
    if (lt->held && local == lt->local) {
        lt->hold = *b; /* a redraw of the same update, with its postfix: the last wins */
        pdb_steplog_saw_lines(w, 1);
        return 1;
    }
    pdb_skip(w->src, local <= 0 ? "progress bar before its first batch"
                                : "progress bar redrawn after validation");
    return 1;
}

/* A bar that counts the steps themselves ("Training progress: 33%|...|
 * 10000/30000 [03:35<09:02, 36.88it/s, Loss=0.048756]"): n is the step; the
 * last drawing of an n is its record. */
static int steps_bar(pdb_steplog *w, pdb_steplog_lightning *lt, lt_bar *b)
{
    if (lt->held && lt->hold.kind == PDB_BAR_STEPS && b->n == lt->hold.n) {
        lt->hold = *b; /* a redraw of the same step: the last wins */
        pdb_steplog_saw_lines(w, 1);
        return 1;
    }
    if (b->n <= 0) {
        pdb_skip(w->src, "progress bar before its first step");
        return 1;
    }
    if (flush(w, lt) != PDB_OK)
        return PDB_ERR;
    lt->hold = *b;
    lt->held = true;
    lt->steps = true;
    return 1;
}

/* A validation bar: the training update before it is complete; the batches
 * of each dataloader are added up (the bar restarts for the next one). */
static int val_bar(pdb_steplog *w, pdb_steplog_lightning *lt, const lt_bar *b)
{
    if (flush(w, lt) != PDB_OK)
        return PDB_ERR;
    if (!lt->after_val) {
        lt->after_val = true;
        lt->val_done = lt->val_n = 0;
    }
    if (b->n < lt->val_n)
        lt->val_done += lt->val_n;
    lt->val_n = b->n;
    pdb_skip(w->src, "validation progress bar (not a training step)");
    return 1;
}

int pdb_steplog_lightning_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    lt_bar b;
    if (!parse_bar(s, len, &b)) {
        const char *t = s, *after;
        size_t tl = pdb_steplog_trim(&t, len);
        if (pdb_steplog_lightning_desc(t, tl, &after) == PDB_BAR_NONE)
            return 0;
        pdb_skip(w->src, "progress bar without a total");
        return 1;
    }
    pdb_steplog_lightning *lt = state(w);
    b.line = lineno;
    b.rank = w->line_rank; /* the record is written later: keep the line's rank */
    switch (b.kind) {
    case PDB_BAR_EPOCH:
    case PDB_BAR_EPOCH_TQDM:
        b.epoch = 0;
        if (!pdb_steplog_int_after(s, len, "Epoch ", &b.epoch))
            pdb_steplog_int_after(s, len, "epoch ", &b.epoch);
        return epoch_bar(w, lt, &b);
    case PDB_BAR_STEPS:
        return steps_bar(w, lt, &b);
    case PDB_BAR_VAL:
        return val_bar(w, lt, &b);
    case PDB_BAR_SANITY:
        pdb_skip(w->src, "sanity-check progress bar (not a training step)");
        return 1;
    default:
        pdb_skip(w->src, "progress bar that counts no training step");
        return 1;
    }
}

int pdb_steplog_lightning_end(pdb_steplog *w)
{
    pdb_steplog_lightning *lt = w->lightning;
    if (!lt)
        return PDB_OK;
    if (flush(w, lt) != PDB_OK)
        return PDB_ERR;
    if (lt->steps)
        snprintf(w->hf_bar_note, sizeof w->hf_bar_note,
                 "from the bar that counts the steps (its description says so)");
    else if (lt->echoes > 0)
        snprintf(w->hf_bar_note, sizeof w->hf_bar_note,
                 "from the 'Epoch E' bar's training updates only (%lld validation runs were "
                 "counted in that bar, as before Lightning 2.0: taken off its n)",
                 (long long)lt->echoes);
    else
        snprintf(w->hf_bar_note, sizeof w->hf_bar_note,
                 "from the 'Epoch E' bar's training updates only");
    return PDB_OK;
}
