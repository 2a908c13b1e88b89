/* steplog.c: per-step training logs: sniffing, flavor dispatch, the row writer.
 *
 * Many training jobs leave no trace, only a log with a line per step. This
 * reader recognises the common flavors from content (or takes the one named
 * by --format steplog:FLAVOR), hands the stream to that flavor's reader and
 * stores every metric value as one row of steplog_values (schemas/40_steplog.sql)
 * with its canonical metric name, unit, aggregation kind and window. */
#define _GNU_SOURCE /* memmem */
#include "ingest/steplog.h"
#include "ingest/readers.h"
#include "common/db.h"
#include "common/error.h"
#include "ingest/steplog_units.h"
#include "common/utf8.h"
#include "common/xalloc.h"

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
};

/* ---- text helpers ------------------------------------------------------ */

bool pdb_steplog_to_int(double d, int64_t *out)
{
    if (!(d > -9.2e18 && d < 9.2e18)) /* also false for NaN */
        return false;
    *out = (int64_t)d;
    return true;
}

const char *pdb_steplog_find(const char *s, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0 || n > len)
        return NULL;
    return memmem(s, len, needle, n); /* glibc's is much faster than a byte loop */
}

bool pdb_steplog_next_field(const char *s, size_t len, char sep, size_t *pos, const char **f,
                            size_t *fl)
{
    while (*pos <= len) {
        const char *start = s + *pos;
        const char *end = memchr(start, sep, len - *pos);
        size_t n = end ? (size_t)(end - start) : len - *pos;
        *pos += n + 1;
        *f = start;
        *fl = pdb_steplog_trim(f, n);
        if (*fl)
            return true;
    }
    return false;
}

bool pdb_steplog_read_int(const char *s, size_t len, size_t *i, int64_t *out)
{
    while (*i < len && s[*i] == ' ')
        (*i)++;
    if (*i >= len || !isdigit((unsigned char)s[*i]))
        return false;
    int64_t v = 0;
    while (*i < len && isdigit((unsigned char)s[*i]) && v < INT64_MAX / 10)
        v = v * 10 + (s[(*i)++] - '0');
    *out = v;
    return true;
}

size_t pdb_steplog_trim(const char **s, size_t len)
{
    const char *p = *s;
    while (len && isspace((unsigned char)*p)) {
        p++;
        len--;
    }
    while (len && isspace((unsigned char)p[len - 1]))
        len--;
    *s = p;
    return len;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static bool digits_at(const char *s, size_t len, size_t i, size_t n, int *out)
{
    if (i + n > len)
        return false;
    int v = 0;
    for (size_t k = i; k < i + n; k++) {
        if (!isdigit((unsigned char)s[k]))
            return false;
        v = v * 10 + (s[k] - '0');
    }
    *out = v;
    return true;
}

size_t pdb_steplog_timestamp(const char *s, size_t len, double *out)
{
    int y, mo, d, h, mi, se;
    if (!digits_at(s, len, 0, 4, &y) || len < 19 || (s[4] != '-' && s[4] != '/') ||
        s[7] != s[4] || !digits_at(s, len, 5, 2, &mo) || !digits_at(s, len, 8, 2, &d) ||
        (s[10] != ' ' && s[10] != 'T') || !digits_at(s, len, 11, 2, &h) || s[13] != ':' ||
        !digits_at(s, len, 14, 2, &mi) || s[16] != ':' || !digits_at(s, len, 17, 2, &se))
        return 0;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return 0;
    size_t i = 19;
    double frac = 0, scale = 0.1;
    if (i < len && (s[i] == ',' || s[i] == '.') && i + 1 < len && isdigit((unsigned char)s[i + 1])) {
        for (i++; i < len && isdigit((unsigned char)s[i]); i++, scale /= 10)
            frac += (s[i] - '0') * scale;
    }
    *out = (double)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
                    mi * 60 + se) + frac;
    return i;
}

/* ---- classifying lines (sniffing and the text reader) ---------------- */

static bool starts(const char *s, size_t len, const char *p)
{
    size_t n = strlen(p);
    return len >= n && memcmp(s, p, n) == 0;
}

/* A `name: number` line of the generic trainer ("profile/train/dl_main/
 * time_forward_ms: 3.21", optionally bulleted or in backticks). */
static bool kv_line(const char *s, size_t len)
{
    len = pdb_steplog_trim(&s, len);
    if (len && (*s == '-' || *s == '*')) {
        s++;
        len = pdb_steplog_trim(&s, len - 1);
    }
    if (len && *s == '`') {
        s++;
        len--;
    }
    size_t i = 0;
    bool sep = false;
    while (i < len && (isalnum((unsigned char)s[i]) || strchr("_/.-", s[i]))) {
        sep |= s[i] == '/'; /* profile/train/..., profiling/...: not YAML keys */
        i++;
    }
    if (i == 0 || !sep || !isalpha((unsigned char)s[0]))
        return false;
    if (i < len && s[i] == '`')
        i++;
    if (i >= len || s[i] != ':')
        return false;
    const char *v = s + i + 1;
    size_t vl = pdb_steplog_trim(&v, len - i - 1);
    double x;
    const char *u;
    return vl > 0 && pdb_units_quantity(v, vl, &x, &u);
}

/* Whether "KEY" in s is followed by blanks and an integer (and then, when
 * after is not NULL, by that character): the numbered shape of a record,
 * which prose that merely names the format lacks. */
static bool numbered(const char *s, size_t len, const char *key, char after)
{
    const char *p = pdb_steplog_find(s, len, key);
    if (!p)
        return false;
    size_t i = (size_t)(p - s) + strlen(key);
    while (i < len && s[i] == ' ')
        i++;
    size_t d = i;
    while (i < len && isdigit((unsigned char)s[i]))
        i++;
    if (i == d)
        return false;
    while (after && after != ' ' && i < len && s[i] == ' ')
        i++;
    return !after || (i < len && s[i] == after);
}

pdb_steplog_linekind pdb_steplog_classify(const char *s, size_t len)
{
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    /* Markdown (a README describing these formats) quotes them in backticks */
    if (memchr(s, '`', len))
        return PDB_SL_NONE;
    if (pdb_steplog_find(s, len, "=== Profiling Report") ||
        pdb_steplog_find(s, len, "=== Final Profiling Summary"))
        return PDB_SL_RECTFLOW;
    if (starts(t, tl, "=== Epoch ") && pdb_steplog_find(s, len, "Profiling Summary"))
        return PDB_SL_MAE;
    if ((numbered(s, len, " iteration ", '/') &&
         (pdb_steplog_find(s, len, "elapsed time per iteration") ||
          pdb_steplog_find(s, len, "consumed samples"))) ||
        numbered(s, len, "validation loss at iteration", 0) ||
        pdb_steplog_find(s, len, "(min, max) time across ranks (ms):") ||
        (starts(t, tl, "time (ms) |") && memchr(t + 11, ':', tl - 11)))
        return PDB_SL_MEGATRON;
    if (pdb_steplog_find(s, len, "SamplesPerSec=") ||
        (numbered(s, len, "] step=", ',') && pdb_steplog_find(s, len, "skipped=")) ||
        (pdb_steplog_find(s, len, "] time (ms) |") || pdb_steplog_find(s, len, " rank=0 time (ms) |")) ||
        pdb_steplog_find(s, len, "|E2E latency=") ||
        (numbered(t, tl, "epoch:", '|') && numbered(s, len, "|step:", '|')))
        return PDB_SL_DEEPSPEED;
    if (starts(t, tl, "iter ") && numbered(t, tl, "iter", ':') && pdb_steplog_find(s, len, ": loss "))
        return PDB_SL_NANOGPT;
    if (starts(t, tl, "step:") && numbered(t, tl, "step:", '/') &&
        (pdb_steplog_find(t, tl, " train_time:") || pdb_steplog_find(t, tl, " val_loss:") ||
         pdb_steplog_find(t, tl, " train_loss:")))
        return PDB_SL_NANOGPT; /* modded-nanogpt */
    if (numbered(s, len, "step:", ' ') && pdb_steplog_find(s, len, "loss:") &&
        (pdb_steplog_find(s, len, "tps:") || pdb_steplog_find(s, len, "mfu:")))
        return PDB_SL_TORCHTITAN;
    if ((starts(t, tl, "{'") && (pdb_steplog_find(s, len, "'loss'") ||
                                 pdb_steplog_find(s, len, "'epoch'") ||
                                 pdb_steplog_find(s, len, "'eval_loss'"))) ||
        pdb_steplog_find(s, len, "s/it]") || pdb_steplog_find(s, len, "it/s]"))
        return PDB_SL_HF;
    if (kv_line(s, len))
        return PDB_SL_KV;
    return PDB_SL_NONE;
}

/* ---- sniffing ------------------------------------------------------------ */

typedef enum {
    F_NONE, F_JSONL, F_DETECTRON2, F_HF_STATE, F_GOLDEN, F_CSV, F_NVSMI, F_MEGATRON,
    F_DEEPSPEED, F_NANOGPT, F_TORCHTITAN, F_HF, F_RECTFLOW, F_MAE, F_KV, F_TEXT, F_COUNT
} flavor_id;

/* Format names as stored in sources.format; the flavor is after "steplog:". */
static const char *const formats[F_COUNT] = {
    "steplog:", "steplog:jsonl", "steplog:detectron2", "steplog:hf-trainer-state",
    "steplog:megatron-golden", "steplog:csv", "steplog:nvidia-smi", "steplog:megatron",
    "steplog:deepspeed", "steplog:nanogpt", "steplog:torchtitan", "steplog:hf-trainer",
    "steplog:rectflow", "steplog:mae", "steplog:kv", "steplog:text",
};
#define FLAVOR_NAME(f) (formats[f] + 8)

/* Text flavors in the order of pdb_steplog_linekind. */
static const flavor_id line_flavor[] = {
    F_NONE, F_MEGATRON, F_DEEPSPEED, F_NANOGPT, F_TORCHTITAN, F_HF, F_RECTFLOW, F_MAE, F_KV,
};

static bool has(const unsigned char *d, size_t len, const char *needle)
{
    return pdb_steplog_find((const char *)d, len, needle) != NULL;
}

/* A header row: at least two cells split by sep, each a column name (no
 * number, no '=' or quotes as in "TrainingArguments(a=1, b=2)"). Returns
 * the number of cells, 0 when it is not a header. */
static int header_cells(const char *s, size_t len, char sep)
{
    int cells = 1;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == sep) {
            const char *c = s + start;
            size_t cl = pdb_steplog_trim(&c, i - start);
            double x;
            if (cl == 0 || pdb_units_number(c, cl, &x) == cl)
                return 0;
            for (size_t k = 0; k < cl; k++)
                if (strchr("=\"'{}:", c[k]))
                    return 0;
            if (i < len)
                cells++;
            start = i + 1;
        }
    }
    return cells;
}

/* Cells of a data row (quoted separators are rare in logs; not counted). */
static int row_cells(const char *s, size_t len, char sep)
{
    int cells = 1;
    for (size_t i = 0; i < len; i++)
        cells += s[i] == sep;
    return cells;
}

/* Whether the whole prefix looks like one JSON document (not JSON Lines). */
static flavor_id sniff_json_doc(const unsigned char *d, size_t len)
{
    if (has(d, len, "\"log_history\""))
        return F_HF_STATE;
    if (has(d, len, "\"start_step\"") && has(d, len, "\"values\""))
        return F_GOLDEN;
    return F_NONE;
}

/* A text log whose first 64 KiB hold no step record yet (long launcher
 * output, argument dumps): read it with every text handler and name the
 * flavor after what was found. Only when the prefix is text and not JSON. */
static flavor_id text_fallback(const unsigned char *d, size_t len, int *score)
{
    size_t i = 0, bad = 0;
    while (i < len && isspace(d[i]))
        i++;
    if (i == len || d[i] == '{' || d[i] == '[')
        return F_NONE;
    for (size_t k = 0; k < len; k++) {
        if (d[k] == 0)
            return F_NONE;
        bad += d[k] < 0x20 && !isspace(d[k]) && d[k] != 0x1b;
    }
    if (bad * 100 > len)
        return F_NONE;
    *score = PDB_SNIFF_MAYBE;
    return F_TEXT;
}

/* Picks a flavor from a prefix of the input and reports how sure it is. */
static flavor_id sniff_flavor(const unsigned char *d, size_t len, int *score)
{
    *score = PDB_SNIFF_NO;
    size_t i = 0;
    while (i < len && isspace(d[i]))
        i++;
    if (i == len)
        return F_NONE;
    flavor_id doc = sniff_json_doc(d, len);
    if (doc != F_NONE && d[i] == '{') {
        *score = PDB_SNIFF_LIKELY + 10;
        return doc;
    }
    if (has(d, len, "\"traceEvents\""))
        return F_NONE;
    int counts[F_COUNT] = {0};
    int jsonl = 0, detectron = 0, lines = 0;
    const char *first = NULL, *second = NULL;
    size_t first_len = 0, second_len = 0, pos = i;
    while (pos < len && lines < 2000) {
        const char *s = (const char *)d + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;
        if (!nl && pos > 0 && len >= PDB_INPUT_PEEK)
            break; /* a cut-off last line */
        /* tqdm and nested bars put many updates on one line */
        const char *cr = memchr(s, '\r', l);
        size_t seg = cr && cr != s + l - 1 ? (size_t)(cr - s) : l;
        if (!first) {
            first = s;
            first_len = l;
        } else if (!second && l > 0) {
            second = s;
            second_len = l;
        }
        const char *t = s;
        size_t tl = pdb_steplog_trim(&t, l);
        if (tl >= 2 && t[0] == '{' && t[tl - 1] == '}' && t[1] == '"') {
            jsonl++;
            if (pdb_steplog_find(t, tl, "\"data_time\"") && pdb_steplog_find(t, tl, "\"iteration\""))
                detectron++;
        } else {
            counts[line_flavor[pdb_steplog_classify(s, l)]]++;
            if (seg < l)
                counts[line_flavor[pdb_steplog_classify(s + seg, l - seg)]]++;
        }
        lines++;
        pos += l + 1;
    }
    if (jsonl > 0 && jsonl * 2 >= lines) {
        *score = PDB_SNIFF_LIKELY + 5;
        return detectron ? F_DETECTRON2 : F_JSONL;
    }
    if (first && (first[0] != '{' && first[0] != '[')) {
        const char *h = first;
        size_t hl = pdb_steplog_trim(&h, first_len);
        char sep = memchr(h, '\t', hl) ? '\t' : ',';
        int cells = header_cells(h, hl, sep);
        const char *r2 = second;
        size_t r2l = second ? pdb_steplog_trim(&r2, second_len) : 0;
        if (cells >= 2 && second && row_cells(r2, r2l, sep) == cells) {
            *score = PDB_SNIFF_LIKELY;
            if (pdb_steplog_find(h, hl, "utilization.") || pdb_steplog_find(h, hl, "memory.used") ||
                pdb_steplog_find(h, hl, "power.draw"))
                return F_NVSMI;
            return F_CSV;
        }
    }
    flavor_id best = F_NONE;
    for (int f = F_MEGATRON; f < F_COUNT; f++)
        if (counts[f] > (best ? counts[best] : 0))
            best = (flavor_id)f;
    /* The block flavors print few lines; their header alone decides. */
    if (counts[F_RECTFLOW])
        best = F_RECTFLOW;
    else if (counts[F_MAE])
        best = F_MAE;
    else if (counts[F_MEGATRON] && best == F_DEEPSPEED)
        best = F_MEGATRON;
    if (best == F_NONE)
        return text_fallback(d, len, score);
    *score = counts[best] >= 2 || best == F_RECTFLOW || best == F_MAE ? PDB_SNIFF_LIKELY
                                                                        : PDB_SNIFF_MAYBE;
    return best;
}

int pdb_sniff_steplog(const unsigned char *data, size_t len)
{
    int score;
    sniff_flavor(data, len, &score);
    return score;
}

/* ---- the writer ----------------------------------------------------------- */

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
    if (pdb_db_prepare(w->src->db,
                       "SELECT pattern, metric, priority, rowid FROM steplog_metric_rules", &st) !=
        PDB_OK)
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
        r->chars = pdb_utf8_width(r->pattern, strlen(r->pattern));
    }
    int rc = sqlite3_reset(st) == SQLITE_OK ? PDB_OK : pdb_db_fail(w->src->db, "metric rules");
    pdb_db_release(st);
    if (w->nrules > 1)
        qsort(w->rules, (size_t)w->nrules, sizeof *w->rules, rule_order);
    return rc;
}

/* What a raw name resolves to: its canonical metric (first matching rule,
 * else the name lower-cased) and the unit its name implies. Resolved once
 * per distinct raw name and cached, since a log repeats the same names. */
struct pdb_steplog_name {
    char *metric;
    const char *unit;  /* implied by the name, or NULL */
    double factor;
};

static const pdb_steplog_name *resolve(pdb_steplog *w, const char *raw, size_t len)
{
    int64_t idx;
    if (pdb_strmap_get(w->rule_cache, raw, len, &idx))
        return &w->names[idx];
    char buf[256];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)tolower((unsigned char)raw[i]);
    buf[n] = '\0';
    const char *metric = buf;
    for (int r = 0; r < w->nrules; r++)
        if (sqlite3_strglob(w->rules[r].pattern, buf) == 0) {
            metric = w->rules[r].metric;
            break;
        }
    if (w->nnames == w->names_cap) {
        w->names_cap = w->names_cap ? w->names_cap * 2 : 64;
        w->names = pdb_xrealloc(w->names, (size_t)w->names_cap * sizeof *w->names);
    }
    pdb_steplog_name *e = &w->names[w->nnames];
    e->metric = pdb_xstrdup(metric);
    e->factor = 1;
    e->unit = pdb_units_from_name(raw, len, &e->factor);
    pdb_strmap_put(w->rule_cache, raw, len, w->nnames);
    return &w->names[w->nnames++];
}

/* "val_loss", "eval_runtime", "profile/val/..." -> "val"; "train_loss" -> "train". */
static const char *split_from_name(const char *raw, size_t len)
{
    static const char *const val[] = {"val_", "val/", "eval_", "eval/", "valid_", "validation/",
                                      "profile/val/", NULL};
    static const char *const train[] = {"train_", "train/", "profile/train/", NULL};
    for (int i = 0; val[i]; i++)
        if (starts(raw, len, val[i]))
            return "val";
    for (int i = 0; train[i]; i++)
        if (starts(raw, len, train[i]))
            return "train";
    return NULL;
}

/* The generic trainer names its loaders in the metric: ".../dl_NAME/...". */
static void loader_from_name(const char *raw, size_t len, char *out, size_t cap)
{
    out[0] = '\0';
    const char *p = pdb_steplog_find(raw, len, "/dl_");
    if (!p)
        return;
    p += 4;
    size_t n = 0;
    while (p + n < raw + len && p[n] != '/' && n + 1 < cap)
        n++;
    memcpy(out, p, n);
    out[n] = '\0';
}

void pdb_steplog_record(pdb_steplog *w, const char *kind, int64_t line)
{
    w->record++;
    w->line = line;
    w->kind = kind;
    w->has_rank = w->has_step = w->has_epoch = w->has_wall = false;
    w->loader[0] = '\0';
    w->split = NULL;
}

static void bind_opt_int(sqlite3_stmt *st, int i, bool has_v, int64_t v)
{
    if (has_v)
        sqlite3_bind_int64(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

static void bind_opt_real(sqlite3_stmt *st, int i, bool has_v, double v)
{
    if (has_v && isfinite(v))
        sqlite3_bind_double(st, i, v);
    else
        sqlite3_bind_null(st, i);
}

int pdb_steplog_value(pdb_steplog *w, const char *raw, size_t rawlen, double value,
                      const char *unit, const char *agg, int64_t window)
{
    const pdb_steplog_name *name = resolve(w, raw, rawlen);
    if (!unit) {
        unit = name->unit ? name->unit : "";
        value *= name->factor;
    }
    const char *metric = name->metric;
    char loader[64];
    const char *split = w->split ? w->split : split_from_name(raw, rawlen);
    loader_from_name(raw, rawlen, loader, sizeof loader);
    sqlite3_stmt *st = w->ins;
    sqlite3_bind_int64(st, 1, w->src->run_id);
    sqlite3_bind_int64(st, 2, w->src->source_id);
    sqlite3_bind_int64(st, 3, w->record);
    sqlite3_bind_int64(st, 4, w->line);
    sqlite3_bind_text(st, 5, w->kind, -1, SQLITE_STATIC);
    bind_opt_int(st, 6, w->has_rank, w->rank);
    if (w->loader[0] || loader[0])
        sqlite3_bind_text(st, 7, loader[0] ? loader : w->loader, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 7);
    if (split)
        sqlite3_bind_text(st, 8, split, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 8);
    bind_opt_int(st, 9, w->has_step, w->step);
    bind_opt_real(st, 10, w->has_epoch, w->epoch);
    bind_opt_real(st, 11, w->has_wall, w->wall);
    sqlite3_bind_text(st, 12, metric, -1, SQLITE_STATIC);
    bind_opt_real(st, 13, true, value);
    sqlite3_bind_text(st, 14, unit, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 15, agg, -1, SQLITE_STATIC);
    bind_opt_int(st, 16, window > 0, window);
    /* STATIC is safe: the row is inserted (and the statement reset) below */
    sqlite3_bind_text(st, 17, raw, (int)rawlen, SQLITE_STATIC);
    if (pdb_db_step_done(w->src->db, st) != PDB_OK)
        return PDB_ERR;
    w->src->records++;
    pdb_progress(w->src, w->src->records);
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
    if (pdb_steplog_value(w, raw, rawlen, secs, PDB_UNIT_SECONDS, "cumulative", 0) != PDB_OK)
        return PDB_ERR;
    if (!w->has_step || secs != secs)
        return PDB_OK;
    /* differencing the counter gives exact per-step times */
    if (w->has_cum && w->step > w->cum_step && secs >= w->cum_time) {
        char name[160];
        snprintf(name, sizeof name, "delta %.*s", (int)(rawlen < 150 ? rawlen : 150), raw);
        if (pdb_steplog_value(w, name, strlen(name),
                              (secs - w->cum_time) / (double)(w->step - w->cum_step),
                              PDB_UNIT_SECONDS, "derived", w->step - w->cum_step) != PDB_OK)
            return PDB_ERR;
    }
    w->has_cum = true;
    w->cum_step = w->step;
    w->cum_time = secs;
    return PDB_OK;
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
    sqlite3_stmt *st = w->ins_note;
    sqlite3_bind_int64(st, 1, w->src->run_id);
    sqlite3_bind_int64(st, 2, w->src->source_id);
    sqlite3_bind_int64(st, 3, w->record);
    sqlite3_bind_int64(st, 4, pdb_input_lineno(w->src->in));
    sqlite3_bind_text(st, 5, section, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, text, (int)len, SQLITE_TRANSIENT);
    return pdb_db_step_done(w->src->db, st);
}

int pdb_steplog_block(pdb_steplog *w, const char *title, size_t len, bool has_step,
                      int64_t step)
{
    sqlite3_stmt *st = w->ins_block;
    sqlite3_bind_int64(st, 1, w->src->run_id);
    sqlite3_bind_int64(st, 2, w->src->source_id);
    sqlite3_bind_int64(st, 3, w->record);
    sqlite3_bind_int64(st, 4, w->line);
    sqlite3_bind_text(st, 5, title, (int)len, SQLITE_TRANSIENT);
    bind_opt_int(st, 6, has_step, step);
    return pdb_db_step_done(w->src->db, st);
}

/* ---- the reader ------------------------------------------------------------ */

static flavor_id flavor_named(const char *name)
{
    for (int f = 1; f < F_COUNT; f++)
        if (strcmp(FLAVOR_NAME(f), name) == 0)
            return (flavor_id)f;
    /* short aliases */
    if (strcmp(name, "tsv") == 0)
        return F_CSV;
    if (strcmp(name, "hf-state") == 0 || strcmp(name, "trainer-state") == 0)
        return F_HF_STATE;
    if (strcmp(name, "golden") == 0)
        return F_GOLDEN;
    if (strcmp(name, "hf") == 0)
        return F_HF;
    if (strcmp(name, "log") == 0)
        return F_TEXT;
    return F_NONE;
}

static int prepare_writer(pdb_steplog *w)
{
    sqlite3 *db = w->src->db;
    if (pdb_db_prepare(db, "INSERT INTO steplog_values VALUES"
                           " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &w->ins) != PDB_OK ||
        pdb_db_prepare(db, "INSERT INTO steplog_notes VALUES (?,?,?,?,?,?)", &w->ins_note) != PDB_OK ||
        pdb_db_prepare(db, "INSERT INTO steplog_blocks VALUES (?,?,?,?,?,?)", &w->ins_block) != PDB_OK)
        return PDB_ERR;
    w->rule_cache = pdb_strmap_new();
    return load_rules(w);
}

static void free_writer(pdb_steplog *w)
{
    pdb_db_release(w->ins);
    pdb_db_release(w->ins_note);
    pdb_db_release(w->ins_block);
    for (int r = 0; r < w->nrules; r++) {
        free(w->rules[r].pattern);
        free(w->rules[r].metric);
    }
    free(w->rules);
    for (int i = 0; i < w->nnames; i++)
        free(w->names[i].metric);
    free(w->names);
    if (w->rule_cache)
        pdb_strmap_free(w->rule_cache);
}

static int read_flavor(pdb_steplog *w, flavor_id f)
{
    switch (f) {
    case F_JSONL:
    case F_DETECTRON2:
        return pdb_steplog_read_jsonl(w);
    case F_HF_STATE:
    case F_GOLDEN:
        return pdb_steplog_read_json_doc(w);
    case F_CSV:
    case F_NVSMI:
        return pdb_steplog_read_csv(w);
    default:
        return pdb_steplog_read_text(w);
    }
}

int pdb_read_steplog(pdb_source *src)
{
    flavor_id f;
    if (src->flavor && *src->flavor) {
        f = flavor_named(src->flavor);
        if (f == F_NONE)
            return pdb_fail("unknown step log flavor '%s' (see docs/steplogs.md)", src->flavor);
    } else {
        const unsigned char *d;
        size_t len;
        int score;
        if (pdb_input_peek(src->in, &d, &len) != PDB_OK)
            return PDB_ERR;
        f = sniff_flavor(d, len, &score);
        if (f == F_NONE)
            return pdb_fail_at(src->path, 0, "not a step log this version knows (use --format "
                                             "steplog:FLAVOR to force one)");
    }
    src->format = formats[f];
    pdb_steplog w = {.src = src, .flavor = FLAVOR_NAME(f)};
    int rc = prepare_writer(&w);
    if (rc == PDB_OK)
        rc = read_flavor(&w, f);
    if (rc == PDB_OK && f == F_TEXT) {
        int best = 0;
        for (int k = 1; k < (int)(sizeof line_flavor / sizeof line_flavor[0]); k++)
            if (w.family_hits[k] > w.family_hits[best])
                best = k;
        if (best)
            src->format = formats[line_flavor[best]];
    }
    if (rc == PDB_OK && w.malformed > 20)
        pdb_warn("%s: %lld more malformed records not shown (counted in 'profdb runs')",
                 src->path, (long long)(w.malformed - 20));
    if (rc == PDB_OK && src->records == 0)
        rc = pdb_fail_at(src->path, pdb_input_offset(src->in),
                         "no step records found (expected a %s step log)", FLAVOR_NAME(f));
    free_writer(&w);
    return rc;
}
