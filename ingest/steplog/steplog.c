/* steplog.c: per-step training logs: the flavor table, sniffing, dispatch.
 *
 * Many training jobs leave no trace, only a log with a line per step. This
 * reader recognises the common flavors from content (or takes the one named
 * by --format steplog:FLAVOR), hands the stream to that flavor's reader, and
 * sends every log no flavor claims to the general text reader
 * (steplog_general.c). Values become rows of steplog_values through the
 * writer (steplog_writer.c). A file that yields no step record is refused
 * with a message naming what was tried. */
#include "ingest/steplog/steplog.h"
#include "ingest/steplog/steplog_pattern.h"
#include "ingest/readers.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ingest/steplog/steplog_units.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the flavor table (steplog_flavors.def) --------------------------------- */

enum { R_JSONL, R_DOC, R_CSV, R_TEXT, R_MLLOG };

typedef enum {
    F_NONE,
#define FLAVOR(id, name, reader, what) F_##id,
#include "ingest/steplog/steplog_flavors.def"
#undef FLAVOR
    F_COUNT
} flavor_id;

static const struct {
    const char *format; /* "steplog:NAME", as stored in sources.format */
    int reader;
} flavors[F_COUNT] = {
    {"steplog:", R_TEXT},
#define FLAVOR(id, name, reader, what) {"steplog:" name, R_##reader},
#include "ingest/steplog/steplog_flavors.def"
#undef FLAVOR
};

static const char *flavor_name(flavor_id f)
{
    const char *name = flavors[f].format;
    bool ok = pdb_skip_prefix(name, "steplog:", &name);
    assert(ok);
    (void)ok;
    return name;
}

/* Text flavors in the order of pdb_steplog_linekind. */
static const flavor_id line_flavor[] = {
    F_NONE, F_MEGATRON, F_DEEPSPEED, F_NANOGPT, F_TORCHTITAN, F_HF, F_RECTFLOW, F_MAE, F_KV,
    F_LIGHTNING, F_TQDM,
};

/* Short names --format also accepts. */
static const struct {
    const char *alias;
    flavor_id flavor;
} aliases[] = {
    {"tsv", F_CSV}, {"hf-state", F_HF_STATE}, {"trainer-state", F_HF_STATE},
    {"golden", F_GOLDEN}, {"hf", F_HF}, {"log", F_TEXT}, {"general", F_TEXT},
};

static flavor_id flavor_named(const char *name)
{
    for (int f = 1; f < F_COUNT; f++)
        if (strcmp(flavor_name((flavor_id)f), name) == 0)
            return (flavor_id)f;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, name) == 0)
            return aliases[i].flavor;
    return F_NONE;
}

/* "jsonl, detectron2, ..., text": for messages. */
static void flavor_list(pdb_buf *out)
{
    for (int f = 1; f < F_COUNT; f++)
        pdb_buf_addf(out, "%s%s", f > 1 ? ", " : "", flavor_name((flavor_id)f));
}

/* ---- sniffing ------------------------------------------------------------ */

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

/* Whether the prefix is text (no NUL; control bytes besides ESC and bytes
 * that are not UTF-8 at most 1%) that does not parse as JSON: what the text
 * readers take. */
static bool is_text(const unsigned char *d, size_t len)
{
    size_t bad = pdb_utf8_invalid(d, len);
    for (size_t k = 0; k < len; k++) {
        if (d[k] == 0)
            return false;
        bad += d[k] < 0x20 && !isspace(d[k]) && d[k] != 0x1b;
    }
    return bad * 100 <= len && !pdb_sniff_json(d, len);
}

/* Per-line evidence gathered from the prefix. */
typedef struct {
    int counts[F_COUNT];   /* lines of each text flavor */
    int general;           /* step records of the general reader */
    int hf_dicts;          /* HF Trainer's printed dicts ({'loss': ...}): tqdm bars
                            * alone are everyone's */
    int jsonl, detectron, lines, nonblank;
    int mllog; /* MLPerf :::MLLOG event lines */
    bool labels; /* launcher labels on every line (pdb_steplog_labelled) */
    int table;   /* lines of whitespace tables (steplog_table.c) */
    pdb_sl_table *tables;
    const char *first, *second;
    size_t first_len, second_len;
    char sep;                 /* the first line's cell separator */
    int header_cells;         /* its cells when it reads as a header, else 0 */
    int cells;                /* the cells of the latest header */
    int rows_seen, rows_same; /* lines after it (up to 50; not blank, not a
                               * rule), and those that fit a table */
} evidence;

/* Whether a row has a cell that is a number, with or without a unit ("0 %",
 * "1 MiB"): a table of metrics has many;
 * a line of prose split at its commas has none. */
static bool number_cell(const char *s, size_t len, char sep)
{
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == sep) {
            const char *c = s + start;
            size_t cl = pdb_steplog_trim(&c, i - start);
            double x;
            const char *unit;
            if (cl > 0 && pdb_units_quantity(c, cl, &x, &unit))
                return true;
            start = i + 1;
        }
    }
    return false;
}

/* A row fits the table above it when it has the latest header's cells and
 * a number among them, or is itself a header (Lightning rewrites its header
 * when new keys are logged). Rules ("-----") are no rows. */
static void count_row(evidence *ev, const char *t, size_t tl)
{
    if (strspn(t, "-=+ ") == tl)
        return;
    ev->rows_seen++;
    if (!ev->cells)
        ev->cells = ev->header_cells;
    int h = header_cells(t, tl, ev->sep);
    if (h >= 2) {
        ev->cells = h;
        ev->rows_same++;
    } else if (row_cells(t, tl, ev->sep) == ev->cells && number_cell(t, tl, ev->sep)) {
        ev->rows_same++;
    }
}

/* A JSON Lines record that does not end in '}' (cut off by the peek, or
 * broken: a line nesting too deep) still opens like one when it names a
 * step the way step logs do ({"step": 1, ...); the JSON Lines reader then
 * says what is wrong with the line, not the trace reader. */
static bool jsonl_step_key(const char *t, size_t tl)
{
    static const char *const keys[] = {"{\"step\":", "{\"iteration\":", "{\"global_step\":",
                                       "{\"_step\":", "{\"iter\":", ", \"step\":",
                                       ", \"iteration\":", ", \"global_step\":", NULL};
    size_t lim = tl < 4096 ? tl : 4096;
    for (int k = 0; keys[k]; k++)
        if (pdb_steplog_find(t, lim, keys[k]))
            return true;
    return false;
}

static void count_line(evidence *ev, const char *s, size_t l)
{
    int64_t rank;
    size_t lp = pdb_steplog_launcher_prefix(s, l, ev->labels, &rank);
    s += lp;
    l -= lp;
    /* tqdm and nested bars put many updates on one line */
    const char *cr = memchr(s, '\r', l);
    size_t seg = cr && cr != s + l - 1 ? (size_t)(cr - s) : l;
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, l);
    if (!ev->first) {
        ev->first = s;
        ev->first_len = l;
        ev->sep = memchr(t, '\t', tl) ? '\t' : ',';
        ev->header_cells = header_cells(t, tl, ev->sep);
    } else {
        if (!ev->second && l > 0) {
            ev->second = s;
            ev->second_len = l;
        }
        if (tl > 0 && ev->header_cells >= 2 && ev->rows_seen < 50)
            count_row(ev, t, tl);
    }
    ev->nonblank += tl > 0;
    /* MLPerf's ":::MLLOG {...}" first: its JSON follows a tag, not a log prefix */
    bool mllog = pdb_steplog_mllog_line(t, tl);
    /* a table's row is no flavor's line, even with a tqdm bar after it */
    const char *ts = s;
    for (size_t k = 0; k + 1 < l; k++)
        if (s[k] == '\r')
            ts = s + k + 1; /* tqdm's last update */
    if (!mllog && tl > 0 && pdb_steplog_table_sniff(ev->tables, ts, (size_t)(s + l - ts))) {
        ev->table++;
        ev->lines++;
        return;
    }
    size_t jp = mllog ? 0 : pdb_steplog_json_payload(t, tl); /* fairseq's json */
    t += jp;
    tl -= jp;
    if (mllog) {
        ev->mllog++;
    } else if (tl >= 2 && t[0] == '{' && t[1] == '"' &&
               (t[tl - 1] == '}' || jsonl_step_key(t, tl))) {
        ev->jsonl++;
        if (pdb_steplog_find(t, tl, "\"data_time\"") && pdb_steplog_find(t, tl, "\"iteration\""))
            ev->detectron++;
    } else {
        pdb_steplog_linekind kind = pdb_steplog_classify(s, l);
        ev->counts[line_flavor[kind]]++;
        ev->hf_dicts += kind == PDB_SL_HF && tl > 2 && t[0] == '{' && t[1] == '\'';
        if (seg < l)
            ev->counts[line_flavor[pdb_steplog_classify(s + seg, l - seg)]]++;
        ev->general += pdb_steplog_general_is_step_line(s, l);
    }
    ev->lines++;
}

/* A CSV or TSV table: a header row, a second row with as many cells, and
 * four in five of the next rows fitting it (count_row): two lines of prose
 * with one comma each, a script's comment and a call, are no table. */
static flavor_id sniff_table(const evidence *ev)
{
    if (!ev->first || ev->first[0] == '{' || ev->first[0] == '[' || !ev->second)
        return F_NONE;
    const char *h = ev->first;
    size_t hl = pdb_steplog_trim(&h, ev->first_len);
    char sep = memchr(h, '\t', hl) ? '\t' : ',';
    int cells = header_cells(h, hl, sep);
    const char *r2 = ev->second;
    size_t r2l = pdb_steplog_trim(&r2, ev->second_len);
    if (cells < 2 || row_cells(r2, r2l, sep) != cells || ev->rows_same * 5 < ev->rows_seen * 4)
        return F_NONE;
    if (pdb_steplog_find(h, hl, "utilization.") || pdb_steplog_find(h, hl, "memory.used") ||
        pdb_steplog_find(h, hl, "power.draw"))
        return F_NVSMI;
    return F_CSV;
}

/* Picks a flavor from a prefix of the input and reports how sure it is.
 * JSON is JSON only when it parses from its first byte; everything else
 * that is text goes to the text readers: a flavor when its lines are there,
 * else the general reader. */
static flavor_id sniff_flavor(const unsigned char *d, size_t len, int *score)
{
    *score = PDB_SNIFF_NO;
    size_t i = 0;
    while (i < len && isspace(d[i]))
        i++;
    if (i == len)
        return F_NONE;
    /* a document with its defining key, parsing as JSON or at least opening
     * like it ({"...): a broken one is the JSON reader's to report */
    size_t k = i + 1;
    while (k < len && isspace(d[k]))
        k++;
    bool opens = d[i] == '{' && (pdb_sniff_json(d, len) || (k < len && d[k] == '"'));
    flavor_id doc = opens ? sniff_json_doc(d, len) : F_NONE;
    if (doc != F_NONE) {
        *score = PDB_SNIFF_LIKELY + 10;
        return doc;
    }
    if (has(d, len, "\"traceEvents\"") && pdb_sniff_json(d, len))
        return F_NONE;
    evidence ev = {.tables = pdb_steplog_table_new()};
    size_t pos = i;
    char eol = pdb_steplog_cr_lines(d, len) ? '\r' : '\n';
    ev.labels = pdb_steplog_labelled((const char *)d + i, len - i, eol);
    while (pos < len && ev.lines < 2000) {
        const char *s = (const char *)d + pos;
        const char *nl = memchr(s, eol, len - pos);
        size_t l = nl ? (size_t)(nl - s) : len - pos;
        if (!nl && pos > 0 && len >= PDB_INPUT_PEEK)
            break; /* a cut-off last line */
        count_line(&ev, s, l);
        pos += l + 1;
    }
    pdb_steplog_table_free(ev.tables);
    ev.general += ev.table;
    /* MLPerf events are tagged: two tagged lines decide, however much of the
     * benchmark's own output is around them */
    if (ev.mllog >= 2 || (ev.mllog == 1 && ev.lines <= 2)) {
        *score = PDB_SNIFF_LIKELY + 5;
        return F_MLLOG;
    }
    if (ev.jsonl > 0 && ev.jsonl * 2 >= ev.lines) {
        *score = PDB_SNIFF_LIKELY + 5;
        return ev.detectron ? F_DETECTRON2 : F_JSONL;
    }
    /* JSON records among a framework's chatter, and no other line a step
     * (Detectron's "json_stats: {...}" among Caffe2's warnings) */
    if (ev.jsonl >= 3 && ev.general == 0) {
        *score = PDB_SNIFF_MAYBE;
        return ev.detectron ? F_DETECTRON2 : F_JSONL;
    }
    flavor_id table = sniff_table(&ev);
    if (table != F_NONE) {
        *score = PDB_SNIFF_LIKELY;
        return table;
    }
    flavor_id best = F_NONE;
    for (int f = F_MEGATRON; f < F_COUNT; f++)
        if (ev.counts[f] > (best ? ev.counts[best] : 0))
            best = (flavor_id)f;
    /* The block flavors print few lines; their header alone decides. */
    if (ev.counts[F_RECTFLOW])
        best = F_RECTFLOW;
    else if (ev.counts[F_MAE])
        best = F_MAE;
    else if (ev.counts[F_MEGATRON] && best == F_DEEPSPEED)
        best = F_MEGATRON;
    /* A few lines of a flavor in a log of another trainer (a stray tqdm bar)
     * do not make it that flavor: the general reader reads it. */
    if (best != F_NONE && best != F_RECTFLOW && best != F_MAE &&
        ev.general > 2 * ev.counts[best] + 2)
        best = F_NONE;
    /* tqdm bars and no HF Trainer dict, beside lines the general reader reads
     * as steps (DGL's "Run: 01, Epoch: 01, Loss: 2.32, ..." under a sampler's
     * bar of 629571 nodes): the general reader reads it */
    if (best == F_HF && ev.hf_dicts == 0 && ev.general > 0)
        best = F_NONE;
    if (best != F_NONE) {
        *score = ev.counts[best] >= 2 || best == F_RECTFLOW || best == F_MAE ? PDB_SNIFF_LIKELY
                                                                               : PDB_SNIFF_MAYBE;
        return best;
    }
    if (!is_text(d + i, len - i))
        return F_NONE;
    /* Any other text: the general reader. Sure enough for a directory
     * ingest when a good part of the lines are step records. */
    *score = ev.general >= 3 && ev.general * 4 >= ev.nonblank ? PDB_SNIFF_LIKELY
                                                              : PDB_SNIFF_MAYBE;
    return F_TEXT;
}

int pdb_sniff_steplog(const unsigned char *data, size_t len)
{
    int score;
    sniff_flavor(data, len, &score);
    return score;
}

/* ---- the reader ------------------------------------------------------------ */

static int read_flavor(pdb_steplog *w, flavor_id f)
{
    switch (flavors[f].reader) {
    case R_JSONL:
        return pdb_steplog_read_jsonl(w);
    case R_DOC:
        return pdb_steplog_read_json_doc(w);
    case R_CSV:
        return pdb_steplog_read_csv(w);
    case R_MLLOG:
        return pdb_steplog_read_mllog(w);
    default:
        return pdb_steplog_read_text(w);
    }
}

/* Adds "N reason" for each skip reason of the source (at most 4, largest
 * first is not needed: reasons are few). */
typedef struct {
    pdb_buf *out;
    int shown;
} skip_list;

static void list_skip(const char *reason, size_t len, int64_t n, void *arg)
{
    skip_list *l = arg;
    if (l->shown++ < 4)
        pdb_buf_addf(l->out, "%s%lld %.*s", l->shown > 1 ? ", " : ": ", (long long)n, (int)len,
                     reason);
}

/* Lines whose counter was read but that held no value to store: a refusal
 * must not say that no line has a counter (issue 32). */
static int64_t bare_counters(const pdb_steplog *w)
{
    int64_t n = 0;
    const char *k = "counter without values";
    pdb_strmap_get(w->src->skips, k, strlen(k), &n);
    return n;
}

/* The refusal of a file that held no step record: what was tried, what the
 * lines were taken for, and how to force a flavor. No byte offset: the
 * problem is the whole file, not a place in it. */
static int refuse(pdb_steplog *w, flavor_id f, bool forced)
{
    pdb_buf msg = PDB_BUF_INIT;
    int64_t lines = w->lineno;
    if (w->patterns)
        pdb_buf_addf(&msg, "no step records found (read with the pattern of %s: no line matched "
                           "a step rule with its counter and values",
                     pdb_sl_patterns_origin(w->patterns));
    else if (forced)
        pdb_buf_addf(&msg, "no step records found in the '%s' shapes (--format steplog:%s",
                     flavor_name(f), flavor_name(f));
    else if (f == F_MLLOG && w->src->records > 0)
        pdb_buf_addf(&msg, "no step records found (read as MLPerf :::MLLOG events: %lld values "
                           "stored, all evaluation values or settings; no training value and "
                           "no epoch or block duration at an integer step",
                     (long long)w->src->records);
    else if (f == F_TEXT && w->src->records > 0)
        pdb_buf_addf(&msg, "no step records found (read with the general text reader: the "
                           "lines with a counter held only validation, evaluation or summary "
                           "values (%lld values), no training step",
                     (long long)w->src->records);
    else if (f == F_TEXT && bare_counters(w) > 0)
        pdb_buf_addf(&msg, "no step records found (read with the general text reader: %lld lines "
                           "have a step counter but no value outside brackets, and values "
                           "inside [...] are read as tags",
                     (long long)bare_counters(w));
    else if (f == F_TEXT)
        pdb_buf_addf(&msg, "no step records found (read with the general text reader: no line "
                           "was read as a step counter such as 'step', 'iter', 'epoch' or 'N/M' "
                           "followed by named values");
    else
        pdb_buf_addf(&msg, "no step records found (sniffed as '%s'", flavor_name(f));
    if (flavors[f].reader != R_DOC) {
        pdb_buf_addf(&msg, "; %lld lines", (long long)lines);
        skip_list l = {&msg, 0};
        pdb_strmap_each(w->src->skips, list_skip, &l);
    }
    if (w->patterns) {
        pdb_buf_adds(&msg, "); try the pattern on one of the log's lines (grep -E without "
                           "the {NAME} fields), and see docs/steplogs.md, Teaching a format");
    } else {
        pdb_buf_adds(&msg, "); step-log flavors: ");
        flavor_list(&msg);
        pdb_buf_adds(&msg, forced ? "" : "; force one with --format steplog:FLAVOR");
        pdb_buf_adds(&msg, ", or teach the format with --pattern 'REGEX with {step} and "
                           "{NAME:UNIT} fields' (docs/steplogs.md, Teaching a format)");
    }
    int rc = pdb_fail("%s: %s", w->src->path, pdb_buf_str(&msg));
    pdb_buf_free(&msg);
    return rc;
}

int pdb_read_steplog(pdb_source *src)
{
    flavor_id f;
    bool forced = src->flavor && *src->flavor;
    const unsigned char *d;
    size_t len;
    if (pdb_input_peek(src->in, &d, &len) != PDB_OK)
        return PDB_ERR;
    if (forced) {
        f = flavor_named(src->flavor);
        if (f == F_NONE) {
            pdb_buf names = PDB_BUF_INIT;
            flavor_list(&names);
            int rc = pdb_fail("unknown step log flavor '%s' (step-log flavors: %s)", src->flavor,
                              pdb_buf_str(&names));
            pdb_buf_free(&names);
            return rc;
        }
    } else {
        int score;
        f = sniff_flavor(d, len, &score);
        if (f == F_NONE)
            return pdb_fail("%s: not a step log: the text is JSON that is not a step log, or "
                            "binary (step-log flavors are sniffed from text; use --format "
                            "steplog:FLAVOR to force one)", src->path);
    }
    /* a pattern the user gives wins; one stored from an earlier ingest wins
     * over the general reader when it reads the first lines */
    pdb_sl_patterns *pat = NULL;
    bool cr = pdb_steplog_cr_lines(d, len);
    if (src->patterns && flavors[f].reader == R_DOC)
        /* rules match lines; a document's records are objects spread over
         * many lines (or columns of values): no line holds a record */
        return pdb_fail("%s: --pattern/--rules read a log line by line, and this is one JSON "
                        "document whose records span lines (read by the built-in reader "
                        "'%s': ingest it without --pattern/--rules, or with --format "
                        "steplog:%s)", src->path, flavor_name(f), flavor_name(f));
    if (src->patterns) {
        pat = pdb_sl_patterns_compile(src->patterns, src->pattern_origin);
        if (!pat)
            return PDB_ERR;
    } else if (!forced && f == F_TEXT) {
        pdb_sl_patterns_claim(src->stored_rules, src->nstored_rules, (const char *)d, len,
                              cr ? '\r' : '\n', &pat);
    }
    if (pat)
        f = F_TEXT;
    src->format = pat ? "steplog:pattern" : flavors[f].format;
    pdb_steplog w = {.src = src, .flavor = pat ? "pattern" : flavor_name(f), .patterns = pat,
                     .pattern_rules = pat ? pdb_sl_patterns_rules(pat) : NULL,
                     .pattern_origin = pat ? pdb_sl_patterns_origin(pat) : NULL};
    w.cr_lines = cr;
    w.labels = pdb_steplog_labelled((const char *)d, len, cr ? '\r' : '\n');
    w.line_rank = -1;
    if (f == F_TEXT && !pat) {
        w.gen = pdb_steplog_general_new();
        pdb_steplog_general_profile(w.gen, (const char *)d, len, w.cr_lines ? '\r' : '\n',
                                    w.labels);
        w.table = pdb_steplog_table_new();
    }
    int rc = pdb_steplog_open(&w);
    if (rc == PDB_OK)
        rc = pat ? pdb_steplog_read_pattern(&w, pat) : read_flavor(&w, f);
    if (rc == PDB_OK && f == F_TEXT && !pat) {
        /* named after what it held, when a flavor's handlers read it */
        int best = 0;
        for (int k = 1; k < (int)(sizeof line_flavor / sizeof line_flavor[0]); k++)
            if (w.family_hits[k] > w.family_hits[best])
                best = k;
        if (best)
            src->format = flavors[line_flavor[best]].format;
    }
    if (rc == PDB_OK && w.malformed > 20)
        pdb_warn("%s: %lld more malformed records not shown (counted in 'profdb runs')",
                 src->path, (long long)(w.malformed - 20));
    if (rc == PDB_OK && w.step_records == 0)
        rc = refuse(&w, f, forced);
    if (rc == PDB_OK)
        rc = pdb_steplog_finish(&w);
    /* nothing but bars that no Trainer dict names as the training loop's:
     * their updates count their own items, no step (a glued 8-rank tqdm
     * line of PDPP's nohup.out was 8 records and exit 0) */
    if (rc == PDB_OK && w.step_records == w.bar_records && w.hf_bar_warn[0])
        rc = pdb_fail("%s: no step records found (sniffed as '%s': %lld updates of %s; a log "
                      "of a training loop's bar alone is read with --format steplog:tqdm)",
                      src->path, flavor_name(f), (long long)w.bar_records, w.hf_bar_warn);
    /* what was understood is said and stored, and a weak reading warned
     * (issue 32): steplog_reading.c */
    if (rc == PDB_OK)
        rc = pdb_sl_reading_finish(&w, flavors[f].reader != R_DOC, src->quiet);
    /* the rules taught are kept for later ingests (and --replace) */
    if (rc == PDB_OK && src->patterns)
        rc = pdb_sl_patterns_store(src->db, pat);
    pdb_steplog_close(&w);
    pdb_steplog_box_free(w.box);
    pdb_steplog_html_free(w.html);
    pdb_steplog_lightning_free(w.lightning);
    pdb_sl_reading_free(w.reading);
    if (w.gen)
        pdb_steplog_general_free(w.gen); /* made here, not by the writer */
    pdb_steplog_table_free(w.table);
    pdb_sl_patterns_free(pat);
    free(w.cr.buf);
    pdb_buf_free(&w.cr.line);
    return rc;
}
