/* merge.c: copies shard databases into one (see merge.h).
 *
 * Each shard is ATTACHed to the target's connection and every table is
 * copied with one INSERT ... SELECT whose column list comes from the
 * schema itself (pragma_table_info), so a column added later is copied
 * without a change here. What needs re-keying is found the same way: a
 * column that REFERENCES runs, sources, traces, strings, pstats functions
 * or step-log series, and the columns of column_rules below (primary keys
 * and id columns the schema documents only in comments). A table whose
 * INTEGER PRIMARY KEY has no rule is refused, so a new id is never copied
 * unchanged by accident.
 *
 * Ids are shifted past the target's largest (a shard's rows keep their
 * order); run ids and string ids go through small maps in temp tables
 * (runs by name, strings by value). SQLite attaches at most 10 databases
 * and cannot detach one inside a transaction, so more shards than that are
 * first merged in groups into intermediate files. */
#include "ingest/shards/merge.h"
#include "ingest/shards/shard_dir.h"
#include "ingest/ingest.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* SQLite's compile-time limit on attached databases (SQLITE_MAX_ATTACHED). */
#define MAX_ATTACHED 10

typedef enum {
    K_NONE, K_RUN, K_STRING,
    /* kinds shifted by an offset: */
    K_SOURCE, K_TRACE, K_SLICE, K_FUNC, K_SERIES, K_CTX, K_CHUNK,
    K_COUNT
} id_kind;

/* For shifted kinds: where the target's largest id is. */
static const char *const max_id_sql[K_COUNT] = {
    [K_SOURCE] = "SELECT max(source_id) FROM main.sources",
    [K_TRACE] = "SELECT max(trace_id) FROM main.traces",
    [K_SLICE] = "SELECT max(id) FROM main.slices",
    [K_FUNC] = "SELECT max(func_id) FROM main.pstats_functions",
    [K_SERIES] = "SELECT max(series_id) FROM main.steplog_series",
    /* a source's contexts start above its series' ctx_base */
    [K_CTX] = "SELECT max(coalesce((SELECT max(ctx_id) FROM main.steplog_contexts), 0),"
              " coalesce((SELECT max(ctx_base) FROM main.steplog_series), 0))",
    [K_CHUNK] = "SELECT max(chunk_id) FROM main.steplog_chunks",
};

/* Tables a REFERENCES clause points at, and the kind of id it holds. */
static const struct {
    const char *table;
    id_kind kind;
} referenced[] = {
    {"runs", K_RUN}, {"strings", K_STRING}, {"sources", K_SOURCE}, {"traces", K_TRACE},
    {"slices", K_SLICE}, {"pstats_functions", K_FUNC}, {"steplog_series", K_SERIES},
};

/* Id columns the schema does not declare with REFERENCES (table NULL: in
 * any table). */
static const struct {
    const char *table, *column;
    id_kind kind;
} column_rules[] = {
    {NULL, "run_id", K_RUN},
    {NULL, "source_id", K_SOURCE},
    {NULL, "trace_id", K_TRACE},
    {NULL, "func_id", K_FUNC},
    {NULL, "series_id", K_SERIES},
    {NULL, "ctx_id", K_CTX},
    {NULL, "ctx_base", K_CTX},
    {NULL, "chunk_id", K_CHUNK},
    {"slices", "id", K_SLICE},
    {"trace_steps", "slice_id", K_SLICE},
    {"steplog_chunks", "ctx", K_CTX},
    {"analysis_gpu_attribution", "slice_id", K_SLICE},
    {"analysis_gpu_attribution", "launch_id", K_SLICE},
    {"analysis_gpu_attribution", "op_id", K_SLICE},
    {"analysis_gpu_attribution", "name", K_STRING},
    {"analysis_gpu_attribution", "op", K_STRING},
    {"analysis_gpu_attribution", "top_op", K_STRING},
    {"analysis_gpu_attribution", "annotation", K_STRING},
    {"analysis_gpu_attribution", "gpu_annotation", K_STRING},
    {"analysis_gpu_attribution", "module", K_STRING},
};

/* How a table is copied. */
typedef enum { COPY_ALL, COPY_OR_IGNORE, COPY_FRESH_RUNS, COPY_UNLESS_ADDED, COPY_NOT } copy_mode;

static copy_mode copy_mode_of(const char *table)
{
    /* runs and strings are mapped by name and value; the slots are constant */
    if (strcmp(table, "runs") == 0 || strcmp(table, "strings") == 0 ||
        strcmp(table, "steplog_slots") == 0 || pdb_skip_prefix(table, "sqlite_", NULL))
        return COPY_NOT;
    /* a label the target (or an earlier shard) has for the run stays; the
     * built-in metric rules are in every database, user rules are kept */
    if (strcmp(table, "run_labels") == 0 || strcmp(table, "steplog_metric_rules") == 0)
        return COPY_OR_IGNORE;
    /* summaries of a whole run: kept only for runs the shard brings whole */
    if (strcmp(table, "run_summaries") == 0)
        return COPY_FRESH_RUNS;
    /* pstats statistics of a run that has some are added (merge_pstats.c) */
    if (strcmp(table, "pstats_functions") == 0 || strcmp(table, "pstats_edges") == 0)
        return COPY_UNLESS_ADDED;
    return COPY_ALL;
}

/* The state of one merge into one target. */
typedef struct {
    sqlite3 *db;
    const pdb_merge_opts *o;
    int64_t runs_before;       /* o->runs_before */
    int64_t offset[K_COUNT];   /* per shifted kind, for the shard being merged */
    bool strings_identity;     /* the shard's string ids are the target's */
    int64_t shard_strings;     /* then: its ids are 1 to this */
    pdb_buf sql;
} merger;

/* ---- small helpers -------------------------------------------------------- */

static int exec_fmt(sqlite3 *db, pdb_buf *b, const char *fmt, ...) PDB_PRINTF(3, 4);

static int exec_fmt(sqlite3 *db, pdb_buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    assert(n >= 0 && (size_t)n < sizeof tmp); /* only short, generated SQL goes here */
    pdb_buf_reset(b);
    pdb_buf_adds(b, tmp);
    return pdb_db_exec(db, pdb_buf_str(b));
}

static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    return pdb_db_query_int(db, sql, 0, out);
}

/* The kind of id a column holds: a rule, else its REFERENCES clause. */
static int kind_of(sqlite3 *db, const char *table, const char *column, id_kind *kind)
{
    *kind = K_NONE;
    for (size_t i = 0; i < sizeof column_rules / sizeof *column_rules; i++)
        if ((!column_rules[i].table || strcmp(column_rules[i].table, table) == 0) &&
            strcmp(column_rules[i].column, column) == 0) {
            *kind = column_rules[i].kind;
            return PDB_OK;
        }
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "SELECT \"table\" FROM pragma_foreign_key_list(?1, 'main')"
                           " WHERE \"from\" = ?2", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int rc = PDB_OK;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *to = (const char *)sqlite3_column_text(st, 0);
        size_t i = 0;
        while (i < sizeof referenced / sizeof *referenced && strcmp(referenced[i].table, to) != 0)
            i++;
        if (i < sizeof referenced / sizeof *referenced)
            *kind = referenced[i].kind;
        else
            rc = pdb_fail("merge: %s.%s refers to table %s, whose ids merge does not re-key",
                          table, column, to);
    }
    pdb_db_release(st);
    return rc;
}

/* A string id the shard's strings table lacks: a damaged shard, refused
 * here rather than copied as a NULL or a wrong name that a later analysis
 * trips over. merge_missing_string(column, id) is evaluated only then. */
static void missing_string(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    char *msg = sqlite3_mprintf("%s refers to string id %lld, which its strings table lacks "
                                "(a damaged database)", (const char *)sqlite3_value_text(argv[0]),
                                (long long)sqlite3_value_int64(argv[1]));
    sqlite3_result_error(ctx, msg ? msg : "a string id its strings table lacks", -1);
    sqlite3_free(msg);
}

/* The SELECT expression of one column of shard table x. */
static void add_expr(merger *m, pdb_buf *b, const char *schema, const char *table,
                     const char *column, id_kind kind)
{
    if (kind == K_RUN)
        pdb_buf_addf(b, "(SELECT new FROM temp.merge_runs WHERE old = x.\"%s\")", column);
    else if (kind == K_STRING && m->strings_identity)
        /* ids copied as they are; the shard's are 1..count (checked), so a
         * range test finds a missing one without a lookup per row */
        pdb_buf_addf(b, "CASE WHEN x.\"%s\" IS NULL OR x.\"%s\" BETWEEN 1 AND %lld"
                     " THEN x.\"%s\" ELSE merge_missing_string('%s.%s', x.\"%s\") END",
                     column, column, (long long)m->shard_strings, column, table, column, column);
    else if (kind == K_STRING)
        pdb_buf_addf(b, "coalesce((SELECT new FROM temp.merge_strings WHERE old = x.\"%s\"),"
                     " CASE WHEN x.\"%s\" IS NOT NULL THEN merge_missing_string('%s.%s',"
                     " x.\"%s\") END)", column, column, table, column, column);
    else if (kind > K_STRING && m->offset[kind] != 0)
        pdb_buf_addf(b, "x.\"%s\" + %lld", column, (long long)m->offset[kind]);
    else
        pdb_buf_addf(b, "x.\"%s\"", column);
}

/* Builds INSERT INTO main.T (...) SELECT ... FROM shard.T for one table. */
static int build_copy(merger *m, const char *schema, const char *table, copy_mode mode)
{
    pdb_buf cols = PDB_BUF_INIT, exprs = PDB_BUF_INIT;
    sqlite3_stmt *st;
    if (pdb_db_prepare(m->db, "SELECT name, pk, upper(type) FROM pragma_table_info(?1, 'main')"
                              " ORDER BY cid", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc = PDB_OK, pks = 0;
    bool unkeyed_int_pk = false;
    while (rc == PDB_OK && sqlite3_step(st) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(st, 0);
        id_kind kind;
        rc = kind_of(m->db, table, col, &kind);
        if (sqlite3_column_int(st, 1) > 0) {
            pks++;
            unkeyed_int_pk = kind == K_NONE &&
                             strcmp((const char *)sqlite3_column_text(st, 2), "INTEGER") == 0;
        }
        pdb_buf_addf(&cols, "%s\"%s\"", cols.len ? ", " : "", col);
        if (exprs.len)
            pdb_buf_adds(&exprs, ", ");
        add_expr(m, &exprs, schema, table, col, kind);
    }
    pdb_db_release(st);
    /* An INTEGER PRIMARY KEY alone is the rowid: an id that must be re-keyed. */
    if (rc == PDB_OK && pks == 1 && unkeyed_int_pk)
        rc = pdb_fail("merge: table %s has row ids that merge does not re-key", table);
    pdb_buf_reset(&m->sql);
    pdb_buf_addf(&m->sql, "INSERT %sINTO main.\"%s\" (%s) SELECT %s FROM %s.\"%s\" x",
                 mode == COPY_OR_IGNORE ? "OR IGNORE " : "", table, pdb_buf_str(&cols),
                 pdb_buf_str(&exprs), schema, table);
    if (mode == COPY_FRESH_RUNS)
        pdb_buf_adds(&m->sql, " WHERE x.run_id IN (SELECT old FROM temp.merge_runs WHERE fresh)");
    if (mode == COPY_UNLESS_ADDED)
        pdb_buf_adds(&m->sql, " WHERE x.run_id NOT IN (SELECT old FROM temp.merge_pstats_runs)");
    pdb_buf_free(&cols);
    pdb_buf_free(&exprs);
    return rc;
}

/* ---- runs, strings, conflicts ------------------------------------------------ */

/* As ingest does with a run name that exists: refuse, or delete with
 * --replace. Only runs the target held before the merge began count; runs
 * an earlier shard of this merge created are joined. */
static int settle_existing_runs(merger *m, const char *schema)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT m.run_id, m.name FROM %s.runs r JOIN main.runs m"
             " ON m.name = r.name WHERE m.run_id <= %lld ORDER BY r.run_id LIMIT 1",
             schema, (long long)m->runs_before);
    for (;;) {
        sqlite3_stmt *st;
        if (pdb_db_prepare(m->db, sql, &st) != PDB_OK)
            return PDB_ERR;
        int step = sqlite3_step(st);
        if (step != SQLITE_ROW) {
            sqlite3_finalize(st);
            return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(m->db, "database error");
        }
        int64_t run_id = sqlite3_column_int64(st, 0);
        if (!m->o->replace) {
            pdb_fail("run '%s' already exists (use --replace to replace it)",
                     (const char *)sqlite3_column_text(st, 1));
            sqlite3_finalize(st);
            return PDB_ERR;
        }
        sqlite3_finalize(st);
        if (pdb_run_delete(m->db, run_id) != PDB_OK)
            return PDB_ERR;
    }
}

/* Runs of the shard: joined to the target's run of the same name, or new
 * (fresh); temp.merge_runs maps the shard's ids to the target's. */
static int map_runs(merger *m, const char *schema)
{
    if (m->o->as_ingest && settle_existing_runs(m, schema) != PDB_OK)
        return PDB_ERR;
    int64_t last;
    if (pdb_run_last_id(m->db, &last) != PDB_OK)
        return PDB_ERR;
    /* One ingest's runs are created in input order, and `profdb trend` puts
     * runs created in the same second in run id order: a worker's run is not
     * older than the runs this ingest created before it. */
    char created[160] = "created_at";
    if (m->o->as_ingest)
        snprintf(created, sizeof created, "max(created_at, coalesce((SELECT max(created_at)"
                 " FROM main.runs WHERE run_id > %lld), ''))", (long long)m->runs_before);
    if (exec_fmt(m->db, &m->sql, "INSERT INTO main.runs (name, created_at)"
                 " SELECT name, %s FROM %s.runs r WHERE NOT EXISTS"
                 " (SELECT 1 FROM main.runs m WHERE m.name = r.name) ORDER BY run_id",
                 created, schema) != PDB_OK ||
        pdb_db_exec(m->db, "DELETE FROM temp.merge_runs") != PDB_OK)
        return PDB_ERR;
    return exec_fmt(m->db, &m->sql, "INSERT INTO temp.merge_runs (old, new, fresh)"
                    " SELECT r.run_id, m.run_id, m.run_id > %lld FROM %s.runs r"
                    " JOIN main.runs m ON m.name = r.name", (long long)last, schema);
}

/* Strings of the shard, interned in the target; the map is skipped when it
 * is the identity (the first shard into an empty target). */
static int map_strings(merger *m, const char *schema)
{
    int64_t moved;
    if (exec_fmt(m->db, &m->sql, "INSERT OR IGNORE INTO main.strings (value)"
                 " SELECT value FROM %s.strings ORDER BY id", schema) != PDB_OK ||
        pdb_db_exec(m->db, "DELETE FROM temp.merge_strings") != PDB_OK ||
        exec_fmt(m->db, &m->sql, "INSERT INTO temp.merge_strings (old, new)"
                 " SELECT o.id, t.id FROM %s.strings o JOIN main.strings t ON t.value = o.value",
                 schema) != PDB_OK ||
        query_int(m->db, "SELECT EXISTS (SELECT 1 FROM temp.merge_strings WHERE old <> new)",
                  &moved) != PDB_OK)
        return PDB_ERR;
    /* the identity's range test needs ids 1..count (profdb never deletes a
     * string); a shard with gaps is mapped like any other */
    int64_t gaps = 1;
    if (!moved) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT coalesce(max(id), 0) <> count(*) FROM %s.strings",
                 schema);
        if (query_int(m->db, sql, &gaps) != PDB_OK)
            return PDB_ERR;
        snprintf(sql, sizeof sql, "SELECT count(*) FROM %s.strings", schema);
        if (query_int(m->db, sql, &m->shard_strings) != PDB_OK)
            return PDB_ERR;
    }
    m->strings_identity = !moved && !gaps;
    return PDB_OK;
}

/* The message for a rank a run has twice: as ingest says it when one
 * session meets a rank twice, or naming the shard for `profdb merge`. */
static int rank_conflict(const pdb_merge_opts *o, const char *shard, const char *run,
                         int64_t rank, const char *from, const char *trace)
{
    if (o->as_ingest)
        return pdb_fail("%s: rank %lld (from %s) is already in this run; ingest the file as a "
                        "run of its own", trace, (long long)rank, from);
    return pdb_fail("%s: run '%s' already has rank %lld, which %s in this shard also has; "
                    "merge it into another database or ingest it under another run name",
                    shard, run, (long long)rank, trace);
}

/* A run that gains ranks must not get one it has already. */
static int check_ranks(merger *m, const char *schema, const char *path)
{
    char sql[768];
    snprintf(sql, sizeof sql,
             "SELECT t.rank, t.rank_from, s.path, r.name FROM %s.traces t"
             " JOIN temp.merge_runs mr ON mr.old = t.run_id"
             " JOIN %s.sources s ON s.source_id = t.source_id JOIN %s.runs r ON r.run_id = t.run_id"
             " WHERE EXISTS (SELECT 1 FROM main.traces o WHERE o.run_id = mr.new"
             " AND o.rank = t.rank) ORDER BY t.trace_id LIMIT 1", schema, schema, schema);
    sqlite3_stmt *st;
    if (pdb_db_prepare(m->db, sql, &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK, step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        rc = rank_conflict(m->o, path, (const char *)sqlite3_column_text(st, 3),
                           sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
                           (const char *)sqlite3_column_text(st, 2));
    else if (step != SQLITE_DONE)
        rc = pdb_db_fail(m->db, "database error");
    sqlite3_finalize(st);
    return rc;
}

/* Runs whose pstats statistics the target and the shard both have: the
 * shard's are added (merge_pstats.c), not copied. */
static int find_pstats_runs(merger *m, const char *schema, bool *any)
{
    int64_t n;
    if (pdb_db_exec(m->db, "DELETE FROM temp.merge_pstats_runs") != PDB_OK ||
        exec_fmt(m->db, &m->sql, "INSERT INTO temp.merge_pstats_runs (old, new)"
                 " SELECT mr.old, mr.new FROM temp.merge_runs mr WHERE NOT mr.fresh"
                 " AND EXISTS (SELECT 1 FROM %s.pstats_functions f WHERE f.run_id = mr.old)"
                 " AND EXISTS (SELECT 1 FROM main.pstats_functions f WHERE f.run_id = mr.new)",
                 schema) != PDB_OK ||
        query_int(m->db, "SELECT count(*) FROM temp.merge_pstats_runs", &n) != PDB_OK)
        return PDB_ERR;
    *any = n > 0;
    return PDB_OK;
}

/* A run that gains ranks needs its trend summaries computed again. */
static int forget_gaining_runs(merger *m)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(m->db, "merge.runs_gaining", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = pdb_run_forget_caches(m->db, sqlite3_column_int64(st, 0));
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(m->db, "database error");
    sqlite3_finalize(st);
    return rc;
}

/* ---- one shard --------------------------------------------------------------- */

static int attach(merger *m, const char *path, const char *schema)
{
    sqlite3_stmt *st;
    char sql[64];
    snprintf(sql, sizeof sql, "ATTACH ?1 AS %s", schema);
    if (pdb_db_prepare(m->db, sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pdb_fail("%s: cannot attach: %s", path, sqlite3_errmsg(m->db));
    /* checked before, but the file may have changed since */
    int64_t version, app;
    snprintf(sql, sizeof sql, "PRAGMA %s.user_version", schema);
    if (query_int(m->db, sql, &version) != PDB_OK)
        return PDB_ERR;
    snprintf(sql, sizeof sql, "PRAGMA %s.application_id", schema);
    if (query_int(m->db, sql, &app) != PDB_OK)
        return PDB_ERR;
    if (app != PDB_APPLICATION_ID || version != PDB_SCHEMA_VERSION)
        return pdb_fail("%s: changed while being merged (no longer a profdb database of "
                        "schema version %d)", path, PDB_SCHEMA_VERSION);
    return PDB_OK;
}

static int compute_offsets(merger *m)
{
    for (int k = K_SOURCE; k < K_COUNT; k++)
        if (query_int(m->db, max_id_sql[k], &m->offset[k]) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

/* Copies every table of the shard (see the file comment). */
static int copy_tables(merger *m, const char *schema)
{
    sqlite3_stmt *tables;
    if (pdb_db_prepare(m->db, "SELECT name FROM main.sqlite_schema WHERE type = 'table'"
                              " ORDER BY rowid", &tables) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    while (rc == PDB_OK && sqlite3_step(tables) == SQLITE_ROW) {
        char *table = pdb_xstrdup((const char *)sqlite3_column_text(tables, 0));
        copy_mode mode = copy_mode_of(table);
        if (mode != COPY_NOT) {
            rc = build_copy(m, schema, table, mode);
            if (rc == PDB_OK)
                rc = pdb_db_exec(m->db, pdb_buf_str(&m->sql));
        }
        free(table);
    }
    sqlite3_finalize(tables);
    return rc;
}

static int merge_shard(merger *m, const char *path, int index)
{
    char schema[16];
    snprintf(schema, sizeof schema, "shard%d", index);
    if (attach(m, path, schema) != PDB_OK || compute_offsets(m) != PDB_OK ||
        map_runs(m, schema) != PDB_OK || map_strings(m, schema) != PDB_OK ||
        check_ranks(m, schema, path) != PDB_OK)
        return PDB_ERR;
    bool add_pstats;
    if (find_pstats_runs(m, schema, &add_pstats) != PDB_OK || forget_gaining_runs(m) != PDB_OK ||
        copy_tables(m, schema) != PDB_OK)
        return PDB_ERR;
    if (!add_pstats)
        return PDB_OK;
    return pdb_merge_pstats(m->db, schema, path, m->offset[K_FUNC], m->offset[K_SOURCE]);
}

/* ---- many shards ----------------------------------------------------------- */

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The target's bulk indexes are dropped and rebuilt once at the end only
 * when the shards are large next to the target: inserting into them costs
 * about twice an insert without, while a rebuild also covers what the
 * target held (measured: 135,000 slices, 0.28 s kept, 0.24 s + 0.10 s per
 * 135,000 slices already there when rebuilt). */
static bool shards_are_large(sqlite3 *db, const char *const *shards, int n)
{
    int64_t pages = 0, size = 0, bytes = 0;
    pdb_db_query_int(db, "PRAGMA main.page_count", 0, &pages);
    pdb_db_query_int(db, "PRAGMA main.page_size", 0, &size);
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(shards[i], &st) == 0)
            bytes += st.st_size;
    }
    return bytes >= pages * size * 4;
}

/* An error while merging a shard names it (SQLite's own message does not). */
static void name_shard(const char *path)
{
    const char *msg = pdb_errmsg();
    size_t n = strlen(path);
    if (strncmp(msg, path, n) == 0 && msg[n] == ':')
        return;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", msg);
    pdb_fail("%s: %s", path, copy);
}

/* Merges up to MAX_ATTACHED shards into m->db. */
static int merge_batch(merger *m, const char *const *shards, int n)
{
    assert(n <= MAX_ATTACHED);
    const char *target = sqlite3_db_filename(m->db, "main");
    for (int i = 0; i < n; i++)
        if (target && *target && same_file(shards[i], target))
            return pdb_fail("%s: is the target database itself", shards[i]);
    if (pdb_ingest_exec(m->db, "merge.create_tables") != PDB_OK ||
        sqlite3_create_function(m->db, "merge_missing_string", 2, SQLITE_UTF8, NULL,
                                missing_string, NULL, NULL) != SQLITE_OK)
        return PDB_ERR;
    pdb_buf indexes = PDB_BUF_INIT;
    int rc = PDB_OK;
    if (shards_are_large(m->db, shards, n))
        rc = pdb_bulk_indexes_drop(m->db, &indexes);
    for (int i = 0; i < n && rc == PDB_OK; i++)
        if ((rc = merge_shard(m, shards[i], i)) != PDB_OK && !m->o->as_ingest)
            name_shard(shards[i]); /* an ingest's own shards: its messages name inputs */
    if (rc == PDB_OK && indexes.len)
        rc = pdb_db_exec(m->db, indexes.p);
    if (rc == PDB_OK)
        rc = pdb_ingest_exec(m->db, "merge.drop_tables");
    pdb_buf_free(&indexes);
    return rc;
}

static int merge_into(sqlite3 *db, const char *const *shards, int n, const pdb_merge_opts *o);

/* The ranks the target's runs have that shards may join: all of them, or
 * with as_ingest those this ingest created (other runs are refused or
 * replaced), into table seen of the scratch connection mem. A few rows, one
 * per trace. */
static int seen_in_target(sqlite3 *db, sqlite3 *mem, const pdb_merge_opts *o)
{
    sqlite3_stmt *get, *put;
    if (pdb_db_prepare(db, "SELECT r.name, t.rank, s.path FROM main.traces t"
                           " JOIN main.runs r USING (run_id) JOIN main.sources s"
                           " USING (source_id) WHERE r.run_id > ?", &get) != PDB_OK)
        return PDB_ERR;
    if (pdb_db_prepare(mem, "INSERT INTO seen VALUES (?, ?, ?)", &put) != PDB_OK) {
        sqlite3_finalize(get);
        return PDB_ERR;
    }
    sqlite3_bind_int64(get, 1, o->as_ingest ? o->runs_before : 0);
    int rc = PDB_OK;
    while (rc == PDB_OK && sqlite3_step(get) == SQLITE_ROW) {
        for (int c = 0; c < 3; c++)
            sqlite3_bind_value(put, c + 1, sqlite3_column_value(get, c));
        rc = pdb_db_step_done(mem, put);
    }
    sqlite3_finalize(get);
    sqlite3_finalize(put);
    return rc;
}

/* One shard's ranks against those seen before it (mem: see above). */
static int check_shard_ranks(sqlite3 *mem, const char *shard, const pdb_merge_opts *o)
{
    static const char *const find =
        "SELECT r.name, t.rank, t.rank_from, s.path FROM shard.traces t"
        " JOIN shard.runs r USING (run_id) JOIN shard.sources s USING (source_id)"
        " JOIN seen ON seen.name = r.name AND seen.rank = t.rank ORDER BY t.trace_id LIMIT 1";
    sqlite3_stmt *st;
    if (pdb_db_prepare(mem, "ATTACH ?1 AS shard", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, shard, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(mem, st);
    sqlite3_finalize(st);
    if (rc != PDB_OK || pdb_db_prepare(mem, find, &st) != PDB_OK)
        return PDB_ERR;
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        rc = rank_conflict(o, shard, (const char *)sqlite3_column_text(st, 0),
                           sqlite3_column_int64(st, 1), (const char *)sqlite3_column_text(st, 2),
                           (const char *)sqlite3_column_text(st, 3));
    else if (step != SQLITE_DONE)
        rc = pdb_db_fail(mem, "database error");
    sqlite3_finalize(st);
    if (rc == PDB_OK)
        rc = pdb_db_exec(mem, "INSERT INTO seen SELECT r.name, t.rank, s.path FROM shard.traces t"
                              " JOIN shard.runs r USING (run_id) JOIN shard.sources s"
                              " USING (source_id)");
    sqlite3_exec(mem, "DETACH shard", NULL, NULL, NULL);
    return rc;
}

/* Before merging in groups: a rank that two shards (or a shard and the
 * target) give one run is found here, where the message can still name the
 * shard rather than an intermediate file. Reads only the traces tables, in
 * a scratch connection (a transaction cannot detach what it has read). */
static int check_ranks_across(sqlite3 *db, const char *const *shards, int n,
                              const pdb_merge_opts *o)
{
    sqlite3 *mem;
    if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        sqlite3_close(mem);
        return pdb_fail("cannot open a scratch database");
    }
    int rc = pdb_db_exec(mem, "CREATE TABLE seen (name TEXT, rank INTEGER, trace TEXT,"
                              " PRIMARY KEY (name, rank))");
    if (rc == PDB_OK)
        rc = seen_in_target(db, mem, o);
    for (int i = 0; i < n && rc == PDB_OK; i++)
        rc = check_shard_ranks(mem, shards[i], o);
    pdb_db_close(mem);
    return rc;
}

/* Merges shards[0..n) into a new database file path (its own transaction). */
static int merge_to_file(const char *path, const char *const *shards, int n)
{
    sqlite3 *db;
    if (pdb_db_open(path, PDB_DB_CREATE | PDB_DB_PRIVATE, &db) != PDB_OK)
        return PDB_ERR;
    pdb_merge_opts o = {0};
    int rc = pdb_db_exec(db, "BEGIN");
    if (rc == PDB_OK)
        rc = merge_into(db, shards, n, &o);
    if (rc == PDB_OK)
        rc = pdb_db_exec(db, "COMMIT");
    pdb_db_close(db);
    return rc;
}

/* More shards than SQLite attaches at once: groups of them are merged into
 * intermediate files in tmpdir first, and those into db. */
static int merge_in_groups(sqlite3 *db, const char *const *shards, int n,
                           const pdb_merge_opts *o)
{
    char *dir = NULL;
    const char *target = sqlite3_db_filename(db, "main");
    if (o->tmpdir)
        dir = pdb_xstrdup(o->tmpdir);
    else if (pdb_shard_dir_make(target && *target ? target : "profdb.db", &dir) != PDB_OK)
        return PDB_ERR;
    if (check_ranks_across(db, shards, n, o) != PDB_OK) {
        if (!o->tmpdir)
            pdb_shard_dir_remove(dir);
        free(dir);
        return PDB_ERR;
    }
    int groups = (n + MAX_ATTACHED - 1) / MAX_ATTACHED;
    char **parts = pdb_xmalloc((size_t)groups * sizeof *parts);
    int made = 0, rc = PDB_OK;
    for (int g = 0; g < groups && rc == PDB_OK; g++) {
        pdb_buf p = PDB_BUF_INIT;
        pdb_buf_addf(&p, "%s/merge-%d-%d.db", dir, n, g);
        parts[made++] = p.p;
        int first = g * MAX_ATTACHED;
        int count = n - first < MAX_ATTACHED ? n - first : MAX_ATTACHED;
        rc = merge_to_file(p.p, shards + first, count);
    }
    if (rc == PDB_OK)
        rc = merge_into(db, (const char *const *)parts, groups, o);
    for (int i = 0; i < made; i++) {
        pdb_buf aux = PDB_BUF_INIT;
        unlink(parts[i]);
        pdb_buf_addf(&aux, "%s-journal", parts[i]);
        unlink(aux.p);
        pdb_buf_free(&aux);
        free(parts[i]);
    }
    free(parts);
    if (!o->tmpdir)
        pdb_shard_dir_remove(dir);
    free(dir);
    return rc;
}

static int merge_into(sqlite3 *db, const char *const *shards, int n, const pdb_merge_opts *o)
{
    if (n > MAX_ATTACHED)
        return merge_in_groups(db, shards, n, o);
    merger m = {.db = db, .o = o, .runs_before = o->runs_before};
    int rc = merge_batch(&m, shards, n);
    pdb_buf_free(&m.sql);
    return rc;
}

int pdb_merge(sqlite3 *db, const char *const *shards, int n, const pdb_merge_opts *o)
{
    for (int i = 0; i < n; i++)
        if (pdb_merge_check(shards[i]) != PDB_OK)
            return PDB_ERR;
    return merge_into(db, shards, n, o);
}
