/* steplog_writer.c: the row writer of the step-log readers, and the passes
 * that run over a source's rows once it is read.
 *
 * Every flavor reader hands its values to pdb_steplog_value(), which maps the
 * raw name to a canonical metric (steplog_metric_rules), infers a unit from
 * the name when the log printed none, and inserts one row of steplog_values.
 * Some meanings only show in the whole series, not in one line: a time column
 * that never decreases and ends near the run's length is a cumulative clock,
 * and a log that prints no step time still times its steps with timestamps.
 * pdb_steplog_finish() works these out with SQL over the rows this source
 * stored (a rowid range, inside the ingest's transaction): no record is held
 * in memory, and each pass is one scan plus a sort. */
#include "ingest/steplog.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strutil.h"
#include "common/utf8.h"
#include "common/xalloc.h"
#include "ingest/steplog_units.h"

#include <assert.h>
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

/* ---- metric rules ---------------------------------------------------------- */

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
    /* "Time (avg)", a running mean printed beside the value: same metric */
    const char *base = raw;
    size_t baselen = len;
    if (pdb_ends_with_icase(raw, len, " (avg)"))
        baselen = len - 6;
    if (baselen < n)
        n = baselen;
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
    e->unit = pdb_units_from_name(base, baselen, &e->factor);
    pdb_strmap_put(w->rule_cache, raw, len, w->nnames);
    return &w->names[w->nnames++];
}

/* "val_loss", "eval_runtime", "profile/val/..." -> "val"; "train_loss" -> "train". */
static const char *split_from_name(const char *raw, size_t len)
{
    static const char *const val[] = {"val_", "val/", "eval_", "eval/", "valid_", "validation/",
                                      "test_", "test/", "val ", "eval ", "profile/val/", NULL};
    static const char *const train[] = {"train_", "train/", "profile/train/", NULL};
    for (int i = 0; val[i]; i++)
        if (pdb_skip_prefix_icase(raw, len, val[i], NULL, NULL))
            return "val";
    for (int i = 0; train[i]; i++)
        if (pdb_skip_prefix_mem(raw, len, train[i], NULL, NULL))
            return "train";
    return NULL;
}

/* The generic trainer names its loaders in the metric: ".../dl_NAME/...". */
static void loader_from_name(const char *raw, size_t len, char *out, size_t cap)
{
    out[0] = '\0';
    const char *p = pdb_steplog_find(raw, len, "/dl_");
    size_t left;
    if (!p || !pdb_skip_prefix_mem(p, (size_t)(raw + len - p), "/dl_", &p, &left))
        return;
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
    w->is_step = true;
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
    if (w->is_step && w->counted_record != w->record) {
        w->counted_record = w->record;
        w->step_records++;
    }
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
    return pdb_steplog_value(w, raw, rawlen, secs, PDB_UNIT_SECONDS, "cumulative", 0);
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

/* ---- opening and closing ---------------------------------------------------- */

int pdb_steplog_open(pdb_steplog *w)
{
    sqlite3 *db = w->src->db;
    if (pdb_db_prepare(db, "INSERT INTO steplog_values VALUES"
                           " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &w->ins) != PDB_OK ||
        pdb_db_prepare(db, "INSERT INTO steplog_notes VALUES (?,?,?,?,?,?)", &w->ins_note) != PDB_OK ||
        pdb_db_prepare(db, "INSERT INTO steplog_blocks VALUES (?,?,?,?,?,?)", &w->ins_block) != PDB_OK)
        return PDB_ERR;
    /* Rows are appended in one transaction, so this source's rows are the
     * rowids from here on: the post-passes read that range, not the table. */
    if (pdb_db_query_int(db, "SELECT coalesce(max(rowid), 0) + 1 FROM steplog_values", 1,
                         &w->first_rowid) != PDB_OK)
        return PDB_ERR;
    w->rule_cache = pdb_strmap_new();
    return load_rules(w);
}

void pdb_steplog_close(pdb_steplog *w)
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
    if (w->gen)
        pdb_steplog_general_free(w->gen);
}

/* ---- post-passes over the source's rows --------------------------------------- */

/* Training rows of this source: rowid range and no eval or summary split. */
#define SOURCE_ROWS "rowid >= ?1 AND coalesce(split, 'train') = 'train'"
/* One series: the same raw name in records of one kind, split, rank, loader. */
#define SERIES "raw_name, kind, coalesce(split, ''), coalesce(rank, -1), coalesce(loader, '')"

/* A time column (seconds, point values) whose values never decrease over at
 * least three records and which extrapolates to about zero at counter zero
 * is a clock since the start of training, not a per-step time: Ultralytics'
 * results.csv `time`, fairseq's `wall`. The counter is the step, else the
 * epoch, else the record ordinal. "About zero" is within a quarter of the
 * last value: a per-step time that happens to creep up extrapolates to
 * nearly its own size, a clock to the length of its first interval. */
static const char *const detect_cumulative_sql =
    "UPDATE steplog_values SET agg = 'cumulative',"
    " metric = CASE metric WHEN 'step_time' THEN 'elapsed_time' ELSE metric END"
    " WHERE rowid >= ?1 AND unit = 's' AND agg = 'point'"
    " AND (" SERIES ") IN ("
    "  WITH v AS (SELECT raw_name, kind, split, rank, loader, record, value,"
    "     coalesce(step, epoch, record) AS c FROM steplog_values"
    "     WHERE " SOURCE_ROWS " AND unit = 's' AND agg = 'point' AND value IS NOT NULL),"
    "  d AS (SELECT raw_name AS rn, kind AS k, coalesce(split, '') AS sp, coalesce(rank, -1) AS rk,"
    "     coalesce(loader, '') AS ld, value AS x, c, value - lag(value) OVER w AS dx,"
    "     row_number() OVER w AS i, count(*) OVER p AS n FROM v"
    "     WINDOW p AS (PARTITION BY raw_name, kind, split, rank, loader),"
    "     w AS (p ORDER BY record)),"
    "  g AS (SELECT rn, k, sp, rk, ld, max(n) AS n, sum(dx < 0) AS ndec,"
    "     max(CASE WHEN i = 1 THEN x END) AS x1, max(CASE WHEN i = 1 THEN c END) AS c1,"
    "     max(CASE WHEN i = n THEN x END) AS xn, max(CASE WHEN i = n THEN c END) AS cn"
    "     FROM d GROUP BY rn, k, sp, rk, ld)"
    "  SELECT rn, k, sp, rk, ld FROM g WHERE n >= 3 AND ndec = 0 AND xn > x1 AND cn > c1"
    "  AND abs(x1 - (xn - x1) / (cn - c1) * c1) <= 0.25 * xn)";

/* The first record of an interval log does not know its interval: Megatron
 * resumed at iteration 43 does not average over 43 iterations. Readers leave
 * its window NULL; here it gets the distance to the next record of the same
 * series (the log interval), when that record has a window. */
static const char *const fill_first_window_sql =
    "UPDATE steplog_values SET window = x.w FROM ("
    "  SELECT rowid AS id, lead(step) OVER s - step AS w, lead(window) OVER s AS nw,"
    "  row_number() OVER s AS i FROM steplog_values WHERE rowid >= ?1 AND step IS NOT NULL"
    "  WINDOW s AS (PARTITION BY " SERIES " ORDER BY record)) AS x"
    " WHERE steplog_values.rowid = x.id AND x.i = 1 AND x.w > 0 AND x.nw IS NOT NULL"
    " AND steplog_values.window IS NULL";

/* Per-step times from cumulative clocks: the difference to the previous
 * record of the same series over the steps between them (window). A value
 * below the previous one means the clock restarted (modded-nanogpt restarts
 * it after its warm-up steps): the value itself is the time since then. The
 * first record gets its own value when its counter is at most one interval
 * from zero (the clock started with the run). When a record holds several
 * clocks (fairseq's wall and train_wall), the one that grew least is the
 * training clock and gives "delta NAME" (step_time); the others are stored
 * as "NAME per step". */
static const char *const derive_cumulative_sql =
    "WITH v AS (SELECT raw_name AS rn, kind AS k, split AS sp, rank AS rk, loader AS ld,"
    "   record AS r, line, step, epoch, wall_time, value AS x,"
    "   coalesce(step, epoch, record) AS c FROM steplog_values"
    "   WHERE " SOURCE_ROWS " AND unit = 's' AND agg = 'cumulative' AND value IS NOT NULL),"
    " d AS (SELECT *, lag(x) OVER w AS xp, lag(c) OVER w AS cp, lead(c) OVER w AS cnext,"
    "   row_number() OVER w AS i, max(x) OVER p - min(x) OVER p AS growth FROM v"
    "   WINDOW p AS (PARTITION BY rn, k, sp, rk, ld), w AS (p ORDER BY r)),"
    " e AS (SELECT *, dense_rank() OVER (PARTITION BY k, rk, ld ORDER BY growth, rn) AS pick"
    "   FROM d)"
    " SELECT r, line, k, rk, ld, sp, step, epoch, wall_time, rn, pick,"
    "  CASE WHEN i = 1 THEN x / c WHEN x >= xp THEN (x - xp) / (c - cp) ELSE x / (c - cp) END,"
    "  CASE WHEN i = 1 THEN c ELSE c - cp END"
    " FROM e WHERE (i = 1 AND c > 0 AND cnext IS NOT NULL AND c <= cnext - c AND x >= 0)"
    "  OR (i > 1 AND c > cp)"
    " ORDER BY r";

/* Step times from timestamps, for logs that print none (OLMo's text log,
 * wandb histories): the time between consecutive step records of the same
 * kind over the steps between them. Exact over each window, however coarse
 * the clock; records with the same timestamp give nothing. */
static const char *const derive_timestamps_sql =
    "WITH v AS (SELECT record AS r, min(line) AS line, kind AS k, rank AS rk, loader AS ld,"
    "   NULL AS sp, step, epoch, wall_time FROM steplog_values"
    "   WHERE " SOURCE_ROWS " AND wall_time IS NOT NULL AND step IS NOT NULL GROUP BY record),"
    " d AS (SELECT *, wall_time - lag(wall_time) OVER w AS dw, step - lag(step) OVER w AS ds"
    "   FROM v WINDOW w AS (PARTITION BY k, rk, ld ORDER BY r))"
    " SELECT r, line, k, rk, ld, sp, step, epoch, wall_time, dw / ds, ds FROM d"
    " WHERE ds > 0 AND dw > 0 ORDER BY r";

/* Sets the record context from columns first..first+8 of a derivation row
 * (record, line, kind, rank, loader, split, step, epoch, wall_time); kind and
 * split are copied, as the row's text goes away at the next step. */
static void context_from_row(pdb_steplog *w, sqlite3_stmt *st, char *kind, size_t kcap,
                             char *split, size_t scap)
{
    w->record = sqlite3_column_int64(st, 0);
    w->line = sqlite3_column_int64(st, 1);
    snprintf(kind, kcap, "%s", (const char *)sqlite3_column_text(st, 2));
    w->kind = kind;
    w->has_rank = sqlite3_column_type(st, 3) != SQLITE_NULL;
    w->rank = sqlite3_column_int64(st, 3);
    const unsigned char *ld = sqlite3_column_text(st, 4);
    snprintf(w->loader, sizeof w->loader, "%s", ld ? (const char *)ld : "");
    const unsigned char *sp = sqlite3_column_text(st, 5);
    snprintf(split, scap, "%s", sp ? (const char *)sp : "");
    w->split = sp ? split : NULL;
    w->has_step = sqlite3_column_type(st, 6) != SQLITE_NULL;
    w->step = sqlite3_column_int64(st, 6);
    w->has_epoch = sqlite3_column_type(st, 7) != SQLITE_NULL;
    w->epoch = sqlite3_column_double(st, 7);
    w->has_wall = sqlite3_column_type(st, 8) != SQLITE_NULL;
    w->wall = sqlite3_column_double(st, 8);
    w->is_step = false; /* derived rows do not make a file a step log */
}

/* Runs a derivation query and stores each row it returns; name_of builds
 * the raw name from the row. The query's rows are sorted before the first
 * one is returned, so the inserts do not feed back into it. */
static int derive(pdb_steplog *w, const char *sql,
                  void (*name_of)(sqlite3_stmt *st, char *out, size_t cap), int value_col)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(w->src->db, sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, w->first_rowid);
    char kind[64], split[16], name[200];
    int rc = PDB_OK, r;
    while (rc == PDB_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
        context_from_row(w, st, kind, sizeof kind, split, sizeof split);
        name_of(st, name, sizeof name);
        double v = sqlite3_column_double(st, value_col);
        int64_t win = sqlite3_column_int64(st, value_col + 1);
        rc = pdb_steplog_value(w, name, strlen(name), v, PDB_UNIT_SECONDS, "derived", win);
    }
    if (rc == PDB_OK && r != SQLITE_DONE)
        rc = pdb_db_fail(w->src->db, "step time derivation");
    pdb_db_release(st);
    return rc;
}

static void cumulative_name(sqlite3_stmt *st, char *out, size_t cap)
{
    const char *rn = (const char *)sqlite3_column_text(st, 9);
    if (sqlite3_column_int64(st, 10) == 1)
        snprintf(out, cap, "delta %.150s", rn);
    else
        snprintf(out, cap, "%.150s per step", rn);
}

static void timestamp_name(sqlite3_stmt *st, char *out, size_t cap)
{
    (void)st;
    snprintf(out, cap, "timestamp delta");
}

/* Runs an UPDATE over the source's rows (?1 = first rowid). */
static int update_rows(pdb_steplog *w, const char *sql)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(w->src->db, sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, w->first_rowid);
    int rc = pdb_db_step_done(w->src->db, st);
    pdb_db_release(st);
    return rc;
}

int pdb_steplog_finish(pdb_steplog *w)
{
    sqlite3 *db = w->src->db;
    sqlite3_stmt *st;
    int rc = update_rows(w, fill_first_window_sql);
    if (rc == PDB_OK)
        rc = update_rows(w, detect_cumulative_sql);
    if (rc != PDB_OK || derive(w, derive_cumulative_sql, cumulative_name, 11) != PDB_OK)
        return PDB_ERR;
    int64_t timed;
    if (pdb_db_prepare(db, "SELECT EXISTS (SELECT 1 FROM steplog_values WHERE rowid >= ?1"
                           " AND metric = 'step_time' AND unit = 's')", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, w->first_rowid);
    rc = sqlite3_step(st);
    timed = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    rc = rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "step time check");
    pdb_db_release(st);
    if (rc == PDB_OK && !timed)
        rc = derive(w, derive_timestamps_sql, timestamp_name, 9);
    return rc;
}
