/* steplog_boxes.c: key/value tables boxed between dashed rules.
 *
 * Stable-Baselines3's console logger (and sb3-contrib, rl-baselines3-zoo, and
 * OpenAI baselines' logger.dumpkvs before it) prints one table per dump:
 *     ------------------------------------------
 *     | rollout/                |              |
 *     |    ep_len_mean          | 192          |
 *     | time/                   |              |
 *     |    iterations           | 2            |
 *     |    time_elapsed         | 55           |
 *     ------------------------------------------
 * A table is one record; no single line of it is. A row with an empty value
 * and a key ending in '/' opens a section, and the indented rows under it are
 * named with it ("rollout/ep_len_mean", as SB3 writes them to progress.csv);
 * baselines' flat tables ("| eplenmean | 123 |") keep their keys. The record's
 * step is the first counter row found in counter_names' order, its epoch an
 * 'epoch' row; a table with neither is kept but is no step. time_elapsed
 * is the clock since learn() started (cumulative, so the writer's pass takes
 * its differences as step times), fps a running mean since then.
 *
 * Rows are held until the closing rule (at most BOX_ROWS of them): the
 * counter row comes in the middle of the table, after values that need it. */
#include "ingest/steplog/steplog.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOX_ROWS 96
#define BOX_NAME 96
#define BOX_VALUE 48

typedef struct {
    char name[BOX_NAME], value[BOX_VALUE];
    size_t nl, vl;
    size_t leaf; /* offset of the key within name (after its section) */
} box_row;

struct pdb_steplog_box {
    bool open;            /* a rule was seen and no other line since */
    int64_t line;         /* the first row's line */
    char section[BOX_NAME];
    size_t sl;
    int n, dropped;
    int64_t lines;        /* rows and section rows of the table */
    bool rounded_said;    /* a counter printed with an exponent was warned of */
    box_row rows[BOX_ROWS];
};

/* The step counters a table may hold, the best first: SB3's on-policy
 * 'iterations' and baselines' 'nupdates' count updates, OpenAI's
 * improved-/guided-diffusion logger its 'step' (printed %g: "5.04e+03");
 * the off-policy algorithms only print environment steps and episodes. */
static const char *const counter_names[] = {"iterations", "nupdates", "step",
                                            "total_timesteps", "timesteps", "total_steps",
                                            "steps", "episodes", NULL};

void pdb_steplog_box_free(pdb_steplog_box *b)
{
    free(b);
}

/* A rule: a line of dashes only, as wide as a table. */
static bool rule_line(const char *t, size_t tl)
{
    if (tl < 8)
        return false;
    for (size_t i = 0; i < tl; i++)
        if (t[i] != '-')
            return false;
    return true;
}

/* "| key | value |": exactly two cells. Sets the key cell untrimmed (its
 * indentation says it belongs to the section above) and the value trimmed. */
static bool row_cells(const char *t, size_t tl, const char **key, size_t *kl, const char **val,
                      size_t *vl)
{
    if (tl < 5 || t[0] != '|' || t[tl - 1] != '|')
        return false;
    const char *mid = memchr(t + 1, '|', tl - 2);
    if (!mid || memchr(mid + 1, '|', (size_t)(t + tl - 1 - (mid + 1))))
        return false;
    *key = t + 1;
    *kl = (size_t)(mid - (t + 1));
    *val = mid + 1;
    *vl = pdb_steplog_trim(val, (size_t)(t + tl - 1 - (mid + 1)));
    return true;
}

static bool leaf_is(const box_row *r, const char *word)
{
    return pdb_mem_is(r->name + r->leaf, r->nl - r->leaf, word);
}

static bool row_number(const box_row *r, double *v)
{
    const char *unit;
    return pdb_units_quantity(r->value, r->vl, v, &unit);
}

/* Stores one row's value: the clock as cumulative seconds, fps as the running
 * mean it is, other counters as counts; the unit of anything else comes from
 * the key alone (a section "time/" does not make "total_timesteps" seconds). */
static int store_row(pdb_steplog *w, const box_row *r)
{
    double v, factor = 1;
    const char *unit;
    if (!pdb_units_quantity(r->value, r->vl, &v, &unit)) { /* a string ("nan" is a number) */
        pdb_skip(w->src, "table value that is not a number");
        return PDB_OK;
    }
    if (leaf_is(r, "time_elapsed"))
        return pdb_steplog_cumulative_time(w, r->name, r->nl, v);
    if (leaf_is(r, "fps"))
        return pdb_steplog_value(w, r->name, r->nl, v, "", "running_mean", 0);
    for (int k = 0; counter_names[k]; k++)
        if (leaf_is(r, counter_names[k]))
            return pdb_steplog_value(w, r->name, r->nl, v, "", "cumulative", 0);
    if (!unit[0]) {
        const char *named = pdb_units_from_name(r->name + r->leaf, r->nl - r->leaf, &factor);
        unit = named ? named : "";
    }
    return pdb_steplog_value(w, r->name, r->nl, v * factor, unit, "point", 0);
}

/* Writes the table read so far as one record. */
static int emit(pdb_steplog *w, pdb_steplog_box *b)
{
    int n = b->n, counter = -1;
    int64_t lines = b->lines;
    double step = 0;
    b->n = 0;
    b->sl = 0;
    b->lines = 0;
    if (n == 0)
        return PDB_OK;
    for (int k = 0; counter_names[k] && counter < 0; k++)
        for (int i = 0; i < n && counter < 0; i++)
            if (leaf_is(&b->rows[i], counter_names[k]) && row_number(&b->rows[i], &step))
                counter = i;
    pdb_steplog_record(w, "table", b->line);
    int epoch = -1;
    double e = 0;
    for (int i = 0; i < n && epoch < 0; i++)
        if ((leaf_is(&b->rows[i], "epoch") || leaf_is(&b->rows[i], "epochs")) &&
            row_number(&b->rows[i], &e))
            epoch = i;
    if (counter >= 0) {
        const box_row *c = &b->rows[counter];
        if (!b->rounded_said && (memchr(c->value, 'e', c->vl) || memchr(c->value, 'E', c->vl))) {
            /* "%g" keeps 6 significant digits, OpenAI's logger 3 */
            b->rounded_said = true;
            pdb_warn("%s: line %lld: the step counter '%.*s' is printed rounded ('%.*s'): "
                     "steps are as printed, records whose rounded steps are equal collide",
                     w->src->path, (long long)b->line, (int)c->nl, c->name, (int)c->vl,
                     c->value);
        }
        w->has_step = pdb_steplog_to_int(step, &w->step);
        pdb_steplog_saw_counter_named(w, "boxed table row '%.*s'", b->rows[counter].name,
                                      b->rows[counter].nl);
    } else if (epoch >= 0) { /* baselines' HER: one table per epoch, no step */
        pdb_steplog_saw_counter_named(w, "boxed table row '%.*s' (epoch only)",
                                      b->rows[epoch].name, b->rows[epoch].nl);
    } else {
        w->is_step = false; /* a table of some other numbers: kept, not a step */
    }
    if (epoch >= 0) {
        w->has_epoch = true;
        w->epoch = e;
    }
    pdb_steplog_saw_lines(w, lines - 1);
    for (int i = 0; i < n; i++)
        if (i != counter && i != epoch && store_row(w, &b->rows[i]) != PDB_OK)
            return PDB_ERR;
    for (; b->dropped > 0; b->dropped--)
        pdb_skip(w->src, "table row beyond the record's limit");
    return PDB_OK;
}

/* Adds a row to the table; a section row ("| rollout/ |  |") names the rows
 * indented under it. */
static void add_row(pdb_steplog_box *b, const char *key, size_t kl, const char *val, size_t vl,
                    int64_t lineno)
{
    bool indented = kl > 2 && key[0] == ' ' && key[1] == ' ';
    kl = pdb_steplog_trim(&key, kl);
    if (b->lines++ == 0)
        b->line = lineno;
    if (vl == 0 && kl > 0 && key[kl - 1] == '/') {
        b->sl = kl < sizeof b->section ? kl : 0;
        memcpy(b->section, key, b->sl);
        return;
    }
    if (!indented)
        b->sl = 0; /* a key of its own: the section ended */
    if (b->n == BOX_ROWS || kl == 0 || vl >= BOX_VALUE || b->sl + kl >= BOX_NAME) {
        b->dropped++;
        return;
    }
    box_row *r = &b->rows[b->n++];
    memcpy(r->name, b->section, b->sl);
    memcpy(r->name + b->sl, key, kl);
    r->nl = b->sl + kl;
    r->leaf = b->sl;
    memcpy(r->value, val, vl);
    r->vl = vl;
}

int pdb_steplog_box_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *t = s, *key, *val;
    size_t tl = pdb_steplog_trim(&t, len), kl, vl;
    pdb_steplog_box *b = w->box;
    if (rule_line(t, tl)) {
        /* the rule closes a table, opens the next, or is a separator
         * line of some other output: the other readers see it too */
        if (!b)
            b = w->box = pdb_xcalloc(1, sizeof *b);
        int rc = emit(w, b);
        b->open = true;
        return rc == PDB_OK ? 0 : PDB_ERR;
    }
    if (!b || !b->open)
        return 0;
    if (!row_cells(t, tl, &key, &kl, &val, &vl)) {
        b->open = false; /* a table cut short: what it held is still a record */
        return emit(w, b) == PDB_OK ? 0 : PDB_ERR;
    }
    add_row(b, key, kl, val, vl, lineno);
    return 1;
}

int pdb_steplog_box_end(pdb_steplog *w)
{
    return w->box ? emit(w, w->box) : PDB_OK;
}
