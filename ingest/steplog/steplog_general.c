/* steplog_general.c: the general text reader, for step logs no flavor claims.
 *
 * Users bring logs from whatever trainer they run; a handful of flavors will
 * never cover them. This reader reads what those logs have in common:
 *
 *   - a record is a line that carries a step counter ("step 5", "iter: 5",
 *     "[step=5/1000]", "iteration: 5 / 100", "Epoch 3 | Step 20",
 *     "Epoch [1][50/930]", "Train: 0 [ 50/10009 (0%)]"), or such a line
 *     followed by indented continuation lines (OLMo prints a header line and
 *     one "name=value" line per metric), or a counter-only line followed by
 *     the metrics line (Keras prints "Epoch 3/30" and then the epoch's bar);
 *   - values are named numbers in the common shapes: "name: v", "name=v",
 *     "name v", "| name v |", "name: v unit", "v (running mean)", with
 *     thousands separators, SI suffixes and clock durations;
 *   - timestamps at the start of a line ([MM/DD HH:MM:SS], ISO dates,
 *     MM/DD/YYYY, HH:MM:SS) give the record's wall time, "[rank N]" its rank;
 *   - an epoch counter and a step counter that restarts every epoch become
 *     one ordered global step: epoch x steps per epoch + step when the log
 *     prints the total ("[50/930]"), else the previous epoch's last step plus
 *     one logging interval.
 *
 * Records are classified from their content: a record whose names say
 * validation (val_, eval, test, valid, "Epoch(val)") or that lacks the loss
 * and learning rate every training record has is split 'val'; an epoch or
 * run summary ("avg epoch time", train_runtime, an epoch line in a log whose
 * steps count within epochs) is split 'summary'; neither is a step. Lines
 * without a counter are records only when their names say eval, summary or
 * epoch time, and only after the first step record: log chatter, tables and
 * argument dumps stay out.
 *
 * Memory is bounded: one line at a time, and a record holds at most
 * GEN_PAIRS values however many continuation lines it has. */
#include "ingest/steplog/steplog.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#define GEN_PAIRS 128  /* values kept per record */
#define GEN_NAME 96    /* bytes of a name kept */
#define GEN_WORDS 6    /* words of a name kept (the last ones) */

enum { D_NONE, D_DETECTRON2, D_MMCV, D_METRICLOGGER };

/* One named number of a line. */
typedef struct {
    char name[GEN_NAME];
    size_t nl;
    double v;
    const char *unit;     /* canonical unit, "" when printed bare */
    bool per_step;        /* printed as time per step ("8ms/step") */
    bool per_step_named;  /* ... as a field's name ("ms/batch 12.12"), not in a bar */
    bool opens;           /* nothing but blanks before it on the line (prefixes blanked) */
    bool self_counter;    /* a counter the line names by its own time per it: StyleGAN's
                           * "tick 1 ... sec/tick 955.4" */
    bool is_int;
    bool progress;        /* N/M: v = N, total = M */
    int64_t total;
    bool in_bracket;      /* inside [...]: a counter or a tag, not a metric */
    bool avg;             /* a running mean printed after a value: "6.9 (6.93)" */
    bool counter;         /* used as the record's counter, not stored */
    bool pair;            /* one of several values in a field: "5092/261 tok/s" */
    bool has_from;        /* a counter printed as a range: "6376-6750batch" */
    char unit_word[12];   /* the unit printed as a word after the value ("seconds"), or "" */
    bool since_last;      /* a nameless time in parentheses after the counter: TF's
                           * "step = 101 (1.175 sec)", the time since the last record */
    int64_t from;
} gen_pair;

/* A parsed line, and the record being assembled from lines. */
typedef struct {
    int n;
    int64_t line;
    bool has_wall, has_rank;
    bool wall_fine;       /* the timestamp has a fraction of a second */
    double wall;
    int64_t rank;
    int indent;
    char lead[16];        /* first word outside brackets, lower-cased */
    bool val_tag;         /* opens with a validation tag: Marian's "[valid]" */
    bool after_best;      /* follows "Early stopping, best iteration is:": a summary */
    bool has_bar;         /* draws a progress bar ("[>>>>>", "=====") */
    int dialect;
    int dropped;          /* values beyond GEN_PAIRS */
    int64_t span;         /* the steps a nameless duration covers ("Ran 499
                           * train steps in 5.77 secs"), or 0 */
    gen_pair p[GEN_PAIRS]; /* last: copy_line copies the n in use only */
} gen_line;

/* *dst = *src for the pairs in use (a whole gen_line is 18 KB). */
static void copy_line(gen_line *dst, const gen_line *src)
{
    memcpy(dst, src, offsetof(gen_line, p) + (size_t)src->n * sizeof src->p[0]);
}

/* Counters of a record, worked out from its pairs. */
typedef struct {
    bool has_step, has_epoch, has_local, epoch_from_bracket_int;
    int64_t step, local, total;
    int64_t range;        /* steps the record's values cover ("1-375batch"), or 0 */
    double epoch;
    bool val_hint;        /* "Epoch(val)", "Test:" */
    int64_t epoch_total;  /* T of "Epoch E/T", or 0 */
    int step_at, epoch_at, local_at; /* their pairs, for the reading; -1: none */
    /* a second, finer counter beside the step: LitGPT's "iter 3050700 step
     * 610140" counts micro-batches */
    bool has_micro;
    int64_t micro;
    char micro_word[16];
    bool in_epoch;        /* the step counter says it counts within an epoch
                           * ("Epoch Step: 41", The Annotated Transformer) */
    int64_t step_total;   /* M of the step counter's "N/M", or 0 */
} gen_counters;

/* The counter marks of a line's pairs (see save_marks). */
typedef struct {
    bool counter[GEN_PAIRS], progress[GEN_PAIRS];
} gen_marks;

struct pdb_steplog_general {
    pdb_steplog *w;       /* the writer, whose name cache classify() asks; NULL when sniffing */
    gen_line line, rec;   /* the line being parsed; the record being assembled */
    bool pending;         /* rec holds a record not yet written */
    bool block;           /* rec started as a counter-only header line */
    bool block_open;      /* indented continuation lines still join it */
    int merged, merged_val; /* lines merged into rec, and those that say evaluation */
    bool rec_val0;         /* rec's own line said evaluation */
    bool has_header_epoch; /* the epoch of the last header line ("[GPU0] Epoch 2 Training
                            * ===="), for the counters within it that print none */
    double header_epoch;
    bool steps_in_headers; /* a step counter restarted under a new header's epoch
                            * (Paddle's "Epoch 2/2" then "step 100/938"): it counts
                            * within the header's epoch */
    bool have_raw;         /* the last step record's counter as printed, and the */
    int64_t raw_prev;      /* header epoch it was under */
    double raw_prev_epoch;
    int64_t epoch_only;    /* summary records of an epoch alone on a log whose steps
                            * carry an epoch: "Epoch 1 Loss 4.26" after "Epoch 1 Batch 0" */
    bool eval_phase;       /* after "Eval begin...": records are an evaluation's,
                            * until the next header line */
    bool have_train_printed; /* the last training record's counter as printed */
    int64_t train_printed, train_total; /* and the total it counted to (N/M), or 0 */
    pdb_buf work;
    gen_marks marks[2];   /* scratch for looking ahead */
    /* the shape of the log (profile pass, updated while reading) */
    bool epoch_progress;  /* steps count within epochs: epoch-only lines are summaries */
    bool epoch_steps;     /* step lines carry an epoch ("Epoch[3] Batch [200]") */
    bool any_step_counter; /* some line of the profile counts steps or batches */
    bool best_next, line_after_best; /* the line before announced the best record */
    int prof_step_lines, prof_val_lines; /* counted lines of the profile by kind */
    int prof_train_named; /* ... of them with a value named train-* (XGBoost's train-rmse) */
    int64_t prof_steps[2]; /* the first two steps of the profile */
    bool epochs_from_one, epochs_from_zero; /* "Epoch T/T" or "Epoch 0/T" seen */
    int prof_nsteps;
    int64_t eval_rounds;  /* records kept as steps that hold evaluation values only */
    bool epoch_records;   /* some line of the profile counts whole epochs only */
    /* per-step times that are means since the epoch began (profile_means):
     * the profile's run of falling values from an epoch's first record */
    bool epoch_means;
    double pm_epoch, pm_first, pm_last;
    int pm_run;           /* records in the run; -1: the epoch's run ended */
    /* ... and in the records, each field's last mean, to difference */
    struct gen_epoch_mean {
        char name[GEN_NAME];
        double epoch, v;
        int64_t n;
    } em[4];
    int nem;
    bool epoch_repeats;   /* ... but one epoch is printed on several lines in a row */
    bool prof_have_epoch;
    double prof_epoch;
    uint64_t prof_names;  /* the value names of that epoch line (names_hash) */
    int epoch_run;
    bool train_loss_keys; /* training records carry a loss or a learning rate */
    /* the global step of epoch + per-epoch counters */
    bool have_epoch0, have_prev;
    double epoch0, prev_epoch;
    int64_t prev_local, stride, base;
    bool have_epoch_line;  /* an epoch line was written, after the step epoch_line_step */
    int64_t epoch_line_step;
    bool local_from_zero; /* a per-epoch counter showed 0: it counts from 0 */
    /* context of the last step record, for records without a counter */
    bool seen_step, last_has_step, last_has_epoch;
    int64_t last_step, prev_step;
    bool have_prev_step;
    bool step_restarts;    /* the step counter restarted with an epoch */
    /* "Batch 4/203700" then "Batch 4/203800" (WeNet's executor prints epoch
     * and batch so): a count that stays while its "total" grows is an epoch
     * and its step (profile pass: records where it did, where it did not) */
    bool swap_epoch_step, sw_have;
    int64_t sw_v, sw_t;
    int sw_yes, sw_no;
    bool restarted;        /* ... at the record being written, whose */
    int64_t cur_local;     /* step within the epoch is this */
    int64_t gap, gap_seen; /* the steps between step records (the log
                            * interval), and how often it was seen */
    double last_epoch;
    /* time fields that measure the logging window, not one step (profile
     * pass): Marian's "Time 1153.11s" per 2000 updates, fairseq's
     * train_wall; yes/no: records where the value is near the wall time
     * since the last record, or near that over the steps between them */
    struct gen_win {
        char name[GEN_NAME];
        int yes, no;      /* near the wall time of the window / of a step */
        int step, part;   /* within 35% of the wall time per step / below 30% of it */
        /* without wall times: records 10 or more steps apart where the value
         * as one step's time puts over an hour between the lines (slow) or
         * not (fast), and the range of those values (a clock grows) */
        int slow, fast;
        double vmin, vmax;
    } win[8];
    int nwin;
    bool prof_prev;
    int64_t prof_step;
    bool gap_prev;        /* step lines without wall times: the last one's step */
    int64_t gap_step;
    int implied_win;      /* 1 + the window entry taken as one by the hours it
                           * implies (profile_gaps), or 0 */
    double prof_wall;
    bool prof_local;      /* prof_step is a batch within epoch win_epoch */
    double win_epoch;
    /* micro-batches: the last record's step and finer counter */
    bool have_micro;
    int64_t micro_step, micro;
    /* what the reading leaves out, said at the end */
    int64_t micro_values, part_values, stepless;
    uint64_t last_hash;   /* of the last step record: a repeat is the same line from
                           * another handler (TF's "INFO:tensorflow:" and absl) */
    char micro_name[GEN_NAME], part_name[GEN_NAME];
    int64_t micro_ratio;
};

/* ---- words and names ---------------------------------------------------- */

static bool word_in(const char *w, size_t n, const char *const *set)
{
    for (int i = 0; set[i]; i++)
        if (strlen(set[i]) == n && strncasecmp(w, set[i], n) == 0)
            return true;
    return false;
}

/* Step counters, most specific first: when a line has several (LitGPT's
 * "iter 3050700 step 610140"), the optimizer step wins. Plurals are totals
 * ("max_steps: 1000", "epochs: 90"), except "updates", "iters", "steps" and
 * "iterations" when no other word counts the line (Acme's "[Learner] Loss =
 * 0.002 | Steps = 3795 | ..."). */
static const char *const step_names[] = {"global_step", "globalstep", "step", "env_step",
                                         "num_updates", "update",
                                         "updates", "up.", "train_step", "iteration", "iter",
                                         "it", "batch", "iters", "round", "generation",
                                         "steps", "iterations", NULL};
/* "Ep." and "Up." are Marian's abbreviations ("Ep. 1 : Up. 14000"); "iters"
 * is PaddleGAN's counter ("Epoch: 1, iters: 0"), last so that a line that
 * also prints "iter" counts by it; "round" XGBoost's ("boosting round 51");
 * "generation" a genetic search's (TPOT's "Generation 3 - Current best
 * internal CV score: 0.78"); "GlobalStep:210" is Mozilla TTS's, beside its
 * "Step:209/281" in the epoch. */
static const char *const epoch_names[] = {"epoch", "ep", "ep.", NULL};
/* Words that may come before a counter name: "Train Epoch", "Global Step",
 * "completed step: 12". */
static const char *const counter_qualifiers[] = {"train", "training", "global", "current", "epoch",
                                                 "cur", "trainer", "completed", "finished",
                                                 "boosting", NULL};
static const char *const val_words[] = {"val", "valid", "validation", "eval", "evaluation",
                                        "test", "testing", "evaluating", "validating", NULL};
/* "NAME is VALUE": the verb separates them, as ':' does. */
static const char *const copulas[] = {"is", "are", "was", NULL};
/* Words that cannot end a name: "over 6400 frames", "records in 1.47
 * seconds", "and 42.59 seconds" are prose around a value, not its name. */
static const char *const stop_words[] = {"over", "in", "of", "at", "for", "to", "from", "with",
                                         "by", "and", "or", "on", "per", "after", "is", "are",
                                         "was", NULL};

/* The rank of name among the step counters (lower is preferred), or -1. The
 * name may carry qualifiers ("Global Step") and end in ':' or '='. */
static int counter_rank(const char *name, size_t nl, const char *const *set, bool *val)
{
    *val = false;
    while (nl && (name[nl - 1] == ':' || name[nl - 1] == '=' || name[nl - 1] == ' '))
        nl--;
    /* a trailing "(val)" annotation: MMCV's "Epoch(val)" */
    const char *paren = memchr(name, '(', nl);
    if (paren && name[nl - 1] == ')') {
        const char *a = paren + 1;
        size_t al = (size_t)(name + nl - 1 - a);
        *val = word_in(a, al, val_words);
        nl = (size_t)(paren - name);
        while (nl && name[nl - 1] == ' ')
            nl--;
    }
    /* "Number of iterations: 101, batch_size=8, ..." (GRIT's loop) */
    if (nl > 10 && strncasecmp(name, "number of ", 10) == 0) {
        name += 10;
        nl -= 10;
    }
    const char *last = name;
    for (const char *c = name; c < name + nl; c++)
        if (*c == ' ')
            last = c + 1;
    size_t ll = (size_t)(name + nl - last);
    /* every word before the last must be a qualifier */
    const char *w = name;
    while (w < last) {
        const char *e = memchr(w, ' ', (size_t)(last - w));
        size_t wl = (size_t)(e - w);
        if (!word_in(w, wl, counter_qualifiers) && !word_in(w, wl, val_words))
            return -1;
        if (word_in(w, wl, val_words))
            *val = true;
        w = e + 1;
    }
    for (int i = 0; set[i]; i++)
        if (strlen(set[i]) == ll && strncasecmp(last, set[i], ll) == 0)
            return i;
    return -1;
}

/* The rank of a pair among the step counters: by its name, else last when
 * the line names it a counter itself (self_counters). */
/* The rank of "steps", the first of the plurals that end step_names: a
 * plural counts a line only after another value on it ("Loss = 0.002 |
 * Steps = 3795 | ...") or as "Number of iterations: 101", never first (a
 * configuration's "  iterations: 500"). */
static int plural_rank(void)
{
    int i = 0;
    while (step_names[i] && strcmp(step_names[i], "steps") != 0)
        i++;
    return i;
}

static int step_rank(const gen_pair *p, bool *val)
{
    int r = counter_rank(p->name, p->nl, step_names, val);
    return r >= 0 || !p->self_counter ? r : 1000;
}

/* Names of end-of-run or averaged summaries: "Avg epoch time", "Total time",
 * "train_runtime", "Final loss", "best_acc". */
static bool summary_name(const char *name, size_t nl)
{
    static const char *const words[] = {"avg", "average", "total", "final", "best", "overall",
                                        NULL};
    const char *sp = memchr(name, ' ', nl);
    const char *us = memchr(name, '_', nl);
    size_t first = sp ? (size_t)(sp - name) : nl;
    if (us && (size_t)(us - name) < first)
        first = (size_t)(us - name);
    return word_in(name, first, words) || pdb_ends_with_icase(name, nl, "runtime");
}

/* "total loss", "total_loss": on a step's line, the step's loss summed over
 * its terms (TFLearn's "Training Step: 20 | total loss: 5.015"), not a
 * summary of the run */
static bool total_loss_name(const char *name, size_t nl)
{
    const char *rest;
    size_t rl;
    return (pdb_skip_prefix_icase(name, nl, "total ", &rest, &rl) ||
            pdb_skip_prefix_icase(name, nl, "total_", &rest, &rl)) &&
           rl == 4 && strncasecmp(rest, "loss", 4) == 0; /* FastSpeech2's "Total Loss" */
}

static bool average_name(const char *name, size_t nl)
{
    static const char *const words[] = {"avg", "average", NULL};
    size_t first = 0;
    while (first < nl && isalpha((unsigned char)name[first]))
        first++;
    return word_in(name, first, words);
}

/* Per-epoch values printed on their own line: "Epoch Time(s): 8.7". */
static bool epoch_time_name(const char *name, size_t nl)
{
    /* garage's "EpochTime 2.16 s" beside its "Time 7.42 s" since the start */
    return (pdb_steplog_name_has_word(name, nl, "epoch") &&
            pdb_steplog_name_has_word(name, nl, "time")) ||
           (nl == 9 && strncasecmp(name, "epochtime", 9) == 0);
}

/* ---- parsing a line ------------------------------------------------------ */

typedef struct {
    const char *b;        /* the line (a working copy) */
    size_t n, i;
    size_t ws[GEN_WORDS], we[GEN_WORDS]; /* spans of the name's words */
    int nw;
    bool closed;          /* a ':' or '=' ended the name */
    int value_run;        /* values since the last word or separator */
    int bracket;
    int bracket_first;    /* the first pair inside the outer bracket */
    char subject[64];     /* "Score" of "Score at iteration 100 is 1.39": names the
                           * value after the counter */
    bool in_paren;        /* reading a parenthesized group's own values */
    gen_line *L;
} scanner;

static void reset_name(scanner *sc)
{
    sc->nw = 0;
    sc->closed = false;
}

static void add_word(scanner *sc, size_t s, size_t e)
{
    if (sc->closed || sc->value_run) {
        reset_name(sc);
        sc->value_run = 0;
    }
    if (sc->nw == GEN_WORDS) { /* keep the last words: "...Peak GPU Memory" */
        memmove(sc->ws, sc->ws + 1, sizeof sc->ws[0] * (GEN_WORDS - 1));
        memmove(sc->we, sc->we + 1, sizeof sc->we[0] * (GEN_WORDS - 1));
        sc->nw--;
    }
    sc->ws[sc->nw] = s;
    sc->we[sc->nw++] = e;
    gen_line *L = sc->L;
    if (!L->lead[0] && !sc->bracket) {
        size_t n = e - s < sizeof L->lead - 1 ? e - s : sizeof L->lead - 1;
        for (size_t k = 0; k < n; k++)
            L->lead[k] = (char)tolower((unsigned char)sc->b[s + k]);
        while (n && (L->lead[n - 1] == ':' || L->lead[n - 1] == ','))
            n--;
        L->lead[n] = '\0';
    }
}

/* Whether " is 1.39" (a copula and a number) follows the value just read:
 * "Score at iteration 100 is 1.39", not "Model restored from step 1000000". */
static bool copula_value(const scanner *sc)
{
    size_t k = sc->i;
    while (k < sc->n && sc->b[k] == ' ')
        k++;
    size_t e = k;
    while (e < sc->n && isalpha((unsigned char)sc->b[e]))
        e++;
    if (e == k || !word_in(sc->b + k, e - k, copulas))
        return false;
    while (e < sc->n && sc->b[e] == ' ')
        e++;
    return e < sc->n && (isdigit((unsigned char)sc->b[e]) || sc->b[e] == '-');
}

/* A blank inside a name's word, which take_name turns back into a blank
 * (per_count_names). */
#define NAME_BLANK '\x1f'

/* Joins the name's words with single blanks into p->name. */
static void take_name(scanner *sc, gen_pair *p)
{
    size_t o = 0;
    int first = 0;
    bool val;
    /* "Score at iteration 100 is 1.39" (Deeplearning4j): the counter is the
     * word after the preposition; the words before it name the value that
     * follows the counter */
    if (sc->nw >= 3 && word_in(sc->b + sc->ws[sc->nw - 2], sc->we[sc->nw - 2] - sc->ws[sc->nw - 2],
                               stop_words) &&
        (counter_rank(sc->b + sc->ws[sc->nw - 1], sc->we[sc->nw - 1] - sc->ws[sc->nw - 1],
                      step_names, &val) >= 0) &&
        copula_value(sc)) {
        size_t sl = sc->we[sc->nw - 3] - sc->ws[0];
        if (sl < sizeof sc->subject) {
            memcpy(sc->subject, sc->b + sc->ws[0], sl);
            sc->subject[sl] = '\0';
        }
        first = sc->nw - 1;
    }
    for (int k = first; k < sc->nw; k++) {
        size_t wl = sc->we[k] - sc->ws[k];
        if (o + wl + 1 >= sizeof p->name)
            break;
        if (o)
            p->name[o++] = ' ';
        memcpy(p->name + o, sc->b + sc->ws[k], wl);
        o += wl;
    }
    while (o && (p->name[o - 1] == ':' || p->name[o - 1] == '='))
        o--;
    p->name[o] = '\0';
    p->nl = o;
    for (size_t k = 0; k < o; k++)
        if (p->name[k] == NAME_BLANK)
            p->name[k] = ' ';
}

static gen_pair *new_pair(scanner *sc)
{
    gen_line *L = sc->L;
    if (L->n == GEN_PAIRS) {
        L->dropped++;
        return NULL;
    }
    gen_pair *p = &L->p[L->n++];
    memset(p, 0, sizeof *p);
    p->in_bracket = sc->bracket > 0;
    return p;
}

/* An integer (optionally grouped "1,000") spanning all of s. */
static bool parse_int(const char *s, size_t len, int64_t *out)
{
    if (len > 0 && len <= 15) { /* plain digits (exact as doubles), the common case: no strtod */
        int64_t x = 0;
        size_t k = 0;
        while (k < len && s[k] >= '0' && s[k] <= '9')
            x = x * 10 + (s[k++] - '0');
        if (k == len) {
            *out = x;
            return true;
        }
    }
    double v;
    if (len == 0 || pdb_units_number(s, len, &v) != len || !pdb_steplog_to_int(v, out))
        return false;
    for (size_t k = 0; k < len; k++)
        if (s[k] == '.' || s[k] == 'e' || s[k] == 'E')
            return false;
    return true;
}

/* Whether the scanner stands at the end of a field: the line's end or a
 * separator. */
static bool field_ends(const scanner *sc)
{
    size_t k = sc->i;
    while (k < sc->n && (sc->b[k] == ' ' || sc->b[k] == '\t'))
        k++;
    return k >= sc->n || strchr(",;|", sc->b[k]);
}

/* Names a value printed without one: "4s" and "8ms/step" in a Keras bar, the
 * samples/s after timm's "Time: 0.718s,". Returns false to drop it. */
static bool name_nameless(scanner *sc, gen_pair *p)
{
    gen_line *L = sc->L;
    bool rate = p->unit && (pdb_skip_prefix(p->unit, "/", NULL) || strstr(p->unit, "/s"));
    const char *canon_rate = !p->unit ? NULL
                             : strcmp(p->unit, "samples/s") == 0 ? "samples_per_second"
                             : strcmp(p->unit, "tokens/s") == 0  ? "tokens_per_sec"
                             : strcmp(p->unit, "1/s") == 0       ? "steps_per_second"
                                                                 : NULL;
    if (p->per_step) {
        snprintf(p->name, sizeof p->name, "time per step");
    } else if (canon_rate) {
        /* "(4265.0 examples/sec; ...)", Marian's "3007.81 words/s" */
        snprintf(p->name, sizeof p->name, "%s", canon_rate);
    } else if (sc->value_run && L->n >= 2 && rate) {
        const gen_pair *prev = &L->p[L->n - 2];
        snprintf(p->name, sizeof p->name, "%.*s rate", (int)(prev->nl < 80 ? prev->nl : 80),
                 prev->name);
    } else if (sc->value_run && p->unit_word[0] && strcmp(p->unit, PDB_UNIT_SECONDS) == 0 &&
               field_ends(sc)) {
        /* a field of a value and its unit word: darknet's "0.886 seconds," */
        memcpy(p->name, p->unit_word, sizeof p->unit_word); /* NUL-terminated, shorter */
    } else if (sc->value_run == 1 && L->n >= 2 && L->p[L->n - 2].is_int &&
               !L->p[L->n - 2].progress && !L->p[L->n - 2].in_bracket &&
               L->p[L->n - 2].nl > 0 && L->p[L->n - 2].v >= 0 && !p->is_int &&
               (!p->unit || !p->unit[0]) && !L->p[L->n - 2].unit_word[0]) {
        /* an integer between a name and a fraction is the iteration the
         * value is of: NVIDIA tacotron2's "Train loss 7082 0.412546"; the
         * integer counts the steps as the line's own counter */
        gen_pair *prev = &L->p[L->n - 2];
        prev->self_counter = true;
        memcpy(p->name, prev->name, prev->nl);
        p->name[prev->nl] = '\0';
    } else if (sc->value_run) {
        return false; /* "bbox_mAP_copypaste: 0.011 0.017 ...": only the first is named */
    } else if (p->unit && strcmp(p->unit, PDB_UNIT_SECONDS) == 0) {
        snprintf(p->name, sizeof p->name, "duration");
        p->since_last = sc->in_paren;
    } else if (rate) {
        snprintf(p->name, sizeof p->name, "rate");
    } else {
        return false;
    }
    p->nl = strlen(p->name);
    return true;
}

/* Characters that end a token; a NUL byte (binary input) does too. */
static bool structural(char c)
{
    return c == '\0' || memchr("|;[]()", c, 6) != NULL;
}

/* The end of a token at b[i]: up to a blank or a structural character (at
 * least one character); a comma inside a number is a thousands separator
 * ("5,970"). */
static size_t token_end(const char *b, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && !isspace((unsigned char)b[j]) && !structural(b[j])) {
        if (b[j] == ',') {
            bool group = j > i && isdigit((unsigned char)b[j - 1]) && j + 3 < n + 1 &&
                         j + 3 <= n && isdigit((unsigned char)b[j + 1]) &&
                         isdigit((unsigned char)b[j + 2]) && isdigit((unsigned char)b[j + 3]) &&
                         (j + 4 == n || !isdigit((unsigned char)b[j + 4]));
            if (!group)
                break;
        }
        j++;
    }
    return j;
}

/* A bare integer that opens the line and is closed by '|' ("490 | loss 2.1 |
 * ...") or by ": " (darknet's "11000: 0.05, 0.08 avg loss, ...", CatBoost's
 * "1000:\tlearn: 0.0718784\ttest: ..."): the line's
 * step counter, printed without a name. */
static bool leading_counter(const scanner *sc, const char *v, const gen_pair *p)
{
    if (!p->is_int || p->unit[0] || sc->L->n != 1 || sc->bracket)
        return false;
    for (const char *c = sc->b; c < v; c++)
        if (*c != ' ' && *c != '\t')
            return false;
    size_t k = sc->i;
    while (k < sc->n && (sc->b[k] == ' ' || sc->b[k] == '\t'))
        k++;
    return k < sc->n && (sc->b[k] == '|' || (sc->b[k] == ':' && k == sc->i && k + 1 < sc->n &&
                                              (sc->b[k + 1] == ' ' || sc->b[k + 1] == '\t')));
}

/* "[50] test-error:0.02 ...": a bare integer alone in the brackets that open
 * the message (after a blanked timestamp) and followed by named values is the
 * line's counter (XGBoost's round), and so is a progress ("[100/200000] Train
 * loss: ...", deep-text-recognition-benchmark). "[1][50/930]" is not: a
 * bracket follows. */
static bool bracket_counter(const scanner *sc, const char *v, size_t vl, const gen_pair *p)
{
    if (!p->is_int || (p->unit && p->unit[0]) || sc->L->n != 1 || sc->bracket != 1)
        return false;
    for (const char *c = sc->b; c < v; c++)
        if (!strchr(" \t[]", *c))
            return false;
    size_t k = (size_t)(v + vl - sc->b);
    if (k < sc->n && sc->b[k] == ' ') {
        /* "[     300 Epoch:[ 1/25] [  26/ 273] time: ..." (carpedm20's DCGAN):
         * the global step, then the epoch's counters in their brackets */
        size_t w = k;
        while (w < sc->n && sc->b[w] == ' ')
            w++;
        size_t a = w;
        while (w < sc->n && isalpha((unsigned char)sc->b[w]))
            w++;
        return w > a && w + 1 < sc->n && sc->b[w] == ':' && sc->b[w + 1] == '[';
    }
    if (k >= sc->n || sc->b[k] != ']')
        return false;
    /* and "[21500] | gnorm 0.25 lr ..." (XLNet): a bar may stand between */
    bool bar = false;
    while (++k < sc->n && (sc->b[k] == ' ' || sc->b[k] == '\t' || (sc->b[k] == '|' && !bar)))
        bar |= sc->b[k] == '|';
    return k < sc->n && isalpha((unsigned char)sc->b[k]);
}

/* "8ms/step", "s/it", "ms/batch": a time per step */
static bool per_step_unit(const char *t, size_t n)
{
    return pdb_ends_with_icase(t, n, "/step") || pdb_ends_with_icase(t, n, "/it") ||
           pdb_ends_with_icase(t, n, "/iter") || pdb_ends_with_icase(t, n, "/batch");
}

/* HiFi-GAN's "s/b : 1.858" (seconds for the batch): a name that is a time
 * unit over "b" */
static bool per_b_unit(const char *t, size_t n, double *f)
{
    char u[8];
    if (n < 3 || n > 5 || t[n - 2] != '/' || (t[n - 1] != 'b' && t[n - 1] != 'B'))
        return false;
    snprintf(u, sizeof u, "%.*s", (int)(n - 2), t);
    const char *c = pdb_units_canon(u, n - 2, f);
    return c && strcmp(c, PDB_UNIT_SECONDS) == 0;
}

/* A name's "in UNIT" ending ("train_step_timing in s", "time in ms") is the
 * value's unit; a name that ends in a stop word ("over", "records in") is
 * prose, not a name. */
static void name_unit(gen_pair *p)
{
    double f;
    const char *u;
    /* "(t)" after a name marks a time in seconds: open_clip's "Batch (t):
     * 6.655", "Data (t): 0.029" (AverageMeters of time.time() differences) */
    if ((!p->unit || !p->unit[0]) && p->nl > 4 && memcmp(p->name + p->nl - 3, "(t)", 3) == 0) {
        p->unit = PDB_UNIT_SECONDS;
        return;
    }
    /* a name that is a unit ("seconds: 0.81", MaxText) is the value's unit */
    /* one letter is a name, not a unit: YOLOv3's "w 4.81, h 4.61" are box sizes */
    if ((!p->unit || !p->unit[0]) && p->nl >= 2 && p->nl <= 7 && strchr("numsh", p->name[0]) &&
        (u = pdb_units_canon(p->name, p->nl, &f)) &&
        strcmp(u, PDB_UNIT_SECONDS) == 0) {
        p->v *= f;
        p->unit = u;
        return;
    }
    /* a name that is a time per step ("ms/batch 12.12", PyTorch's word
     * language model) is the value's unit, per step like "8ms/step" */
    if ((!p->unit || !p->unit[0]) &&
        ((p->nl >= 4 && (u = pdb_units_canon(p->name, p->nl, &f)) &&
          strcmp(u, PDB_UNIT_SECONDS) == 0 && per_step_unit(p->name, p->nl)) ||
         (per_b_unit(p->name, p->nl, &f) && (u = PDB_UNIT_SECONDS)))) {
        p->v *= f;
        p->unit = u;
        p->per_step = true;
        p->per_step_named = true;
        snprintf(p->name, sizeof p->name, "time per step");
        p->nl = strlen(p->name);
        return;
    }
    for (size_t k = p->nl; k-- > 3;) {
        if (memcmp(p->name + k - 3, " in ", 4) != 0)
            continue;
        u = pdb_units_canon(p->name + k + 1, p->nl - k - 1, &f);
        if (u && u[0] && (!p->unit || !p->unit[0])) {
            p->v *= f;
            p->unit = u;
            p->nl = k - 3;
            p->name[p->nl] = '\0';
        }
        break;
    }
    const char *last = p->name + p->nl;
    while (last > p->name && last[-1] != ' ')
        last--;
    size_t ll = (size_t)(p->name + p->nl - last);
    if (ll <= 5 && word_in(last, ll, stop_words))
        p->nl = 0;
}

/* A value without a name, followed by one word and the end of its field
 * ("199.767 sec elapsed", "over 6400.0 frames,"): the word names it. */
static bool name_after(scanner *sc, gen_pair *p)
{
    size_t k = sc->i;
    while (k < sc->n && (sc->b[k] == ' ' || sc->b[k] == '\t'))
        k++;
    if (k >= sc->n || !isalpha((unsigned char)sc->b[k]))
        return false;
    /* up to three words before the field ends: darknet's "0.08 avg loss," */
    size_t e = k, we = k, m = k;
    for (int words = 0; words < 3 && m < sc->n && isalpha((unsigned char)sc->b[m]); words++) {
        e = token_end(sc->b, sc->n, m);
        we = e;
        if (we > m && sc->b[we - 1] == '.')
            we--;
        for (size_t c = m; c < we; c++)
            if (!isalpha((unsigned char)sc->b[c]) && sc->b[c] != '_')
                return false;
        m = e;
        while (m < sc->n && (sc->b[m] == ' ' || sc->b[m] == '\t'))
            m++;
        if (m >= sc->n || strchr(",;|)", sc->b[m]))
            break;
    }
    double f;
    bool val;
    if ((m < sc->n && !strchr(",;|)", sc->b[m])) || we - k >= sizeof p->name ||
        pdb_units_canon(sc->b + k, we - k, &f) || word_in(sc->b + k, we - k, stop_words) ||
        counter_rank(sc->b + k, we - k, step_names, &val) >= 0 ||
        counter_rank(sc->b + k, we - k, epoch_names, &val) >= 0)
        return false;
    memcpy(p->name, sc->b + k, we - k);
    p->name[we - k] = '\0';
    p->nl = we - k;
    sc->i = e;
    return true;
}

/* Several values in one field: "loss/acc=0.5/0.9" (as many names as values)
 * and "5092/261 tok/s" (a pair of rates: OpenNMT's source and target
 * tokens/s, kept as "tokens/s (1 of 2)" and "(2 of 2)", neither taken for
 * the job's rate). Returns false when the field is not such a group (a
 * progress "50/930" is not). */
static bool multi_value(scanner *sc, const char *v, size_t vl)
{
    double x[8];
    int k = 0;
    for (size_t i = 0; i <= vl;) {
        size_t j = i;
        while (j < vl && v[j] != '/')
            j++;
        if (k == 8 || j == i || pdb_units_number(v + i, j - i, &x[k]) != j - i)
            return false;
        k++;
        i = j + 1;
    }
    if (k < 2)
        return false;
    /* names: the parts of the pending last word, or the unit after the values */
    const char *nm = sc->nw ? sc->b + sc->ws[sc->nw - 1] : NULL;
    size_t nml = sc->nw ? sc->we[sc->nw - 1] - sc->ws[sc->nw - 1] : 0;
    while (nml && (nm[nml - 1] == ':' || nm[nml - 1] == '='))
        nml--;
    int slashes = 0;
    for (size_t i = 0; i < nml; i++)
        slashes += nm[i] == '/';
    const char *unit = NULL;
    double f = 1;
    size_t u = sc->i, ue = u;
    if (slashes != k - 1) {
        while (u < sc->n && sc->b[u] == ' ')
            u++;
        ue = token_end(sc->b, sc->n, u);
        unit = ue > u && isalpha((unsigned char)sc->b[u]) ? pdb_units_canon(sc->b + u, ue - u, &f)
                                                          : NULL;
        if (!unit || !unit[0])
            return false;
        sc->i = ue;
    }
    for (int i = 0, from = 0; i < k; i++) {
        gen_pair *p = new_pair(sc);
        if (!p)
            break;
        p->v = x[i] * f;
        p->unit = unit ? unit : "";
        p->pair = unit != NULL;
        if (unit) {
            snprintf(p->name, sizeof p->name, "%.*s (%d of %d)", (int)(ue - u < 40 ? ue - u : 40),
                     sc->b + u, i + 1, k);
        } else {
            int to = from;
            while (to < (int)nml && nm[to] != '/')
                to++;
            snprintf(p->name, sizeof p->name, "%.*s", to - from, nm + from);
            from = to + 1;
        }
        p->nl = strlen(p->name);
    }
    reset_name(sc);
    sc->value_run++;
    return true;
}

/* Adds the value text v[0..vl) as a pair named by the pending words; reads a
 * unit word after it ("296.2 MB", "112.20 ms") and a progress total
 * ("991 / 1000"). Returns false when the text is not a number. */
/* The rest of a duration written in words: ESPnet's "time=1 minute and 42.6
 * seconds", "1 hour, 2 minutes and 3 seconds". From i (after the first
 * part's unit), each ", N UNIT" or " and N UNIT" with a time unit is added to
 * *secs; returns where the duration ends. */
static size_t duration_parts(const scanner *sc, size_t i, double *secs)
{
    for (;;) {
        size_t k = i;
        if (k < sc->n && sc->b[k] == ',')
            k++;
        while (k < sc->n && sc->b[k] == ' ')
            k++;
        if (k + 4 <= sc->n && memcmp(sc->b + k, "and ", 4) == 0)
            k += 4;
        size_t ne = k;
        while (ne < sc->n && (isdigit((unsigned char)sc->b[ne]) || sc->b[ne] == '.'))
            ne++;
        if (ne == k || ne >= sc->n || sc->b[ne] != ' ')
            return i;
        size_t us = ne + 1, ue = token_end(sc->b, sc->n, us);
        while (ue > us && (sc->b[ue - 1] == ',' || sc->b[ue - 1] == '.'))
            ue--;
        double x, f;
        const char *u = ue > us ? pdb_units_canon(sc->b + us, ue - us, &f) : NULL;
        if (!u || strcmp(u, PDB_UNIT_SECONDS) != 0 || ue - us < 3 ||
            pdb_units_number(sc->b + k, ne - k, &x) != ne - k)
            return i;
        *secs += x * f;
        i = ue;
    }
}

/* Python's timedelta printed whole: "1 day, 2:35:41", "3 days, 0:00:12"
 * (mmcv's and MMEngine's eta). v is the number of days, sc->b[k] the word
 * after it: the end of the clock that follows (pdb_units_clock reads the
 * whole span), or 0. */
static size_t days_and_clock(const scanner *sc, const char *v, size_t k, double *seconds)
{
    size_t e = token_end(sc->b, sc->n, k);
    if (e > k && sc->b[e - 1] == ',')
        e--;
    if (!(pdb_mem_is(sc->b + k, e - k, "day") || pdb_mem_is(sc->b + k, e - k, "days")) ||
        e >= sc->n || sc->b[e] != ',')
        return 0;
    size_t m = e + 1;
    while (m < sc->n && sc->b[m] == ' ')
        m++;
    size_t t = token_end(sc->b, sc->n, m);
    while (t > m && memchr(",;", sc->b[t - 1], 2))
        t--;
    if (t <= m || !memchr(sc->b + m, ':', t - m) ||
        !pdb_units_clock(v, (size_t)(sc->b + t - v), seconds))
        return 0;
    return t;
}

/* "Time=06:13:23" (PyTorch/XLA's test scripts), "time: 12:00:01.5", "train
 * begin 06:12:38": a value named as a clock or an event's moment, printed
 * with hours, minutes and seconds, is the
 * line's wall clock (a time of day, or a clock since the start: either way
 * its differences time the steps), not a duration of the step. The pair is
 * dropped and the line gets the wall time, unless it has one already. */
static bool time_of_day(scanner *sc, gen_pair *p, const char *v, size_t vl)
{
    static const char *const names[] = {"time", "Time", "TIME", "timestamp", "Timestamp",
                                        "now", "clock", "wall_clock", NULL};
    const char *c1 = memchr(v, ':', vl);
    const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(v + vl - c1 - 1)) : NULL;
    if (!c2 || p->nl == 0 || p->progress || p->in_bracket || sc->L->has_wall ||
        strcmp(p->unit ? p->unit : "", PDB_UNIT_SECONDS) != 0 || !isfinite(p->v) || p->v < 0)
        return false;
    /* and an event's clock: "Epoch 1 train begin 06:12:38" */
    static const char *const events[] = {" begin", " begins", " start", " started", " end",
                                         " ended", " finished", " at", NULL};
    bool named = false;
    for (int k = 0; names[k] && !named; k++)
        named = pdb_mem_is(p->name, p->nl, names[k]);
    for (int k = 0; events[k] && !named; k++)
        named = pdb_ends_with_icase(p->name, p->nl, events[k]);
    if (!named)
        return false;
    sc->L->has_wall = true;
    sc->L->wall = p->v;
    sc->L->wall_fine = memchr(c2, '.', (size_t)(v + vl - c2)) != NULL;
    sc->L->n--;
    reset_name(sc);
    return true;
}

/* A duration in parts, largest first: StyleGAN's "time 1h 23m 02s",
 * CatBoost's "remaining: 22m 48s". At v (the value's token, ending at
 * sc->i): the total in *seconds and the end of the last part, or 0 when v
 * and the token after it are not two such parts. "23m" alone is not read
 * (minutes or metres?), only beside a part that says. */
static size_t duration_in_parts(const scanner *sc, const char *v, size_t vl, double *seconds)
{
    double x;
    int rank = pdb_units_span_part(v, vl, &x);
    if (rank == 0)
        return 0;
    double total = x;
    size_t end = 0, k = sc->i;
    for (;;) {
        while (k < sc->n && sc->b[k] == ' ')
            k++;
        size_t e = token_end(sc->b, sc->n, k), te = e;
        while (te > k && memchr(",;", sc->b[te - 1], 2))
            te--;
        int r = te > k ? pdb_units_span_part(sc->b + k, te - k, &x) : 0;
        if (r == 0 || r >= rank)
            break;
        total += x;
        rank = r;
        end = te;
        k = te;
    }
    if (end == 0)
        return 0;
    *seconds = total;
    return end;
}

static bool add_value(scanner *sc, const char *v, size_t vl)
{
    /* a line break of the markdown a log was pasted into: "0.3594<br>" */
    if (vl > 4 && pdb_ends_with_icase(v, vl, "<br>"))
        vl -= 4;
    /* "0.69223416WARNING:tensorflow:From ...": a logger's line glued to the
     * value (printed without a newline before it) is no part of it */
    for (size_t k = 1; k + 4 < vl; k++)
        if (isdigit((unsigned char)v[k - 1]) &&
            ((k + 7 <= vl && memcmp(v + k, "WARNING", 7) == 0) ||
             memcmp(v + k, "INFO", 4) == 0 || (k + 5 <= vl && memcmp(v + k, "ERROR", 5) == 0))) {
            vl = k;
            sc->i = sc->n; /* the rest of the line is the other line's */
            break;
        }
    /* "130.780291±0.582002" in one token: the mean, the spread dropped */
    for (size_t k = 1; k + 1 < vl; k++)
        if ((unsigned char)v[k] == 0xc2 && (unsigned char)v[k + 1] == 0xb1 &&
            isdigit((unsigned char)v[k - 1])) {
            vl = k;
            break;
        }
    while (vl && memchr(",;:", v[vl - 1], 3))
        vl--;
    /* a number that ends a sentence: "grad_norm=21.59.", "Loss is 1.72319." */
    if (vl > 1 && v[vl - 1] == '.' && isdigit((unsigned char)v[vl - 2]))
        vl--;
    /* "step: 2300/ 3305": the total follows after a blank */
    bool open_slash = vl > 1 && v[vl - 1] == '/' && isdigit((unsigned char)v[vl - 2]);
    if (open_slash)
        vl--;
    if (vl == 0)
        return false;
    int64_t a, b;
    const char *slash = memchr(v, '/', vl);
    if (slash && multi_value(sc, v, vl))
        return true;
    gen_pair tmp = {0};
    size_t parts_end;
    if (slash && parse_int(v, (size_t)(slash - v), &a) &&
        parse_int(slash + 1, (size_t)(v + vl - slash - 1), &b)) {
        tmp.progress = true; /* "11/1750", "[50/930" */
        tmp.v = (double)a;
        tmp.total = b;
        tmp.is_int = true;
    } else if ((parts_end = duration_in_parts(sc, v, vl, &tmp.v)) > 0) {
        tmp.unit = PDB_UNIT_SECONDS; /* "1h 23m 02s" */
        sc->i = parts_end;
    } else {
        double x;
        const char *unit;
        if (!pdb_units_quantity(v, vl, &x, &unit))
            return false;
        tmp.v = x;
        tmp.unit = unit;
        tmp.is_int = parse_int(v, vl, &a);
        tmp.per_step = pdb_ends_with_icase(v, vl, "/step") || pdb_ends_with_icase(v, vl, "/it") ||
                       pdb_ends_with_icase(v, vl, "/iter") || pdb_ends_with_icase(v, vl, "/batch");
        size_t k = sc->i, clock_end;
        while (k < sc->n && sc->b[k] == ' ')
            k++;
        if (tmp.is_int && (open_slash || (k < sc->n && sc->b[k] == '/'))) {
            /* "iteration: 991 / 1000", fairseq's "1000 / 2737" */
            size_t m = open_slash ? k : k + 1;
            while (m < sc->n && sc->b[m] == ' ')
                m++;
            size_t e = token_end(sc->b, sc->n, m);
            if (e > m && parse_int(sc->b + m, e - m, &b)) {
                tmp.progress = true;
                tmp.total = b;
                tmp.unit = NULL;
                sc->i = e;
            }
        } else if (tmp.is_int && unit[0] == '\0' && k < sc->n &&
                   (clock_end = days_and_clock(sc, v, k, &tmp.v)) > 0) {
            tmp.unit = PDB_UNIT_SECONDS;
            tmp.is_int = false;
            sc->i = clock_end;
        } else if (unit[0] == '\0' && k < sc->n) {
            size_t e = token_end(sc->b, sc->n, k);
            double f;
            /* "timer: 0.2051 sec." (ssd.pytorch): the unit ends a sentence */
            size_t ue = e > k + 1 && sc->b[e - 1] == '.' ? e - 1 : e;
            const char *canon = e > k ? pdb_units_canon(sc->b + k, ue - k, &f) : NULL;
            if (canon && !isdigit((unsigned char)sc->b[k])) {
                tmp.v = x * f;
                tmp.unit = canon;
                if (ue - k < sizeof tmp.unit_word) {
                    memcpy(tmp.unit_word, sc->b + k, ue - k);
                    tmp.unit_word[ue - k] = '\0';
                }
                if (strcmp(canon, PDB_UNIT_SECONDS) == 0)
                    e = duration_parts(sc, e, &tmp.v);
                tmp.per_step = pdb_ends_with_icase(sc->b + k, e - k, "/step") ||
                               pdb_ends_with_icase(sc->b + k, e - k, "/batch") ||
                               pdb_ends_with_icase(sc->b + k, e - k, "/iter");
                sc->i = e;
            }
        }
    }
    gen_pair *p = new_pair(sc);
    if (!p)
        return true;
    bool bracket = p->in_bracket;
    *p = tmp;
    p->in_bracket = bracket;
    p->opens = true;
    for (const char *c = sc->b; c < v && p->opens; c++)
        p->opens = *c == ' ' || *c == '\t';
    take_name(sc, p);
    name_unit(p);
    if (time_of_day(sc, p, v, vl))
        return true;
    /* a named time in brackets is data: BigDL's "[Wall Clock 26290.67s]" */
    if (p->in_bracket && p->nl && !p->progress && p->unit && strcmp(p->unit, PDB_UNIT_SECONDS) == 0)
        p->in_bracket = false;
    if (p->nl == 0 && (p->progress ? p->in_bracket && bracket_counter(sc, v, vl, p)
                                   : p->in_bracket ? bracket_counter(sc, v, vl, p)
                                                   : leading_counter(sc, v, p))) {
        snprintf(p->name, sizeof p->name, "step"); /* "490 | loss 2.1 | ...", "[50] ..." */
        p->nl = 4;
    }
    if (p->nl == 0 && !p->progress && !p->in_bracket && sc->subject[0] && sc->L->n == 2) {
        snprintf(p->name, sizeof p->name, "%s", sc->subject); /* "... is 1.39" */
        p->nl = strlen(p->name);
        sc->subject[0] = '\0';
    }
    if (p->nl == 0 && !p->progress && !p->in_bracket && !name_after(sc, p) &&
        !name_nameless(sc, p)) {
        sc->L->n--;
        sc->L->dropped++;
    }
    reset_name(sc);
    sc->value_run++;
    return true;
}

static void scan_pairs(scanner *sc);

/* A parenthesized group at b[i] == '('. Numbers right after values are their
 * running means ("Loss: 6.93 (6.95)", timm's "(2.337s, 54.76/s)"); words
 * after a pending name belong to it ("Speed (samples/sec)", "(ms)",
 * "Epoch(val)"); anything else is an annotation ("(step)", "(  0%)"). */
static void paren_group(scanner *sc)
{
    const char *b = sc->b;
    size_t open = sc->i, close = open + 1;
    while (close < sc->n && b[close] != ')' && b[close] != '(')
        close++;
    if (close < sc->n && b[close] == '(' && sc->nw > 0 && sc->we[sc->nw - 1] == open &&
        !sc->closed && sc->value_run == 0) {
        /* nested and glued to a name: "D(G(z)):" of the DCGAN tutorial */
        int depth = 0;
        size_t k = open;
        bool letters = true;
        for (; k < sc->n && k < open + 64; k++) {
            depth += b[k] == '(' ? 1 : b[k] == ')' ? -1 : 0;
            letters &= isalpha((unsigned char)b[k]) || b[k] == '(' || b[k] == ')' || b[k] == '_';
            if (depth == 0)
                break;
        }
        if (depth == 0 && k < sc->n && letters) {
            sc->we[sc->nw - 1] = k + 1;
            sc->i = k + 1;
            return;
        }
    }
    if (close >= sc->n || b[close] != ')') {
        sc->i = open + 1; /* unbalanced: read on */
        return;
    }
    sc->i = close + 1;
    const char *c = b + open + 1;
    size_t cl = close - open - 1;
    gen_line *L = sc->L;
    if (sc->value_run > 0 && sc->bracket == 0) {
        /* the last value_run pairs get the means, in order */
        int first = L->n - sc->value_run, k = 0;
        size_t pos = 0, fl;
        const char *f;
        double x;
        const char *u;
        bool all = true;
        int count = 0;
        while (pdb_steplog_next_field(c, cl, ',', &pos, &f, &fl)) {
            all &= pdb_units_quantity(f, fl, &x, &u);
            /* a mean has the unit of its value: "loss = 79.35 (57.126
             * sec/step)" is a step time beside the loss, not its mean */
            if (all && count == 0 && first >= 0 && first < L->n) {
                const char *bu = L->p[first].unit ? L->p[first].unit : "";
                all = strcmp(bu, u) == 0;
                /* nor is an integer beside a fraction: CatBoost's "best:
                 * 0.0974450 (2999)" names the iteration of the best */
                int64_t i;
                size_t ff = 0;
                while (ff < fl && f[ff] == ' ')
                    ff++;
                all &= L->p[first].is_int || !parse_int(f + ff, fl - ff, &i);
            }
            count++;
        }
        if (all && count > 0 && first >= 0) {
            pos = 0;
            while (pdb_steplog_next_field(c, cl, ',', &pos, &f, &fl) && first + k < L->n &&
                   L->n < GEN_PAIRS) {
                const gen_pair *base = &L->p[first + k++];
                if (base->progress || base->nl == 0)
                    continue;
                gen_pair *p = &L->p[L->n++];
                memset(p, 0, sizeof *p);
                pdb_units_quantity(f, fl, &p->v, &p->unit);
                size_t bl = base->nl < 80 ? base->nl : 80; /* both in L->p: copy, no snprintf */
                memcpy(p->name, base->name, bl);
                memcpy(p->name + bl, " (avg)", sizeof " (avg)");
                p->nl = strlen(p->name);
                p->avg = true;
                p->in_bracket = base->in_bracket;
            }
            return;
        }
    }
    bool words = false, digits = false;
    for (size_t k = 0; k < cl; k++) {
        words |= isalpha((unsigned char)c[k]) != 0;
        digits |= isdigit((unsigned char)c[k]) != 0;
    }
    if (words && !digits && sc->nw > 0 && !sc->closed && sc->value_run == 0 &&
        sc->nw < GEN_WORDS) {
        if (sc->we[sc->nw - 1] == open)
            sc->we[sc->nw - 1] = close + 1; /* glued to the word before: "D(x)" */
        else
            add_word(sc, open, close + 1); /* joined as "(content)" */
    } else if (words && digits && (sc->value_run > 0 || sc->nw == 0) && sc->bracket == 0) {
        /* values of their own after a value: llm.c's "(331.56 ms | 1581211 tok/s)" */
        scanner sub = *sc;
        sub.i = open + 1;
        sub.n = close;
        sub.value_run = 0;
        sub.in_paren = true;
        reset_name(&sub);
        scan_pairs(&sub);
        sc->value_run = 0;
    }
}

/* Counters glued to their numbers, in a field of ':'-separated parts:
 * ESPnet's "1epoch:train:6376-6750batch:" (a range: the record's values are
 * over those batches) and "2/20epoch". A part that is a word is a tag ("train";
 * "valid" marks validation). Returns false, reading nothing, when a part is
 * neither. */
static bool glued_counters(scanner *sc, size_t s, size_t e)
{
    const char *b = sc->b;
    if (!isdigit((unsigned char)b[s]))
        return false;
    size_t d = s + 1; /* cheap test first: a letter right after a digit, no fraction */
    while (d < e && b[d] != '.' && !(isalpha((unsigned char)b[d]) && isdigit((unsigned char)b[d - 1])))
        d++;
    if (d == e || b[d] == '.')
        return false;
    struct {
        int64_t a, z;
        bool range, total;
        size_t ws, we;
    } g[4];
    int ng = 0;
    bool val = false;
    for (size_t i = s; i < e;) {
        size_t j = i;
        while (j < e && b[j] != ':')
            j++;
        size_t k = i, w;
        int64_t a = 0, z = 0;
        bool two = false, range = false;
        if (j > i && isdigit((unsigned char)b[i])) {
            if (!pdb_steplog_read_int(b, j, &k, &a))
                return false;
            if (k < j && (b[k] == '-' || b[k] == '/')) {
                range = b[k] == '-';
                k++;
                if (!pdb_steplog_read_int(b, j, &k, &z))
                    return false;
                two = true;
            }
            w = k;
            bool v2;
            size_t wl = j - w;
            if (ng == 4 || wl == 0 ||
                (counter_rank(b + w, wl, step_names, &v2) < 0 &&
                 counter_rank(b + w, wl, epoch_names, &v2) < 0 &&
                 !(wl > 1 && b[j - 1] == 's' && (counter_rank(b + w, wl - 1, step_names, &v2) >= 0 ||
                                                 counter_rank(b + w, wl - 1, epoch_names, &v2) >= 0))))
                return false;
            g[ng].a = a;
            g[ng].z = two ? z : a;
            g[ng].range = range;
            g[ng].total = two && !range;
            g[ng].ws = w;
            g[ng++].we = b[j - 1] == 's' && counter_rank(b + w, wl, step_names, &v2) < 0 &&
                                 counter_rank(b + w, wl, epoch_names, &v2) < 0
                             ? j - 1
                             : j;
        } else {
            for (k = i; k < j; k++)
                if (!isalpha((unsigned char)b[k]) && b[k] != '_')
                    return false;
            val |= word_in(b + i, j - i, val_words);
        }
        i = j + 1;
    }
    if (ng == 0)
        return false;
    for (int i = 0; i < ng; i++) {
        gen_pair *p = new_pair(sc);
        if (!p)
            break;
        size_t wl = g[i].we - g[i].ws;
        wl = wl < sizeof p->name - 1 ? wl : sizeof p->name - 1;
        memcpy(p->name, b + g[i].ws, wl);
        p->name[wl] = '\0';
        p->nl = wl;
        p->is_int = true;
        p->unit = "";
        p->v = (double)(g[i].range ? g[i].z : g[i].a);
        p->has_from = g[i].range;
        p->from = g[i].a;
        p->progress = g[i].total;
        p->total = g[i].total ? g[i].z : 0;
        p->in_bracket = false;
    }
    sc->L->val_tag |= val;
    reset_name(sc);
    sc->value_run = 0;
    return true;
}

/* A date written with the month's name at b[s]: "Sep 17", then maybe a time
 * of day and a year ("Sep 17 15:31:41 2019", ctime's form): skips it. */
static bool date_words(scanner *sc, size_t s)
{
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
                                         "Aug", "Sep", "Oct", "Nov", "Dec", NULL};
    const char *b = sc->b;
    if (!isupper((unsigned char)b[s]) || !word_in(b + s, 3, months))
        return false;
    size_t k = s + 3, e;
    int64_t day;
    while (k < sc->n && b[k] == ' ')
        k++;
    e = k;
    if (!pdb_steplog_read_int(b, sc->n, &e, &day) || day < 1 || day > 31 || e - k > 2 ||
        (e < sc->n && b[e] != ' ' && b[e] != ','))
        return false;
    for (int part = 0; part < 2; part++) { /* the time of day, the year */
        size_t m = e;
        while (m < sc->n && (b[m] == ' ' || b[m] == ','))
            m++;
        size_t t = token_end(b, sc->n, m);
        double x;
        int64_t y;
        size_t yi = m;
        if (t > m && (part == 0 ? pdb_units_clock(b + m, t - m, &x) && memchr(b + m, ':', t - m)
                                : pdb_steplog_read_int(b, t, &yi, &y) && yi == t && t - m == 4))
            e = t;
    }
    sc->i = e;
    return true;
}

/* Reads the pairs of the line in sc->b. */
/* A bracket is a tag ("[olmo.train:816, rank=0]") unless it holds a record's
 * values: three or more named numbers that are no progress (YOLOv3's "[Epoch
 * 0/30, Batch 5/7329] [Losses: x 0.27, y 0.25, ..., total 11.3, recall: 0.05]"). */
static void bracket_values(scanner *sc)
{
    int named = 0;
    bool train = false;
    for (int k = sc->bracket_first; k < sc->L->n; k++) {
        const gen_pair *p = &sc->L->p[k];
        named += p->in_bracket && p->nl > 0 && !p->progress;
        train |= p->in_bracket && p->nl > 0 && pdb_steplog_train_key(p->name, p->nl);
    }
    /* two will do when one is a loss: RecBole's "epoch 0 training [time:
     * 2.99s, train loss: 74.7694]"; one when it is the bracket's only pair
     * and a loss: PyTorch-GAN's "[Epoch 0/200] [Batch 5/938] [D loss:
     * 0.693] [G loss: 0.701]", copied by many GAN repositories */
    if (named < 3 && !(named == 2 && train) &&
        !(named == 1 && train && sc->L->n - sc->bracket_first == 1))
        return;
    for (int k = sc->bracket_first; k < sc->L->n; k++)
        if (sc->L->p[k].nl > 0 && !sc->L->p[k].progress)
            sc->L->p[k].in_bracket = false;
}

static bool digits_only(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!isdigit((unsigned char)s[k]))
            return false;
    return n > 0;
}

static void scan_pairs(scanner *sc)
{
    const char *b = sc->b;
    while (sc->i < sc->n) {
        char ch = b[sc->i];
        if (ch == ' ' || ch == '\t') {
            sc->i++;
            continue;
        }
        if (ch == '|' || ch == ';') {
            reset_name(sc);
            sc->value_run = 0;
            sc->i++;
            continue;
        }
        if (ch == ',') {
            reset_name(sc); /* a value run goes on: "Time: 0.7s,  178/s" */
            sc->i++;
            continue;
        }
        if (ch == '-' && (sc->i + 1 == sc->n || b[sc->i + 1] == ' ') &&
            (sc->i == 0 || b[sc->i - 1] == ' ')) {
            reset_name(sc); /* Keras' " - loss: ..." */
            sc->value_run = 0;
            sc->i++;
            continue;
        }
        if (ch == '[') {
            if (sc->bracket++ == 0)
                sc->bracket_first = sc->L->n;
            sc->i++;
            continue;
        }
        if (ch == ']') {
            if (sc->bracket && --sc->bracket == 0)
                bracket_values(sc);
            reset_name(sc);
            sc->value_run = 0;
            sc->i++;
            continue;
        }
        if (ch == '(') {
            paren_group(sc);
            continue;
        }
        if (ch == ')') {
            sc->i++;
            continue;
        }
        if (ch == ':' || ch == '=') {
            sc->closed = sc->nw > 0;
            sc->i++;
            continue;
        }
        size_t s = sc->i, e = token_end(b, sc->n, s);
        if (e == s) {
            sc->i++; /* a byte that starts no token (NUL) */
            continue;
        }
        sc->i = e;
        bool alnum = false;
        for (size_t k = s; k < e; k++)
            alnum |= isalnum((unsigned char)b[k]) != 0;
        if (!alnum) {
            sc->L->has_bar |= e - s >= 3; /* "=====" of a progress bar, a lone "@" */
            continue;
        }
        if (glued_counters(sc, s, e))
            continue;
        if (e - s == 3 && date_words(sc, s)) {
            reset_name(sc); /* "etc:Tue Sep 17 15:31:41 2019": a date, not values */
            continue;
        }
        if (e - s <= 3 && sc->nw > 0 && !sc->value_run && word_in(b + s, e - s, copulas)) {
            sc->closed = true; /* "Loss is 1.72319." as "Loss: 1.72319" */
            continue;
        }
        /* "name=value" and "name:value" in one token */
        const char *eq = memchr(b + s, '=', e - s);
        const char *co = eq ? NULL : memchr(b + s, ':', e - s);
        if (co && !(co + 1 < b + e && (isdigit((unsigned char)co[1]) || co[1] == '-' ||
                                        co[1] == '.' || co[1] == '+')))
            co = NULL;
        if (co) {
            bool digits_before = true; /* "0:20:31" is a clock, not a name */
            for (const char *c = b + s; c < co; c++)
                digits_before &= isdigit((unsigned char)*c) != 0;
            if (digits_before)
                co = NULL;
        }
        const char *sep = eq ? eq : co;
        if (sep) {
            if (sep > b + s) {
                add_word(sc, s, (size_t)(sep - b));
                sc->closed = true;
            }
            const char *v = sep + 1;
            size_t save = sc->i;
            const char *close =
                v < b + sc->n && *v == '[' ? memchr(v, ']', (size_t)(b + sc->n - v)) : NULL;
            if (close && close > v + 1 && !memchr(v, ',', (size_t)(close - v)) &&
                !memchr(v, ' ', (size_t)(close - v))) {
                /* a one-element array as numpy prints it: cleanrl's
                 * "episodic_return=[360.]" */
                sc->i = (size_t)(close - b);
                if (add_value(sc, v + 1, (size_t)(close - v - 1))) {
                    sc->i = (size_t)(close - b) + 1;
                    continue;
                }
                sc->i = save;
            }
            if (v == b + e)
                continue; /* "iter=     1" (llama.cpp): the value is the next token */
            if (!add_value(sc, v, (size_t)(b + e - v))) {
                sc->i = save;
                reset_name(sc);
            }
            continue;
        }
        if (b[e - 1] == ':' && sc->L->n == 0 && sc->nw == 0 && digits_only(b + s, e - s - 1)) {
            sc->i = e - 1; /* "11000: 0.05, ...": maybe a leading counter */
            if (add_value(sc, b + s, e - s - 1))
                continue;
            sc->i = e;
        }
        if (add_value(sc, b + s, e - s))
            continue;
        add_word(sc, s, e);
        if (b[e - 1] == ':' || b[e - 1] == '=')
            sc->closed = true;
    }
    /* a bracket the line never closes is no tag: its values are the line's
     * (carpedm20's DCGAN prints "[%8d Epoch:[%2d/%2d] [%4d/%4d] time:
     * %4.4f, d_loss: %.8f, g_loss: %.8f" without the closing bracket) */
    if (sc->bracket > 0)
        for (int k = sc->bracket_first; k < sc->L->n; k++)
            if (sc->L->p[k].nl > 0 && !sc->L->p[k].progress)
                sc->L->p[k].in_bracket = false;
}

/* Whether a timestamp's text has a fraction of a second ("12:00:01.123",
 * "12:00:01,123"): its differences time a step finely. */
static bool fraction(const char *t, size_t n)
{
    for (size_t k = 1; k + 1 < n; k++)
        if ((t[k] == '.' || t[k] == ',') && isdigit((unsigned char)t[k - 1]) &&
            isdigit((unsigned char)t[k + 1]))
            return true;
    return false;
}

/* After a timestamp, TensorFlow's C++ log prefix: ": W      79
 * tensorflow/compiler/.../gpu_conv_algorithm_picker.cc:729] " (severity,
 * thread id, file:line]): blanked, it is no metric. */
static void severity_and_place(char *b, size_t n, size_t i)
{
    if (i < n && b[i] == ':')
        i++;
    while (i < n && b[i] == ' ')
        i++;
    if (i + 1 >= n || !strchr("IWEF", b[i]) || b[i + 1] != ' ')
        return;
    size_t k = i + 1;
    while (k < n && (b[k] == ' ' || isdigit((unsigned char)b[k])))
        k++;
    size_t e = k;
    while (e < n && b[e] != ' ' && b[e] != ']')
        e++;
    if (e >= n || b[e] != ']' || e < k + 3 || !isdigit((unsigned char)b[e - 1]) ||
        !memchr(b + k, ':', e - k))
        return;
    memset(b + i, ' ', e + 1 - i);
}

/* Blanks the timestamp at the start of the line (within its first bytes,
 * possibly in brackets) and the rank tag, setting wall time and rank. */
static void line_prefix(char *b, size_t n, gen_line *L)
{
    size_t lim = n < 64 ? n : 64, f = 0;
    while (f < n && (b[f] == ' ' || b[f] == '\t'))
        f++; /* a notebook indents its output */
    for (size_t i = 0; i < lim; i++) {
        if (!isdigit((unsigned char)b[i]) || (i > 0 && isalnum((unsigned char)b[i - 1])))
            continue;
        /* a bare time of day only at the very start ("[12:00:01]", "12:00:01 ...") */
        bool start = i == f || (i == f + 1 && b[f] == '[');
        double t;
        size_t k = pdb_steplog_timestamp_any(b + i, n - i, &t);
        if (k == 0 || (k <= 12 && !start))
            continue;
        L->has_wall = true;
        L->wall = t;
        L->wall_fine = fraction(b + i, k);
        memset(b + i, ' ', k);
        if (i + k + 1 < n && b[i + k] == '-' && isalpha((unsigned char)b[i + k + 1]))
            b[i + k] = ' '; /* glued to the message: InsightFace's "...,110-Speed 884.42" */
        severity_and_place(b, n, i + k);
        break;
    }
    /* "[rank3]:" (torchrun --tee), "[Rank 3]" */
    for (size_t i = 0; i + 5 < n && i < 48; i++) {
        if (b[i] != '[' || strncasecmp(b + i + 1, "rank", 4) != 0)
            continue;
        size_t k = i + 5;
        while (k < n && b[k] == ' ')
            k++;
        int64_t r;
        size_t d = k;
        if (pdb_steplog_read_int(b, n, &d, &r) && d < n && b[d] == ']') {
            L->has_rank = true;
            L->rank = r;
            memset(b + i, ' ', d + 1 - i);
        }
        break;
    }
}

/* ---- log prefixes: not data ----------------------------------------------------- */

static const char *const level_words[] = {"INFO", "WARNING", "WARN", "ERROR", "DEBUG",
                                          "CRITICAL", "FATAL", "TRACE", "NOTICE", NULL};

/* Whether b[s..e) is a log level, bare or dressed: "INFO", "[INFO]", "INFO:",
 * "-INFO:" (glued to a timestamp), "<INFO>". */
static bool level_token(const char *b, size_t s, size_t e)
{
    while (s < e && strchr("[<(-", b[s]))
        s++;
    while (e > s && strchr("]>):", b[e - 1]))
        e--;
    return e > s && word_in(b + s, e - s, level_words);
}

/* "name:123" where the name is a file ("solver.cpp:228"), a dotted logger
 * ("olmo.train:908"), a class ("DistriOptimizer$:392") or a host
 * ("intern-studio-160750:0"), maybe closed by ']': where a line was printed
 * from, not a metric. Enclosed in brackets or parentheses ("(trainer:486)",
 * "[train.py:102]") any name will do: the enclosure says it is a tag. */
static bool origin_token(const char *b, size_t s, size_t e)
{
    bool enclosed = e - s > 2 && (b[s] == '(' || b[s] == '[');
    if (enclosed)
        s++;
    if (e > s && (b[e - 1] == ']' || b[e - 1] == ')'))
        e--;
    const char *co = NULL;
    for (size_t k = s; k < e; k++)
        if (b[k] == ':')
            co = b + k;
    if (!co || co == b + s || co + 1 == b + e)
        return false;
    for (const char *c = co + 1; c < b + e; c++)
        if (!isdigit((unsigned char)*c))
            return false;
    bool alpha = false, mark = enclosed;
    for (const char *c = b + s; c < co; c++) {
        if (!isalnum((unsigned char)*c) && !strchr("._-/$", *c))
            return false;
        alpha |= isalpha((unsigned char)*c) != 0;
        mark |= *c == '$' || ((*c == '.' || *c == '-') && c + 1 < co);
    }
    return alpha && mark;
}

/* A logger name: a dotted identifier ("ppgan.engine.trainer") or a word
 * followed by a level ("root INFO:"; so-vits-svc names its logger after
 * the model, "32k\tINFO\t"): letters, maybe digits first, never a number. */
static bool logger_token(const char *b, size_t s, size_t e)
{
    bool alpha = false;
    for (size_t k = s; k < e; k++) {
        if (!isalnum((unsigned char)b[k]) && b[k] != '.' && b[k] != '_')
            return false;
        alpha |= isalpha((unsigned char)b[k]) != 0;
    }
    double v;
    return alpha && pdb_units_number(b + s, e - s, &v) != e - s; /* "1e5" is a number */
}

/* A tag in brackets at the start of a line: a host ("[PC]", "[gpu01:0/2]"),
 * an MPI process ("[1,0]<stdout>:"), a logger record ("[2019-03-17:14:20:
 * 54:INFO:sockeye.training:__call__]", whose date is read as the wall time).
 * Not a counter ("[50]", "[step=5/100]", "[Epoch 3"), not a rank
 * ("[rank3]:", read by line_prefix). */
static bool tag_token(const char *b, size_t s, size_t e, gen_line *L)
{
    if (e - s < 3 || (b[s] != '[' && b[s] != '<'))
        return false;
    size_t c = e;
    while (c > s && strchr("]>):", b[c - 1]))
        c--;
    bool alpha = false;
    for (size_t k = s + 1; k < c; k++) {
        if (b[k] == '=')
            return false;
        alpha |= isalpha((unsigned char)b[k]) != 0;
    }
    if (!alpha || c == e || strncasecmp(b + s + 1, "rank", 4) == 0)
        return false;
    size_t w = s + 1, we = w;
    while (we < c && isalpha((unsigned char)b[we]))
        we++;
    bool val;
    if (we > w && (counter_rank(b + w, we - w, step_names, &val) >= 0 ||
                   counter_rank(b + w, we - w, epoch_names, &val) >= 0))
        return false;
    /* "YYYY-MM-DD:HH:MM:SS": the date of a logger record */
    char t[32];
    double wall;
    if (c - s - 1 >= 19 && isdigit((unsigned char)b[s + 1]) && b[s + 11] == ':') {
        memcpy(t, b + s + 1, 19);
        t[10] = ' ';
        if (pdb_steplog_timestamp(t, 19, &wall) == 19) {
            L->has_wall = true;
            L->wall = wall;
        }
    }
    return true;
}

/* "MMDD HH:MM:SS[.ffffff]" right after the character at b[i] (glog's
 * severity, tensorpack's '['): a date without a year and a time, read as a
 * wall time in 2000. Returns the index past the time, or 0. */
static size_t month_day_clock(const char *b, size_t n, size_t i, double *wall, bool *fine)
{
    for (size_t k = 1; k <= 4; k++)
        if (!isdigit((unsigned char)b[i + k]))
            return 0;
    if (b[i + 5] != ' ')
        return 0;
    char t[40];
    size_t tl = 0;
    t[tl++] = b[i + 1], t[tl++] = b[i + 2], t[tl++] = '/', t[tl++] = b[i + 3], t[tl++] = b[i + 4];
    t[tl++] = ' ';
    size_t k = i + 6;
    while (k < n && tl < sizeof t - 1 && (isdigit((unsigned char)b[k]) || b[k] == ':' ||
                                          b[k] == '.'))
        t[tl++] = b[k++];
    if (pdb_steplog_timestamp_any(t, tl, wall) != tl)
        return 0;
    *fine = fraction(t, tl);
    return k;
}

/* glog's header "I0612 12:00:00.123456 12345 solver.cpp:228] ": the
 * severity and date, the time (the record's wall time), the thread id and
 * the source line. Returns its length, or 0. */
static size_t glog_header(const char *b, size_t n, gen_line *L)
{
    size_t i = 0;
    while (i < n && b[i] == ' ')
        i++;
    double wall;
    bool fine;
    size_t k;
    if (i + 22 > n || !strchr("IWEF", b[i]) || (k = month_day_clock(b, n, i, &wall, &fine)) == 0)
        return 0;
    while (k < n && b[k] == ' ')
        k++;
    size_t tid = k;
    while (k < n && isdigit((unsigned char)b[k]))
        k++;
    if (k == tid)
        return 0;
    while (k < n && b[k] == ' ')
        k++;
    const char *close = memchr(b + k, ']', n - k);
    if (!close || memchr(b + k, ' ', (size_t)(close - (b + k))))
        return 0;
    L->has_wall = true;
    L->wall = wall;
    L->wall_fine = fine;
    return (size_t)(close - b) + 1;
}

/* tensorpack's header "[0724 10:47:52 @base.py:198] ": glog's date and time
 * in brackets, then where the line was printed. Returns its length, or 0. */
static size_t tensorpack_header(const char *b, size_t n, gen_line *L)
{
    size_t i = 0;
    while (i < n && b[i] == ' ')
        i++;
    double wall;
    bool fine;
    size_t k;
    if (i + 20 > n || b[i] != '[' || (k = month_day_clock(b, n, i, &wall, &fine)) == 0 ||
        k + 2 >= n || b[k] != ' ' || b[k + 1] != '@')
        return 0;
    const char *close = memchr(b + k, ']', n - k);
    if (!close || memchr(b + k + 1, ' ', (size_t)(close - (b + k + 1))))
        return 0;
    L->has_wall = true;
    L->wall = wall;
    L->wall_fine = fine;
    return (size_t)(close - b) + 1;
}

/* The logger of "LEVEL:logger:text": no blank, no colon, a letter first. */
static bool glued_logger(const char *b, size_t s, size_t e)
{
    for (size_t k = s; k < e; k++)
        if (b[k] == ' ' || b[k] == '\t' || b[k] == ':')
            return false;
    return e > s && isalpha((unsigned char)b[s]);
}

/* "(runner.py 50):" as two tokens, [s,e) and [ns,ne): a source file and its
 * line in parentheses (Swin Transformer's logger format "(%(filename)s
 * %(lineno)d): %(levelname)s"). */
static bool spaced_origin(const char *b, size_t s, size_t e, size_t ns, size_t ne)
{
    if (e - s < 4 || b[s] != '(' || ne <= ns || !memchr(b + s, '.', e - s))
        return false;
    for (size_t k = s + 1; k < e; k++)
        if (!isalnum((unsigned char)b[k]) && !strchr("._-", b[k]))
            return false;
    size_t k = ns;
    while (k < ne && isdigit((unsigned char)b[k]))
        k++;
    return k > ns && k < ne && b[k] == ')' && (k + 1 == ne || (k + 2 == ne && b[k + 1] == ':'));
}

/* A source location printed at the end of the line (rich's log handler
 * right-aligns "train_util.py:715"): blanked, as at the start. */
static void trailing_origin(char *b, size_t n)
{
    size_t e = n;
    while (e > 0 && (b[e - 1] == ' ' || b[e - 1] == '\t' || b[e - 1] == '\r'))
        e--;
    size_t s = e;
    while (s > 0 && b[s - 1] != ' ' && b[s - 1] != '\t')
        s--;
    if (s > 0 && e > s && origin_token(b, s, e) && memchr(b + s, '.', e - s))
        memset(b + s, ' ', e - s);
}

/* Past the blanks and separators between prefix fields: "|" (loguru),
 * a lone "-" ("03/25 23:58:44 - mmengine - INFO - "). */
static size_t prefix_gap(const char *b, size_t n, size_t i)
{
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '|' ||
                     (b[i] == '-' && (i + 1 == n || b[i + 1] == ' '))))
        i++;
    return i;
}

/* A time after "LEVEL:logger:" (GluonNLP's "INFO:gluonnlp:16:42:47 Epoch:
 * 0, ..."): the record's wall time, no value. */
static void glued_time(char *b, size_t n, size_t i, gen_line *L)
{
    double t;
    size_t k = pdb_steplog_timestamp_any(b + i, n - i, &t);
    if (k == 0 || L->has_wall || i + k >= n || b[i + k] != ' ')
        return;
    L->has_wall = true;
    L->wall = t;
    L->wall_fine = fraction(b + i, k);
    memset(b + i, ' ', k);
}

/* After a line's timestamp, before its message: a time zone, "(CET)", or a
 * clock since the run started, "0:03:12" (mistral-finetune's "2024-12-19
 * 09:24:38 (CET) - 0:03:12 - train - INFO - step: 000001 ..."). The
 * timestamp times the steps; neither is a metric. */
static bool since_start_token(const char *b, size_t s, size_t e)
{
    if (e - s >= 4 && e - s <= 7 && b[s] == '(' && b[e - 1] == ')') {
        for (size_t k = s + 1; k + 1 < e; k++)
            if (!isupper((unsigned char)b[k]))
                return false;
        return true;
    }
    int colons = 0;
    for (size_t k = s; k < e; k++) {
        if (b[k] == ':')
            colons++;
        else if (!isdigit((unsigned char)b[k]))
            return false;
    }
    return colons == 2 && isdigit((unsigned char)b[s]) && isdigit((unsigned char)b[e - 1]);
}

/* Blanks the log prefix of the line: glog's header, then from the start
 * (after the timestamp, already blanked) the run of prefix fields: levels,
 * "LEVEL:logger:" glued to the text ("INFO:tensorflow:global step 9:"),
 * logger names before a level, "file:line", "logger:line", "host:rank",
 * bracketed tags ("[PC]", "[1,0]<stdout>:", "(trainer:486)"). The first
 * field of another kind ends the prefix. */
static void log_prefix(char *b, size_t n, gen_line *L)
{
    size_t g = glog_header(b, n, L);
    if (g == 0)
        g = tensorpack_header(b, n, L);
    memset(b, ' ', g);
    size_t i = g;
    while (i < n) {
        i = prefix_gap(b, n, i);
        size_t e = i;
        while (e < n && b[e] != ' ' && b[e] != '\t')
            e++;
        if (e == i)
            break;
        /* "INFO:tensorflow:rest", "INFO:root:Epoch[0]": the level and the
         * logger end at the second colon */
        const char *c1 = memchr(b + i, ':', e - i);
        if (c1 && word_in(b + i, (size_t)(c1 - (b + i)), level_words)) {
            /* (Python logging's BASIC_FORMAT; the logger is any name,
             * "INFO:Kamyk-12M:loss_disc=4.107" of RVC too) */
            const char *c2 = memchr(c1 + 1, ':', (size_t)(b + e - c1 - 1));
            if (c2 && c2 > c1 + 1 && glued_logger(b, (size_t)(c1 + 1 - b), (size_t)(c2 - b))) {
                memset(b + i, ' ', (size_t)(c2 + 1 - (b + i)));
                glued_time(b, n, (size_t)(c2 + 1 - b), L);
                break; /* the text follows, glued */
            }
        }
        size_t ne = prefix_gap(b, n, e), nn = ne;
        while (nn < n && b[nn] != ' ' && b[nn] != '\t')
            nn++;
        if (e == i + 1 && b[i] == '[' && L->has_wall) {
            /* "[2025-08-08 20:11:04 baseline]" with its timestamp blanked:
             * the rest of the bracket is the logger's name */
            const char *close = memchr(b + i, ']', n - i < 64 ? n - i : 64);
            if (close && !memchr(b + i + 1, '[', (size_t)(close - b - i - 1))) {
                memset(b + i, ' ', (size_t)(close + 1 - (b + i)));
                i = (size_t)(close - b) + 1;
                continue;
            }
        }
        if (spaced_origin(b, i, e, ne, nn)) {
            memset(b + i, ' ', nn - i); /* Swin's "(main.py 224): INFO" */
            i = nn;
            continue;
        }
        bool before_level = nn > ne && level_token(b, ne, nn) && logger_token(b, i, e);
        if (e - i > 2 && b[i] == '[' && b[e - 1] == ']' &&
            word_in(b + i + 1, e - i - 2, val_words)) {
            L->val_tag = true; /* Marian's "[valid]": said, then blanked as a tag */
            memset(b + i, ' ', e - i);
            i = e;
            continue;
        }
        if (level_token(b, i, e) || origin_token(b, i, e) || before_level ||
            tag_token(b, i, e, L) || (L->has_wall && since_start_token(b, i, e))) {
            memset(b + i, ' ', e - i);
            i = e;
            continue;
        }
        break;
    }
    trailing_origin(b, n);
}

/* "Ran 499 train steps in 5.77 secs" (Trax's training loop): the time that
 * follows covers that many steps. The count, its verb and the words up to
 * "in" are blanked, so the time is a nameless duration of the line, and
 * L->span says how many steps it covers. */
static void steps_in(char *b, size_t n, gen_line *L)
{
    static const char *const words[] = {" steps in ", " iterations in ", " iters in ",
                                        " batches in ", " updates in ", NULL};
    for (int w = 0; words[w]; w++) {
        const char *at = pdb_steplog_find(b, n, words[w]);
        if (!at)
            continue;
        size_t e = (size_t)(at - b), k = e;
        /* one word may stand between the count and "steps": "499 train steps" */
        size_t j = k;
        while (j > 0 && isalpha((unsigned char)b[j - 1]))
            j--;
        if (j < k && j > 1 && b[j - 1] == ' ' && isdigit((unsigned char)b[j - 2]))
            k = j - 1;
        size_t d = k;
        while (d > 0 && isdigit((unsigned char)b[d - 1]))
            d--;
        if (d == k || (d > 0 && b[d - 1] != ' '))
            continue;
        int64_t steps = 0;
        size_t q = d;
        if (!pdb_steplog_read_int(b, k, &q, &steps) || steps < 1)
            continue;
        size_t v = d; /* and the verb before the count: "Ran" */
        while (v > 0 && b[v - 1] == ' ')
            v--;
        size_t vs = v;
        while (vs > 0 && isalpha((unsigned char)b[vs - 1]))
            vs--;
        if (vs < v && (vs == 0 || b[vs - 1] == ' ' || b[vs - 1] == ':'))
            d = vs;
        memset(b + d, ' ', e + strlen(words[w]) - 1 - d);
        L->span = steps;
        return;
    }
}

/* "[12 | 265.70] loss=3.07 avg=3.40" (nshepperd's gpt-2 and gpt-2-simple):
 * the step and the seconds since training started, in the brackets that open
 * the message. The seconds become the line's clock (its differences time
 * the steps); "[12]" stays, for bracket_counter. */
static void step_and_clock(char *b, size_t n, gen_line *L)
{
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t'))
        i++;
    if (i >= n || b[i] != '[' || L->has_wall)
        return;
    size_t d = ++i;
    while (i < n && isdigit((unsigned char)b[i]))
        i++;
    size_t bar = i;
    while (bar < n && b[bar] == ' ')
        bar++;
    if (i == d || bar >= n || b[bar] != '|')
        return;
    size_t t = bar + 1;
    while (t < n && b[t] == ' ')
        t++;
    double secs;
    size_t k = t < n ? pdb_units_number(b + t, n - t, &secs) : 0;
    size_t close = t + k;
    while (close < n && b[close] == ' ')
        close++;
    if (k == 0 || close >= n || b[close] != ']' || !memchr(b + t, '.', k) || !isfinite(secs) ||
        secs < 0)
        return;
    L->has_wall = true;
    L->wall = secs;
    L->wall_fine = true;
    memset(b + i, ' ', close + 1 - i);
    b[i] = ']';
}

/* "Validating:  100% |████████|" (DJL's progress bars, tqdm without its
 * count): a percentage that a drawn bar follows measures the bar, not the
 * model; it is blanked with the bar. */
static void bar_percent(char *b, size_t n)
{
    for (size_t i = 1; i + 3 < n; i++) {
        if (b[i] != '%' || !isdigit((unsigned char)b[i - 1]))
            continue;
        size_t k = i + 1;
        while (k < n && b[k] == ' ')
            k++;
        if (k + 3 >= n || b[k] != '|')
            continue;
        unsigned char g = (unsigned char)b[k + 1];
        /* a block element (U+2580-U+259F: E2 96 80-9F), '#' or '=' */
        bool drawn = (g == 0xe2 && (unsigned char)b[k + 2] == 0x96) || g == '#' || g == '=';
        if (!drawn)
            continue;
        size_t d = i;
        while (d > 0 && (isdigit((unsigned char)b[d - 1]) || b[d - 1] == '.'))
            d--;
        size_t e = k + 1;
        while (e < n && b[e] != '|')
            e++;
        memset(b + d, ' ', (e < n ? e + 1 : n) - d);
        return;
    }
}

/* "Total time per 1 batch: 0.31104s" (GRIT's loop): a count after "per" is
 * part of the name, not a value; its blanks become NAME_BLANK, which
 * take_name turns back into blanks. */
static void per_count_names(char *b, size_t n)
{
    for (size_t i = 1; i + 6 < n; i++) {
        if (b[i - 1] != ' ' || strncasecmp(b + i, "per ", 4) != 0 ||
            !isdigit((unsigned char)b[i + 4]))
            continue;
        size_t d = i + 4;
        while (d < n && isdigit((unsigned char)b[d]))
            d++;
        if (d + 1 < n && b[d] == ' ' && isalpha((unsigned char)b[d + 1])) {
            b[i + 3] = NAME_BLANK;
            b[d] = NAME_BLANK;
        }
    }
}

/* "Step 500: train WeightedCategoryCrossEntropy |  0.62914723" (Trax's
 * training loop): a name, a bar and one number that ends the line are a
 * name and its value; the bar becomes a colon. A bar after a number
 * ("loss 2.1 | lr 0.1") separates fields and stays. */
static void name_bar_value(char *b, size_t n)
{
    char *bar = NULL;
    for (size_t j = n; j > 1 && !bar; j--)
        if (b[j - 1] == '|')
            bar = b + j - 1;
    if (!bar)
        return;
    size_t i = (size_t)(bar - b) + 1;
    while (i < n && b[i] == ' ')
        i++;
    double x;
    size_t k = i < n ? pdb_units_number(b + i, n - i, &x) : 0;
    if (k == 0)
        return;
    for (k += i; k < n; k++)
        if (b[k] != ' ' && b[k] != '\t')
            return;
    const char *e = bar;
    while (e > b && e[-1] == ' ')
        e--;
    if (e > b && isalpha((unsigned char)e[-1]))
        *bar = ':';
}

/* Lines that print a whole configuration: a Python dict or list, an
 * argparse Namespace, a dataclass repr. Their numbers are settings. */
static bool paren_record(const char *t, size_t n)
{
    size_t k = 1;
    while (k < n && (isalpha((unsigned char)t[k]) || t[k] == '_'))
        k++;
    if (k == 1 || k + 2 >= n || t[k] != ':' || t[k + 1] != ' ')
        return false;
    return isdigit((unsigned char)t[k + 2]) || t[k + 2] == '-';
}

/* A line of three or more integer settings and nothing else, "name = N"
 * apart by commas: darknet's "mini_batch = 1, batch = 32, time_steps = 1,
 * train = 1" echoes its configuration (a step line has a measure, which is
 * no integer setting: "loss = 0.62, step = 101"). */
static bool int_settings(const char *t, size_t tl)
{
    size_t pos = 0, fl;
    const char *f;
    int n = 0;
    while (pdb_steplog_next_field(t, tl, ',', &pos, &f, &fl)) {
        const char *eq = memchr(f, '=', fl);
        if (!eq || eq == f || eq[-1] != ' ' || eq + 1 >= f + fl || eq[1] != ' ')
            return false;
        const char *v = eq + 1;
        size_t vl = pdb_steplog_trim(&v, (size_t)(f + fl - v));
        size_t i = 0;
        int64_t x;
        if (!pdb_steplog_read_int(v, vl, &i, &x) || i != vl)
            return false;
        n++;
    }
    return n >= 3;
}

static bool config_dump(const char *s, size_t len)
{
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    /* "(epoch: 1, iters: 100, time: 0.480)" opens CycleGAN's records: a
     * parenthesis followed by a name, a colon and a number is not a repr */
    if (tl && (t[0] == '{' || (t[0] == '(' && !paren_record(t, tl))))
        return true;
    return pdb_steplog_find(s, len, "Namespace(") || pdb_steplog_find(s, len, "Arguments(") ||
           pdb_steplog_find(s, len, "Config(") || int_settings(t, tl);
}

/* A line that prints a time per WORD ("sec/tick 955.4", "s/round 2.1")
 * and an integer named WORD ("tick 1") counts steps in WORDs, whatever the
 * word: the line says so itself (StyleGAN's "tick 1  kimg 4.0  time 1h 23m
 * 02s  sec/tick 955.4  sec/kimg 238.85 ..."). The time per WORD is then the
 * time per step. Only when no known counter name is on the line. */
static void self_counters(gen_line *L)
{
    for (int k = 0; k < L->n; k++) {
        bool val;
        const gen_pair *p = &L->p[k];
        if (p->is_int && !p->avg && p->nl &&
            (counter_rank(p->name, p->nl, step_names, &val) >= 0 ||
             counter_rank(p->name, p->nl, epoch_names, &val) >= 0))
            return;
    }
    for (int k = 0; k < L->n; k++) {
        gen_pair *q = &L->p[k];
        const char *slash = q->nl > 2 ? memchr(q->name, '/', q->nl) : NULL;
        double f;
        const char *u;
        if (!slash || (q->unit && q->unit[0]) ||
            memchr(slash + 1, ' ', (size_t)(q->name + q->nl - slash - 1)) ||
            !(u = pdb_units_canon(q->name, (size_t)(slash - q->name), &f)) ||
            strcmp(u, PDB_UNIT_SECONDS) != 0)
            continue;
        const char *word = slash + 1;
        size_t wl = (size_t)(q->name + q->nl - word);
        for (int j = 0; j < L->n; j++) {
            gen_pair *c = &L->p[j];
            if (j == k || !c->is_int || c->avg || c->progress || c->nl != wl ||
                strncasecmp(c->name, word, wl) != 0)
                continue;
            c->self_counter = true;
            q->v *= f;
            q->unit = u;
            q->per_step = q->per_step_named = true;
            snprintf(q->name, sizeof q->name, "time per step");
            q->nl = strlen(q->name);
            return;
        }
    }
}

/* A tqdm bar without a total, "100001it [04:09, 400.13it/s, env_step=100000,
 * loss=0.136]" (Tianshou's epochs): its count and elapsed clock are the
 * bar's, not values, and its rate and postfix are the record's values. The
 * count, the clock and the brackets are blanked. */
static void tqdm_count(char *b, size_t n)
{
    const char *at = n > 4 ? pdb_steplog_find(b, n, "it [") : NULL;
    if (!at || at == b || !isdigit((unsigned char)at[-1]))
        return;
    size_t i = (size_t)(at - b), d = i;
    while (d > 0 && isdigit((unsigned char)b[d - 1]))
        d--;
    if (d > 0 && !isspace((unsigned char)b[d - 1]) && b[d - 1] != ':')
        return;
    size_t c = i + 4, k = c; /* the elapsed clock: digits and ':' */
    while (k < n && (isdigit((unsigned char)b[k]) || b[k] == ':'))
        k++;
    if (k == c || !memchr(b + c, ':', k - c) || k + 2 >= n || b[k] != ',' || b[k + 1] != ' ')
        return;
    size_t r = k + 2; /* the rate, which tqdm pads ("11it [00:06,  1.59it/s]") */
    while (r < n && b[r] == ' ')
        r++;
    size_t e = r;
    while (e < n && (isdigit((unsigned char)b[e]) || b[e] == '.'))
        e++;
    if (e == r || e + 4 > n || (memcmp(b + e, "it/s", 4) != 0 && memcmp(b + e, "s/it", 4) != 0))
        return;
    const char *close = memchr(b + e, ']', n - e);
    if (!close)
        return;
    memset(b + d, ' ', r - d);
    b[close - b] = ' ';
}

/* "Epoch #3:", "Iter #0:" (Tianshou, Horovod's benchmarks): a counter's
 * number after '#', which is blanked. Only after a counter word: caffe's
 * "Train net output #0: loss = ..." numbers an output, no step. */
static void counter_hashes(char *b, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++) {
        if (b[i] != '#' || b[i - 1] != ' ' || !isdigit((unsigned char)b[i + 1]))
            continue;
        size_t e = i - 1, w = e;
        while (w > 0 && isalpha((unsigned char)b[w - 1]))
            w--;
        bool val;
        if (w < e && (counter_rank(b + w, e - w, step_names, &val) >= 0 ||
                      counter_rank(b + w, e - w, epoch_names, &val) >= 0))
            b[i] = ' ';
    }
}

/* "... lr 0.00032621 rank 0" (WeNet's executor, one line per rank): a
 * value named rank is the line's rank, not a metric. */
static void rank_pair(gen_line *L)
{
    for (int k = 0; k < L->n && !L->has_rank; k++) {
        gen_pair *p = &L->p[k];
        if (p->is_int && !p->progress && !p->counter && p->v >= 0 && p->v < 1e6 &&
            (pdb_mem_is(p->name, p->nl, "rank") || pdb_mem_is(p->name, p->nl, "Rank"))) {
            L->has_rank = true;
            L->rank = (int64_t)p->v;
            p->counter = true; /* read, and not stored as a value */
        }
    }
}

/* "[flaml.automl: 11-12 18:21:44]", "ETA: >2024-12-30 22:04:34", a rich
 * console's glued "[09/30/22 02:45:43]": a date read as a name and its time
 * of day as the value. A name without a letter names no metric; the pair is
 * dropped (and counted as a value without a name). A name of sentences is
 * its last one's. */
/* Where the last sentence of a name begins, or 0: after a lowercase word of
 * four or more letters, '.' and a blank, at a capital. The value is the
 * last sentence's: DeepSpeed's "[Rank 0] Overflow detected. Skipping step.
 * Attempted loss scale: 65536", ESPnet's "2/20epoch started. Estimated time
 * to finish: 33 minutes"; "Avg. Loss" and "No. of trees" are abbreviations. */
static size_t last_sentence(const char *name, size_t nl)
{
    size_t at = 0;
    for (size_t i = 4; i + 2 < nl; i++) {
        if (name[i] != '.' || name[i + 1] != ' ' || !isupper((unsigned char)name[i + 2]))
            continue;
        size_t w = 0;
        while (w < i && islower((unsigned char)name[i - 1 - w]))
            w++;
        if (w >= 4)
            at = i + 2;
    }
    return at;
}

static void letterless_names(gen_line *L)
{
    int n = 0;
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        bool letter = p->nl == 0 || p->counter;
        for (size_t i = 0; i < p->nl && !letter; i++)
            letter = isalpha((unsigned char)p->name[i]) || (unsigned char)p->name[i] >= 0x80;
        /* a number glued to the text after it is no name: "g_loss:
         * 0.69223416WARNING:tensorflow:From ..." (a warning printed
         * without a newline before it) */
        size_t d = 0;
        while (d < p->nl && isdigit((unsigned char)p->name[d]))
            d++;
        if (d > 0 && d + 1 < p->nl && p->name[d] == '.' && isdigit((unsigned char)p->name[d + 1]))
            letter = false;
        size_t cut = p->counter ? 0 : last_sentence(p->name, p->nl);
        if (cut > 0) {
            memmove(L->p[k].name, p->name + cut, p->nl - cut);
            L->p[k].nl -= cut;
            L->p[k].name[L->p[k].nl] = '\0';
        }
        if (!letter) {
            L->dropped++;
            continue;
        }
        if (n != k)
            L->p[n] = L->p[k];
        n++;
    }
    L->n = n;
}

/* A loader named in parentheses before the values: Catalyst's "1/4 * Epoch
 * 1 (valid): ..." beside its "(train)" line. */
static bool paren_val_tag(const char *b, size_t n)
{
    const char *colon = memchr(b, ':', n);
    size_t end = colon ? (size_t)(colon - b) : n;
    for (size_t i = 0; i < end; i++) {
        if (b[i] != '(')
            continue;
        const char *close = memchr(b + i, ')', end - i);
        if (close && (size_t)(close - b) == end - 1 &&
            word_in(b + i + 1, (size_t)(close - b - i - 1), val_words))
            return true;
    }
    return false;
}

static void parse_line(pdb_buf *work, const char *s, size_t len, gen_line *L)
{
    L->n = 0;
    L->has_wall = L->has_rank = L->wall_fine = false;
    L->lead[0] = '\0';
    L->val_tag = L->after_best = L->has_bar = false;
    L->dropped = 0;
    L->span = 0;
    L->indent = 0;
    while ((size_t)L->indent < len && (s[L->indent] == ' ' || s[L->indent] == '\t'))
        L->indent++;
    L->dialect = pdb_steplog_find(s, len, "d2.utils.events") ? D_DETECTRON2
                 : (pdb_steplog_find(s, len, "Epoch [") || pdb_steplog_find(s, len, "Iter [") ||
                    pdb_steplog_find(s, len, "Epoch(train)") ||
                    pdb_steplog_find(s, len, "Iter(train)"))
                     ? D_MMCV : D_NONE;
    /* the MetricLogger of torchvision's references (DETR, DeiT, MAE, ...):
     * "eta: 0:19:29  lr: ...  time: 1.0454  data: 0.0020  max mem: 8249" */
    if (L->dialect == D_NONE && pdb_steplog_find(s, len, "eta: ") &&
        pdb_steplog_find(s, len, "  time: ") && pdb_steplog_find(s, len, "  data: "))
        L->dialect = D_METRICLOGGER;
    if (config_dump(s, len))
        return;
    pdb_buf_reset(work);
    pdb_buf_add(work, s, len);
    /* R's knitr and reprex mark printed output "## " and "#> " */
    if (len > 3 && (work->p[0] == '#') && (work->p[1] == '#' || work->p[1] == '>') &&
        work->p[2] == ' ')
        memset(work->p, ' ', 3);
    /* and a log pasted into an e-mail or Markdown quote: "> [12 | 265.70] ..." */
    if (len > 1 && work->p[0] == '>' && work->p[1] == ' ')
        work->p[0] = ' ';
    log_prefix(work->p, len, L);
    line_prefix(work->p, len, L);
    log_prefix(work->p, len, L); /* the fields after a timestamp */
    tqdm_count(work->p, len);
    counter_hashes(work->p, len);
    step_and_clock(work->p, len, L);
    per_count_names(work->p, len);
    bar_percent(work->p, len);
    name_bar_value(work->p, len);
    steps_in(work->p, len, L);
    size_t i = 0; /* past blanks and the brackets of a blanked timestamp */
    while (i < len && (work->p[i] == ' ' || work->p[i] == '\t' || work->p[i] == ']' ||
                       (work->p[i] == '[' && i + 1 < len && work->p[i + 1] == ' ')))
        i++;
    if (i < len && work->p[i] == '[') {
        const char *close = memchr(work->p + i, ']', len - i);
        L->val_tag = close && word_in(work->p + i + 1, (size_t)(close - work->p - i - 1), val_words);
    }
    L->val_tag |= paren_val_tag(work->p, len);
    scanner sc = {.b = work->p, .n = len, .L = L};
    scan_pairs(&sc);
    letterless_names(L);
    self_counters(L);
    rank_pair(L);
}

/* A time value of a record, in seconds: printed with a time unit, or bare
 * with a name that implies one ("data_time_ms", "time") or says it is a
 * time ("Time cost"; not Marian's "Cost", a loss). Sets *secs. */
static bool seconds_of(const gen_pair *p, double *secs)
{
    double f = 1;
    const char *u;
    if (p->counter || p->in_bracket || p->avg || p->per_step || p->nl == 0 ||
        p->nl >= GEN_NAME || !(p->v > 0))
        return false;
    if (p->unit && p->unit[0]) {
        if (strcmp(p->unit, PDB_UNIT_SECONDS) != 0)
            return false;
    } else if ((u = pdb_units_from_name(p->name, p->nl, &f)) != NULL) {
        if (strcmp(u, PDB_UNIT_SECONDS) != 0)
            return false;
    } else if (!pdb_steplog_time_name(p->name, p->nl)) {
        return false;
    }
    *secs = p->v * f;
    return true;
}

/* A mean since the start named as such: Kaldi's "global average objf: -0.54
 * over 1138432.0 frames" (its "current batch average" is the batch's). */
static bool running_name(const gen_pair *p)
{
    return pdb_steplog_name_has_word(p->name, p->nl, "average") &&
           (pdb_steplog_name_has_word(p->name, p->nl, "global") ||
            pdb_steplog_name_has_word(p->name, p->nl, "running") ||
            pdb_steplog_name_has_word(p->name, p->nl, "cumulative"));
}

/* A time still to go ("Estimated time to finish: 33 minutes", "eta",
 * "remaining"): not the time an epoch took. */
static bool eta_name(const gen_pair *p)
{
    static const char *const words[] = {"estimated", "Estimated", "eta", "ETA", "remaining",
                                        "left", NULL};
    for (int i = 0; words[i]; i++)
        if (pdb_steplog_name_has_word(p->name, p->nl, words[i]))
            return true;
    return false;
}

static bool seconds_pair(const gen_pair *p)
{
    double secs;
    return seconds_of(p, &secs);
}

/* ---- counters ------------------------------------------------------------- */

/* Finds the record's counters among its pairs and marks them. */
/* An integer whose name ends in a counter word after a preposition: a
 * counter told in a sentence ("Start training from epoch: 0"), no metric. */
static bool counter_in_prose(const gen_pair *p)
{
    if (!p->is_int || p->avg || p->nl == 0)
        return false;
    const char *last = p->name;
    for (const char *c = p->name; c < p->name + p->nl; c++)
        if (*c == ' ')
            last = c + 1;
    size_t ll = (size_t)(p->name + p->nl - last);
    while (ll && (last[ll - 1] == ':' || last[ll - 1] == '='))
        ll--;
    if (last == p->name || !(word_in(last, ll, step_names) || word_in(last, ll, epoch_names)))
        return false;
    for (const char *w = p->name; w < last;) {
        const char *e = memchr(w, ' ', (size_t)(last - w));
        if (word_in(w, (size_t)(e - w), stop_words))
            return true;
        w = e + 1;
    }
    return false;
}

/* Whether a named value that is no counter and no progress follows pair k. */
static bool named_after(const gen_line *L, int k)
{
    for (int j = k + 1; j < L->n; j++)
        if (L->p[j].nl && !L->p[j].progress && !L->p[j].in_bracket)
            return true;
    return false;
}

static void find_counters(gen_line *L, gen_counters *c)
{
    memset(c, 0, sizeof *c);
    c->step_at = c->epoch_at = c->local_at = -1;
    int best = -1, rank = 1 << 20;
    for (int k = 0; k < L->n; k++) {
        gen_pair *p = &L->p[k];
        bool val;
        if (p->avg || !p->is_int || p->nl == 0)
            continue;
        int r = step_rank(p, &val);
        /* a plural first counts only as "Number of ..." or before two
         * values or more (HiFi-GAN's "Steps : 0, Gen Loss Total : 3.475,
         * ..., s/b : 1.858"): "  iterations: 500" is a setting */
        if (r >= plural_rank() && r < 1000 && k == 0 && L->n < 3 &&
            !(p->nl > 10 && strncasecmp(p->name, "number of ", 10) == 0))
            r = -1;
        if (r >= 0 && r < rank) {
            rank = r;
            best = k;
        }
        if (counter_rank(p->name, p->nl, epoch_names, &val) >= 0) {
            p->counter = true; /* a second one (lines of a step joined) too */
            if (c->has_epoch)
                continue;
            c->has_epoch = true;
            c->epoch = p->v;
            c->epoch_at = k;
            c->val_hint |= val;
            if (p->progress) {
                p->progress = false; /* "Epoch 3/30": the total is the run's length */
                c->epoch_total = p->total;
            }
        }
    }
    if (best >= 0) {
        c->has_step = true;
        c->step = (int64_t)L->p[best].v;
        c->step_at = best;
        c->in_epoch = L->p[best].nl > 6 && strncasecmp(L->p[best].name, "epoch ", 6) == 0;
        if (L->p[best].has_from && L->p[best].v >= (double)L->p[best].from)
            c->range = c->step - L->p[best].from + 1;
        /* the other counters ("iter" beside "step") are context too; one
         * that runs ahead of the step counts micro-batches */
        for (int k = 0; k < L->n; k++) {
            gen_pair *p = &L->p[k];
            bool val;
            int r = !p->avg && p->is_int && p->nl ? step_rank(p, &val)
                                                  : -1;
            if (r < 0)
                continue;
            p->counter = true;
            if (k != best && r > rank && !c->has_micro && p->v > (double)c->step) {
                const char *w = p->name;
                for (const char *q = p->name; q < p->name + p->nl; q++)
                    if (*q == ' ')
                        w = q + 1;
                size_t wl = (size_t)(p->name + p->nl - w);
                if (wl < sizeof c->micro_word) {
                    c->has_micro = true;
                    c->micro = (int64_t)p->v;
                    memcpy(c->micro_word, w, wl);
                    c->micro_word[wl] = '\0';
                }
            }
        }
    }
    /* A progress without a name ("[50/930]", "422/422", "1000 / 2737") counts
     * steps within an epoch; the integer just before it, when it is not a
     * known counter, is the epoch ("Train: 0 [0/10009 (0%)]"). */
    for (int k = 0; k < L->n; k++) {
        gen_pair *p = &L->p[k];
        if (!c->has_epoch && !c->has_step && p->progress && k + 1 < L->n &&
            L->p[k + 1].progress && L->p[k + 1].nl == 0 && p->in_bracket &&
            L->p[k + 1].in_bracket) {
            /* "[61/70][0/1865]": the epoch of the run's epochs, then the
             * step within the epoch (Swin Transformer's "Train: [E/T][N/M]";
             * "Test: [..][..]" an evaluation's) */
            c->has_epoch = true;
            c->epoch = p->v;
            c->epoch_at = k;
            c->val_hint |= word_in(p->name, p->nl, val_words);
            p->counter = true;
            continue;
        }
        if (!p->progress || p->nl != 0)
            continue;
        if (!c->has_epoch && k > 0 && L->p[k - 1].is_int && !L->p[k - 1].counter &&
            !L->p[k - 1].progress) {
            gen_pair *e = &L->p[k - 1];
            c->has_epoch = true;
            c->epoch = e->v;
            c->epoch_at = k - 1;
            c->val_hint |= word_in(e->name, e->nl, val_words);
            e->counter = true;
        }
        p->counter = true;
        if (!c->has_epoch && !c->has_step && k == 0 && p->opens && !L->has_bar &&
            named_after(L, k)) {
            /* a line that opens with its progress and goes on with named
             * values counts steps: char-rnn's "3294/3300 (epoch 49.909),
             * train_loss = 1.4496, ..., time/batch = 0.4320s" */
            c->has_step = true;
            c->step = (int64_t)p->v;
            c->step_at = k;
            break;
        }
        if (!c->has_epoch)
            break; /* an evaluation bar "764/764" counts no training step */
        c->has_local = true;
        c->local = (int64_t)p->v;
        c->local_at = k;
        c->total = p->total;
        break;
    }
    /* with an epoch and no other counter, a named progress that opens the
     * values counts steps within the epoch: "Process 100/3161(3.16%) ...,
     * epoch 0" */
    for (int k = 0; !c->has_local && !c->has_step && c->has_epoch && k < L->n; k++) {
        gen_pair *p = &L->p[k];
        if (p->counter && !p->progress)
            continue;
        if (p->progress && p->nl) {
            p->counter = true;
            c->has_local = true;
            c->local = (int64_t)p->v;
            c->local_at = k;
            c->total = p->total;
        }
        break;
    }
    /* a nameless progress before the epoch whose count is the epoch's is the
     * epoch's progress through the run, no step within it: Catalyst's "1/4 *
     * Epoch 1 (train): ..." (kaldi's "Process 0/3161 ..., epoch 0" is a
     * step) */
    if (c->has_local && c->has_epoch && c->local_at < c->epoch_at &&
        L->p[c->local_at].nl == 0 && (double)c->local == c->epoch && !c->epoch_total) {
        c->has_local = false;
        c->epoch_total = c->total;
        c->total = 0;
    }
    /* a named progress that is not a known counter is still not a metric,
     * nor is a counter named in prose ("Start training from epoch: 0",
     * "resumed at iter 5000") */
    for (int k = 0; k < L->n; k++)
        if (!L->p[k].counter && (L->p[k].progress || counter_in_prose(&L->p[k])))
            L->p[k].counter = true;
}

/* Whether the line names a counter of its own (not a bare progress). */
static bool has_named_counter(const gen_line *L)
{
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        bool val;
        if (!p->is_int || p->avg || p->nl == 0)
            continue;
        if (step_rank(p, &val) >= 0 ||
            counter_rank(p->name, p->nl, epoch_names, &val) >= 0)
            return true;
        if (k + 1 < L->n && L->p[k + 1].progress && L->p[k + 1].nl == 0)
            return true; /* "Train: 0 [0/10009" */
    }
    for (int k = 0; k + 1 < L->n; k++) {
        const gen_pair *p = &L->p[k], *q = &L->p[k + 1];
        if ((p->progress || (p->is_int && p->nl == 0)) && q->progress && q->nl == 0 &&
            p->in_bracket && q->in_bracket)
            return true; /* "Train: [61/70][0/1865]", "[1][60/162] loss=" (find_counters) */
    }
    return false;
}

/* Values that are not counters, tags in brackets or progress. */
static int metric_count(const gen_line *L)
{
    int n = 0;
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        bool val;
        if (p->progress || p->in_bracket || p->nl == 0)
            continue;
        if (p->is_int && !p->avg &&
            (step_rank(p, &val) >= 0 ||
             counter_rank(p->name, p->nl, epoch_names, &val) >= 0))
            continue;
        n++;
    }
    return n;
}

/* The record's global step from its counters: the named step when there is
 * one (a per-epoch step counter is lifted by the epochs before it), else
 * epoch x steps per epoch + step within the epoch. */
/* A log that counts nothing but whole epochs (fastai's table, PyG's "Epoch:
 * 001, Loss: ...", CNTK's "Finished Epoch[ 1 of 300]"): each record is an
 * epoch and its number is the record's step; the reading says so. */
static bool per_epoch_records(const pdb_steplog_general *g, const gen_counters *c)
{
    return g->epoch_records && !g->any_step_counter && c->has_epoch && !c->has_step &&
           !c->has_local && c->epoch >= 0 && c->epoch == floor(c->epoch) && c->epoch < 1e15;
}

static bool global_step(pdb_steplog_general *g, const gen_counters *c, bool train, int64_t *out)
{
    g->restarted = false;
    if (train && per_epoch_records(g, c)) {
        *out = (int64_t)c->epoch;
        return true;
    }
    if (!c->has_step && !(c->has_epoch && c->has_local))
        return false;
    if (!c->has_epoch) {
        *out = c->step;
        return true;
    }
    int64_t local = c->has_step ? c->step : c->local;
    if (!train) {
        *out = local;
        return c->has_step;
    }
    if (!g->have_epoch0) {
        g->have_epoch0 = true;
        /* 1-based epochs count from 1: a log that starts at epoch 1, or
         * whose "Epoch E/T" reaches T (an excerpt of Keras' "Epoch 33/38"
         * .. "Epoch 38/38") and never shows 0 */
        g->epoch0 = (c->epoch == 1 || g->epochs_from_one) && !g->epochs_from_zero ? 1 : 0;
    }
    /* "N/M" gives the global step from the epoch's length; otherwise each
     * restart of the counter continues after the previous epoch. The stride
     * (the log interval) is kept either way: a field's time per step is the
     * mean over it */
    bool restart = g->have_prev && c->epoch != g->prev_epoch && local <= g->prev_local;
    /* a step counter with a total that restarts with the epoch counts
     * within it: "N/M" then gives the global step too (GluonNLP's "Epoch:
     * 1, Batch: 399/32986") */
    g->step_restarts |= restart && c->has_step;
    g->restarted = restart;
    g->cur_local = local;
    int64_t total = c->has_step ? c->step_total : c->total;
    bool by_total = (!c->has_step || g->step_restarts) && total > 0;
    g->local_from_zero |= local == 0;
    if (g->have_prev) {
        if (restart) {
            /* the counter restarted: a counter from 0 printed its last
             * interval's start, one from 1 (MindSpore's "epoch: 2 step: 10",
             * ten steps an epoch) its epoch's last step */
            if (!by_total)
                g->base += g->prev_local +
                           (!g->local_from_zero ? 0 : g->stride > 0 ? g->stride : 1);
        } else if (c->epoch == g->prev_epoch && local > g->prev_local) {
            g->stride = local - g->prev_local;
        }
    }
    g->have_prev = true;
    g->prev_epoch = c->epoch;
    g->prev_local = local;
    *out = by_total ? (int64_t)((c->epoch - g->epoch0) * (double)total) + local
                    : g->base + local;
    return true;
}

/* ---- classifying and writing records ------------------------------------------ */

enum { K_STEP, K_VAL, K_SUMMARY, K_EPOCH };
static const char *const kind_names[] = {"step", "val", "summary", "epoch"};
static const char *const kind_splits[] = {NULL, "val", "summary", NULL};

/* Whether every value of a line is a time (an epoch's: "Epoch[3] Time cost=1.4"). */
static bool epoch_times(const gen_line *L)
{
    int n = 0;
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        if (p->counter || p->in_bracket || p->nl == 0)
            continue;
        if (!seconds_pair(p))
            return false;
        n++;
    }
    return n > 0;
}

/* What the record is: a step, a validation, a summary, a per-epoch value. */
/* The PDB_SL_NAME_* bits of pair k's name: from the writer's cache, as a log
 * repeats its names on every line. */
static int name_classes(const pdb_steplog_general *g, const gen_pair *p, int k)
{
    if (g->w)
        return pdb_steplog_name_class(g->w, p->name, p->nl, k);
    bool val = pdb_steplog_val_name(p->name, p->nl), train = pdb_steplog_train_key(p->name, p->nl);
    return (val ? PDB_SL_NAME_VAL : 0) | (!val && train ? PDB_SL_NAME_TRAIN : 0) |
           (train ? PDB_SL_NAME_TRAIN_KEY : 0) |
           (pdb_steplog_eval_metric(p->name, p->nl) ? PDB_SL_NAME_EVAL : 0);
}

static int classify(const pdb_steplog_general *g, const gen_line *L, const gen_counters *c)
{
    if (L->after_best)
        return K_SUMMARY; /* the best round again, after the last one */
    bool val = c->val_hint || L->val_tag || word_in(L->lead, strlen(L->lead), val_words);
    bool named_val = false, train = false, summary = false, epoch_time = false, eval = false;
    int metrics = 0;
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        /* a progress named by evaluation: fairseq's "| epoch 010 | valid on
         * 'valid' subset  1000 / 1311 loss=1.60" */
        size_t w1 = 0;
        while (w1 < p->nl && isalpha((unsigned char)p->name[w1]))
            w1++;
        if (p->progress && w1 > 0 && w1 < p->nl && p->name[w1] == ' ' &&
            word_in(p->name, w1, val_words))
            return K_VAL;
        if (p->counter || p->in_bracket || p->nl == 0)
            continue;
        metrics++;
        int cls = name_classes(g, p, k);
        named_val |= (cls & PDB_SL_NAME_VAL) != 0;
        train |= (cls & PDB_SL_NAME_TRAIN_KEY) != 0;
        /* an average on a line with a step counter is the step's running
         * mean (darknet's "11000: 0.05, 0.08 avg loss, ..."), in a log of
         * epochs the epoch's ("Epoch: 3 | Avg Loss: 0.31", candle's
         * examples), not a summary */
        summary |= metrics == 1 && summary_name(p->name, p->nl) &&
                   !((c->has_step || per_epoch_records(g, c)) && average_name(p->name, p->nl)) &&
                   !(c->has_step && total_loss_name(p->name, p->nl));
        eval |= (cls & PDB_SL_NAME_EVAL) != 0;
    }
    /* a counter that says evaluation ("Valid: [61/70][0/88]", "Epoch(val)")
     * or a tag that opens the message ("[Eval][Epoch 1][Iter: 0/4]loss: ...",
     * PaddleClas) decides, loss or not; else validation names without
     * training ones */
    if (c->val_hint || L->val_tag || ((val || named_val) && !train))
        return K_VAL;
    /* a line without a step of its own that opens with an evaluation word,
     * under a training line of the same names (luz's "Train metrics: Loss:
     * 0.43 - AUC: 0.83" then "Valid metrics: Loss: 0.48 - AUC: 0.83") */
    if (word_in(L->lead, strlen(L->lead), val_words) && !c->has_step && !c->has_local)
        return K_VAL;
    /* "# Start epoch 0, step 0, lr 1, Tue Apr 25 23:17:41 2017" (tensorflow/nmt):
     * an announcement of what comes, its numbers settings, not a step's */
    static const char *const announce[] = {"start", "starting", "begin", "beginning", NULL};
    if ((c->has_step || c->has_epoch) && word_in(L->lead, strlen(L->lead), announce))
        return K_SUMMARY;
    if (summary)
        return K_SUMMARY;
    if (!c->has_step && !c->has_local && !c->has_epoch) {
        for (int k = 0; k < L->n && !epoch_time; k++) {
            const gen_pair *p = &L->p[k];
            epoch_time = !p->counter && !p->in_bracket && epoch_time_name(p->name, p->nl);
        }
        return epoch_time ? K_EPOCH : K_STEP;
    }
    /* an epoch line in a log whose steps count within epochs: its summary */
    if (g->epoch_progress && c->has_epoch && !c->has_local)
        return K_SUMMARY;
    /* likewise where step lines carry an epoch: "Epoch[3] Train-acc=0.9";
     * but "Epoch[3] Time cost=1.4", times alone, is the epoch's time */
    if (g->epoch_steps && c->has_epoch && !c->has_local && !c->has_step)
        return epoch_times(L) ? K_EPOCH : K_SUMMARY;
    /* eval metrics where the training records' loss and learning rate
     * should be: an evaluation (MMEngine writes them with step = epoch) */
    if (g->train_loss_keys && !train && eval)
        return K_VAL;
    return K_STEP;
}

/* Whether p is followed by its running mean: "time: 0.2002 (0.3765)". */
static bool has_running_mean(const gen_line *L, const gen_pair *p)
{
    for (int k = 0; k < L->n; k++) {
        const gen_pair *q = &L->p[k];
        if (q->avg && q->nl == p->nl + 6 && memcmp(q->name, p->name, p->nl) == 0 &&
            memcmp(q->name + p->nl, " (avg)", 6) == 0)
            return true;
    }
    return false;
}

/* How a value aggregates steps, from its shape and the trainer's dialect. */
static const char *value_agg(const pdb_steplog_general *g, const gen_line *L, const gen_pair *p,
                             const gen_counters *c, int64_t step, bool has_step, int64_t *window)
{
    *window = 0;
    if (p->avg || running_name(p)) {
        if (c->has_local)
            *window = c->local + 1; /* AverageMeter: since the epoch began */
        return "running_mean";
    }
    if (p->per_step) {
        if (c->has_local && c->local > 0) {
            /* Keras' bar: the mean of the epoch's steps so far; a field
             * ("ms/batch 12.12", PyTorch's word language model): the mean
             * over the log interval, the last distance between records */
            *window = c->local;
            if (p->per_step_named && g->stride > 0 && g->stride < c->local)
                *window = g->stride;
            return "interval_mean";
        }
        return "point"; /* TF-Slim's "(57.126 sec/step)": this step's */
    }
    if (c->range > 0) {
        *window = c->range; /* ESPnet's "1-375batch": values over those batches */
        return "interval_mean";
    }
    bool t = pdb_mem_is(p->name, p->nl, "time"), dt = pdb_mem_is(p->name, p->nl, "data_time");
    if (L->dialect == D_DETECTRON2 && (t || dt)) {
        if (dt) {
            *window = 20; /* detectron2's printer: median of the last 20 */
            return "window_median";
        }
        if (has_step)
            *window = step + 1; /* the global average since the start */
        return "running_mean";
    }
    if (L->dialect == D_METRICLOGGER && (t || pdb_mem_is(p->name, p->nl, "data"))) {
        /* its SmoothedValue keeps the last 20 iterations (fewer at the start
         * of an epoch: the first record is its first iteration's) and prints
         * their mean, or their median before the global mean in parentheses
         * (maskrcnn-benchmark's "time: 0.2002 (0.3765)") */
        int64_t i = c->has_local ? c->local : has_step ? step : -1;
        *window = i >= 0 && i < 20 ? i + 1 : 20;
        return has_running_mean(L, p) ? "window_median" : "moving_avg";
    }
    if (L->dialect == D_MMCV && (t || dt)) {
        /* mmcv's TextLoggerHook: the mean over the logging interval */
        if (has_step && g->have_prev_step && step > g->prev_step)
            *window = step - g->prev_step;
        return "interval_mean";
    }
    return "point";
}

/* ---- step times and rates under their printed names ----------------------------- */

/* Whether name is a time of one step under a name no metric rule knows:
 * Paddle's batch_cost, TF's "per-step time", pith-train's step-time, NeMo's
 * "train_step_timing", "step_duration": a step word and a time word next to
 * each other, and no word of a phase (optimizer, data, forward, ...). */
static const char *const time_words[] = {"time", "timing", "cost", "duration", "latency",
                                         "took", NULL};
static const char *const phase_words[] = {"optim", "optimizer", "data", "reader", "forward",
                                          "fwd", "backward", "bwd", "load", "eval", "val",
                                          "wait", "elapsed", "remaining", "eta", "total",
                                          "sync", "comm", "wall", "clock", "epoch",
                                          /* a span of many: sklearn's "Convergence
                                           * after 4 epochs took 0.00 seconds" */
                                          "epochs", "steps", "iterations", "iters",
                                          "batches", NULL};

/* A time of the record that names no phase, clock or span: EAST's "time
 * consumption is 0.826" (the mini-batch's compute). When it is a step
 * record's only such time, it is the step's, before timestamp deltas. */
static bool plain_time_name(const char *name, size_t nl)
{
    /* "duration" names a nameless "4s" (Keras prints the epoch's): not it */
    if (pdb_mem_is(name, nl, "duration"))
        return false;
    bool time = false;
    for (int i = 0; time_words[i]; i++)
        time |= pdb_steplog_name_has_word(name, nl, time_words[i]);
    for (int i = 0; time && phase_words[i]; i++)
        if (pdb_steplog_name_has_word(name, nl, phase_words[i]))
            return false;
    return time;
}

/* Whether word w of name is a time word; "(t)" marks a time too: open_clip's
 * "Batch (t): 6.655", "Data (t)". */
static bool time_word(const char *name, size_t nl, const char *w, size_t wl)
{
    if (word_in(w, wl, time_words))
        return true;
    return pdb_mem_is(w, wl, "t") && w > name && w[-1] == '(' && w + 1 < name + nl && w[1] == ')';
}

static bool step_time_name(const char *name, size_t nl)
{
    static const char *const steps[] = {"step", "iter", "iteration", "batch", "update", NULL};
    static const char *const phases[] = {"optim", "optimizer", "data", "reader", "forward", "fwd",
                                         "backward", "bwd", "load", "eval", "val", "wait",
                                         "elapsed", "remaining", "eta", "total", "sync", "comm",
                                         NULL};
    const char *w[8];
    size_t wl[8];
    int n = 0;
    for (size_t i = 0; i < nl && n < 8;) {
        while (i < nl && !isalpha((unsigned char)name[i]))
            i++;
        size_t j = i;
        while (j < nl && isalpha((unsigned char)name[j]))
            j++;
        if (j > i) {
            w[n] = name + i;
            wl[n++] = j - i;
        }
        i = j;
    }
    bool step = false, time = false, adjacent = false, per = false, total = false;
    for (int k = 0; k < n; k++) {
        /* "Total time per 1 batch" (GRIT) is the step's whole time */
        if (pdb_mem_is(w[k], wl[k], "total") || pdb_mem_is(w[k], wl[k], "Total"))
            total = true;
        else if (word_in(w[k], wl[k], phases))
            return false;
        bool s = word_in(w[k], wl[k], steps), t = time_word(name, nl, w[k], wl[k]);
        bool t_per_s = t && k + 2 < n && pdb_mem_is(w[k + 1], wl[k + 1], "per") &&
                       word_in(w[k + 2], wl[k + 2], steps);
        adjacent |= (s && k + 1 < n && time_word(name, nl, w[k + 1], wl[k + 1])) ||
                    (t && k + 1 < n && word_in(w[k + 1], wl[k + 1], steps)) || t_per_s;
        per |= t_per_s;
        step |= s;
        time |= t;
    }
    if (total && !per)
        return false;
    /* "steptime", "per-step time", ssd.pytorch's "timer: 0.2051 sec." (a bare
     * time word, as the rule for "time" maps it) */
    return (step && time && adjacent) ||
           word_in(name, nl, (const char *const[]){"steptime", "per-step time", "timer", NULL});
}

/* Whether a rate name is per device: MaxText's "Tokens/s/device", torchtune's
 * "tokens_per_second_per_gpu". Such a rate is not the job's. */
static bool per_device(const char *name, size_t nl)
{
    static const char *const parts[] = {"per_gpu", "per gpu", "per-gpu", "/gpu", "per_device",
                                        "per device", "per-device", "/device", "per_chip",
                                        "/chip", "per_core", "/core", NULL};
    char low[GEN_NAME];
    size_t n = nl < sizeof low - 1 ? nl : sizeof low - 1;
    for (size_t k = 0; k < n; k++)
        low[k] = (char)tolower((unsigned char)name[k]);
    low[n] = '\0';
    for (int i = 0; parts[i]; i++)
        if (strstr(low, parts[i]))
            return true;
    return false;
}

/* The canonical rate a name or unit says, as the suffix a metric rule maps
 * ("/samples_per_second" -> samples_per_s, "/tokens_per_sec" ->
 * tokens_per_s), or NULL: "ips: 89.4", "Speed: 43383.55 samples/sec",
 * "3007.81 words/s", "tokens-per-second 28,590". Names a rule already
 * maps (wps, tps, tokens_per_sec, ...) keep their name. */
/* "/s", "/sec", "/second(s)" in a name, as a word: "samples/sec", not
 * Composer's count "time/sample". */
static bool per_second_slash(const char *name, size_t nl)
{
    static const char *const words[] = {"s", "sec", "second", "seconds", NULL};
    for (size_t k = 0; k + 1 < nl; k++) {
        if (name[k] != '/')
            continue;
        size_t e = k + 1;
        while (e < nl && isalpha((unsigned char)name[e]))
            e++;
        if (word_in(name + k + 1, e - k - 1, words))
            return true;
    }
    return false;
}

static const char *rate_suffix(const char *name, size_t nl, const char *unit)
{
    if (pdb_steplog_count_name(name, nl))
        return NULL;
    unit = unit ? unit : "";
    /* cheap tests first: this runs for every value */
    bool per = pdb_steplog_find(name, nl, "per") || per_second_slash(name, nl);
    if (unit[0] ? strcmp(unit, "samples/s") != 0 && strcmp(unit, "tokens/s") != 0 &&
                      strcmp(unit, "/s") != 0
                : !per && !(nl == 3 && strncasecmp(name, "ips", 3) == 0))
        return NULL;
    char low[GEN_NAME];
    size_t n = nl < sizeof low - 1 ? nl : sizeof low - 1;
    for (size_t k = 0; k < n; k++)
        low[k] = (char)tolower((unsigned char)name[k]);
    low[n] = '\0';
    bool tok = strstr(low, "token") || strstr(low, "word") || strcmp(unit, "tokens/s") == 0;
    bool smp = strstr(low, "sample") || strstr(low, "example") || strstr(low, "image") ||
               strcmp(unit, "samples/s") == 0;
    if (per_device(name, nl)) {
        bool rate = strcmp(unit, "tokens/s") == 0 || strcmp(unit, "samples/s") == 0 ||
                    strcmp(unit, "/s") == 0 ||
                    (!unit[0] && (strstr(low, "per") || strstr(low, "/s")));
        return !rate ? NULL : tok ? "/tokens_per_sec_per_gpu" : smp ? "/samples_per_second_per_gpu"
                                                                  : NULL;
    }
    if (pdb_steplog_find(name, nl, "per_sec") || pdb_steplog_find(name, nl, "persec") ||
        pdb_mem_is(name, nl, "wps") || pdb_mem_is(name, nl, "tps") || pdb_mem_is(name, nl, "ups"))
        return NULL;
    if (strcmp(unit, "samples/s") == 0)
        return "/samples_per_second";
    if (strcmp(unit, "tokens/s") == 0)
        return "/tokens_per_sec";
    if (unit[0] && strcmp(unit, "/s") != 0)
        return NULL;
    if (strcasecmp(name, "ips") == 0 && nl == 3)
        return "/samples_per_second";
    if (per && tok)
        return "/tokens_per_sec";
    if (per && smp)
        return "/samples_per_second";
    return NULL;
}

/* The window-time entry of a name, or -1. */
static int window_entry(const pdb_steplog_general *g, const char *name, size_t nl)
{
    for (int k = 0; k < g->nwin; k++)
        if (strlen(g->win[k].name) == nl && memcmp(g->win[k].name, name, nl) == 0)
            return k;
    return -1;
}

/* The profile entry of a time field, made on first sight (at most 8), or -1. */
static int prof_entry(pdb_steplog_general *g, const gen_pair *p)
{
    int e = window_entry(g, p->name, p->nl);
    if (e < 0 && g->nwin < 8) {
        e = g->nwin++;
        memcpy(g->win[e].name, p->name, p->nl);
        g->win[e].name[p->nl] = '\0';
        g->win[e].yes = g->win[e].no = g->win[e].step = g->win[e].part = 0;
        g->win[e].slow = g->win[e].fast = 0;
        g->win[e].vmin = INFINITY;
        g->win[e].vmax = 0;
    }
    return e;
}

/* Whether a seconds value is a time field worth testing as a window time. */
static bool time_pair(const gen_pair *p)
{
    double f;
    /* Paddle's batch_cost and reader_cost are means per step by their name */
    return !p->counter && !p->in_bracket && !p->avg && !p->per_step && p->nl > 0 &&
           !pdb_ends_with_icase(p->name, p->nl, "_cost") && !step_time_name(p->name, p->nl) &&
           p->nl < GEN_NAME && p->v > 0 &&
           ((p->unit && strcmp(p->unit, PDB_UNIT_SECONDS) == 0) ||
            ((!p->unit || !p->unit[0]) &&
             /* a bare number named a time: GluonNLP's "Time cost=108.2" */
             ((pdb_units_from_name(p->name, p->nl, &f) &&
               strcmp(pdb_units_from_name(p->name, p->nl, &f), PDB_UNIT_SECONDS) == 0) ||
              pdb_steplog_name_has_word(p->name, p->nl, "time"))));
}

/* Profile pass: for consecutive step lines with wall times, whether each
 * time field is near the wall time between them (a window time) or near
 * that over the steps between them (a step time). A clock since the start
 * (fairseq's wall) is neither: it exceeds the wall time between the lines. */
/* Without wall times nothing tells a step's time from the window's, but
 * the hours it implies: a time that, as one step's, would put over an hour
 * between lines printed every 10 or more steps is the window's (vietocr's
 * "gpu time: 38.92" every 200 iterations, GluonNLP's "time=163.24" every
 * 250 steps), unless its values grow as a clock's do. */
static void profile_gaps(pdb_steplog_general *g, const gen_line *L, const gen_counters *c)
{
    if (!c->has_step || L->has_wall)
        return;
    if (g->gap_prev && c->step >= g->gap_step + 10) {
        double n = (double)(c->step - g->gap_step);
        for (int k = 0; k < L->n; k++) {
            const gen_pair *p = &L->p[k];
            int e = time_pair(p) ? prof_entry(g, p) : -1;
            if (e < 0)
                continue;
            if (p->v * n > 3600)
                g->win[e].slow++;
            else
                g->win[e].fast++;
            g->win[e].vmin = fmin(g->win[e].vmin, p->v);
            g->win[e].vmax = fmax(g->win[e].vmax, p->v);
        }
    }
    g->gap_prev = true;
    g->gap_step = c->step;
}

static void profile_windows(pdb_steplog_general *g, const gen_line *L, const gen_counters *c)
{
    profile_gaps(g, L, c);
    /* a batch within an epoch counts as well within that epoch (GluonNLP's
     * "Epoch: 0, Batch: 399/32986, ... Time cost=108.2" every 400 batches) */
    bool local = !c->has_step && c->has_local && c->has_epoch;
    if ((!c->has_step && !local) || !L->has_wall)
        return;
    int64_t step = local ? c->local : c->step;
    if (local && g->prof_prev && (!g->prof_local || g->win_epoch != c->epoch))
        g->prof_prev = false; /* a new epoch: the batches count from 0 again */
    g->prof_local = local;
    g->win_epoch = c->epoch;
    if (g->prof_prev && step > g->prof_step + 1 && L->wall > g->prof_wall) {
        double dw = L->wall - g->prof_wall, n = (double)(step - g->prof_step);
        for (int k = 0; k < L->n; k++) {
            const gen_pair *p = &L->p[k];
            if (!time_pair(p))
                continue;
            int e = prof_entry(g, p);
            if (e < 0)
                continue;
            bool window = p->v <= 1.25 * dw + 1 && fabs(log(p->v / dw)) < fabs(log(p->v * n / dw));
            if (window)
                g->win[e].yes++;
            else
                g->win[e].no++;
        }
    }
    /* per-step times against the wall time per step, over windows long
     * enough for a 1-second clock */
    if (g->prof_prev && step > g->prof_step && L->wall >= g->prof_wall + 2) {
        double per = (L->wall - g->prof_wall) / (double)(step - g->prof_step);
        for (int k = 0; k < L->n; k++) {
            const gen_pair *p = &L->p[k];
            if (!seconds_pair(p))
                continue;
            int e = prof_entry(g, p);
            if (e < 0)
                continue;
            if (fabs(log(p->v / per)) < log(1.35))
                g->win[e].step++;
            else if (p->v < 0.3 * per)
                g->win[e].part++;
        }
    }
    g->prof_prev = true;
    g->prof_step = step;
    g->prof_wall = L->wall;
}

/* Whether a window entry is one by the hours it would imply (profile_gaps). */
static bool implied_window(const pdb_steplog_general *g, int e)
{
    return g->win[e].yes + g->win[e].no == 0 && g->win[e].slow >= 2 &&
           g->win[e].slow > 3 * g->win[e].fast && g->win[e].vmax <= 2 * g->win[e].vmin;
}

static bool window_time(pdb_steplog_general *g, const gen_pair *p)
{
    int e = g->nwin ? window_entry(g, p->name, p->nl) : -1;
    if (e < 0 || !time_pair(p))
        return false;
    if (g->win[e].yes > g->win[e].no)
        return true;
    if (!implied_window(g, e))
        return false;
    g->implied_win = e + 1;
    return true;
}

/* What a time value of a step record stands for, worked out from the whole
 * record (write_record) and stored accordingly (store_pair). */
enum {
    ROLE_PLAIN,  /* as printed: its name says what it is */
    ROLE_WINDOW, /* the time of the window since the last record */
    ROLE_STEP,   /* the step's time under a name no rule maps: NAME/step_time */
    ROLE_MICRO,  /* one micro-batch's time where a step has several */
    ROLE_PART,   /* named like a step time, but well below the wall time per step */
    ROLE_EPOCH,  /* the time of an epoch, on an epoch line */
    ROLE_SPAN,   /* the time of the steps the line says it covers (L->span) */
};

/* Stores one value of a record: under its printed name, but in the role the
 * record gave it, and a rate no metric rule knows by its name as
 * PRINTED/samples_per_second or PRINTED/tokens_per_sec (per device:
 * ..._per_gpu), which the metric rules map. A window time is stored as
 * "PRINTED (window)" with PRINTED/step_time = the window time over the steps
 * since the previous record (the first record's window is unknown: no step
 * time). */
static int store_pair(pdb_steplog *w, const pdb_steplog_general *g, const gen_pair *p,
                      const char *agg, int64_t window, int role, bool has_step, int64_t step)
{
    const char *unit = p->unit && p->unit[0] ? p->unit : NULL;
    char name[GEN_NAME + 32];
    const char *rs;
    switch (role) {
    case ROLE_WINDOW: {
        snprintf(name, sizeof name, "%.*s (window)", (int)p->nl, p->name);
        if (pdb_steplog_value(w, name, strlen(name), p->v, PDB_UNIT_SECONDS, agg, 0) != PDB_OK)
            return PDB_ERR;
        if (!has_step || !g->have_prev_step || step <= g->prev_step)
            return PDB_OK;
        int64_t n = step - g->prev_step;
        /* after a gap of several intervals (lines cut from an excerpt, or
         * lost) the window is still the log's interval */
        if (g->gap > 0 && g->gap_seen >= 2 && n >= 3 * g->gap && n % g->gap == 0)
            n = g->gap;
        /* the first record of an epoch: a loop's window timer starts with
         * the epoch (GluonNLP's "Time cost" at "Epoch: 1, Batch: 399") */
        if (g->restarted && g->cur_local > 0 && g->cur_local < n)
            n = g->cur_local;
        snprintf(name, sizeof name, "%.*s/step_time", (int)p->nl, p->name);
        return pdb_steplog_value(w, name, strlen(name), p->v / (double)n, PDB_UNIT_SECONDS,
                                 "interval_mean", n);
    }
    case ROLE_SPAN:
        snprintf(name, sizeof name, "%.*s (span)", (int)p->nl, p->name);
        if (pdb_steplog_value(w, name, strlen(name), p->v, PDB_UNIT_SECONDS, agg, 0) != PDB_OK)
            return PDB_ERR;
        snprintf(name, sizeof name, "%.*s/step_time", (int)p->nl, p->name);
        return pdb_steplog_value(w, name, strlen(name), p->v / (double)window, PDB_UNIT_SECONDS,
                                 "interval_mean", window);
    case ROLE_STEP: {
        double secs = p->v;
        seconds_of(p, &secs);
        snprintf(name, sizeof name, "%.*s/step_time", (int)p->nl, p->name);
        return pdb_steplog_value(w, name, strlen(name), secs, PDB_UNIT_SECONDS, agg, window);
    }
    case ROLE_MICRO:
    case ROLE_PART:
    case ROLE_EPOCH: {
        double secs = p->v;
        seconds_of(p, &secs);
        snprintf(name, sizeof name, "%.*s (%s)", (int)p->nl, p->name,
                 role == ROLE_MICRO ? "micro-batch" : role == ROLE_PART ? "part of step"
                                                                         : "epoch time");
        return pdb_steplog_value(w, name, strlen(name), secs, PDB_UNIT_SECONDS, agg, window);
    }
    default:
        break;
    }
    if (!p->avg && !p->pair && (rs = rate_suffix(p->name, p->nl, unit)) != NULL) {
        snprintf(name, sizeof name, "%.*s%s", (int)p->nl, p->name, rs);
        return pdb_steplog_value(w, name, strlen(name), p->v, unit ? unit : "/s", agg, window);
    }
    return pdb_steplog_value(w, p->name, p->nl, p->v, unit, agg, window);
}

/* Tells the reading (steplog_reading.h) which text gave a step record's
 * step: the named counter, else the epoch and the progress within it. */
static void saw_counter(pdb_steplog *w, const pdb_steplog_general *g, const gen_line *L,
                        const gen_counters *c, int64_t step)
{
    /* a step, a batch within an epoch, or (a log of epochs only) the epoch */
    int at = c->has_step ? c->step_at : c->local_at >= 0 ? c->local_at : c->epoch_at;
    const gen_pair *p = &L->p[at];
    const gen_pair *e = c->epoch_at >= 0 && at != c->epoch_at && !c->has_step
                            ? &L->p[c->epoch_at] : NULL;
    pdb_sl_counter sc = {
        .name = p->name, .nl = p->nl, .progress = p->progress, .epoch = e ? e->name : NULL,
        .el = e ? e->nl : 0,
        .printed = c->has_step ? c->step : at == c->local_at ? c->local : (int64_t)c->epoch,
        .step = step,
        .per_epoch = !c->has_step && c->total > 0 ? c->total : 0,
        .from_one = g->epoch0 == 1,
        .epoch_first = g->swap_epoch_step && c->has_step && p->progress,
    };
    pdb_steplog_saw_counter(w, &sc);
}

/* Micro-batches per optimizer step, from a record's step and finer counter
 * (LitGPT's "iter 3050750 step 610150"): their advance since the first such
 * record (the step counter of a fine-tuning log is rounded: "iter 4830 |
 * step 603", "iter 4840 | step 605"), else their ratio; 1 without a finer
 * counter. */
static int64_t micro_ratio(pdb_steplog_general *g, const gen_counters *c)
{
    if (!c->has_micro || c->step <= 0)
        return 1;
    if (!g->have_micro) {
        g->have_micro = true;
        g->micro_step = c->step;
        g->micro = c->micro;
    }
    if (c->step > g->micro_step && c->micro > g->micro)
        return (c->micro - g->micro) / (c->step - g->micro_step);
    return c->micro / c->step;
}

/* Keras rounds its time per step to a whole unit ("1533s 2s/step"): at the
 * end of an epoch's bar (N of N) the epoch's duration over its steps is the
 * same time, finer (1.533 s), and replaces it when the two agree within
 * that rounding. */
static void finer_time_per_step(gen_line *L, const gen_counters *c)
{
    if (!c->has_local || c->local <= 0 || c->local != c->total)
        return;
    gen_pair *per = NULL;
    const gen_pair *dur = NULL;
    for (int k = 0; k < L->n; k++) {
        gen_pair *p = &L->p[k];
        if (p->per_step && !p->per_step_named && pdb_mem_is(p->name, p->nl, "time per step"))
            per = p;
        else if (pdb_mem_is(p->name, p->nl, "duration") && p->unit &&
                 strcmp(p->unit, PDB_UNIT_SECONDS) == 0)
            dur = p;
    }
    if (!per || !dur || dur->v <= 0)
        return;
    double finer = dur->v / (double)c->local;
    double unit = per->v >= 1 ? 1 : per->v >= 1e-3 ? 1e-3 : 1e-6;
    /* the duration's own rounding (1 s) over the steps must be the finer one */
    if (1.0 / (double)c->local < unit &&
        fabs(finer - per->v) <= 0.5 * unit + 0.5 / (double)c->local)
        per->v = finer;
}

/* The roles of an epoch line's values: its times are the epoch's, but a
 * time named per step is the steps' mean over the epoch (MindSpore's
 * "epoch time: 24754.049 ms, per step time: 2475.405 ms" after "epoch: 2
 * step: 10, loss is 0.81"). Other kinds of record keep their values plain. */
static void epoch_roles(const gen_line *L, int kind, unsigned char *role)
{
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        role[k] = ROLE_PLAIN;
        if (kind != K_EPOCH || !seconds_pair(p) || eta_name(p))
            continue;
        if (step_time_name(p->name, p->nl))
            role[k] = ROLE_STEP;
        else if (!pdb_steplog_name_has_word(p->name, p->nl, "epoch"))
            role[k] = ROLE_EPOCH;
    }
}

/* The record's rate of steps per second, if it prints one (its index, else
 * -1): printed with the value, said by the name's suffix, or the name is
 * the unit itself (mlx-lm's "It/sec 0.512"); not a per-device rate. */
static int steps_rate(const gen_line *L)
{
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        if (p->counter || p->in_bracket || p->nl == 0 || p->avg || p->v <= 0)
            continue;
        double f;
        const char *u = p->unit && p->unit[0] ? p->unit : pdb_units_from_name(p->name, p->nl, &f);
        /* "steps/s = 2.79" (OpenNMT-tf): a name that is a rate of steps,
         * which the value's "/s" alone does not say */
        if (u && strcmp(u, "/s") == 0)
            u = NULL;
        if (!u && p->nl < 16) {
            char low[16];
            for (size_t c = 0; c < p->nl; c++)
                low[c] = (char)tolower((unsigned char)p->name[c]);
            u = pdb_units_canon(low, p->nl, &f);
        }
        if (u && strcmp(u, "1/s") == 0 && !per_device(p->name, p->nl))
            return k;
    }
    return -1;
}

/* The role of each value of a step record (see ROLE_*): which time is the
 * step's, by the metric rules, by name, by the data, or none. */
static void value_roles(pdb_steplog *w, pdb_steplog_general *g, const gen_line *L,
                        const gen_counters *c, unsigned char *role)
{
    int64_t ratio = micro_ratio(g, c);
    int named = 0, cand = -1, cand_rank = 5, plain = 0;
    /* a time beside a rate of steps per second whose product is several
     * steps is the time of those steps, not of one (Knover's "step: 200,
     * time: 47.064, speed: 2.125 steps/s": 100 steps, the log interval) */
    int rate = steps_rate(L);
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        role[k] = ROLE_PLAIN;
        if (p->counter || p->in_bracket || p->nl == 0 || p->avg || p->per_step ||
            (p->unit && p->unit[0] && strcmp(p->unit, PDB_UNIT_SECONDS) != 0))
            continue;
        /* the name's classes are cached: this runs for every record */
        int cls = pdb_steplog_name_class(w, p->name, p->nl, k);
        if ((!p->unit || !p->unit[0]) && !(cls & PDB_SL_NAME_TIME))
            continue;
        int e = window_entry(g, p->name, p->nl);
        bool is_step = cls & PDB_SL_NAME_STEP_TIME;
        double uf;
        const char *un = pdb_units_canon(p->name, p->nl, &uf);
        if (L->span > 0 && seconds_pair(p) &&
            (pdb_mem_is(p->name, p->nl, "duration") || (un && strcmp(un, PDB_UNIT_SECONDS) == 0))) {
            role[k] = ROLE_SPAN;
            named++;
        } else if (ratio >= 2 && pdb_steplog_name_has_word(p->name, p->nl, c->micro_word)) {
            role[k] = ROLE_MICRO; /* "iter time" where 5 iters make a step */
            g->micro_values++;
            g->micro_ratio = ratio;
            snprintf(g->micro_name, sizeof g->micro_name, "%s", p->name);
        } else if (per_epoch_records(g, c) && epoch_time_name(p->name, p->nl)) {
            /* records that are epochs: the epoch's time is the step's
             * (nnU-Net's "Epoch time: 43.21 s" in the block of "Epoch 0") */
            role[k] = ROLE_STEP;
            named++;
        } else if ((window_time(g, p) && !step_time_name(p->name, p->nl)) ||
                   /* the log interval's time by its name: VoxCPM's "log
                    * interval: 4.73s" every 10 steps */
                   (pdb_steplog_name_has_word(p->name, p->nl, "interval") &&
                    seconds_pair(p)) ||
                   (rate >= 0 && rate != k && time_pair(p) && p->v * L->p[rate].v >= 1.5)) {
            /* (a name that says per step is not a window's total, even where
             * it matches the time between records: then the counter counts
             * something finer, as open_clip's samples "[16384/3200000]"
             * beside "Batch (t): 6.655") */
            role[k] = ROLE_WINDOW;
        } else if (is_step && e >= 0 && g->win[e].part >= 2 && g->win[e].part > g->win[e].step) {
            role[k] = ROLE_PART; /* ESPnet's iter_time: waiting for the batch */
            g->part_values++;
            snprintf(g->part_name, sizeof g->part_name, "%s", p->name);
        } else if (is_step) {
            named++;
        } else {
            /* candidates for the step's time, best first: a step-time name,
             * a name that is a time unit (MaxText's "seconds"), a field that
             * the wall time per step agrees with (ESPnet's train_time) */
            double f;
            const char *u = pdb_units_canon(p->name, p->nl, &f);
            /* a nameless duration in a field of its own on a line of a
             * global step is that step's time (llama2.c's "2429 | loss 0.24 |
             * lr 2.3e-10 | 13.72ms | mfu 0.09%"); on a bar's line (Keras'
             * "4s") it is the epoch's */
            bool pt = plain_time_name(p->name, p->nl) ||
                      (pdb_mem_is(p->name, p->nl, "duration") && c->has_step && !c->has_local &&
                       !p->since_last);
            plain += pt;
            /* a time of 0 was printed before any step finished (minGPT's
             * "iter_dt 0.00ms; iter 0"): no step's time */
            if (p->v <= 0)
                continue;
            int r = step_time_name(p->name, p->nl)                ? 1
                    : p->nl >= 2 && u && strcmp(u, PDB_UNIT_SECONDS) == 0 ? 2
                    : e >= 0 && g->win[e].step >= 2 && g->win[e].step > g->win[e].part ? 3
                    : pt                                                   ? 4
                                                                   : 5;
            if (r < cand_rank) {
                cand_rank = r;
                cand = k;
            }
        }
    }
    /* a plain time is the step's only when it is the record's only one */
    if (!named && cand >= 0 && (cand_rank < 4 || (cand_rank == 4 && plain == 1)))
        role[cand] = ROLE_STEP;
    /* else a nameless time in parentheses is the time since the last record
     * (TF's LoggingTensorHook: "loss = 0.62, step = 101 (1.175 sec)" every
     * 100 steps), unless the timestamps say it is not */
    int since = -1;
    for (int k = 0; k < L->n; k++) {
        if (role[k] == ROLE_STEP || role[k] == ROLE_WINDOW || role[k] == ROLE_MICRO)
            return;
        if (since < 0 && L->p[k].since_last && role[k] == ROLE_PLAIN && !L->p[k].in_bracket)
            since = k;
    }
    int e = since >= 0 ? window_entry(g, L->p[since].name, L->p[since].nl) : -1;
    if (!named && since >= 0 && (e < 0 || g->win[e].no <= g->win[e].yes))
        role[since] = ROLE_WINDOW;
}

/* "(1.26 updates/sec)": a record whose only timing is a rate of steps gets
 * its step time from it, over the steps since the last record, unless its
 * timestamps time the steps more finely (Caffe's microseconds). */
static int step_time_from_rate(pdb_steplog *w, const pdb_steplog_general *g, const gen_line *L,
                               const unsigned char *role, bool has_step, int64_t step)
{
    /* a rate is the step time however long its window; the first record's
     * window is the steps since the start when the log began with the
     * interval it keeps ("Iter 10: ..., It/sec 0.258", then "Iter 20": the
     * first covers iterations 1-10), else unknown (an excerpt) */
    bool first = !g->have_prev_step && g->prof_nsteps == 2 && step == g->prof_steps[0] &&
                 g->prof_steps[1] - g->prof_steps[0] == step;
    if (!has_step || (!first && (!g->have_prev_step || step <= g->prev_step)) ||
        (first && step <= 0) || (L->has_wall && L->wall_fine))
        return PDB_OK;
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        if (p->counter || p->in_bracket || p->nl == 0 || p->avg)
            continue;
        if (role[k] == ROLE_STEP || role[k] == ROLE_WINDOW ||
            (seconds_pair(p) && role[k] == ROLE_PLAIN &&
             (pdb_steplog_name_class(w, p->name, p->nl, k) & PDB_SL_NAME_STEP_TIME)))
            return PDB_OK;
    }
    int rate = steps_rate(L);
    if (rate < 0)
        return PDB_OK;
    const gen_pair *p = &L->p[rate];
    char name[GEN_NAME + 32];
    int64_t n = first ? step : step - g->prev_step;
    snprintf(name, sizeof name, "%.*s/step_time", (int)p->nl, p->name);
    return pdb_steplog_value(w, name, strlen(name), 1.0 / p->v, PDB_UNIT_SECONDS,
                             "interval_mean", n);
}

/* A hash of a record's counters and values (FNV-1a). */
static uint64_t record_hash(const gen_line *L)
{
    uint64_t h = 1469598103934665603ULL;
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        for (size_t i = 0; i < p->nl; i++)
            h = (h ^ (unsigned char)p->name[i]) * 1099511628211ULL;
        uint64_t bits;
        memcpy(&bits, &p->v, sizeof bits);
        h = (h ^ bits) * 1099511628211ULL;
    }
    return h;
}

/* A log whose counted lines all hold evaluation values (LightGBM's "[10]
 * valid_0's auc: 0.81", an eval-only listener): each is a round of training
 * that printed its evaluation, kept as a step with its values split 'val',
 * and said. */
static bool evaluation_rounds(const pdb_steplog_general *g, int kind, const gen_counters *c)
{
    /* not XGBoost's "[0] train-rmse:1.43 eval-rmse:1.44": its train values are
     * no evaluation (refused, and taught with a pattern: docs/steplogs.md) */
    return kind == K_VAL && c->has_step && g->prof_step_lines == 0 && g->prof_val_lines >= 3 &&
           g->prof_train_named == 0;
}

/* A counter within the epoch on a line that prints no epoch ("Epoch Step:
 * 41" under "[GPU0] Epoch 1 Training ===="): the header's epoch is its
 * epoch, and the counter a step within it, made global as such counters are
 * (global_step). */
static void header_epoch(pdb_steplog_general *g, const gen_line *L, gen_counters *c)
{
    if (c->has_epoch || !g->has_header_epoch || !c->has_step)
        return;
    /* a step counter that goes back when a header names a new epoch counts
     * within that epoch; before it went back, step N of the first epoch is
     * global step N either way */
    if (!c->in_epoch && !g->steps_in_headers) {
        g->steps_in_headers = g->have_raw && c->step <= g->raw_prev &&
                              g->header_epoch != g->raw_prev_epoch;
        g->have_raw = true;
        g->raw_prev = c->step;
        g->raw_prev_epoch = g->header_epoch;
        if (!g->steps_in_headers)
            return;
    }
    const gen_pair *p = &L->p[c->step_at];
    if (p->progress && p->total > 0)
        c->total = p->total; /* "step 100/938": the epoch's length */
    c->has_epoch = true;
    c->epoch = g->header_epoch;
    c->has_local = true;
    c->local = c->step;
    c->local_at = c->step_at;
    c->has_step = false;
    c->step_at = -1;
}

/* A record after "Eval begin..." is the evaluation's when its counter
 * started again or counts to another total than the training's ("step
 * 100/157" after "step 938/938"); one that goes on from the training's
 * ends the evaluation. */
static int eval_phase_kind(pdb_steplog_general *g, const gen_line *L, const gen_counters *c)
{
    int at = c->has_step ? c->step_at : c->has_local ? c->local_at : -1;
    if (at < 0)
        return K_STEP;
    const gen_pair *p = &L->p[at];
    int64_t n = (int64_t)p->v;
    if ((p->progress && g->train_total > 0 && p->total != g->train_total) ||
        (g->have_train_printed && n <= g->train_printed))
        return K_VAL;
    g->eval_phase = false;
    return K_STEP;
}

/* "Eval begin...", "Evaluating...", "Validation:": a line of words alone
 * that opens an evaluation (Paddle's Model.fit). */
static bool opens_evaluation(const gen_line *L, const char *s, size_t len)
{
    static const char *const words[] = {"eval", "evaluation", "evaluating", "evaluate",
                                        "validation", "validating", "validate", "test",
                                        "testing", NULL};
    if (L->n > 0)
        return false;
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len), w = 0;
    while (w < tl && isalpha((unsigned char)t[w]))
        w++;
    for (size_t k = 0; k < tl; k++)
        if (isdigit((unsigned char)t[k]))
            return false;
    return w > 0 && tl < 40 && word_in(t, w, words);
}

static void save_marks(const gen_line *L, gen_marks *m);
static void restore_marks(gen_line *L, const gen_marks *m);

/* Keeps the epoch of a header line: a counter line with no value whose only
 * counter is an epoch. */
static void note_header(pdb_steplog_general *g, gen_line *L)
{
    gen_counters c;
    save_marks(L, &g->marks[1]);
    find_counters(L, &c);
    restore_marks(L, &g->marks[1]);
    if (c.has_epoch && !c.has_step && !c.has_local) {
        g->has_header_epoch = true;
        g->header_epoch = c.epoch;
        g->eval_phase = c.val_hint;
    }
}

static void profile_swap(pdb_steplog_general *g, const gen_line *L, const gen_counters *c)
{
    if (!c->has_step || c->step_at < 0 || !L->p[c->step_at].progress)
        return;
    int64_t v = c->step, t = L->p[c->step_at].total;
    if (g->sw_have && v == g->sw_v && t > g->sw_t)
        g->sw_yes++;
    else if (g->sw_have && v != g->sw_v)
        g->sw_no++;
    g->sw_have = true;
    g->sw_v = v;
    g->sw_t = t;
    g->swap_epoch_step = g->sw_yes > 3 * g->sw_no;
}

static void swap_counter(const pdb_steplog_general *g, const gen_line *L, gen_counters *c)
{
    if (!g->swap_epoch_step || !c->has_step || c->step_at < 0 || !L->p[c->step_at].progress ||
        c->has_epoch)
        return;
    c->has_epoch = true;
    c->epoch = (double)c->step;
    c->step = L->p[c->step_at].total;
}

static bool since_last_mean(pdb_steplog_general *g, const gen_pair *p, const gen_counters *c,
                            gen_pair *out, int64_t *window);

static int write_record(pdb_steplog *w, pdb_steplog_general *g, gen_line *L)
{
    gen_counters c;
    find_counters(L, &c);
    swap_counter(g, L, &c);
    int kind = classify(g, L, &c);
    if (kind == K_STEP && g->eval_phase)
        kind = eval_phase_kind(g, L, &c);
    if (kind == K_STEP)
        header_epoch(g, L, &c);
    bool counted = c.has_step || c.has_epoch || c.has_local;
    g->epoch_only += kind == K_SUMMARY && c.has_epoch && !c.has_step && !c.has_local;
    if (!counted && (kind == K_STEP || !g->seen_step)) {
        pdb_skip(w->src, "not a step record");
        return PDB_OK;
    }
    if (kind == K_STEP && c.has_step) {
        uint64_t h = record_hash(L);
        if (g->seen_step && h == g->last_hash) {
            pdb_skip(w->src, "duplicate step line");
            return PDB_OK;
        }
        g->last_hash = h;
    }
    int64_t step = 0;
    bool rounds = evaluation_rounds(g, kind, &c);
    if (c.has_step && c.step_at >= 0 && L->p[c.step_at].progress)
        c.step_total = L->p[c.step_at].total;
    bool has_step = counted ? global_step(g, &c, kind == K_STEP || rounds, &step) : false;
    if (!has_step && kind != K_STEP && c.has_epoch && !c.has_step && !c.has_local &&
        g->last_has_step && g->last_has_epoch && g->last_epoch == c.epoch) {
        /* an evaluation that names only its epoch ("Epoch #9: test_reward:
         * 5.61"), after that epoch's last step record: it was made there */
        has_step = true;
        step = g->last_step;
    }
    pdb_steplog_record(w, kind_names[kind], L->line);
    w->split = kind_splits[kind];
    w->is_step = kind == K_STEP || rounds;
    g->eval_rounds += rounds;
    w->has_wall = L->has_wall;
    w->wall = L->wall;
    w->has_rank = L->has_rank;
    w->rank = L->rank;
    if ((kind == K_STEP || rounds) && has_step &&
        (c.step_at >= 0 || c.local_at >= 0 || c.epoch_at >= 0))
        saw_counter(w, g, L, &c, step);
    if (counted) {
        w->has_step = has_step;
        w->step = step;
        w->has_epoch = c.has_epoch;
        w->epoch = c.epoch;
    } else { /* a line of its own after a step: it belongs to that step */
        w->has_step = g->last_has_step;
        w->step = g->last_step;
        w->has_epoch = g->last_has_epoch;
        w->epoch = g->last_epoch;
    }
    unsigned char role[GEN_PAIRS];
    if (kind == K_STEP)
        finer_time_per_step(L, &c);
    if (kind == K_STEP)
        value_roles(w, g, L, &c, role);
    else
        epoch_roles(L, kind, role);
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        if (p->counter || p->in_bracket || p->nl == 0)
            continue;
        int64_t window;
        const char *agg = value_agg(g, L, p, &c, step, has_step, &window);
        if (kind == K_EPOCH && role[k] == ROLE_STEP) {
            /* the mean over the epoch's steps: those since the last epoch line */
            agg = "interval_mean";
            window = !w->has_step ? 0
                     : g->have_epoch_line ? w->step - g->epoch_line_step : w->step;
        }
        if (role[k] == ROLE_SPAN)
            window = L->span;
        gen_pair since;
        if (g->epoch_means && kind == K_STEP && p->per_step && (c.has_local || c.has_step) &&
            (c.has_local ? c.local : c.step) > 0) {
            agg = "interval_mean";
            if (since_last_mean(g, p, &c, &since, &window))
                p = &since;
        }
        if (store_pair(w, g, p, agg, window, role[k], has_step, step) != PDB_OK)
            return PDB_ERR;
    }
    if (kind == K_STEP && step_time_from_rate(w, g, L, role, has_step, step) != PDB_OK)
        return PDB_ERR;
    if (kind == K_EPOCH && w->has_step) {
        g->have_epoch_line = true;
        g->epoch_line_step = w->step;
    }
    for (int k = 0; k < L->dropped; k++)
        pdb_skip(w->src, "value without a name or beyond the record's limit");
    if (kind == K_STEP && !has_step)
        g->stepless++;
    if (kind == K_STEP && counted) {
        int at = c.has_step ? c.step_at : c.has_local ? c.local_at : -1;
        if (at >= 0) {
            g->have_train_printed = true;
            g->train_printed = (int64_t)L->p[at].v;
            g->train_total = L->p[at].progress ? L->p[at].total : 0;
        }
        g->seen_step = true;
        g->last_has_step = has_step;
        g->last_step = step;
        g->last_has_epoch = c.has_epoch;
        g->last_epoch = c.epoch;
        if (has_step) {
            int64_t gap = g->have_prev_step ? step - g->prev_step : 0;
            if (gap > 0 && gap == g->gap) {
                g->gap_seen++;
            } else if (gap > 0 && !(g->gap > 0 && gap > g->gap && gap % g->gap == 0)) {
                g->gap = gap; /* (a multiple of it, lines lost, keeps the interval) */
                g->gap_seen = 1;
            }
            g->have_prev_step = true;
            g->prev_step = step;
        }
    }
    return PDB_OK;
}

/* ---- the record machine ------------------------------------------------------ */

pdb_steplog_general *pdb_steplog_general_new(void)
{
    return pdb_xcalloc(1, sizeof(pdb_steplog_general));
}

void pdb_steplog_general_free(pdb_steplog_general *g)
{
    if (!g)
        return;
    pdb_buf_free(&g->work);
    free(g);
}

static int flush(pdb_steplog *w, pdb_steplog_general *g)
{
    if (!g->pending)
        return PDB_OK;
    g->pending = false;
    if (metric_count(&g->rec) == 0) {
        pdb_skip(w->src, "counter without values");
        return PDB_OK;
    }
    return write_record(w, g, &g->rec);
}

/* Appends the values of a continuation line to the pending record. */
static void merge(pdb_steplog_general *g, const gen_line *L)
{
    for (int k = 0; k < L->n; k++) {
        if (g->rec.n == GEN_PAIRS) {
            g->rec.dropped += L->n - k;
            break;
        }
        g->rec.p[g->rec.n++] = L->p[k];
    }
    g->rec.dropped += L->dropped;
    /* lines that all say evaluation under a header make it one
     * (tensorflow/nmt's "# First evaluation, global step 0", then "  eval
     * dev: perplexity 17193.66" and "  eval test: ...") */
    g->merged++;
    g->merged_val += L->val_tag || word_in(L->lead, strlen(L->lead), val_words);
    g->rec.val_tag = g->rec_val0 || g->merged_val == g->merged;
    if (!g->rec.has_wall && L->has_wall) {
        g->rec.has_wall = true;
        g->rec.wall = L->wall;
        g->rec.wall_fine = L->wall_fine;
    }
}

/* Whether a metric of L is in rec already. A header line ("Epoch 0",
 * nnU-Net's) followed by one value per line ("train_loss -0.19", "val_loss
 * -0.41", "Epoch time: 157.65 s") makes one record of them all, until a
 * name comes again: then the lines are steps of their own. */
static bool names_repeat(const gen_line *rec, const gen_line *L)
{
    for (int k = 0; k < L->n; k++) {
        const gen_pair *p = &L->p[k];
        if (p->progress || p->in_bracket || p->nl == 0)
            continue;
        for (int j = 0; j < rec->n; j++)
            if (rec->p[j].nl == p->nl && memcmp(rec->p[j].name, p->name, p->nl) == 0)
                return true;
    }
    return false;
}

/* find_counters marks the pairs it uses, and a second call on marked pairs
 * would not find them again: a look ahead saves and restores the marks. */
static void save_marks(const gen_line *L, gen_marks *m)
{
    for (int k = 0; k < L->n; k++)
        m->counter[k] = L->p[k].counter, m->progress[k] = L->p[k].progress;
}

static void restore_marks(gen_line *L, const gen_marks *m)
{
    for (int k = 0; k < L->n; k++)
        L->p[k].counter = m->counter[k], L->p[k].progress = m->progress[k];
}

/* Whether line L names the same step as record R and adds values of other
 * names only, both training steps (a line printed twice is two records, as
 * before; a validation at the step is its own record). */
static bool same_step(const pdb_steplog_general *g, gen_marks *mr, gen_marks *ml, gen_line *R,
                      gen_line *L)
{
    gen_counters a, b;
    save_marks(R, mr);
    save_marks(L, ml);
    find_counters(R, &a);
    find_counters(L, &b);
    /* records that are epochs: lines of one epoch (GluonTS' "Epoch[0]
     * Learning rate is 0.001", then "Epoch[0] Elapsed time 16.197 seconds") */
    bool steps = (a.has_step && b.has_step && a.step == b.step) ||
                 (per_epoch_records(g, &a) && per_epoch_records(g, &b));
    bool same = steps && a.has_epoch == b.has_epoch &&
                (!a.has_epoch || a.epoch == b.epoch) && metric_count(L) > 0 &&
                classify(g, R, &a) == K_STEP && classify(g, L, &b) == K_STEP;
    for (int i = 0; same && i < L->n; i++) {
        if (L->p[i].counter || L->p[i].nl == 0)
            continue;
        for (int k = 0; k < R->n; k++)
            if (!R->p[k].counter && R->p[k].nl == L->p[i].nl &&
                memcmp(R->p[k].name, L->p[i].name, L->p[i].nl) == 0)
                same = false;
    }
    restore_marks(R, mr);
    restore_marks(L, ml);
    return same;
}

/* Whether record R is an epoch's, in a log whose records are epochs. */
static bool epoch_record(const pdb_steplog_general *g, gen_marks *m, gen_line *R)
{
    if (!g->epoch_records)
        return false;
    gen_counters a;
    save_marks(R, m);
    find_counters(R, &a);
    bool yes = per_epoch_records(g, &a) && classify(g, R, &a) == K_STEP;
    restore_marks(R, m);
    return yes;
}

/* Whether record R counts steps by a counter that line L does not have
 * (L has none, or another: TFLearn's "-- iter: 64/1224" samples under
 * "Training Step: 1"); fairseq's "| epoch 001 | ... | num_updates 100"
 * lines all have the same one. */
static bool other_counter(pdb_steplog_general *g, gen_line *R, gen_line *L)
{
    gen_counters a, b;
    save_marks(R, &g->marks[0]);
    save_marks(L, &g->marks[1]);
    find_counters(R, &a);
    find_counters(L, &b);
    bool other = a.has_step && a.step_at >= 0 &&
                 (!b.has_step || b.step_at < 0 ||
                  R->p[a.step_at].nl != L->p[b.step_at].nl ||
                  memcmp(R->p[a.step_at].name, L->p[b.step_at].name, R->p[a.step_at].nl) != 0);
    restore_marks(R, &g->marks[0]);
    restore_marks(L, &g->marks[1]);
    return other;
}

/* The kind a line would have, its pairs left unmarked. */
static int peek_kind(const pdb_steplog_general *g, gen_marks *m, gen_line *L)
{
    gen_counters c;
    save_marks(L, m);
    find_counters(L, &c);
    int kind = classify(g, L, &c);
    restore_marks(L, m);
    return kind;
}

/* "Early stopping, best iteration is:" (LightGBM), "Stopping. Best
 * iteration:" (XGBoost): a line that announces the best record, printed
 * again after the last one. */
static bool announces_best(const char *s, size_t len)
{
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    return tl > 5 && t[tl - 1] == ':' && pdb_steplog_name_has_word(t, tl, "best");
}

static int general_line(pdb_steplog *w, pdb_steplog_general *g, const char *s, size_t len,
                        int64_t lineno);

int pdb_steplog_general_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    pdb_steplog_general *g = w->gen;
    assert(g);
    g->w = w;
    g->line_after_best = g->best_next;
    g->best_next = announces_best(s, len);
    return general_line(w, g, s, len, lineno);
}

static int general_line(pdb_steplog *w, pdb_steplog_general *g, const char *s, size_t len,
                        int64_t lineno)
{
    gen_line *L = &g->line;
    parse_line(&g->work, s, len, L);
    L->after_best = g->line_after_best;
    if (w->line_rank >= 0 && !L->has_rank) { /* a launcher's prefix named it */
        L->has_rank = true;
        L->rank = w->line_rank;
    }
    L->line = lineno;
    const char *t = s;
    if (pdb_steplog_trim(&t, len) == 0) {
        pdb_skip(w->src, "blank line");
        return PDB_OK; /* a blank line does not end a record */
    }
    bool counter = has_named_counter(L);
    int metrics = metric_count(L);
    if (!counter && metrics > 0 && g->pending && g->block &&
        (L->indent > 0 ? g->block_open
                       : metric_count(&g->rec) == 0 || !names_repeat(&g->rec, L))) {
        merge(g, L); /* OLMo's indented values; Keras' bar after "Epoch 3/30" */
        pdb_steplog_saw_lines(w, 1);
        g->block_open = L->indent > 0;
        return PDB_OK;
    }
    if (!counter && metrics > 0 && g->pending && !g->block && L->indent > g->rec.indent &&
        !names_repeat(&g->rec, L)) {
        /* values indented under a counter line that has its own: Lasagne's
         * "Epoch 1 of 500 took 1.858s" then "    training loss: 1.233348" */
        merge(g, L);
        pdb_steplog_saw_lines(w, 1);
        return PDB_OK;
    }
    if (!counter && metrics > 0 && g->pending && !g->block && metric_count(&g->rec) > 0 &&
        !names_repeat(&g->rec, L) && epoch_record(g, &g->marks[0], &g->rec) &&
        peek_kind(g, &g->marks[1], L) == K_STEP) {
        /* values without a counter inside a record that is an epoch
         * (GluonTS' bar "64/64 [00:12<00:00, 5.07it/s, avg_epoch_loss=2.61]"
         * between "Epoch[1] Learning rate is 0.001" and "Epoch[1] Elapsed
         * time 12.636 seconds") are the epoch's */
        merge(g, L);
        pdb_steplog_saw_lines(w, 1);
        return PDB_OK;
    }
    if (t[0] == '|' && metrics > 0 && g->pending && !g->block && metric_count(&g->rec) > 0 &&
        lineno == g->rec.line + 1 && other_counter(g, &g->rec, L)) {
        /* a line that opens with the separator goes on with the record above
         * (TFLearn's "Training Step: 20 | total loss: 5.015 | time: 110.055s"
         * then "| Adam | epoch: 001 | loss: 5.015 - acc: 0.0821 -- iter:
         * 1224/1224"): its values join it, its progress (samples) does not */
        for (int k = 0; k < L->n; k++)
            if (L->p[k].progress)
                L->p[k--] = L->p[--L->n];
        merge(g, L);
        pdb_steplog_saw_lines(w, 1);
        return PDB_OK;
    }
    if (counter && g->pending && !g->block && same_step(g, &g->marks[0], &g->marks[1], &g->rec, L)) {
        merge(g, L); /* glog: "Iteration 240, loss = ..." then "Iteration 240, lr = ..." */
        pdb_steplog_saw_lines(w, 1);
        return PDB_OK;
    }
    if (counter) {
        if (flush(w, g) != PDB_OK)
            return PDB_ERR;
        if (metrics == 0)
            note_header(g, L);
        copy_line(&g->rec, L);
        g->merged = g->merged_val = 0;
        g->rec_val0 = L->val_tag;
        g->pending = true;
        g->block = g->block_open = metrics == 0;
        return PDB_OK;
    }
    if (metrics > 0 && g->pending && metric_count(&g->rec) > 0) {
        if (peek_kind(g, &g->marks[0], L) == K_STEP) {
            /* chatter between the lines of one step (glog's "Train net output
             * #0: ..."): skipped, and the record stays open for its step */
            pdb_skip(w->src, "not a step record");
            return PDB_OK;
        }
    }
    if (metrics == 0 && g->pending && !g->block && !opens_evaluation(L, s, len) &&
        epoch_record(g, &g->marks[0], &g->rec)) {
        /* chatter inside an epoch's lines (GluonTS' bar between its
         * "Epoch[0] ..." lines): the epoch's record stays open */
        pdb_skip(w->src, "not a step record");
        return PDB_OK;
    }
    if (metrics == 0 && g->pending && g->block && L->indent == 0) {
        /* chatter inside a header's block (nnU-Net's "Pseudo dice [...]"
         * between "val_loss" and "Epoch time"): the block goes on */
        pdb_skip(w->src, "not a step record");
        return PDB_OK;
    }
    if (g->pending && metric_count(&g->rec) > 0) {
        if (flush(w, g) != PDB_OK)
            return PDB_ERR;
    } else if (g->pending) {
        g->block_open = false; /* a header waiting for its values: keep it */
    }
    if (metrics == 0) {
        if (opens_evaluation(L, s, len))
            g->eval_phase = true;
        pdb_skip(w->src, "not a step record");
        return PDB_OK;
    }
    return write_record(w, g, L);
}

int pdb_steplog_general_end(pdb_steplog *w)
{
    pdb_steplog_general *g = w->gen;
    if (flush(w, g) != PDB_OK)
        return PDB_ERR;
    /* what the reading left out is said, not kept silent (issue 32) */
    const char *path = w->src->path;
    if (w->step_records > 0 && w->step_records < 3 && g->epoch_only >= 5 * w->step_records)
        /* a TF tutorial's "Epoch 1 Batch 0 Loss 4.43" once, then "Epoch 1
         * Loss 4.26 ..." per batch: the steps are there, their counter is not */
        return pdb_fail("%s: only %lld step record%s, but %lld records of an epoch alone "
                        "after it ('Epoch N' and values, no step counter): the steps cannot "
                        "be told apart; teach the format with --pattern (docs/steplogs.md, "
                        "Teaching a format)",
                        path, (long long)w->step_records, w->step_records == 1 ? "" : "s",
                        (long long)g->epoch_only);
    if (g->micro_values > 0)
        pdb_warn("%s: '%s' times one micro-batch (%lld per optimizer step): kept as '%s "
                 "(micro-batch)', not as the step time", path, g->micro_name,
                 (long long)g->micro_ratio, g->micro_name);
    if (g->epoch_means)
        pdb_warn("%s: the per-step time falls at every record from the epoch's first "
                 "(%.4g to %.4g over its first %d records): read as the mean since the epoch began, "
                 "each record's step time the mean over the steps since the one before",
                 path, g->pm_first, g->pm_last, g->pm_run);
    if (g->implied_win > 0) {
        const struct gen_win *v = &g->win[g->implied_win - 1];
        pdb_warn("%s: '%s' (%.3g to %.3g s) read as the time of the %lld steps between "
                 "records, divided by them: as one step's time it would put %.1f h or more "
                 "between log lines, and the log prints no clock to tell; if it is one "
                 "step's, --pattern '...{%s:s}...' says so (docs/steplogs.md)",
                 path, v->name, v->vmin, v->vmax, (long long)g->gap,
                 v->vmin * (double)g->gap / 3600, v->name);
    }
    if (g->part_values > 0)
        pdb_warn("%s: '%s' is well below the time between records per step: kept as '%s "
                 "(part of step)', not as the step time", path, g->part_name, g->part_name);
    if (g->eval_rounds > 0)
        pdb_warn("%s: weak reading: every counted line holds evaluation values only (%lld "
                 "rounds, kept as steps split 'val'): no training value, no step time",
                 path, (long long)g->eval_rounds);
    if (g->stepless > 0 && g->stepless == w->step_records)
        pdb_warn("%s: weak reading: no step record has a step number (%lld records in log "
                 "order)", path, (long long)g->stepless);
    return PDB_OK;
}

/* ---- the shape of the log, from its first bytes ----------------------------------- */

/* The first per-step time of a line ("2.057s/batch"), or NULL. */
static const gen_pair *per_step_pair(const gen_line *L)
{
    for (int k = 0; k < L->n; k++)
        if (L->p[k].per_step && !L->p[k].counter && !L->p[k].in_bracket)
            return &L->p[k];
    return NULL;
}

/* A per-step time that falls at every record from an epoch's first, five
 * records or more and by 30% or more, is the mean since the epoch began
 * (ClearerVoice's "Step: 10/965 | 2.057s/batch", 1.407, 1.191, ... 0.874:
 * the first steps' wait shared by more steps each time); a step's own
 * time, slow at first, does not fall at every record after. */
static void profile_means(pdb_steplog_general *g, const gen_line *L, const gen_counters *c)
{
    const gen_pair *p = per_step_pair(L);
    if (!p || (!c->has_step && !c->has_local) || g->epoch_means)
        return;
    double epoch = c->has_epoch ? c->epoch : -1;
    if (g->pm_run == 0 || epoch != g->pm_epoch) {
        g->pm_epoch = epoch;
        g->pm_first = g->pm_last = p->v;
        g->pm_run = 1;
        return;
    }
    if (g->pm_run < 0)
        return;
    if (p->v < g->pm_last) {
        g->pm_last = p->v;
        g->pm_run++;
        g->epoch_means = g->pm_run >= 5 && g->pm_first >= 1.3 * g->pm_last;
    } else {
        g->pm_run = -1;
    }
}

/* A mean since the epoch began as the mean over the steps since the
 * field's last record in the epoch: (v x n - v' x n') / (n - n'); means over
 * overlapping windows would weigh the epoch's first steps again and again.
 * False at the epoch's first record: its mean is over the steps so far. */
static bool since_last_mean(pdb_steplog_general *g, const gen_pair *p, const gen_counters *c,
                            gen_pair *out, int64_t *window)
{
    double epoch = c->has_epoch ? c->epoch : -1;
    int64_t n = c->has_local ? c->local : c->step;
    int e = 0;
    while (e < g->nem && (strlen(g->em[e].name) != p->nl ||
                          memcmp(g->em[e].name, p->name, p->nl) != 0))
        e++;
    if (e == g->nem) {
        if (g->nem == 4 || p->nl >= GEN_NAME)
            return false;
        g->nem++;
        memcpy(g->em[e].name, p->name, p->nl);
        g->em[e].name[p->nl] = '\0';
        g->em[e].n = -1;
    }
    struct gen_epoch_mean *m = &g->em[e];
    bool diff = m->n > 0 && m->epoch == epoch && n > m->n &&
                p->v * (double)n >= m->v * (double)m->n;
    *window = n;
    if (diff) {
        *out = *p;
        out->v = (p->v * (double)n - m->v * (double)m->n) / (double)(n - m->n);
        *window = n - m->n;
    }
    m->epoch = epoch;
    m->n = n;
    m->v = p->v;
    return diff;
}

/* A hash of the names of a line's values (not its counters), in order. */
static uint64_t names_hash(const gen_line *L)
{
    uint64_t h = 1469598103934665603ULL;
    for (int k = 0; k < L->n; k++) {
        if (L->p[k].counter)
            continue;
        for (size_t i = 0; i < L->p[k].nl; i++)
            h = (h ^ (unsigned char)L->p[k].name[i]) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
    }
    return h;
}

void pdb_steplog_general_profile(pdb_steplog_general *g, const char *d, size_t len, char eol,
                                 bool labels)
{
    size_t pos = 0;
    int lines = 0;
    while (pos < len && lines++ < 2000) {
        const char *nl = memchr(d + pos, eol, len - pos);
        if (!nl)
            break; /* a cut-off last line */
        size_t l = (size_t)(nl - (d + pos));
        int64_t rank;
        size_t lp = pdb_steplog_launcher_prefix(d + pos, l, labels, &rank);
        gen_line *L = &g->line;
        parse_line(&g->work, d + pos + lp, l - lp, L);
        pos += l + 1;
        if (!has_named_counter(L))
            continue;
        gen_counters c;
        find_counters(L, &c);
        profile_swap(g, L, &c);
        swap_counter(g, L, &c);
        g->epoch_progress |= c.has_epoch && c.has_local;
        g->epoch_steps |= c.has_epoch && c.has_step;
        g->any_step_counter |= c.has_step || c.has_local;
        if (c.has_step) {
            int kind = classify(g, L, &c);
            g->prof_step_lines += kind == K_STEP;
            g->prof_val_lines += kind == K_VAL;
            for (int k = 0; k < L->n; k++)
                if (pdb_skip_prefix_icase(L->p[k].name, L->p[k].nl, "train", NULL, NULL)) {
                    g->prof_train_named++;
                    break;
                }
        }
        if (c.has_epoch && !c.has_step && !c.has_local) {
            /* an epoch printed on three lines in a row is no record's
             * number: gensim's "EPOCH 1 - PROGRESS: at 8.11% examples" */
            /* but lines that each print other values of one epoch are
             * its record (GluonTS' "Epoch[0] Learning rate is 0.001",
             * "Epoch[0] Elapsed time 16.197 seconds", "Epoch[0] Evaluation
             * metric 'epoch_loss'=3.378015") */
            uint64_t names = names_hash(L);
            g->epoch_run = g->prof_have_epoch && c.epoch == g->prof_epoch &&
                                   names == g->prof_names
                               ? g->epoch_run + 1
                               : 1;
            g->epoch_repeats |= g->epoch_run >= 3;
            g->prof_have_epoch = true;
            g->prof_epoch = c.epoch;
            g->prof_names = names;
        }
        g->epoch_records = (g->epoch_records || (c.has_epoch && !c.has_step && !c.has_local)) &&
                           !g->epoch_repeats;
        if (c.has_epoch && c.epoch_total > 0) {
            g->epochs_from_one |= c.epoch == (double)c.epoch_total; /* Keras' "Epoch 38/38" */
            g->epochs_from_zero |= c.epoch == 0;                     /* "Epoch 0/24" */
        }
        if (c.has_step && g->prof_nsteps < 2 && (g->prof_nsteps == 0 || c.step > g->prof_steps[0]))
            g->prof_steps[g->prof_nsteps++] = c.step;
        profile_windows(g, L, &c);
        profile_means(g, L, &c);
        for (int k = 0; k < L->n; k++)
            if (!L->p[k].counter && !L->p[k].in_bracket && pdb_steplog_train_key(L->p[k].name, L->p[k].nl))
                g->train_loss_keys = true;
    }
}

bool pdb_steplog_general_is_step_line(const char *s, size_t len)
{
    static pdb_steplog_general g; /* parsing only: the line and a work buffer */
    gen_line *L = &g.line;
    if (memchr(s, '`', len))
        return false; /* Markdown quoting a format, not a log */
    parse_line(&g.work, s, len, L);
    return has_named_counter(L);
}

