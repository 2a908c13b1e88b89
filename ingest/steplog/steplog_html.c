/* steplog_html.c: HTML tables of a notebook's training output.
 *
 * The Hugging Face Trainer in a notebook (NotebookProgressCallback; TRL,
 * Unsloth and the course notebooks use it) draws a progress widget and an
 * HTML table of the logged values, which a notebook exported as text keeps:
 *     <table border="1" class="dataframe">
 *       <thead>
 *      <tr style="text-align: left;">
 *           <th>Step</th>
 *           <th>Training Loss</th>
 *         </tr>
 *       </thead>
 *       <tbody>
 *         <tr>
 *           <td>1</td>
 *           <td>0.774000</td>
 *         </tr>
 * and "[22/22 01:00, Epoch 1/1]" after the widget: the steps so far and the
 * clock since training started, whose ratio is their mean step time.
 * Each body row is a record: its 'Step' (else 'Epoch') cell is the counter,
 * the other cells are values named by their column ("No log" is no value).
 * Tags may share a line or have one each; a cell split over lines is not
 * read. Columns and cells are bounded (HT_COLS, HT_TEXT): a wider table
 * drops the rest, counted. */
#include "ingest/steplog/steplog.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HT_COLS 32
#define HT_TEXT 64

enum { HT_NONE, HT_HEAD, HT_BODY };

struct pdb_steplog_html {
    int state;
    int64_t widget_n;     /* the widget's steps, until a row of that step */
    double widget_secs;   /* takes its clock; 0: none pending */
    int ncols, ncells, dropped;
    int64_t row_line;
    char col[HT_COLS][HT_TEXT], cell[HT_COLS][HT_TEXT];
    size_t cl[HT_COLS], vl[HT_COLS];
};

void pdb_steplog_html_free(pdb_steplog_html *h)
{
    free(h);
}

/* The text between the tag that opens at s[i] ("<td ...>") and its closing
 * tag on the same line; *end is past the closing tag. */
static bool tag_text(const char *s, size_t len, size_t i, const char *close, const char **t,
                     size_t *tl, size_t *end)
{
    const char *gt = memchr(s + i, '>', len - i);
    if (!gt)
        return false;
    size_t b = (size_t)(gt + 1 - s);
    const char *c = pdb_steplog_find(s + b, len - b, close);
    if (!c)
        return false;
    *t = s + b;
    *tl = pdb_steplog_trim(t, (size_t)(c - (s + b)));
    *end = (size_t)(c - s) + strlen(close);
    return true;
}

static void keep(char (*dst)[HT_TEXT], size_t *dl, int *n, int *dropped, const char *t,
                 size_t tl)
{
    if (*n == HT_COLS || tl >= HT_TEXT) {
        (*dropped)++;
        if (*n < HT_COLS)
            dl[(*n)++] = 0; /* the column keeps its place, empty */
        return;
    }
    memcpy(dst[*n], t, tl);
    dl[(*n)++] = tl;
}

static int counter_col(const pdb_steplog_html *h, const char *name)
{
    for (int k = 0; k < h->ncols; k++)
        if (h->cl[k] == strlen(name) && strncasecmp(h->col[k], name, h->cl[k]) == 0)
            return k;
    return -1;
}

/* The widget's clock over its steps, on the record of the row of its step. */
static int widget_time(pdb_steplog *w, pdb_steplog_html *h)
{
    const char *name = "widget clock/step_time";
    int64_t n = h->widget_n;
    double secs = h->widget_secs;
    h->widget_secs = 0;
    return pdb_steplog_value(w, name, strlen(name), secs / (double)n, PDB_UNIT_SECONDS,
                             "interval_mean", n);
}

/* Writes the body row read so far as one record. */
static int emit_row(pdb_steplog *w, pdb_steplog_html *h)
{
    int n = h->ncells;
    h->ncells = 0;
    if (n == 0)
        return PDB_OK;
    int step_at = counter_col(h, "Step"), epoch_at = counter_col(h, "Epoch");
    pdb_steplog_record(w, "table", h->row_line);
    double v;
    const char *unit;
    if (step_at >= 0 && step_at < n && pdb_units_quantity(h->cell[step_at], h->vl[step_at], &v, &unit)) {
        w->has_step = pdb_steplog_to_int(v, &w->step);
        PDB_SL_SAW_COUNTER(w, "HTML table column 'Step'");
    } else {
        step_at = -1;
    }
    if (epoch_at >= 0 && epoch_at < n &&
        pdb_units_quantity(h->cell[epoch_at], h->vl[epoch_at], &v, &unit)) {
        w->has_epoch = true;
        w->epoch = v;
        if (step_at < 0)
            PDB_SL_SAW_COUNTER(w, "HTML table column 'Epoch' (epoch only)");
    } else {
        epoch_at = -1;
    }
    if (step_at < 0 && epoch_at < 0)
        w->is_step = false; /* a table of other numbers: kept, not a step */
    /* the Trainer's columns: "Training Loss", "Validation Loss", then the
     * evaluation's metrics (compute_metrics: "Accuracy", "F1", ...) */
    const char *split = w->split;
    bool after_val = false;
    for (int k = 0; k < n && k < h->ncols; k++) {
        if (k == step_at || k == epoch_at || h->cl[k] == 0)
            continue;
        bool val = pdb_mem_is(h->col[k], h->cl[k], "Validation Loss");
        w->split = after_val || val ? "val"
                   : pdb_mem_is(h->col[k], h->cl[k], "Training Loss") ? "train" : split;
        after_val |= val;
        int r = pdb_steplog_text_value(w, h->col[k], h->cl[k], h->cell[k], h->vl[k], "point", 0);
        if (r < 0)
            return PDB_ERR;
        if (r == 0)
            pdb_skip(w->src, "table value that is not a number");
    }
    w->split = split;
    for (; h->dropped > 0; h->dropped--)
        pdb_skip(w->src, "table cell beyond the record's limit");
    if (h->widget_secs > 0 && w->has_step && w->step == h->widget_n)
        return widget_time(w, h);
    return PDB_OK;
}

/* Reads the tags of one line in order. */
static int html_tags(pdb_steplog *w, pdb_steplog_html *h, const char *s, size_t len,
                     int64_t lineno)
{
    const char *t;
    size_t tl, end;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '<')
            continue;
        const char *tag = s + i + 1;
        size_t rest = len - i - 1;
        if (pdb_skip_prefix_mem(tag, rest, "thead", NULL, NULL)) {
            h->state = HT_HEAD;
            h->ncols = 0;
        } else if (pdb_skip_prefix_mem(tag, rest, "tbody", NULL, NULL)) {
            h->state = HT_BODY;
        } else if (pdb_skip_prefix_mem(tag, rest, "/table", NULL, NULL)) {
            if (emit_row(w, h) != PDB_OK)
                return PDB_ERR;
            h->state = HT_NONE;
        } else if (pdb_skip_prefix_mem(tag, rest, "th", NULL, NULL) && rest > 2 &&
                   (tag[2] == '>' || tag[2] == ' ') && tag_text(s, len, i, "</th>", &t, &tl, &end)) {
            keep(h->col, h->cl, &h->ncols, &h->dropped, t, tl);
            i = end - 1;
        } else if (pdb_skip_prefix_mem(tag, rest, "td", NULL, NULL) && rest > 2 &&
                   (tag[2] == '>' || tag[2] == ' ') && tag_text(s, len, i, "</td>", &t, &tl, &end)) {
            if (h->ncells == 0)
                h->row_line = lineno;
            keep(h->cell, h->vl, &h->ncells, &h->dropped, t, tl);
            i = end - 1;
        } else if (pdb_skip_prefix_mem(tag, rest, "/tr>", NULL, NULL) && h->state == HT_BODY) {
            if (emit_row(w, h) != PDB_OK)
                return PDB_ERR;
        }
    }
    return PDB_OK;
}

/* The widget's text, "[22/22 01:00, Epoch 1/1]" (or "[10/22 00:30 < 00:36,
 * Epoch 0.45/1]" during the run): steps done and the clock since training
 * started, so their mean step time (a window of all the steps so far). */
static int widget_line(pdb_steplog *w, const char *t, size_t tl)
{
    size_t i = 1;
    int64_t n, total;
    if (tl < 12 || t[0] != '[' || t[tl - 1] != ']' || !pdb_steplog_find(t, tl, ", Epoch ") ||
        !pdb_steplog_read_int(t, tl, &i, &n) || i >= tl || t[i] != '/')
        return 0;
    i++;
    if (!pdb_steplog_read_int(t, tl, &i, &total) || i >= tl || t[i] != ' ' || n < 1)
        return 0;
    size_t c = ++i;
    while (i < tl && (isdigit((unsigned char)t[i]) || t[i] == ':'))
        i++;
    double secs;
    if (i == c || !pdb_units_clock(t + c, i - c, &secs) || secs <= 0)
        return 0;
    pdb_steplog_html *h = w->html;
    if (!h)
        h = w->html = pdb_xcalloc(1, sizeof *h);
    if (h->widget_secs > 0)
        pdb_skip(w->src, "progress widget whose step no table row has");
    h->widget_n = n;
    h->widget_secs = secs;
    pdb_skip(w->src, "progress widget (its clock goes with the table row of its step)");
    return 1;
}


int pdb_steplog_html_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    pdb_steplog_html *h = w->html;
    if (!h || h->state == HT_NONE) {
        const char *t = s;
        size_t tl = pdb_steplog_trim(&t, len);
        if (tl > 0 && t[0] == '[')
            return widget_line(w, t, tl);
        if (!pdb_skip_prefix_mem(t, tl, "<table", NULL, NULL))
            return 0;
        if (!h)
            h = w->html = pdb_xcalloc(1, sizeof *h);
        h->state = HT_HEAD;
        h->ncols = h->ncells = 0;
    }
    if (!memchr(s, '<', len)) {
        /* a line without a tag ends the table (one never closed must not
         * swallow the log after it) */
        if (emit_row(w, h) != PDB_OK)
            return PDB_ERR;
        h->state = HT_NONE;
        const char *t = s;
        size_t tl = pdb_steplog_trim(&t, len);
        return tl > 0 && t[0] == '[' ? widget_line(w, t, tl) : 0;
    }
    int64_t before = w->record;
    if (html_tags(w, h, s, len, lineno) != PDB_OK)
        return PDB_ERR;
    if (w->record == before)
        pdb_skip(w->src, "HTML table markup");
    return 1;
}
