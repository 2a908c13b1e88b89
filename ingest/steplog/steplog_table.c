/* steplog_table.c: whitespace-aligned tables in text step logs.
 *
 * Many trainers print their progress as a table: a header line of column
 * names and one row of values per epoch or logging step, aligned with
 * blanks (fastai's fit table, spaCy's `spacy train`, Chainer's PrintReport,
 * Ultralytics YOLO's console). No value is named on its own line, so the
 * general reader (steplog_general.c) sees rows of bare numbers; this reader
 * names them by their column:
 *
 *   - a header is a line of three or more column names (no number among
 *     them), split where two or more blanks stand ("LOSS TOK2VEC" is one
 *     name), or at every blank when each word is a name; a dashed rule may
 *     follow it;
 *   - the rows after it split into values (numbers, N/M, "5.05G", "47:41"),
 *     one per column, or fewer when a row leaves cells blank (each value
 *     then takes the column it stands under); a row of the table repeated
 *     after a header of the same names continues it, and any other line
 *     ends it;
 *   - a column named like a step counter (step, iter, iteration, batch, '#')
 *     gives the step, one named epoch ('E', 'ep') the epoch; a table with an
 *     epoch column only has one record per epoch, whose step is the epoch;
 *   - a time column (a time name, or values printed as mm:ss) is the row's
 *     time, a clock named elapsed/wall/total its time since the start;
 *   - a tqdm bar after a row's text (Ultralytics prints the row as the bar's
 *     description) times the row's iterations: elapsed / N per iteration; a
 *     row whose bar is not finished is an update of the row, not a record;
 *   - a table without a counter column whose names are evaluation metrics
 *     (mAP, P, R, accuracy) is a validation of the last training row.
 *
 * Memory is bounded: one header and one row of at most TBL_COLS cells. */
#include "ingest/steplog/steplog.h"
#include "common/error.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TBL_COLS 32 /* columns of a table; a wider line is no table */
#define TBL_NAME 48 /* bytes of a column name */
#define TBL_LIST 16 /* values of a bracketed list cell ("[6.48e-02, 3.39e-01]") */

typedef struct {
    size_t s, e; /* bytes [s, e) of the line */
} span;

/* A header: its names and where they stand in their line. */
typedef struct {
    int n;
    span at[TBL_COLS];
    char name[TBL_COLS][TBL_NAME];
} columns;

/* A tqdm bar after a row's text: "1280: 100%|####| 213/213 [06:21<00:00, 1.79s/it]". */
typedef struct {
    bool has;
    int64_t n, total;
    double elapsed; /* seconds, or -1 */
} tbl_bar;

typedef struct {
    int n;
    span tok[TBL_COLS];
    int col[TBL_COLS]; /* the column each value stands under */
    tbl_bar bar;
} tbl_row;

enum { T_OTHER, T_BLANK, T_RULE, T_HEADER, T_ROW, T_NOTE };

struct pdb_sl_table {
    columns wide, narrow; /* the last header line, split at 2+ blanks / at every blank */
    bool after_header;    /* only blank lines and rules since that line */
    columns cols;         /* the table being read (n 0: none) */
    columns last;         /* the last training table, which a row in its columns resumes */
    int step_col, epoch_col, time_col;
    bool eval_names;      /* a column is an evaluation metric or a validation name */
    /* the last training row: a validation table right after it (no other
     * line between) takes its step */
    bool seen_train, last_has_step, last_has_epoch;
    int64_t last_step;
    double last_epoch;
};

pdb_sl_table *pdb_steplog_table_new(void)
{
    return pdb_xcalloc(1, sizeof(pdb_sl_table));
}

void pdb_steplog_table_free(pdb_sl_table *t)
{
    free(t);
}

/* ---- splitting lines ----------------------------------------------------------- */

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Cells that end where two or more blanks (or a tab) stand; -1 when more
 * than TBL_COLS. */
static int split_wide(const char *s, size_t len, span *out)
{
    int n = 0;
    size_t i = 0;
    while (i < len && blank(s[i]))
        i++;
    while (i < len) {
        if (n == TBL_COLS)
            return -1;
        size_t st = i;
        while (i < len && s[i] != '\t' && !(s[i] == ' ' && (i + 1 == len || blank(s[i + 1]))))
            i++;
        out[n++] = (span){st, i};
        while (i < len && blank(s[i]))
            i++;
    }
    return n;
}

/* Words between blanks; -1 when more than TBL_COLS. */
static int split_narrow(const char *s, size_t len, span *out)
{
    int n = 0;
    for (size_t i = 0; i < len;) {
        while (i < len && blank(s[i]))
            i++;
        if (i == len)
            break;
        if (n == TBL_COLS)
            return -1;
        size_t st = i;
        while (i < len && !blank(s[i]))
            i++;
        out[n++] = (span){st, i};
    }
    return n;
}

/* A column name: a letter in it (or spaCy's '#'), no number, no shape of a
 * setting or sentence ("a=1", "'x'", "Note:", "[...]"). */
static bool column_name(const char *c, size_t n)
{
    double x;
    const char *u;
    if (n == 1 && c[0] == '#')
        return true;
    if (n == 0 || n >= TBL_NAME || c[n - 1] == ':' || pdb_units_quantity(c, n, &x, &u))
        return false;
    bool letter = false;
    for (size_t k = 0; k < n; k++) {
        if (strchr("=\"'`{}[],;|<>", c[k]))
            return false;
        letter |= isalpha((unsigned char)c[k]) != 0;
    }
    return letter;
}

static const char *const step_words[];
static const char *const epoch_words[];
static bool name_in(const char *name, const char *const *set);

static bool counter_name(const char *name)
{
    return name_in(name, step_words) || name_in(name, epoch_words);
}

/* A class label as a column name, after a counter column: R randomForest's
 * do.trace "ntree      OOB      1      2      3" (per-class errors). */
static bool class_column(const char *c, size_t n)
{
    if (n == 0 || n > 3)
        return false;
    for (size_t k = 0; k < n; k++)
        if (!isdigit((unsigned char)c[k]))
            return false;
    return true;
}

/* The header a line is when split by `split`: 3 or more names, or n 0. */
static void header_split(const char *s, size_t len, int (*split)(const char *, size_t, span *),
                         columns *c)
{
    c->n = split(s, len, c->at);
    if (c->n < 3) {
        c->n = 0;
        return;
    }
    for (int k = 0; k < c->n; k++) {
        size_t l = c->at[k].e - c->at[k].s;
        if (!column_name(s + c->at[k].s, l) &&
            !(k > 0 && class_column(s + c->at[k].s, l) && counter_name(c->name[0]))) {
            c->n = 0;
            return;
        }
        memcpy(c->name[k], s + c->at[k].s, l);
        c->name[k][l] = '\0';
    }
}

static bool same_names(const columns *a, const columns *b)
{
    if (a->n != b->n || a->n == 0)
        return false;
    for (int k = 0; k < a->n; k++)
        if (strcmp(a->name[k], b->name[k]) != 0)
            return false;
    return true;
}

/* A rule under a header: "---  ------  ----", "=====". */
static bool rule_line(const char *s, size_t len)
{
    int dashes = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '-' || s[i] == '=')
            dashes++;
        else if (!blank(s[i]) && s[i] != '+' && s[i] != '|')
            return false;
    }
    return dashes >= 3;
}

/* A tqdm bar after the text at s: sets *b and returns where the text ends
 * (tqdm puts ": " between its description and the percentage), else len. */
static size_t bar_split(const char *s, size_t len, tbl_bar *b)
{
    memset(b, 0, sizeof *b);
    b->elapsed = -1;
    const char *pc = pdb_steplog_find(s, len, "%|");
    if (!pc)
        return len;
    size_t k = (size_t)(pc - s), d = k;
    while (d > 0 && isdigit((unsigned char)s[d - 1]))
        d--;
    size_t text = d;
    while (text > 0 && s[text - 1] == ' ')
        text--;
    if (d == k || text == 0 || s[text - 1] != ':')
        return len;
    const char *end = memchr(pc + 2, '|', len - k - 2); /* the bar's right edge */
    size_t i = end ? (size_t)(end - s) + 1 : len;
    if (!pdb_steplog_read_int(s, len, &i, &b->n) || i >= len || s[i] != '/' ||
        (i++, !pdb_steplog_read_int(s, len, &i, &b->total)))
        return len;
    b->has = true;
    while (i < len && s[i] == ' ')
        i++;
    const char *lt = i < len && s[i] == '[' ? memchr(s + i, '<', len - i) : NULL;
    double secs;
    if (lt && pdb_units_clock(s + i + 1, (size_t)(lt - (s + i + 1)), &secs))
        b->elapsed = secs;
    return text - 1;
}

/* ---- rows -------------------------------------------------------------------------- */

static bool progress_cell(const char *c, size_t n, int64_t *v, int64_t *total)
{
    const char *sl = memchr(c, '/', n);
    size_t i = 0, j;
    if (!sl)
        return false;
    j = (size_t)(sl - c) + 1;
    return pdb_steplog_read_int(c, (size_t)(sl - c), &i, v) && i == (size_t)(sl - c) &&
           pdb_steplog_read_int(c, n, &j, total) && j == n;
}

/* DeepXDE's loss terms, "[6.48e-02, 3.39e-01]": one cell of several
 * values (the words between blanks are joined back into it). */
static void merge_lists(const char *s, tbl_row *r)
{
    int n = 0;
    for (int k = 0; k < r->n; k++) {
        span t = r->tok[k];
        if (s[t.s] == '[' && s[t.e - 1] != ']') {
            int j = k;
            while (j + 1 < r->n && s[r->tok[j].e - 1] != ']')
                j++;
            if (s[r->tok[j].e - 1] == ']') {
                t.e = r->tok[j].e;
                k = j;
            }
        }
        r->tok[n++] = t;
    }
    r->n = n;
}

/* A cell of values in brackets: its values, at most max of them, or -1. */
static int list_cell(const char *c, size_t n, double *out, int max)
{
    if (n < 2 || c[0] != '[' || c[n - 1] != ']')
        return -1;
    int k = 0;
    size_t i = 1;
    while (i < n - 1) {
        while (i < n - 1 && (c[i] == ' ' || c[i] == ','))
            i++;
        size_t e = i;
        while (e < n - 1 && c[e] != ',' && c[e] != ' ')
            e++;
        if (e == i)
            break;
        const char *unit;
        double x;
        if (k == max || !pdb_units_quantity(c + i, e - i, &x, &unit) || unit[0])
            return -1;
        out[k++] = x;
        i = e;
    }
    return k;
}

static bool value_cell(const char *c, size_t n)
{
    double x;
    const char *u;
    int64_t a, b;
    return progress_cell(c, n, &a, &b) || pdb_units_quantity(c, n, &x, &u);
}

/* A mark in a flag column: skorch's "+" under cp (a checkpoint was saved)
 * or under valid_loss_best. Not a value; the row is still a row. */
static bool mark_cell(const char *c, size_t n)
{
    return n == 1 && (c[0] == '+' || c[0] == '*');
}

/* The word that names a row (YOLO's validation class, "all"). */
static bool label_cell(const char *c, size_t n)
{
    return n < TBL_NAME && column_name(c, n) && !value_cell(c, n);
}

/* Assigns the row's values to the table's columns: in order when there are
 * as many, else each to the column whose name it stands under (a blank
 * cell: Chainer prints nothing where a value is missing). */
static bool map_row(const columns *c, tbl_row *r, bool aligned)
{
    if (r->n == c->n && !aligned) {
        for (int k = 0; k < r->n; k++)
            r->col[k] = k;
        return true;
    }
    if (r->n < 2 || r->n > c->n)
        return false;
    int last = -1;
    for (int k = 0; k < r->n; k++) {
        int best = -1;
        size_t most = 0;
        for (int j = last + 1; j < c->n; j++) {
            size_t s = r->tok[k].s > c->at[j].s ? r->tok[k].s : c->at[j].s;
            size_t e = r->tok[k].e < c->at[j].e ? r->tok[k].e : c->at[j].e;
            if (e > s && e - s > most) {
                most = e - s;
                best = j;
            }
        }
        if (best < 0)
            return false;
        r->col[k] = last = best;
    }
    return true;
}

static bool name_in(const char *name, const char *const *set)
{
    for (int i = 0; set[i]; i++)
        if (strcasecmp(name, set[i]) == 0)
            return true;
    return false;
}

static const char *const step_words[] = {"step", "global_step", "iter", "iteration", "it", "itn",
                                         "batch", "update", "num_updates", "#", "ntree", NULL};
static const char *const epoch_words[] = {"epoch", "ep", "e", NULL};

/* A clock since the start, by its name: Chainer's elapsed_time. */
static bool clock_name(const char *name, size_t nl)
{
    static const char *const words[] = {"elapsed", "wall", "clock", "total", "runtime",
                                        "cumulative", NULL};
    for (int i = 0; words[i]; i++)
        if (pdb_steplog_name_has_word(name, nl, words[i]))
            return true;
    return false;
}

/* A time of one part of the step (data loading, evaluation), not its whole. */
static bool phase_name(const char *name, size_t nl)
{
    static const char *const words[] = {"data", "load", "forward", "fwd", "backward", "bwd",
                                        "optim", "optimizer", "eval", "val", "valid", "test",
                                        "wait", "sync", "comm", "eta", "remaining", "left", NULL};
    for (int i = 0; words[i]; i++)
        if (pdb_steplog_name_has_word(name, nl, words[i]))
            return true;
    return false;
}

/* Reads the table's columns: counters, its time, whether it evaluates. */
static void set_table(pdb_sl_table *t, const columns *c)
{
    t->cols = *c;
    t->step_col = t->epoch_col = t->time_col = -1;
    t->eval_names = false;
    for (int k = 0; k < c->n; k++) {
        const char *name = c->name[k];
        size_t nl = strlen(name);
        if (t->step_col < 0 && name_in(name, step_words))
            t->step_col = k;
        else if (t->epoch_col < 0 && name_in(name, epoch_words))
            t->epoch_col = k;
        else if (t->time_col < 0 &&
                 (pdb_steplog_time_name(name, nl) || strcasecmp(name, "dur") == 0) &&
                 !clock_name(name, nl) && !phase_name(name, nl))
            t->time_col = k; /* skorch's "dur" is the epoch's duration */
        t->eval_names |= pdb_steplog_eval_metric(name, nl) || pdb_steplog_val_name(name, nl);
    }
    if (t->step_col >= 0 || t->epoch_col >= 0)
        t->last = *c;
}

/* Whether the tokens of r are a row of the columns c: each a value (a
 * counter an integer or N/M), but a label in a first column that counts
 * nothing. Sets r->col. */
/* A counter cell's length without the colon R's do.trace puts after it
 * ("   10:   4.88%"). */
static size_t counter_cell(const char *v, size_t vl)
{
    return vl > 1 && v[vl - 1] == ':' && isdigit((unsigned char)v[vl - 2]) ? vl - 1 : vl;
}

static bool fits(const columns *c, const char *s, tbl_row *r, bool aligned)
{
    if (!map_row(c, r, aligned) || (aligned && r->n != c->n))
        return false;
    bool counted = false;
    int values = 0, lv;
    double lx[TBL_LIST];
    for (int k = 0; k < r->n; k++) {
        const char *v = s + r->tok[k].s;
        size_t vl = r->tok[k].e - r->tok[k].s;
        int j = r->col[k];
        bool counter = name_in(c->name[j], step_words) || name_in(c->name[j], epoch_words);
        if (counter) {
            int64_t a, b;
            size_t i = 0;
            vl = counter_cell(v, vl);
            if (!(pdb_steplog_read_int(v, vl, &i, &a) && i == vl) && !progress_cell(v, vl, &a, &b))
                return false;
            counted = true;
        } else if (value_cell(v, vl)) {
            values++;
        } else if ((lv = list_cell(v, vl, lx, TBL_LIST)) >= 0) {
            values += lv > 0;
        } else if (!(j == 0 && k == 0 && label_cell(v, vl)) && !mark_cell(v, vl)) {
            return false;
        }
    }
    /* a table with a counter column has it in every row */
    for (int j = 0; j < c->n && !counted; j++)
        if (name_in(c->name[j], step_words) || name_in(c->name[j], epoch_words))
            return false;
    return values >= 1;
}

/* A bulleted "* name: value" line: its name and value, when it is one. */
static bool note_line(const char *s, size_t len, const char **name, size_t *nl, double *v)
{
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    if (tl < 4 || (t[0] != '*' && t[0] != '-') || t[1] != ' ')
        return false;
    const char *colon = memchr(t, ':', tl);
    if (!colon)
        return false;
    const char *n0 = t + 2;
    size_t n = pdb_steplog_trim(&n0, (size_t)(colon - n0));
    const char *val = colon + 1;
    size_t vl = pdb_steplog_trim(&val, (size_t)(t + tl - val));
    double x;
    if (n == 0 || vl == 0 || pdb_units_number(val, vl, &x) != vl)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalpha((unsigned char)n0[i]) && n0[i] != ' ' && n0[i] != '_')
            return false;
    if (name)
        *name = n0, *nl = n, *v = x;
    return true;
}

/* What a line is to the tables, updating their state: a row (r filled) of
 * the table being read or of the header just before it, a header, a rule,
 * a blank line, or another line (which ends the table). */
static int scan(pdb_sl_table *t, const char *s, size_t len, tbl_row *r)
{
    const char *tt = s;
    if (pdb_steplog_trim(&tt, len) == 0)
        return T_BLANK;
    if (rule_line(s, len))
        return T_RULE;
    size_t text = bar_split(s, len, &r->bar);
    r->n = split_narrow(s, text, r->tok);
    merge_lists(s, r);
    if (r->n > 0) {
        const columns *cand[2] = {&t->wide, &t->narrow};
        for (int k = 0; k < 2 && t->after_header; k++) {
            if (cand[k]->n && fits(cand[k], s, r, false)) {
                if (!same_names(&t->cols, cand[k]))
                    set_table(t, cand[k]);
                t->after_header = false;
                return T_ROW;
            }
        }
        if (!t->after_header && t->cols.n && fits(&t->cols, s, r, false))
            return T_ROW;
        /* a training row after other lines (a notebook's "IOPub message rate
         * exceeded" between two epochs) resumes its table when each value
         * stands under its column */
        if (!t->after_header && !t->cols.n && t->last.n && fits(&t->last, s, r, true)) {
            set_table(t, &t->last);
            return T_ROW;
        }
    }
    /* a bulleted "name: value" under a row is the row's (Optim.jl's
     * show_trace prints " * time: 0.394" under each iteration's row) */
    if (!t->after_header && t->cols.n && t->seen_train && note_line(s, len, NULL, NULL, NULL))
        return T_NOTE;
    columns wide, narrow;
    header_split(s, text, split_wide, &wide);
    header_split(s, text, split_narrow, &narrow);
    if (wide.n || narrow.n) {
        t->wide = wide;
        t->narrow = narrow;
        t->after_header = true;
        if (!same_names(&t->cols, &wide) && !same_names(&t->cols, &narrow))
            t->cols.n = 0;
        return T_HEADER;
    }
    t->after_header = false;
    t->cols.n = 0;
    t->seen_train = false; /* a validation table after this is not the last row's */
    return T_OTHER;
}

bool pdb_steplog_table_sniff(pdb_sl_table *t, const char *s, size_t len)
{
    tbl_row r;
    int k = scan(t, s, len, &r);
    return (k == T_ROW && (t->step_col >= 0 || t->epoch_col >= 0 || t->eval_names)) ||
           (k == T_HEADER && r.bar.has);
}

/* ---- storing rows --------------------------------------------------------------------- */

/* The row's counters: the step column, else the epoch as the step. */
static void row_counters(pdb_steplog *w, const pdb_sl_table *t, const char *s, const tbl_row *r)
{
    for (int k = 0; k < r->n; k++) {
        int j = r->col[k];
        if (j != t->step_col && j != t->epoch_col)
            continue;
        const char *v = s + r->tok[k].s;
        size_t vl = counter_cell(v, r->tok[k].e - r->tok[k].s), i = 0;
        int64_t n, total;
        if (!pdb_steplog_read_int(v, vl, &i, &n) || (i != vl && !progress_cell(v, vl, &n, &total)))
            continue;
        if (j == t->step_col) {
            w->has_step = true;
            w->step = n;
        } else {
            w->has_epoch = true;
            w->epoch = (double)n; /* "0/149": the total is the run's length */
        }
    }
    const char *cn = t->cols.name[t->step_col >= 0 ? t->step_col : t->epoch_col];
    if (t->step_col >= 0) {
        pdb_steplog_saw_counter_named(w, "column %.*s", cn, strlen(cn));
    } else if (w->has_epoch && pdb_steplog_to_int(w->epoch, &w->step)) {
        w->has_step = true;
        pdb_steplog_saw_counter_named(w, "column %.*s, one record per epoch", cn, strlen(cn));
    }
}

static void note(pdb_steplog *w, const pdb_sl_table *t, const char *what)
{
    if (w->table_note[0] || t->step_col >= 0)
        return;
    snprintf(w->table_note, sizeof w->table_note, "a record is an epoch (column %s, no step "
             "column); %s", t->cols.name[t->epoch_col], what);
}

/* A time of the row: a clock since the start is stored as such; the row's
 * own time as its step time, which in a table of one row per epoch is the
 * epoch's. */
static int time_value(pdb_steplog *w, const pdb_sl_table *t, int j, double secs)
{
    const char *name = t->cols.name[j];
    size_t nl = strlen(name);
    if (clock_name(name, nl)) {
        note(w, t, "the step time is the epoch's, from the clock's differences");
        return pdb_steplog_cumulative_time(w, name, nl, secs);
    }
    if (j != t->time_col)
        return pdb_steplog_value(w, name, nl, secs, PDB_UNIT_SECONDS, "point", 0);
    note(w, t, "the step time is the epoch's time");
    if (pdb_steplog_name_class(w, name, nl, -1) & PDB_SL_NAME_STEP_TIME)
        return pdb_steplog_value(w, name, nl, secs, PDB_UNIT_SECONDS, "point", 0);
    char st[TBL_NAME + 16];
    snprintf(st, sizeof st, "%s/step_time", name);
    return pdb_steplog_value(w, st, strlen(st), secs, PDB_UNIT_SECONDS, "point", 0);
}

/* One value of a row under its column's name ("NAME (LABEL)" in a row named
 * by a label other than the whole: a class of a validation table). */
static int row_value(pdb_steplog *w, const pdb_sl_table *t, int j, const char *v, size_t vl,
                     const char *label, size_t ll, bool train)
{
    static const char *const whole[] = {"all", "total", "overall", "mean", "avg", "average",
                                        NULL};
    char name[2 * TBL_NAME + 4];
    int64_t a, b;
    double x, f;
    const char *unit;
    if (progress_cell(v, vl, &a, &b)) {
        pdb_skip(w->src, "progress N/M in a table cell that counts nothing");
        return PDB_OK;
    }
    if (mark_cell(v, vl)) {
        pdb_skip(w->src, "mark in a table cell ('+': a checkpoint saved, a best value)");
        return PDB_OK;
    }
    double lx[TBL_LIST];
    int lv = list_cell(v, vl, lx, TBL_LIST);
    for (int i = 0; i < lv; i++) { /* "Train loss[0]", "Train loss[1]" */
        snprintf(name, sizeof name, "%s[%d]", t->cols.name[j], i);
        if (pdb_steplog_value(w, name, strlen(name), lx[i], NULL, "point", 0) != PDB_OK)
            return PDB_ERR;
    }
    if (lv >= 0)
        return PDB_OK;
    if (!pdb_units_quantity(v, vl, &x, &unit))
        return PDB_OK; /* fits() let only values through */
    if (ll) {
        char l[TBL_NAME];
        snprintf(l, sizeof l, "%.*s", (int)ll, label);
        if (!name_in(l, whole)) {
            snprintf(name, sizeof name, "%s (%s)", t->cols.name[j], l);
            return pdb_steplog_value(w, name, strlen(name), x, unit[0] ? unit : NULL, "point", 0);
        }
    }
    const char *cn = t->cols.name[j];
    size_t cl = strlen(cn);
    const char *nu = unit[0] ? NULL : pdb_units_from_name(cn, cl, &f);
    if (!unit[0] && !nu && strcasecmp(cn, "dur") == 0) {
        nu = PDB_UNIT_SECONDS; /* skorch's "dur": the row's duration in seconds */
        f = 1;
    }
    bool secs = strcmp(unit, PDB_UNIT_SECONDS) == 0 || (nu && strcmp(nu, PDB_UNIT_SECONDS) == 0);
    if (train && secs)
        return time_value(w, t, j, unit[0] ? x : x * f);
    return pdb_steplog_value(w, cn, cl, x, unit[0] ? unit : NULL, "point", 0);
}

/* A finished bar after a training row: its elapsed time over its iterations
 * is the row's time per iteration (as the general reader stores a time of
 * the window since the last record). */
static int bar_values(pdb_steplog *w, const pdb_sl_table *t, const tbl_bar *b)
{
    if (b->elapsed < 0 || b->total <= 0)
        return PDB_OK;
    char what[120];
    snprintf(what, sizeof what, "its step time is per iteration: the row's progress bar, "
             "elapsed / %lld iterations", (long long)b->total);
    note(w, t, what);
    if (pdb_steplog_value(w, "bar (window)", 12, b->elapsed, PDB_UNIT_SECONDS, "point", 0) !=
        PDB_OK)
        return PDB_ERR;
    return pdb_steplog_value(w, "bar/step_time", 13, b->elapsed / (double)b->total,
                             PDB_UNIT_SECONDS, "interval_mean", b->total);
}

static int write_row(pdb_steplog *w, pdb_sl_table *t, const char *s, const tbl_row *r,
                     int64_t lineno)
{
    bool train = t->step_col >= 0 || t->epoch_col >= 0;
    if (r->bar.has && r->bar.n < r->bar.total) {
        pdb_skip(w->src, "table row with an unfinished progress bar (an update of the row)");
        return PDB_OK;
    }
    if (!train && !t->seen_train) {
        pdb_skip(w->src, "validation table row not right after a training row");
        return PDB_OK;
    }
    pdb_steplog_record(w, train ? "step" : "val", lineno);
    if (train) {
        row_counters(w, t, s, r);
        t->seen_train = true;
        t->last_has_step = w->has_step;
        t->last_step = w->step;
        t->last_has_epoch = w->has_epoch;
        t->last_epoch = w->epoch;
    } else { /* a validation of the last training row */
        w->split = "val";
        w->is_step = false;
        w->has_step = t->last_has_step;
        w->step = t->last_step;
        w->has_epoch = t->last_has_epoch;
        w->epoch = t->last_epoch;
    }
    const char *label = NULL;
    size_t ll = 0;
    for (int k = 0; k < r->n; k++) {
        int j = r->col[k];
        const char *v = s + r->tok[k].s;
        size_t vl = r->tok[k].e - r->tok[k].s;
        if (j == t->step_col || j == t->epoch_col)
            continue;
        if (k == 0 && j == 0 && !value_cell(v, vl)) {
            label = v;
            ll = vl;
            continue;
        }
        if (row_value(w, t, j, v, vl, label, ll, train) != PDB_OK)
            return PDB_ERR;
    }
    return train && r->bar.has ? bar_values(w, t, &r->bar) : PDB_OK;
}

int pdb_steplog_table_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    pdb_sl_table *t = w->table;
    tbl_row r;
    int k = scan(t, s, len, &r);
    if (k == T_HEADER && r.bar.has) {
        /* a bar whose text is column names is the table's (YOLO's validation),
         * not a training loop's */
        pdb_skip(w->src, "table header");
        return 1;
    }
    if (k == T_NOTE) {
        const char *name;
        size_t nl;
        double v;
        note_line(s, len, &name, &nl, &v);
        pdb_steplog_saw_lines(w, 1);
        return pdb_steplog_value(w, name, nl, v, NULL, "point", 0) == PDB_OK ? 1 : PDB_ERR;
    }
    /* rows of a table that neither counts nor evaluates are left to the
     * other readers, as if no table were there */
    if (k != T_ROW || (t->step_col < 0 && t->epoch_col < 0 && !t->eval_names))
        return 0;
    /* the general reader's record before the table was written at the
     * header line, which went through it (a line without values ends its
     * record); only a counter line still waiting for values (Chainer's
     * "# epoch: 20") stays pending, and is dropped at the end for having
     * none. A bar-carrying header and a resumed row come after lines that
     * ended it too. */
    return write_row(w, t, s, &r, lineno) == PDB_OK ? 1 : PDB_ERR;
}
