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
#include "ingest/shards/shard_file.h"
#include "ingest/ingest.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"
#include "common/query.h"
#include "common/query_db.h"

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
    K_PYPROFILE, K_PYFRAME, K_PYNODE,
    K_COUNT
} id_kind;

/* For shifted kinds: the query of the target's largest id (merge.sql). */
static const char *const max_id_query[K_COUNT] = {
    [K_SOURCE] = "merge.max_source", [K_TRACE] = "merge.max_trace",
    [K_SLICE] = "merge.max_slice",   [K_FUNC] = "merge.max_func",
    [K_SERIES] = "merge.max_series", [K_CTX] = "merge.max_ctx",
    [K_CHUNK] = "merge.max_chunk",   [K_PYPROFILE] = "merge.max_pyprofile",
    [K_PYFRAME] = "merge.max_pyframe", [K_PYNODE] = "merge.max_pynode",
};

/* Tables a REFERENCES clause points at, and the kind of id it holds. */
static const struct {
    const char *table;
    id_kind kind;
} referenced[] = {
    {"runs", K_RUN}, {"strings", K_STRING}, {"sources", K_SOURCE}, {"traces", K_TRACE},
    {"slices", K_SLICE}, {"pstats_functions", K_FUNC}, {"steplog_series", K_SERIES},
    {"pyspy_profiles", K_PYPROFILE}, {"pyspy_frames", K_PYFRAME}, {"pyspy_nodes", K_PYNODE},
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
    {NULL, "profile_id", K_PYPROFILE},
    {NULL, "frame_id", K_PYFRAME},
    {NULL, "node_id", K_PYNODE},
    {"pyspy_nodes", "parent_id", K_PYNODE}, /* 0 at a root stays 0 (merge.sql) */
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

/* How a table is copied, and the query that copies it (merge.sql). */
typedef enum {
    COPY_ALL, COPY_OR_IGNORE, COPY_FRESH_RUNS, COPY_FRESH_PAIRS, COPY_UNLESS_ADDED, COPY_NOT,
    COPY_EVENTS /* COPY_ALL, but left in the shard with o->shard_backed */
} copy_mode;
static const char *const copy_query[] = {
    [COPY_ALL] = "merge.copy", [COPY_OR_IGNORE] = "merge.copy_or_ignore",
    [COPY_FRESH_RUNS] = "merge.copy_fresh_runs", [COPY_FRESH_PAIRS] = "merge.copy_fresh_pairs",
    [COPY_UNLESS_ADDED] = "merge.copy_unless_added", [COPY_EVENTS] = "merge.copy",
};

/* The tables whose rows grow with a rank's events: a merge without --full
 * leaves them in the shard (schemas/90_shards.sql). Everything else (runs,
 * sources, traces, their counts and metadata, the step windows, the
 * per-rank analysis tables) is copied. */
static const char *const event_tables[] = {
    "slices", "instants", "counters", "flows", "metadata_events",
    "analysis_gpu_attribution", "analysis_memory_allocs",
};

static copy_mode copy_mode_of(const char *table)
{
    /* runs and strings are mapped by name and value; the slots are constant */
    if (strcmp(table, "runs") == 0 || strcmp(table, "strings") == 0 ||
        strcmp(table, "steplog_slots") == 0 || pdb_skip_prefix(table, "sqlite_", NULL))
        return COPY_NOT;
    /* a label the target (or an earlier shard) has for the run stays; the
     * built-in metric rules are in every database, user rules are kept */
    if (strcmp(table, "run_labels") == 0 || strcmp(table, "steplog_metric_rules") == 0 ||
        strcmp(table, "steplog_patterns") == 0)
        return COPY_OR_IGNORE;
    /* summaries of a whole run: kept only for runs the shard brings whole */
    if (strcmp(table, "run_summaries") == 0)
        return COPY_FRESH_RUNS;
    /* saved diffs of two runs the shard brings whole (a run that gains
     * ranks has its diffs forgotten: pdb_run_forget_caches) */
    if (strcmp(table, "diffs") == 0 || strcmp(table, "diff_rows") == 0)
        return COPY_FRESH_PAIRS;
    /* pstats statistics of a run that has some are added (merge_pstats.c) */
    if (strcmp(table, "pstats_functions") == 0 || strcmp(table, "pstats_edges") == 0)
        return COPY_UNLESS_ADDED;
    for (size_t i = 0; i < sizeof event_tables / sizeof *event_tables; i++)
        if (strcmp(table, event_tables[i]) == 0)
            return COPY_EVENTS;
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

/* merge.sql's queries of the attached shard schema. */
static const char *const *shard_fill(const char *schema, const char *fill[3])
{
    fill[0] = "schema";
    fill[1] = schema;
    fill[2] = NULL;
    return fill;
}

static int prepare_in(sqlite3 *db, const char *name, const char *schema, sqlite3_stmt **st)
{
    const char *fill[3];
    return pdb_query_prepare(db, pdb_ingest_queries, name, shard_fill(schema, fill), st);
}

/* Runs query name of schema, which returns no rows, with ?1 = arg. */
static int run_in(sqlite3 *db, const char *name, const char *schema, int64_t arg)
{
    sqlite3_stmt *st;
    if (prepare_in(db, name, schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, arg);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

static int int_in(sqlite3 *db, const char *name, const char *schema, int64_t *out)
{
    const char *fill[3];
    return pdb_query_int(db, pdb_ingest_queries, name, shard_fill(schema, fill), 0, out);
}

static int query_int(sqlite3 *db, const char *name, int64_t *out)
{
    return pdb_ingest_int(db, name, 0, out);
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
    if (pdb_ingest_prepare(db, "merge.references", &st) != PDB_OK)
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

/* The shifted kinds as the copy's offset parameters name them
 * (":offset_source", ...: merge.sql's value_shifted). */
static const char *const kind_name[K_COUNT] = {
    [K_SOURCE] = "source", [K_TRACE] = "trace", [K_SLICE] = "slice", [K_FUNC] = "func",
    [K_SERIES] = "series", [K_CTX] = "ctx",     [K_CHUNK] = "chunk",
    [K_PYPROFILE] = "pyprofile", [K_PYFRAME] = "pyframe", [K_PYNODE] = "pynode",
};
static const char *const offset_param[K_COUNT] = {
    [K_SOURCE] = ":offset_source", [K_TRACE] = ":offset_trace", [K_SLICE] = ":offset_slice",
    [K_FUNC] = ":offset_func", [K_SERIES] = ":offset_series", [K_CTX] = ":offset_ctx",
    [K_CHUNK] = ":offset_chunk", [K_PYPROFILE] = ":offset_pyprofile",
    [K_PYFRAME] = ":offset_pyframe", [K_PYNODE] = ":offset_pynode",
};

/* Appends the expression of value query name to b: merge.sql writes each
 * as a query of one column, "SELECT EXPR FROM {schema}.\"{table}\" x" (so
 * that the test prepares it), after its comment lines. {table}, {column}
 * and {kind} filled in. */
static void add_value(pdb_buf *b, const char *name, const char *table, const char *column,
                      id_kind kind)
{
    static const char tail[] = " FROM {schema}.\"{table}\" x";
    const char *sql = pdb_ingest_sql(name);
    while (strncmp(sql, "--", 2) == 0 && strchr(sql, '\n'))
        sql = strchr(sql, '\n') + 1;
    size_t len = strlen(sql), verb = strspn(sql, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    while (len && sql[len - 1] == '\n')
        len--;
    assert(verb > 0 && sql[verb] == ' ' && len >= verb + 1 + strlen(tail) &&
           strncmp(sql + len - strlen(tail), tail, strlen(tail)) == 0);
    pdb_buf expr = PDB_BUF_INIT;
    pdb_buf_add(&expr, sql + verb + 1, len - verb - 1 - strlen(tail));
    pdb_query_fill(pdb_buf_str(&expr),
                   (const char *const[]){"table", table, "column", column, "kind",
                                         kind_name[kind] ? kind_name[kind] : "", NULL},
                   b);
    pdb_buf_free(&expr);
}

int pdb_merge_sql_functions(sqlite3 *db)
{
    if (sqlite3_create_function(db, "merge_missing_string", 2, SQLITE_UTF8, NULL,
                                missing_string, NULL, NULL) != SQLITE_OK)
        return pdb_db_fail(db, "cannot register merge_missing_string");
    return PDB_OK;
}

/* The SELECT expression of one column of shard table x (merge.sql). */
static void add_expr(merger *m, pdb_buf *b, const char *table, const char *column, id_kind kind)
{
    const char *name = kind == K_RUN                                  ? "merge.value_run"
                       : kind == K_STRING && m->strings_identity      ? "merge.value_string_same"
                       : kind == K_STRING                             ? "merge.value_string"
                       : kind == K_PYNODE && m->offset[kind] != 0     ? "merge.value_shifted_node"
                       : kind > K_STRING && m->offset[kind] != 0      ? "merge.value_shifted"
                                                                      : "merge.value_same";
    add_value(b, name, table, column, kind);
}

/* Builds the copy of one table (merge.sql's copy queries) into m->sql. */
static int build_copy(merger *m, const char *schema, const char *table, copy_mode mode)
{
    pdb_buf cols = PDB_BUF_INIT, exprs = PDB_BUF_INIT;
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(m->db, "merge.columns", &st) != PDB_OK)
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
        add_expr(m, &exprs, table, col, kind);
    }
    pdb_db_release(st);
    /* An INTEGER PRIMARY KEY alone is the rowid: an id that must be re-keyed. */
    if (rc == PDB_OK && pks == 1 && unkeyed_int_pk)
        rc = pdb_fail("merge: table %s has row ids that merge does not re-key", table);
    pdb_buf_reset(&m->sql);
    pdb_query_fill(pdb_ingest_sql(copy_query[mode]),
                   (const char *const[]){"table", table, "columns", pdb_buf_str(&cols), "values",
                                         pdb_buf_str(&exprs), "schema", schema, NULL},
                   &m->sql);
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
    for (;;) {
        sqlite3_stmt *st;
        if (prepare_in(m->db, "merge.settle_run", schema, &st) != PDB_OK)
            return PDB_ERR;
        sqlite3_bind_int64(st, 1, m->runs_before);
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
    if (pdb_run_last_id(m->db, &last) != PDB_OK ||
        run_in(m->db, m->o->as_ingest ? "merge.add_runs_as_ingest" : "merge.add_runs", schema,
               m->runs_before) != PDB_OK ||
        pdb_ingest_exec(m->db, "merge.clear_runs") != PDB_OK)
        return PDB_ERR;
    return run_in(m->db, "merge.map_runs", schema, last);
}

/* Strings of the shard, interned in the target; the map is skipped when it
 * is the identity (the first shard into an empty target). */
static int map_strings(merger *m, const char *schema)
{
    int64_t moved;
    if (run_in(m->db, "merge.add_strings", schema, 0) != PDB_OK ||
        pdb_ingest_exec(m->db, "merge.clear_strings") != PDB_OK ||
        run_in(m->db, "merge.map_strings", schema, 0) != PDB_OK ||
        query_int(m->db, "merge.strings_moved", &moved) != PDB_OK)
        return PDB_ERR;
    /* the identity's range test needs ids 1..count (profdb never deletes a
     * string); a shard with gaps is mapped like any other */
    int64_t gaps = 1;
    if (!moved && (int_in(m->db, "merge.strings_gaps", schema, &gaps) != PDB_OK ||
                   int_in(m->db, "merge.strings_count", schema, &m->shard_strings) != PDB_OK))
        return PDB_ERR;
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
    sqlite3_stmt *st;
    if (prepare_in(m->db, "merge.rank_conflict", schema, &st) != PDB_OK)
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

/* A run that both the target and the shard hold py-spy profiles of. */
static int check_pyspy(merger *m, const char *schema, const char *path)
{
    sqlite3_stmt *st;
    if (prepare_in(m->db, "merge.pyspy_conflict", schema, &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK, step = sqlite3_step(st);
    if (step == SQLITE_ROW)
        rc = pdb_fail("%s: run '%s' has py-spy profiles here and in the database merged into; "
                      "merging the py-spy profiles of one run from two databases is not "
                      "supported (ingest its py-spy files into one database)", path, (const char *)sqlite3_column_text(st, 0));
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
    if (pdb_ingest_exec(m->db, "merge.clear_pstats_runs") != PDB_OK ||
        run_in(m->db, "merge.find_pstats_runs", schema, 0) != PDB_OK ||
        query_int(m->db, "merge.count_pstats_runs", &n) != PDB_OK)
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
    if (prepare_in(m->db, "merge.attach", schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return pdb_fail("%s: cannot attach: %s", path, sqlite3_errmsg(m->db));
    /* checked before, but the file may have changed since */
    int64_t version, app;
    if (int_in(m->db, "merge.user_version", schema, &version) != PDB_OK ||
        int_in(m->db, "merge.application_id", schema, &app) != PDB_OK)
        return PDB_ERR;
    if (app != PDB_APPLICATION_ID || version != PDB_SCHEMA_VERSION)
        return pdb_fail("%s: changed while being merged (no longer a profdb database of "
                        "schema version %d)", path, PDB_SCHEMA_VERSION);
    return PDB_OK;
}

static int compute_offsets(merger *m)
{
    for (int k = K_SOURCE; k < K_COUNT; k++)
        if (query_int(m->db, max_id_query[k], &m->offset[k]) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

/* Copies every table of the shard (see the file comment). */
static int copy_tables(merger *m, const char *schema)
{
    sqlite3_stmt *tables;
    if (pdb_ingest_prepare(m->db, "merge.tables", &tables) != PDB_OK)
        return PDB_ERR;
    /* the values the copies bind (merge.sql's value queries) */
    pdb_query_int_param params[K_COUNT + 1];
    int nparams = 0;
    for (int k = K_SOURCE; k < K_COUNT; k++) {
        params[nparams].name = offset_param[k];
        params[nparams++].value = m->offset[k];
    }
    params[nparams].name = ":strings";
    params[nparams++].value = m->shard_strings;
    int rc = PDB_OK;
    while (rc == PDB_OK && sqlite3_step(tables) == SQLITE_ROW) {
        char *table = pdb_xstrdup((const char *)sqlite3_column_text(tables, 0));
        copy_mode mode = copy_mode_of(table);
        if (mode == COPY_EVENTS && m->o->shard_backed)
            mode = COPY_NOT;
        if (mode != COPY_NOT) {
            rc = build_copy(m, schema, table, mode);
            if (rc == PDB_OK)
                rc = pdb_query_run(m->db, pdb_buf_str(&m->sql), params, nparams);
        }
        free(table);
    }
    sqlite3_finalize(tables);
    return rc;
}

/* A merge without --full: the shard's own traces keep their events in it
 * (before: the file as it was before it was read). It is read again after
 * the copy: a shard written meanwhile is refused, so each is taken whole or
 * not at all. */
static int record_shard_files(merger *m, const char *schema, const char *path,
                              const pdb_shard_identity *before)
{
    pdb_shard_identity after;
    if (pdb_shard_identity_read(path, &after) != PDB_OK)
        return PDB_ERR;
    if (!pdb_shard_identity_same(before, &after))
        return pdb_fail("%s: changed while being merged; merge it once it is complete", path);
    char *abs = realpath(path, NULL);
    if (!abs)
        return pdb_fail("%s: cannot resolve the shard's path: %s", path, strerror(errno));
    sqlite3_stmt *st;
    int rc = prepare_in(m->db, "merge.add_shard_files", schema, &st);
    if (rc == PDB_OK) {
        sqlite3_bind_text(st, 1, abs, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 2, after.size);
        sqlite3_bind_int64(st, 3, after.mtime_ns);
        sqlite3_bind_int64(st, 4, after.change_counter);
        sqlite3_bind_int64(st, 5, after.page_count);
        sqlite3_bind_int64(st, 6, PDB_SCHEMA_VERSION);
        sqlite3_bind_int64(st, 7, m->offset[K_TRACE]);
        rc = pdb_db_step_done(m->db, st);
        sqlite3_finalize(st);
    }
    free(abs);
    return rc;
}

static int merge_shard(merger *m, const char *path, int index)
{
    char schema[16];
    snprintf(schema, sizeof schema, "shard%d", index);
    pdb_shard_identity before;
    if (m->o->shard_backed) {
        if (pdb_shard_identity_read(path, &before) != PDB_OK)
            return PDB_ERR;
        if (before.wal)
            return pdb_fail("%s: is being written (its -wal file holds commits not yet in the "
                            "shard); merge it once it is complete", path);
    }
    if (attach(m, path, schema) != PDB_OK || compute_offsets(m) != PDB_OK ||
        map_runs(m, schema) != PDB_OK || map_strings(m, schema) != PDB_OK ||
        check_ranks(m, schema, path) != PDB_OK || check_pyspy(m, schema, path) != PDB_OK)
        return PDB_ERR;
    bool add_pstats;
    if (find_pstats_runs(m, schema, &add_pstats) != PDB_OK || forget_gaining_runs(m) != PDB_OK ||
        copy_tables(m, schema) != PDB_OK)
        return PDB_ERR;
    if (m->o->shard_backed && record_shard_files(m, schema, path, &before) != PDB_OK)
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
    int64_t bytes = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (stat(shards[i], &st) == 0)
            bytes += st.st_size;
    }
    return bytes >= pdb_db_bytes(db) * 4;
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
        pdb_merge_sql_functions(m->db) != PDB_OK)
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
    if (pdb_ingest_prepare(db, "merge.ranks_in_target", &get) != PDB_OK)
        return PDB_ERR;
    if (pdb_ingest_prepare(mem, "merge.add_seen", &put) != PDB_OK) {
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
    sqlite3_stmt *st;
    if (prepare_in(mem, "merge.attach", "shard", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, shard, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(mem, st);
    sqlite3_finalize(st);
    if (rc != PDB_OK || prepare_in(mem, "merge.shard_rank_conflict", "shard", &st) != PDB_OK)
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
        rc = run_in(mem, "merge.add_shard_seen", "shard", 0);
    const char *fill[3];
    pdb_buf detach = PDB_BUF_INIT; /* its failure must not replace an error */
    pdb_query_fill(pdb_ingest_sql("merge.detach"), shard_fill("shard", fill), &detach);
    sqlite3_exec(mem, pdb_buf_str(&detach), NULL, NULL, NULL);
    pdb_buf_free(&detach);
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
    int rc = pdb_ingest_exec(mem, "merge.create_seen");
    if (rc == PDB_OK)
        rc = seen_in_target(db, mem, o);
    for (int i = 0; i < n && rc == PDB_OK; i++)
        rc = check_shard_ranks(mem, shards[i], o);
    pdb_db_close(mem);
    return rc;
}

/* Merges shards[0..n) into a new database file path (its own transaction). */
static int merge_to_file(const char *path, const char *const *shards, int n, bool shard_backed)
{
    sqlite3 *db;
    if (pdb_db_open(path, PDB_DB_CREATE | PDB_DB_PRIVATE, &db) != PDB_OK)
        return PDB_ERR;
    pdb_merge_opts o = {.shard_backed = shard_backed};
    int rc = pdb_db_begin(db);
    if (rc == PDB_OK)
        rc = merge_into(db, shards, n, &o);
    if (rc == PDB_OK)
        rc = pdb_db_commit(db);
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
        rc = merge_to_file(p.p, shards + first, count, o->shard_backed);
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
