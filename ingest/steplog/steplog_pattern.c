/* steplog_pattern.c: step logs read with patterns the user teaches.
 *
 * The built-in readers guess; a user who knows the format can say it
 * instead, without C (issue 32): a POSIX extended regular expression with
 * {NAME} fields (steplog_pattern.h, docs/steplogs.md). libc's regex.h does
 * the matching; this file translates fields into capture groups with the
 * text a number, a counter or a timestamp can have, and turns each match
 * into a record through the same writer as every reader, so the values get
 * the metric rules, units, aggregations and the passes after the file.
 *
 * Memory is bounded: one line at a time, and per rule only the last step.
 * Each line is tried first with a copy of each rule compiled without
 * captures (REG_NOSUB: a plain match, the cheaper one in glibc), and only
 * a rule that matches is run again for its fields. */
#include "ingest/steplog/steplog_pattern.h"
#include "ingest/steplog/steplog.h"
#include "ingest/steplog/steplog_units.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "ingest/queries.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64
#define MAX_RULES 64
#define FIELD_NAME 96

/* What a field is. */
typedef enum { F_VALUE, F_STEP, F_EPOCH, F_EPOCH_STEP, F_EPOCH_STEPS, F_RANK, F_TIME } field_kind;

/* How a value aggregates steps (the declarations after its name). */
typedef enum { A_POINT, A_MEAN, A_AVG, A_EMA, A_MEDIAN, A_CLOCK, A_CUMULATIVE, A_WINDOW } agg_kind;

typedef struct {
    field_kind kind;
    char name[FIELD_NAME];
    size_t nl;
    int group;              /* its capture group */
    agg_kind agg;
    int64_t window;         /* fixed window (mean=N, median=N), -1 unknown (mean=?),
                             * else 0 */
    const char *unit;       /* declared unit (canonical), or NULL */
    double factor;          /* to that unit */
    bool span;              /* covers the steps since the rule's last record */
    bool has_null;          /* null=V: V printed means no value (nanoGPT's mfu -100) */
    double null_value;
} field;

typedef struct {
    const char *kind;       /* "step", "val", "summary" */
    regex_t re, plain;      /* with captures; without (REG_NOSUB) */
    bool compiled;
    field f[MAX_FIELDS];
    int nf, ngroups;
    bool has_counter;
    char counter[40];       /* the text before {step}: "Up." */
    bool have_prev;
    int64_t prev_step;      /* the last step this rule read */
    /* {step:loaders=NAME}: a step this rule reads again is the next
     * loader's, NAME0, NAME1, ... ("" when none); the step it last read and
     * its loader's number, and its first loader's line, held until the
     * rule's next record says whether another loader of that step follows */
    char loaders[32];
    bool have_engine, held;
    int64_t engine_step, engine, held_lineno;
    pdb_buf held_line;
} rule;

/* Where steps come from: the {step}/{epoch} fields of the rules, or, for a
 * log that numbers no step ("counter: records", "counter: none"), the count
 * of step records or nothing (samples placed by their time). */
typedef enum { C_FIELDS, C_RECORDS, C_NONE } counter_mode;

struct pdb_sl_patterns {
    char *rules, *origin;
    counter_mode counter;
    bool has_rank;          /* "rank: N": the rank of records that capture none */
    int64_t rank;
    int64_t counted;        /* step records so far (C_RECORDS) */
    rule r[MAX_RULES];
    int n;
    regmatch_t *m;          /* room for the most groups of any rule */
    size_t nm;
};

/* ---- compiling -------------------------------------------------------------- */

/* The text a field's capture group matches. Counters are integers; a value
 * is a number as logs print them (sign, thousands commas, fraction,
 * exponent, a clock's ":SS" parts, a glued unit such as "ms" or "%"), or
 * nan/inf; a timestamp starts and ends with a digit. inner: the groups the
 * text opens itself. */
static const char *field_text(field_kind k, int *inner)
{
    switch (k) {
    case F_VALUE:
        *inner = 5;
        return "[-+]?([0-9][0-9,]*([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?"
               "(:[0-9][0-9]([.][0-9]*)?)*[a-zA-Z%/]*|[-+]?[Nn][Aa][Nn]|[-+]?[Ii][Nn][Ff]";
    case F_EPOCH:
        *inner = 0;
        return "[0-9][0-9.]*";
    case F_TIME:
        *inner = 0;
        return "[0-9][-0-9/:T ,.]*[0-9]";
    default:
        *inner = 0;
        return "[0-9]+";
    }
}

static field_kind kind_of(const char *name, size_t nl)
{
    static const struct {
        const char *name;
        field_kind kind;
    } t[] = {
        {"step", F_STEP}, {"epoch", F_EPOCH}, {"epoch_step", F_EPOCH_STEP},
        {"epoch_steps", F_EPOCH_STEPS}, {"rank", F_RANK}, {"timestamp", F_TIME},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (pdb_mem_is(name, nl, t[i].name))
            return t[i].kind;
    return F_VALUE;
}

/* Reads one declaration of a value field: an aggregation word or a unit. */
static bool declare(field *f, const char *d, size_t dl)
{
    static const struct {
        const char *word;
        agg_kind agg;
    } aggs[] = {
        {"mean", A_MEAN}, {"avg", A_AVG}, {"ema", A_EMA}, {"median", A_MEDIAN},
        {"clock", A_CLOCK}, {"cumulative", A_CUMULATIVE}, {"window", A_WINDOW},
    };
    const char *eq = memchr(d, '=', dl);
    size_t wl = eq ? (size_t)(eq - d) : dl;
    if (pdb_mem_is(d, dl, "span")) {
        f->span = true;
        return true;
    }
    if (eq && pdb_mem_is(d, wl, "null")) {
        size_t nl = dl - wl - 1;
        f->has_null = nl > 0 && pdb_units_number(eq + 1, nl, &f->null_value) == nl;
        return f->has_null;
    }
    for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++) {
        if (!pdb_mem_is(d, wl, aggs[i].word))
            continue;
        f->agg = aggs[i].agg;
        if (!eq)
            return aggs[i].agg != A_MEDIAN; /* a median needs its window */
        if (aggs[i].agg != A_MEAN && aggs[i].agg != A_MEDIAN)
            return false;
        if (aggs[i].agg == A_MEAN && pdb_mem_is(eq + 1, dl - wl - 1, "?")) {
            f->window = -1; /* DeepSpeed's timers: a mean over steps the log does not say */
            return true;
        }
        char num[24];
        size_t nl = dl - wl - 1;
        if (nl == 0 || nl >= sizeof num)
            return false;
        memcpy(num, eq + 1, nl);
        num[nl] = '\0';
        char *end;
        long long w = strtoll(num, &end, 10);
        if (*end || w < 1)
            return false;
        f->window = w;
        return true;
    }
    double factor = 1;
    const char *unit = pdb_units_canon(d, dl, &factor);
    if (!unit)
        return false;
    f->unit = unit;
    f->factor = factor;
    return true;
}

typedef struct {
    const char *origin;
    int line;
} where;

static void *bad(const where *at, const char *fmt, const char *a, const char *b)
{
    char what[512];
    snprintf(what, sizeof what, fmt, a, b);
    if (at->line > 0)
        pdb_fail("%s:%d: %s", at->origin, at->line, what);
    else
        pdb_fail("%s: %s", at->origin, what);
    return NULL;
}

/* The word of the pattern right before a field: "Up." in "Ep\. {epoch} :
 * Up\. {step}", for the reading's counter text. */
static void word_before(const char *pat, size_t at, char *out, size_t cap)
{
    size_t e = at;
    while (e > 0 && strchr(" +*?", pat[e - 1]))
        e--; /* "iteration +{step}": the word, not its quantifier */
    size_t s = e;
    while (s > 0 && (isalnum((unsigned char)pat[s - 1]) || strchr("_.\\-", pat[s - 1])))
        s--;
    size_t n = 0;
    for (size_t i = s; i < e && n + 1 < cap; i++)
        if (pat[i] != '\\')
            out[n++] = pat[i];
    out[n] = '\0';
}

/* Translates one rule's pattern into an ERE with a group per field. */
static bool translate(rule *r, const char *pat, size_t len, pdb_buf *ere, const where *at)
{
    bool bracket = false;
    int groups = 0;
    for (size_t i = 0; i < len; i++) {
        char c = pat[i];
        if (c == '\\' && i + 1 < len) {
            /* POSIX has no \t or \d; people write them (glibc knows \s, \w) */
            char e = pat[i + 1];
            if (e == 't')
                pdb_buf_addc(ere, '\t');
            else if (e == 'd' && !bracket)
                pdb_buf_adds(ere, "[0-9]");
            else
                pdb_buf_add(ere, pat + i, 2);
            i++;
            continue;
        }
        if (bracket) {
            /* "[]...]" and "[^]...]": a ']' first is a member */
            if (c == ']' && !(pat[i - 1] == '[' || (pat[i - 1] == '^' && pat[i - 2] == '[')))
                bracket = false;
            pdb_buf_addc(ere, c);
            continue;
        }
        if (c == '[') {
            bracket = true;
            pdb_buf_addc(ere, c);
            continue;
        }
        groups += c == '(';
        if (c != '{' || i + 1 >= len || !(isalpha((unsigned char)pat[i + 1]) || pat[i + 1] == '_')) {
            pdb_buf_addc(ere, c); /* an interval {2,3} stays one */
            continue;
        }
        const char *close = memchr(pat + i, '}', len - i);
        const char *open = memchr(pat + i + 1, '{', len - i - 1);
        if (!close || (open && open < close)) {
            char col[24];
            snprintf(col, sizeof col, "%zu", i + 1);
            bad(at, "'{' at character %s opens a field that no '}' closes%s", col, "");
            return false;
        }
        if (r->nf == MAX_FIELDS) {
            bad(at, "more than 64 fields%s%s", "", "");
            return false;
        }
        field *f = &r->f[r->nf];
        memset(f, 0, sizeof *f);
        f->factor = 1;
        const char *s = pat + i + 1;
        size_t fl = (size_t)(close - s);
        char whole[FIELD_NAME + 64];
        snprintf(whole, sizeof whole, "{%.*s}", (int)(fl < FIELD_NAME ? fl : FIELD_NAME), s);
        const char *colon = memchr(s, ':', fl);
        const char *name = s;
        size_t nl = pdb_steplog_trim(&name, colon ? (size_t)(colon - s) : fl);
        if (nl == 0 || nl >= FIELD_NAME) {
            bad(at, "%s: a field needs a name (of at most 95 characters)%s", whole, "");
            return false;
        }
        memcpy(f->name, name, nl);
        f->name[nl] = '\0';
        f->nl = nl;
        f->kind = kind_of(name, nl);
        for (int k = 0; k < r->nf; k++)
            if (r->f[k].nl == nl && memcmp(r->f[k].name, name, nl) == 0) {
                bad(at, "%s: the field is named twice in one pattern%s", whole, "");
                return false;
            }
        if (f->kind == F_VALUE && pdb_mem_is(name, nl, "window_time"))
            f->agg = A_WINDOW; /* "{window_time:s}": a window's time by its name */
        const char *d = colon ? colon + 1 : NULL;
        while (d && d <= close) {
            const char *e = memchr(d, ':', (size_t)(close - d));
            size_t dl = e ? (size_t)(e - d) : (size_t)(close - d);
            const char *dt = d;
            dl = pdb_steplog_trim(&dt, dl);
            char decl[64];
            snprintf(decl, sizeof decl, "%.*s", (int)(dl < 60 ? dl : 60), dt);
            const char *lv;
            size_t lvl;
            if (f->kind == F_STEP && pdb_skip_prefix_mem(dt, dl, "loaders=", &lv, &lvl)) {
                bool word = lvl > 0 && lvl < sizeof r->loaders;
                for (size_t k = 0; word && k < lvl; k++)
                    word = isalnum((unsigned char)lv[k]) || lv[k] == '_' || lv[k] == '-';
                if (!word) {
                    bad(at, "%s: loaders=NAME names the loaders with letters, digits, '_' or "
                            "'-' (at most 31)%s", whole, "");
                    return false;
                }
                memcpy(r->loaders, lv, lvl);
                r->loaders[lvl] = '\0';
                d = e ? e + 1 : NULL;
                continue;
            }
            if (f->kind != F_VALUE) {
                bad(at, "%s: a counter or timestamp takes no declaration ('%s'; {step} takes "
                        "loaders=NAME)", whole, decl);
                return false;
            }
            if (!declare(f, dt, dl)) {
                bad(at, "%s: unknown declaration '%s' (a unit such as s, ms, us, %%, GiB, or "
                        "mean, mean=N, mean=?, median=N, avg, ema, clock, cumulative, window, span, "
                        "null=V)",
                    whole, decl);
                return false;
            }
            d = e ? e + 1 : NULL;
        }
        if ((f->agg == A_CLOCK || f->agg == A_WINDOW) && f->unit &&
            strcmp(f->unit, PDB_UNIT_SECONDS) != 0) {
            bad(at, "%s: a clock or window time is a time (a unit such as s or ms)%s", whole, "");
            return false;
        }
        if (f->kind == F_STEP) {
            word_before(pat, i, r->counter, sizeof r->counter);
            r->has_counter = true;
        }
        r->has_counter |= f->kind == F_EPOCH;
        int inner;
        const char *text = field_text(f->kind, &inner);
        f->group = ++groups;
        groups += inner;
        pdb_buf_addf(ere, "(%s)", text);
        r->nf++;
        i = (size_t)(close - pat);
    }
    r->ngroups = groups;
    return true;
}

static bool compile_rule(pdb_sl_patterns *p, const char *kind, const char *pat, size_t len,
                         const where *at)
{
    if (p->n == MAX_RULES) {
        bad(at, "more than 64 rules%s%s", "", "");
        return false;
    }
    rule *r = &p->r[p->n];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    pdb_buf ere = PDB_BUF_INIT;
    bool ok = translate(r, pat, len, &ere, at);
    int values = 0;
    for (int k = 0; ok && k < r->nf; k++)
        values += r->f[k].kind == F_VALUE;
    if (ok && values == 0) {
        bad(at, "the pattern captures no value: name at least one, such as {loss} or "
                "{step_time:ms}%s%s", "", "");
        ok = false;
    }
    if (ok) {
        int e = regcomp(&r->re, pdb_buf_str(&ere), REG_EXTENDED);
        if (e == 0 && (e = regcomp(&r->plain, pdb_buf_str(&ere), REG_EXTENDED | REG_NOSUB)) != 0)
            regfree(&r->re);
        if (e != 0) {
            char msg[200];
            regerror(e, &r->re, msg, sizeof msg);
            bad(at, "not a POSIX extended regular expression: %s%s", msg, "");
            ok = false;
        } else if ((int)r->re.re_nsub != r->ngroups) {
            regfree(&r->re);
            regfree(&r->plain);
            bad(at, "could not count the pattern's groups (a '(' the translation missed)%s%s",
                "", "");
            ok = false;
        }
    }
    pdb_buf_free(&ere);
    if (!ok)
        return false;
    r->compiled = true;
    if ((size_t)r->ngroups + 1 > p->nm) {
        p->nm = (size_t)r->ngroups + 1;
        p->m = pdb_xrealloc(p->m, p->nm * sizeof *p->m);
    }
    p->n++;
    return true;
}

pdb_sl_patterns *pdb_sl_patterns_compile(const char *rules, const char *origin)
{
    pdb_sl_patterns *p = pdb_xcalloc(1, sizeof *p);
    p->rules = pdb_xstrdup(rules);
    p->origin = pdb_xstrdup(origin);
    where at = {origin, 0};
    const char *s = rules;
    bool ok = true, counter = false;
    while (ok && *s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        at.line++;
        const char *t = s;
        size_t tl = pdb_steplog_trim(&t, len);
        const char *cv;
        size_t cvl;
        if (tl > 0 && pdb_skip_prefix_mem(t, tl, "counter:", &cv, &cvl)) {
            cvl = pdb_steplog_trim(&cv, cvl);
            if (pdb_mem_is(cv, cvl, "records") && p->counter == C_FIELDS)
                p->counter = C_RECORDS;
            else if (pdb_mem_is(cv, cvl, "none") && p->counter == C_FIELDS)
                p->counter = C_NONE;
            else
                ok = bad(&at, "expected 'counter: records' (the step records are counted) or "
                              "'counter: none' (samples without steps), once%s%s", "", "") != NULL;
        } else if (tl > 0 && pdb_skip_prefix_mem(t, tl, "rank:", &cv, &cvl)) {
            size_t i = 0;
            cvl = pdb_steplog_trim(&cv, cvl);
            if (p->has_rank || !pdb_steplog_read_int(cv, cvl, &i, &p->rank) || i != cvl ||
                p->rank < 0)
                ok = bad(&at, "expected 'rank: N' (the rank of every record that captures no "
                              "{rank}), once%s%s", "", "") != NULL;
            p->has_rank = true;
        } else if (tl > 0 && t[0] != '#') {
            static const char *const kinds[] = {"step", "val", "summary", "epoch", NULL};
            const char *kind = NULL, *pat = NULL;
            size_t pl = 0;
            for (int k = 0; kinds[k] && !kind; k++)
                if (pdb_skip_prefix_mem(t, tl, kinds[k], &pat, &pl) && pl > 0 && pat[0] == ':') {
                    kind = kinds[k];
                    pat++;
                    pl--;
                    while (pl && pat[0] == ' ') {
                        pat++;
                        pl--;
                    }
                }
            if (!kind || pl == 0)
                ok = bad(&at, "expected 'step: PATTERN', 'val: PATTERN', 'summary: "
                              "PATTERN', 'epoch: PATTERN', 'counter: records|none', 'rank: N' "
                              "(or a '#' comment)%s%s", "", "") != NULL;
            else
                ok = compile_rule(p, kind, pat, pl, &at);
            counter |= ok && p->r[p->n - 1].has_counter;
        }
        s = nl ? nl + 1 : s + len;
    }
    if (ok && p->n == 0)
        ok = bad(&(where){origin, 0}, "no pattern%s%s", "", "") != NULL;
    if (ok && !counter && p->counter == C_FIELDS)
        ok = bad(&(where){origin, 0}, "no rule captures a counter: {step}, or {epoch} (with "
                                      "{epoch_step} for steps counted within an epoch), and no "
                                      "'counter: records' or 'counter: none' says there is none%s%s",
                 "", "") != NULL;
    if (ok && counter && p->counter != C_FIELDS)
        ok = bad(&(where){origin, 0}, "'counter: %s' says the log has no step counter, and a "
                                      "rule captures one%s",
                 p->counter == C_RECORDS ? "records" : "none", "") != NULL;
    if (!ok) {
        pdb_sl_patterns_free(p);
        return NULL;
    }
    return p;
}

void pdb_sl_patterns_free(pdb_sl_patterns *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n; i++) {
        if (p->r[i].compiled) {
            regfree(&p->r[i].re);
            regfree(&p->r[i].plain);
        }
        pdb_buf_free(&p->r[i].held_line);
    }
    free(p->m);
    free(p->rules);
    free(p->origin);
    free(p);
}

const char *pdb_sl_patterns_rules(const pdb_sl_patterns *p)
{
    return p->rules;
}

const char *pdb_sl_patterns_origin(const pdb_sl_patterns *p)
{
    return p->origin;
}

/* ---- matching ---------------------------------------------------------------- */

/* The first rule that matches s (NUL-terminated), with its groups in p->m;
 * -1 when none does. */
static int match(pdb_sl_patterns *p, const char *s, bool step_only)
{
    for (int i = 0; i < p->n; i++) {
        rule *r = &p->r[i];
        if (step_only && strcmp(r->kind, "step") != 0)
            continue;
        if (regexec(&r->plain, s, 0, NULL, 0) == 0 &&
            regexec(&r->re, s, (size_t)r->ngroups + 1, p->m, 0) == 0)
            return i;
    }
    return -1;
}

/* ---- reading ------------------------------------------------------------------ */

/* The global step of epoch-local counters, as the general reader makes it
 * (steplog_general.c): epoch x steps per epoch + N when the log prints the
 * steps per epoch, else a counter that drops when the epoch changes
 * continues after the previous epoch's last step and one interval. */
typedef struct {
    bool have_epoch0, have_prev;
    double epoch0, prev_epoch;
    int64_t prev_local, stride, base;
    /* the last step record, for records of rules without a counter */
    bool seen, has_step, has_epoch;
    int64_t step;
    double epoch;
} counters;

static int64_t global_step(counters *c, double epoch, int64_t local, bool has_total,
                           int64_t total)
{
    if (!c->have_epoch0) {
        c->have_epoch0 = true;
        c->epoch0 = epoch == 1 ? 1 : 0;
    }
    if (has_total && total > 0)
        return (int64_t)((epoch - c->epoch0) * (double)total) + local;
    if (c->have_prev) {
        if (epoch != c->prev_epoch && local <= c->prev_local)
            c->base += c->prev_local + (c->stride > 0 ? c->stride : 1);
        else if (epoch == c->prev_epoch && local > c->prev_local)
            c->stride = local - c->prev_local;
    }
    c->have_prev = true;
    c->prev_epoch = epoch;
    c->prev_local = local;
    return c->base + local;
}

/* The text of group g of the last match, or false when it took no part. */
static bool group_text(const pdb_sl_patterns *p, const char *s, int g, const char **t,
                       size_t *tl)
{
    if (p->m[g].rm_so < 0)
        return false;
    *t = s + p->m[g].rm_so;
    *tl = (size_t)(p->m[g].rm_eo - p->m[g].rm_so);
    return *tl > 0;
}

/* A value's text as a number in its unit: the unit printed with it wins,
 * else the declared one; NULL unit: none (the writer infers it from the
 * name). */
static bool value_of(const field *f, const char *t, size_t tl, double *v, const char **unit)
{
    while (tl && (t[tl - 1] == ',' || t[tl - 1] == '.'))
        tl--; /* "5,970," "21.59." */
    if (tl == 0 || !pdb_units_quantity(t, tl, v, unit))
        return false;
    if (**unit)
        return true;
    if (f->unit) {
        *v *= f->factor;
        *unit = f->unit;
    } else {
        *unit = NULL;
    }
    return true;
}

static int store_value(pdb_steplog *w, rule *r, const field *f, double v, const char *unit,
                       bool has_step, int64_t step)
{
    int64_t since = has_step && r->have_prev && step > r->prev_step ? step - r->prev_step : 0;
    char name[FIELD_NAME + 32];
    if (f->has_null && v == f->null_value)
        v = NAN; /* stored NULL */
    int64_t span = f->span ? since : 0;
    switch (f->agg) {
    case A_WINDOW:
        /* as the general reader stores a window time: the time itself, and
         * divided by the steps since the rule's last record */
        snprintf(name, sizeof name, "%s (window)", f->name);
        if (pdb_steplog_value(w, name, strlen(name), v, unit ? unit : PDB_UNIT_SECONDS, "point",
                              0) != PDB_OK)
            return PDB_ERR;
        if (since == 0)
            return PDB_OK;
        snprintf(name, sizeof name, "%s/step_time", f->name);
        return pdb_steplog_value(w, name, strlen(name), v / (double)since,
                                 unit ? unit : PDB_UNIT_SECONDS, "interval_mean", since);
    case A_CLOCK:
        return pdb_steplog_value(w, f->name, f->nl, v, unit ? unit : PDB_UNIT_SECONDS,
                                 "cumulative", 0);
    case A_CUMULATIVE:
        return pdb_steplog_value(w, f->name, f->nl, v, unit, "cumulative", span);
    case A_MEAN:
        return pdb_steplog_value(w, f->name, f->nl, v, unit, "interval_mean",
                                 f->window < 0 ? 0 : f->window ? f->window : since);
    case A_MEDIAN:
        return pdb_steplog_value(w, f->name, f->nl, v, unit, "window_median", f->window);
    case A_AVG:
        return pdb_steplog_value(w, f->name, f->nl, v, unit, "running_mean", span);
    case A_EMA:
        return pdb_steplog_value(w, f->name, f->nl, v, unit, "moving_avg", span);
    default:
        return pdb_steplog_value(w, f->name, f->nl, v, unit, "point", span);
    }
}

/* Makes the record of a line that rule r matched. */
static int record(pdb_steplog *w, pdb_sl_patterns *p, rule *r, counters *c, const char *s,
                  int64_t lineno, const char *loader)
{
    const char *t;
    size_t tl;
    bool has_step = false, has_epoch = false, has_local = false, has_total = false;
    int64_t step = 0, local = 0, total = 0, rank = 0;
    double epoch = 0, wall = 0, x;
    bool has_rank = false, has_wall = false;
    const field *step_field = NULL;
    for (int k = 0; k < r->nf; k++) {
        const field *f = &r->f[k];
        if (f->kind == F_VALUE || !group_text(p, s, f->group, &t, &tl))
            continue;
        size_t i = 0;
        switch (f->kind) {
        case F_STEP:
            has_step = pdb_steplog_read_int(t, tl, &i, &step);
            step_field = f;
            break;
        case F_EPOCH_STEP:
            has_local = pdb_steplog_read_int(t, tl, &i, &local);
            step_field = f;
            break;
        case F_EPOCH_STEPS:
            has_total = pdb_steplog_read_int(t, tl, &i, &total);
            break;
        case F_RANK:
            has_rank = pdb_steplog_read_int(t, tl, &i, &rank);
            break;
        case F_EPOCH:
            has_epoch = pdb_units_number(t, tl, &x) == tl;
            epoch = x;
            break;
        case F_TIME:
            if (pdb_steplog_timestamp_any(t, tl, &x) > 0 ||
                (pdb_units_number(t, tl, &x) == tl && x > 1e8)) {
                has_wall = true;
                wall = x;
            }
            break;
        default:
            break;
        }
    }
    bool is_step = strcmp(r->kind, "step") == 0;
    if (p->counter == C_RECORDS && is_step) {
        has_step = true;
        step = ++p->counted;
    }
    int64_t printed = has_step ? step : local;
    if (!has_step && has_local && has_epoch) {
        has_step = true;
        step = is_step ? global_step(c, epoch, local, has_total, total) : local;
    }
    bool counted = has_step || has_epoch || (p->counter == C_NONE && is_step);
    if (!counted && !c->seen) {
        pdb_skip(w->src, "matched before any step record");
        return PDB_OK;
    }
    pdb_steplog_record(w, r->kind, lineno);
    snprintf(w->loader, sizeof w->loader, "%s", loader);
    w->split = strcmp(r->kind, "val") == 0 ? "val" : strcmp(r->kind, "summary") == 0 ? "summary"
                                                                                   : NULL;
    w->is_step = is_step;
    w->has_wall = has_wall;
    w->wall = wall;
    w->has_rank = has_rank || p->has_rank;
    w->rank = has_rank ? rank : p->rank;
    if (counted) {
        w->has_step = has_step;
        w->step = step;
        w->has_epoch = has_epoch;
        w->epoch = epoch;
    } else { /* a line of its own after a step: it belongs to that step */
        w->has_step = c->has_step;
        w->step = c->step;
        w->has_epoch = c->has_epoch;
        w->epoch = c->epoch;
        has_step = c->has_step;
        step = c->step;
    }
    if (is_step && counted && has_step && step_field) {
        pdb_sl_counter sc = {
            .name = step_field->kind == F_STEP && r->counter[0] ? r->counter : "{step}",
            .printed = printed, .step = step,
            .per_epoch = has_local && has_total ? total : 0,
        };
        sc.nl = strlen(sc.name);
        if (step_field->kind == F_EPOCH_STEP) {
            sc.name = "{epoch_step}";
            sc.nl = strlen(sc.name);
            sc.epoch = "{epoch}";
            sc.el = 7;
        }
        pdb_steplog_saw_counter(w, &sc);
    } else if (is_step && p->counter == C_RECORDS) {
        PDB_SL_SAW_COUNTER(w, "step records counted (counter: records)");
    } else if (is_step && p->counter == C_NONE) {
        PDB_SL_SAW_COUNTER(w, "none: samples by time (counter: none)");
    }
    for (int k = 0; k < r->nf; k++) {
        const field *f = &r->f[k];
        double v;
        const char *unit;
        if (f->kind != F_VALUE || !group_text(p, s, f->group, &t, &tl))
            continue;
        if (!value_of(f, t, tl, &v, &unit)) {
            pdb_skip(w->src, "pattern field that is not a number");
            continue;
        }
        if (store_value(w, r, f, v, unit, has_step, step) != PDB_OK)
            return PDB_ERR;
    }
    if (has_step) {
        r->have_prev = true;
        r->prev_step = step;
    }
    if (is_step && counted) {
        c->seen = true;
        c->has_step = has_step;
        c->step = step;
        c->has_epoch = has_epoch;
        c->epoch = epoch;
    }
    return PDB_OK;
}

/* The step the {step} field of rule r's last match reads, or false. */
static bool matched_step(const pdb_sl_patterns *p, const rule *r, const char *s, int64_t *step)
{
    const char *t;
    size_t tl, i = 0;
    for (int k = 0; k < r->nf; k++)
        if (r->f[k].kind == F_STEP)
            return group_text(p, s, r->f[k].group, &t, &tl) &&
                   pdb_steplog_read_int(t, tl, &i, step);
    return false;
}

/* Stores rule r's held line (its first loader's) as loader NAME0 when
 * another loader of its step followed, else without a loader. */
static int store_held(pdb_steplog *w, pdb_sl_patterns *p, rule *r, counters *c, bool followed)
{
    if (!r->held)
        return PDB_OK;
    r->held = false;
    char loader[48] = "";
    if (followed)
        snprintf(loader, sizeof loader, "%s0", r->loaders);
    const char *s = pdb_buf_str(&r->held_line);
    if (regexec(&r->re, s, (size_t)r->ngroups + 1, p->m, 0) != 0)
        return PDB_OK; /* it matched when it was read */
    return record(w, p, r, c, s, r->held_lineno, loader);
}

/* A record of a rule with {step:loaders=NAME} (DeepSpeed-Chat's two engines
 * both print "[Rank 0] step=N"): the same step read again by the rule is
 * the next loader's. A first loader's line is held until the rule's next
 * record, which says whether a second one followed. */
static int loader_record(pdb_steplog *w, pdb_sl_patterns *p, rule *r, counters *c,
                         const char *s, int64_t lineno)
{
    int64_t step;
    if (!matched_step(p, r, s, &step))
        return record(w, p, r, c, s, lineno, "");
    int64_t engine = r->have_engine && step == r->engine_step ? r->engine + 1 : 0;
    if (r->held) {
        if (store_held(w, p, r, c, engine == 1) != PDB_OK)
            return PDB_ERR;
        if (regexec(&r->re, s, (size_t)r->ngroups + 1, p->m, 0) != 0)
            return PDB_OK; /* cannot be: it matched */
    }
    r->have_engine = true;
    r->engine_step = step;
    r->engine = engine;
    if (engine > 0) {
        char loader[64];
        snprintf(loader, sizeof loader, "%s%lld", r->loaders, (long long)engine);
        return record(w, p, r, c, s, lineno, loader);
    }
    r->held = true;
    r->held_lineno = lineno;
    if (strcmp(r->kind, "step") == 0) {
        /* a line without a counter after it is this step's, held or not */
        c->seen = c->has_step = true;
        c->step = step;
    }
    pdb_buf_reset(&r->held_line);
    pdb_buf_adds(&r->held_line, s);
    return PDB_OK;
}

int pdb_steplog_read_pattern(pdb_steplog *w, pdb_sl_patterns *p)
{
    const char *line;
    size_t len;
    int r;
    counters c = {0};
    pdb_buf nul = PDB_BUF_INIT;
    for (int i = 0; i < p->n; i++)
        p->r[i].have_prev = p->r[i].have_engine = p->r[i].held = false;
    p->counted = 0;
    while ((r = pdb_steplog_getline(w, &line, &len)) == 1) {
        /* regexec reads a NUL-terminated string (a line holding a NUL is
         * matched up to it) */
        pdb_buf_reset(&nul);
        pdb_buf_add(&nul, line, len);
        const char *s = pdb_buf_str(&nul);
        int k = match(p, s, false);
        if (k < 0) {
            const char *t = line;
            pdb_skip(w->src, pdb_steplog_trim(&t, len) ? "line not matched by the pattern"
                                                        : "blank line");
            continue;
        }
        rule *rk = &p->r[k];
        int rc = rk->loaders[0] ? loader_record(w, p, rk, &c, s, w->lineno)
                                                    : record(w, p, rk, &c, s, w->lineno, "");
        if (rc != PDB_OK) {
            r = PDB_ERR;
            break;
        }
    }
    for (int i = 0; i < p->n && r >= 0; i++)
        if (store_held(w, p, &p->r[i], &c, false) != PDB_OK)
            r = PDB_ERR;
    pdb_buf_free(&nul);
    return r < 0 ? PDB_ERR : PDB_OK;
}

/* ---- stored rules ------------------------------------------------------------- */

int pdb_sl_patterns_store(sqlite3 *db, const pdb_sl_patterns *p)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, "steplog_pattern.store", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, p->rules, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, p->origin, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(db, st);
    pdb_db_release(st);
    return rc;
}

/* Lines of d the step rules match, and the lines the general reader would
 * take for step records, over at most 2000 complete lines. */
static void count_matches(pdb_sl_patterns *p, const char *d, size_t len, char eol, int *hits,
                          int *general, int *nonblank)
{
    pdb_buf line = PDB_BUF_INIT;
    size_t pos = 0;
    int n = 0;
    *hits = *general = *nonblank = 0;
    while (pos < len && n++ < 2000) {
        const char *e = memchr(d + pos, eol, len - pos);
        if (!e)
            break;
        size_t l = (size_t)(e - (d + pos));
        pdb_buf_reset(&line);
        pdb_buf_add(&line, d + pos, l);
        const char *t = d + pos;
        if (pdb_steplog_trim(&t, l) > 0) {
            (*nonblank)++;
            *hits += match(p, pdb_buf_str(&line), true) >= 0;
            *general += pdb_steplog_general_is_step_line(d + pos, l);
        }
        pos += l + 1;
    }
    pdb_buf_free(&line);
}

int pdb_sl_patterns_load(sqlite3 *db, char ***out, int *n)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, "steplog_pattern.stored", &st) != PDB_OK)
        return PDB_ERR;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        *out = pdb_xrealloc(*out, (size_t)(*n + 1) * 2 * sizeof **out);
        (*out)[2 * *n] = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
        (*out)[2 * *n + 1] = pdb_xstrdup((const char *)sqlite3_column_text(st, 1));
        (*n)++;
    }
    int rc = r == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "stored patterns");
    pdb_db_release(st);
    return rc;
}

void pdb_sl_patterns_claim(const char *const *stored, int n, const char *d, size_t len,
                           char eol, pdb_sl_patterns **out)
{
    *out = NULL;
    int best_hits = 0;
    for (int i = 0; i < n; i++) {
        pdb_sl_patterns *p = pdb_sl_patterns_compile(stored[2 * i], stored[2 * i + 1]);
        if (!p) {
            pdb_clear_error(); /* rules this libc cannot compile: not this log's */
            continue;
        }
        int hits, general, nonblank;
        count_matches(p, d, len, eol, &hits, &general, &nonblank);
        if (hits > best_hits && (hits >= 3 || hits == nonblank) && hits * 2 >= general) {
            best_hits = hits;
            pdb_sl_patterns_free(*out);
            *out = p;
        } else {
            pdb_sl_patterns_free(p);
        }
    }
}
