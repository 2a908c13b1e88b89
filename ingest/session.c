/* session.c: one `profdb ingest` command as one transaction.
 *
 * Loads the jobs ingest.c planned: sniffs each input's format, hands it to
 * its reader and records the source, its skips and timing. Bulk
 * indexes are dropped for the load and rebuilt before COMMIT; any error rolls
 * everything back so the database is exactly as it was. SIGINT and SIGTERM
 * (pdb_ingest_catch_signals) are errors too: SQLite's progress handler stops
 * the statement running, the transaction rolls back and the command says so.
 * A second signal terminates at once; SQLite's journal keeps the file whole. */
#include "ingest/ingest.h"
#include "ingest/jobs.h"
#include "ingest/queries.h"
#include "ingest/readers.h"
#include "ingest/source.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "common/query_db.h"
#include "common/runs.h"
#include "common/rowq.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef pdb_job job;
typedef pdb_job_list job_list;

/* ---- interruption and waiting ------------------------------------------ */

static int fail_interrupted(void)
{
    return pdb_fail("interrupted by %s; nothing was stored",
                    pdb_ingest_interrupted() == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* SQLite calls this every 1000 VM steps: non-zero stops the running query. */
static int stop_if_interrupted(void *arg)
{
    (void)arg;
    return pdb_ingest_interrupted() != 0;
}

/* Whether the other writer's write-ahead log changed since the last look:
 * a healthy ingest keeps appending to it (frames, then its index rebuild
 * and analysis), so a log that stays the same means a writer that stopped. */
static bool other_progressed(pdb_session *ss)
{
    char wal[4096];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", sqlite3_db_filename(ss->db, "main"));
    if (stat(wal, &st) != 0)
        return false;
    bool changed = st.st_size != ss->other_wal_size ||
                   st.st_mtim.tv_sec != ss->other_wal_mtime.tv_sec ||
                   st.st_mtim.tv_nsec != ss->other_wal_mtime.tv_nsec;
    ss->other_wal_size = st.st_size;
    ss->other_wal_mtime = st.st_mtim;
    return changed;
}

/* Waits for another process's write transaction, saying so once, for as
 * long as that process makes progress; gives up after PDB_DB_BUSY_MS
 * without any, or at once on a signal. */
static int wait_for_writer(void *arg, int count)
{
    pdb_session *ss = arg;
    if (pdb_ingest_interrupted())
        return 0;
    double now = pdb_now_seconds();
    if (count == 0) {
        ss->other_seen = now;
        other_progressed(ss);
        if (!ss->opts->quiet)
            fprintf(stderr, "profdb: %s: another process is writing; waiting while it makes "
                            "progress (up to %d s without)\n",
                    sqlite3_db_filename(ss->db, "main"), PDB_DB_BUSY_MS / 1000);
    } else if (count % 20 == 0 && other_progressed(ss)) {
        ss->other_seen = now;
    }
    if (now - ss->other_seen >= PDB_DB_BUSY_MS / 1000.0)
        return 0;
    sqlite3_sleep(count < 10 ? 10 : 50);
    return 1;
}

static void clear_progress(pdb_session *ss)
{
    if (ss->progress_shown)
        fputs("\r\033[K", stderr);
    ss->progress_shown = false;
}

/* ---- runs ------------------------------------------------------------ */

static int create_run(pdb_session *ss, const char *name, int64_t *run_id)
{
    int64_t old;
    bool found;
    if (pdb_run_find(ss->db, "main", name, &old, &found) != PDB_OK)
        return PDB_ERR;
    if (found) {
        if (!ss->opts->replace)
            return pdb_fail("run '%s' already exists (use --replace to replace it)", name);
        if (pdb_run_delete(ss->db, old) != PDB_OK)
            return PDB_ERR;
    }
    return pdb_run_create(ss->db, name, run_id);
}

static int add_labels(pdb_session *ss, int64_t run_id)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(ss->db, "session.add_label", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int i = 0; i < ss->opts->nlabels && rc == PDB_OK; i++) {
        const char *l = ss->opts->labels[i];
        const char *eq = strchr(l, '=');
        if (!eq || eq == l) {
            rc = pdb_fail("--label '%s': expected KEY=VALUE", l);
            break;
        }
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, l, (int)(eq - l), SQLITE_STATIC);
        sqlite3_bind_text(st, 3, eq + 1, -1, SQLITE_STATIC);
        rc = pdb_db_step_done(ss->db, st);
    }
    pdb_db_release(st);
    return rc;
}

/* ---- sources ---------------------------------------------------------- */

typedef struct {
    sqlite3_stmt *st;
    int rc;
} skip_flush;

static void flush_one_skip(const char *reason, size_t len, int64_t count, void *arg)
{
    skip_flush *f = arg;
    if (f->rc != PDB_OK)
        return;
    sqlite3_bind_text(f->st, 3, reason, (int)len, SQLITE_STATIC);
    sqlite3_bind_int64(f->st, 4, count);
    f->rc = pdb_db_step_done(sqlite3_db_handle(f->st), f->st);
}

static int finish_source(pdb_source *src, int64_t elapsed_ms)
{
    sqlite3 *db = src->db;
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, "session.finish_source", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, src->format ? src->format : "unknown", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, pdb_input_is_gzip(src->in));
    sqlite3_bind_int64(st, 3, pdb_input_raw_bytes(src->in));
    sqlite3_bind_int64(st, 4, src->records);
    sqlite3_bind_int64(st, 5, elapsed_ms);
    sqlite3_bind_int64(st, 6, src->source_id);
    int rc = pdb_db_step_done(db, st);
    pdb_db_release(st);
    if (rc != PDB_OK)
        return rc;
    if (pdb_ingest_prepare(db, "session.add_skip", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, src->run_id);
    sqlite3_bind_int64(st, 2, src->source_id);
    skip_flush f = {st, PDB_OK};
    pdb_strmap_each(src->skips, flush_one_skip, &f);
    pdb_db_release(st);
    return f.rc;
}

static int insert_source(pdb_source *src)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(src->db, "session.add_source", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, src->run_id);
    sqlite3_bind_text(st, 2, src->path, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(src->db, st);
    pdb_db_release(st);
    src->source_id = sqlite3_last_insert_rowid(src->db);
    return rc;
}

static void sum_skips(const char *k, size_t l, int64_t v, void *arg)
{
    *(int64_t *)arg += v;
}

typedef struct {
    pdb_buf *out;
    const char *sep;
} skip_list;

static void list_one_skip(const char *reason, size_t len, int64_t count, void *arg)
{
    skip_list *l = arg;
    pdb_buf_addf(l->out, "%s%lld %.*s", l->sep, (long long)count, (int)len, reason);
    l->sep = "; ";
}

static void report_source(pdb_session *ss, const pdb_source *src, const char *run)
{
    int64_t skipped = 0;
    pdb_strmap_each(src->skips, sum_skips, &skipped);
    pdb_buf line = PDB_BUF_INIT;
    if (ss->opts->dry_run) {
        /* Nothing is stored, so 'profdb runs' cannot show the skips: list them. */
        pdb_buf_addf(&line, "profdb: %s: %s, %lld records would go into run '%s'",
                     src->path, src->format, (long long)src->records, run);
        if (skipped) {
            pdb_buf_addf(&line, ", %lld skipped (", (long long)skipped);
            skip_list l = {&line, ""};
            pdb_strmap_each(src->skips, list_one_skip, &l);
            pdb_buf_addc(&line, ')');
        }
    } else {
        pdb_buf_addf(&line, "profdb: %s: %s into run '%s': %lld records", src->path,
                     src->format, run, (long long)src->records);
        if (skipped)
            pdb_buf_addf(&line, ", %lld skipped (see 'profdb runs')", (long long)skipped);
    }
    /* one line, whatever a file or run name holds (a newline shows as \x0A) */
    pdb_utf8_clean(&ss->report, pdb_buf_str(&line), line.len, PDB_UTF8_CONTROLS);
    pdb_buf_addc(&ss->report, '\n');
    pdb_buf_free(&line);
}

/* Picks the reader: --format wins, else the best sniffer. */
static int choose_reader(pdb_session *ss, pdb_input *in, const job *j, const pdb_reader **out)
{
    *out = NULL;
    if (ss->opts->format) {
        *out = pdb_reader_named(ss->opts->format);
        if (!*out)
            return pdb_fail("unknown --format '%s'", ss->opts->format);
        return PDB_OK;
    }
    const unsigned char *peek;
    size_t len;
    if (pdb_input_peek(in, &peek, &len) != PDB_OK)
        return PDB_ERR;
    int score;
    *out = pdb_reader_sniff(peek, len, &score);
    if (*out && (!j->from_directory || score >= PDB_SNIFF_LIKELY))
        return PDB_OK;
    if (j->from_directory) {
        *out = NULL;
        return PDB_OK; /* not ours: the caller reports it */
    }
    if (len == 0)
        return pdb_fail("%s: empty input", j->path); /* no byte to point at */
    return pdb_fail_at(j->path, 0,
                       "not a recognised input (expected a PyTorch trace, a pstats dump, a "
                       "step log or a py-spy profile)");
}

static int ingest_one(pdb_session *ss, const job *j, int64_t run_id, int trace_order,
                      bool *was_read)
{
    *was_read = false;
    pdb_input *in = j->mem ? pdb_input_open_mem(j->path, j->mem, j->mem_len)
                           : pdb_input_open(j->path);
    if (!in)
        return PDB_ERR;
    const pdb_reader *reader;
    int rc = choose_reader(ss, in, j, &reader);
    if (rc != PDB_OK || !reader) {
        if (rc == PDB_OK && !ss->opts->quiet)
            fprintf(stderr, "profdb: %s: skipped (not a trace, pstats dump or step log)\n",
                    j->path);
        pdb_input_close(in);
        return rc;
    }
    pdb_source src = {
        .session = ss, .db = ss->db, .in = in, .path = pdb_input_name(in),
        .flavor = ss->opts->format ? strchr(ss->opts->format, ':') : NULL,
        .run_id = run_id, .trace_order = trace_order, .skips = pdb_strmap_new(),
        .quiet = ss->opts->quiet, .patterns = ss->opts->patterns,
        .pattern_origin = ss->opts->pattern_origin, .stored_rules = ss->opts->stored_rules,
        .nstored_rules = ss->opts->nstored_rules,
    };
    if (src.flavor)
        src.flavor++;
    double t0 = pdb_now_seconds();
    rc = insert_source(&src);
    if (rc == PDB_OK)
        rc = reader->read(&src);
    clear_progress(ss);
    if (rc == PDB_OK)
        rc = finish_source(&src, (int64_t)((pdb_now_seconds() - t0) * 1000));
    if (rc == PDB_OK && !ss->opts->quiet)
        report_source(ss, &src, j->run);
    if (rc == PDB_OK && src.text_replaced)
        pdb_warn("%s: %lld strings held invalid UTF-8 (overlong forms, lone surrogates, stray "
                 "bytes); stored with U+FFFD in place of each bad sequence", src.path,
                 (long long)src.text_replaced);
    *was_read = rc == PDB_OK && reader->kind == PDB_INPUT_RANK;
    pdb_strmap_free(src.skips);
    pdb_input_close(in);
    return rc;
}

/* ---- bulk indexes ------------------------------------------------------ */

int pdb_bulk_indexes_drop(sqlite3 *db, pdb_buf *saved)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, "session.bulk_indexes", &st) != PDB_OK)
        return PDB_ERR;
    pdb_buf drops = PDB_BUF_INIT;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (strchr(name, '"')) /* the query quotes the name; profdb's have none */
            continue;
        pdb_buf_addf(saved, "%s;\n", sqlite3_column_text(st, 1));
        pdb_query_fill(pdb_ingest_sql("session.drop_index"),
                       (const char *const[]){"index", name, NULL}, &drops);
        pdb_buf_adds(&drops, ";\n");
    }
    pdb_db_release(st);
    int rc = drops.len ? pdb_db_exec(db, drops.p) : PDB_OK;
    pdb_buf_free(&drops);
    return rc;
}

/* Dropping the bulk indexes and rebuilding them after the load is much
 * faster for a large input, but the rebuild covers every run in the
 * database: a small log added to a database holding a 2-million-event trace
 * took 2 s. So they are dropped only when the input is at least a quarter
 * of what the indexed tables already hold (inputs measured in bytes on
 * disk, compressed counted 8 times; about 150 bytes of JSON per event). */
static bool is_gz_name(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

static bool inputs_are_large(sqlite3 *db, const job_list *jobs)
{
    int64_t bytes = 0;
    for (int i = 0; i < jobs->n; i++) {
        const job *j = &jobs->v[i];
        struct stat st;
        if (j->mem)
            bytes += (int64_t)j->mem_len;
        else if (strcmp(j->path, "-") == 0 || stat(j->path, &st) != 0)
            return true; /* stdin: size unknown, may be large */
        else
            bytes += (int64_t)st.st_size * (is_gz_name(j->path) ? 8 : 1);
    }
    int64_t rows = 0;
    if (pdb_ingest_int(db, "session.rows_held", 0, &rows) != PDB_OK)
        return true;
    return bytes / 150 >= rows / 4;
}

/* ---- the command ----------------------------------------------------- */

static int run_jobs(pdb_session *ss, job_list *jobs)
{
    int64_t run_id = 0;
    int trace_order = 0;
    for (int i = 0; i < jobs->n; i++) {
        const job *j = &jobs->v[i];
        if (pdb_ingest_interrupted())
            return fail_interrupted();
        if (i == 0 || j->group != jobs->v[i - 1].group) {
            if (create_run(ss, j->run, &run_id) != PDB_OK || add_labels(ss, run_id) != PDB_OK)
                return PDB_ERR;
            ss->runs = pdb_xrealloc(ss->runs, (size_t)(ss->nruns + 1) * sizeof *ss->runs);
            ss->runs[ss->nruns++] = run_id;
            trace_order = j->trace_order; /* 0, but for a worker's part (parallel.c) */
        }
        bool was_trace;
        if (ingest_one(ss, j, run_id, trace_order, &was_trace) != PDB_OK)
            return PDB_ERR;
        trace_order += was_trace;
        if (ss->opts->on_file)
            ss->opts->on_file();
    }
    return PDB_OK;
}

int pdb_jobs_check(const job_list *jobs)
{
    /* Two inputs with the same base name would become the same run. */
    for (int i = 1; i < jobs->n; i++)
        for (int k = 0; k < i; k++)
            if (jobs->v[i].group != jobs->v[k].group &&
                strcmp(jobs->v[i].run, jobs->v[k].run) == 0)
                return pdb_fail("%s and %s would both become run '%s'; use --run",
                                jobs->v[k].path, jobs->v[i].path, jobs->v[i].run);
    return PDB_OK;
}

/* Takes the write lock, waiting (interruptibly) for another writer. */
static int begin_write(pdb_session *ss)
{
    sqlite3_busy_handler(ss->db, wait_for_writer, ss);
    sqlite3_progress_handler(ss->db, 1000, stop_if_interrupted, NULL);
    if (pdb_ingest_interrupted())
        return fail_interrupted();
    if (pdb_db_begin_immediate(ss->db) == PDB_OK)
        return PDB_OK;
    if (sqlite3_errcode(ss->db) == SQLITE_BUSY && !pdb_ingest_interrupted())
        return pdb_fail("%s: another process kept the database locked for %d s without "
                        "writing anything; try again",
                        sqlite3_db_filename(ss->db, "main"), PDB_DB_BUSY_MS / 1000);
    return PDB_ERR;
}

int pdb_ingest_begin_write(sqlite3 *db, bool quiet)
{
    /* the busy handler keeps pointing here until the caller resets it */
    static pdb_ingest_opts opts;
    static pdb_session ss;
    opts.quiet = quiet;
    memset(&ss, 0, sizeof ss);
    ss.db = db;
    ss.opts = &opts;
    return begin_write(&ss);
}

/* Ends the transaction: COMMIT on success (ROLLBACK for a dry run), else
 * ROLLBACK (never interrupted). */
static int end_write(pdb_session *ss, int rc, bool began)
{
    if (rc == PDB_OK && pdb_ingest_interrupted())
        rc = fail_interrupted();
    /* A dry run that read everything ends as a failed ingest does: rolled back. */
    if (rc == PDB_OK && !ss->opts->dry_run)
        rc = pdb_db_commit(ss->db);
    sqlite3_progress_handler(ss->db, 0, NULL, NULL);
    sqlite3_busy_timeout(ss->db, PDB_DB_BUSY_MS);
    if (rc != PDB_OK || ss->opts->dry_run) {
        clear_progress(ss);
        if (began)
            pdb_db_rollback(ss->db);
        if (rc != PDB_OK && pdb_ingest_interrupted())
            fail_interrupted();
    }
    return rc;
}

/* A private database's loaded rows are committed before the analysis, in
 * WAL mode, so that it can read them on a second connection (ingest.h:
 * private_db); the file is deleted if anything fails after this. */
static int commit_before_analysis(pdb_session *ss, bool *committed)
{
    *committed = false;
    const pdb_ingest_opts *o = ss->opts;
    if (!o->private_db || !o->after_load || o->dry_run || ss->nruns == 0 ||
        !pdb_rowq_threads_wanted())
        return PDB_OK;
    if (pdb_db_commit(ss->db) != PDB_OK || pdb_db_exec(ss->db, pdb_common_sql("db.wal")) != PDB_OK ||
        begin_write(ss) != PDB_OK)
        return PDB_ERR;
    *committed = true;
    return PDB_OK;
}

/* Loads planned jobs in one transaction (see the file comment). */
int pdb_jobs_ingest(sqlite3 *db, job_list *jobs, const pdb_ingest_opts *opts)
{
    pdb_session ss = {.db = db, .opts = opts, .strings = pdb_strmap_new(),
                      .tty = !opts->quiet && isatty(STDERR_FILENO)};
    pdb_buf indexes = PDB_BUF_INIT;
    int rc = pdb_jobs_check(jobs);
    bool began = false;
    if (rc == PDB_OK)
        rc = begin_write(&ss);
    if (rc != PDB_OK)
        goto out;
    began = true;
    rc = pdb_common_prepare(db, "strings.id", NULL, &ss.find_string);
    if (rc == PDB_OK)
        rc = pdb_common_prepare(db, "strings.add", NULL, &ss.add_string);
    /* A dry run rolls back, so rebuilding indexes would be wasted work. */
    if (rc == PDB_OK && !opts->dry_run && inputs_are_large(db, jobs))
        rc = pdb_bulk_indexes_drop(db, &indexes);
    if (rc == PDB_OK)
        rc = run_jobs(&ss, jobs);
    if (rc == PDB_OK && indexes.len)
        rc = pdb_db_exec(db, indexes.p);
    bool committed = false;
    if (rc == PDB_OK)
        rc = commit_before_analysis(&ss, &committed);
    for (int i = 0; i < ss.nruns && rc == PDB_OK && opts->after_load && !opts->dry_run; i++)
        rc = opts->after_load(db, ss.runs[i], committed);
    if (rc == PDB_OK && opts->before_commit && !opts->dry_run)
        rc = opts->before_commit(db, opts->before_commit_arg);
    pdb_db_release(ss.find_string);
    pdb_db_release(ss.add_string);
out:
    rc = end_write(&ss, rc, began);
    if (rc == PDB_OK && opts->dry_run && !opts->quiet)
        pdb_buf_addf(&ss.report, "profdb: dry run: nothing was stored\n");
    if (rc == PDB_OK) {
        /* File and run names come from outside: no terminal escapes. */
        pdb_buf clean = PDB_BUF_INIT;
        pdb_utf8_clean(&clean, pdb_buf_str(&ss.report), ss.report.len,
                       PDB_UTF8_CONTROLS | PDB_UTF8_KEEP_WS);
        fputs(pdb_buf_str(&clean), stderr);
        pdb_buf_free(&clean);
    }
    free(ss.runs);
    pdb_buf_free(&ss.report);
    pdb_buf_free(&indexes);
    pdb_strmap_free(ss.strings);
    pdb_strmap_free(ss.strings_old);
    return rc;
}
