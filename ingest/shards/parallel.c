/* parallel.c: `profdb ingest --jobs N`: several inputs read by N processes.
 *
 * The inputs (in command-line order) are cut into N contiguous parts of
 * about equal size. The parent loads the first part into the target in its
 * ordinary ingest transaction while N - 1 fork()ed workers load the others
 * into private shard databases, with the same session code and options
 * (analysis included, so the passes run in parallel too). Before it
 * commits, the parent waits for the workers and merges their shards into
 * the same transaction (merge.c), so the target changes all at once or not
 * at all, as with one process; the first part is never copied twice.
 * Processes rather than threads: each worker has its own SQLite connection,
 * its own memory and its own error state, and a worker that crashes takes
 * nothing else with it.
 *
 * What one process would do is kept: a trace whose rank comes from its
 * order among the run's traces gets the same rank (the parent sniffs the
 * formats first and tells each worker how many traces of the run come
 * before its part), all pstats dumps of a run go to one worker (they are
 * added up in order), the error reported is that of the first failing input
 * in command-line order, and the per-file lines are printed in order after
 * the commit. Shards live in a private folder next to the target (or in
 * $TMPDIR), deleted on success, failure and SIGINT/SIGTERM alike. */
#include "ingest/jobs.h"
#include "ingest/shards/merge.h"
#include "ingest/shards/shard_dir.h"
#include "ingest/readers.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

typedef enum { IN_OTHER, IN_TRACE, IN_PSTATS } input_kind;

/* One worker: its part of the inputs, its files and its process. */
typedef struct {
    pdb_job_list part;
    int *index;          /* each job's position in the whole list */
    char *shard, *log, *err;
    pid_t pid;
    int status;          /* wait status once it has exited */
    bool running;
} worker;

/* ---- planning ---------------------------------------------------------------- */

/* Whether workers can help: several regular files, no stdin, a real target. */
static bool can_split(sqlite3 *db, const pdb_job_list *jobs, const pdb_ingest_opts *opts)
{
    const char *target = sqlite3_db_filename(db, "main");
    if (opts->dry_run || jobs->n < 2 || !target || !*target)
        return false;
    for (int i = 0; i < jobs->n; i++) {
        struct stat st;
        if (jobs->v[i].mem || stat(jobs->v[i].path, &st) != 0 || !S_ISREG(st.st_mode))
            return false; /* stdin, a FIFO: one reader only, and no size */
    }
    return true;
}

/* What reader an input would get, as session.c chooses it. Unreadable
 * inputs are "other": their worker reports the error. */
static input_kind sniff_kind(const pdb_job *j, const pdb_ingest_opts *opts)
{
    const pdb_reader *r = NULL;
    if (opts->format) {
        r = pdb_reader_named(opts->format);
    } else {
        pdb_input *in = pdb_input_open(j->path);
        const unsigned char *peek;
        size_t len;
        int score = 0;
        if (in && pdb_input_peek(in, &peek, &len) == PDB_OK)
            r = pdb_reader_sniff(peek, len, &score);
        if (j->from_directory && score < PDB_SNIFF_LIKELY)
            r = NULL;
        pdb_input_close(in);
        pdb_clear_error();
    }
    if (r && r->kind == PDB_INPUT_RANK)
        return IN_TRACE;
    if (r && r->kind == PDB_INPUT_SUMMED)
        return IN_PSTATS;
    return IN_OTHER;
}

/* Bytes an input stands for: compressed traces count 8 times (about what
 * gzip saves on trace JSON), as session.c estimates them. */
static int64_t weight_of(const pdb_job *j)
{
    struct stat st;
    if (stat(j->path, &st) != 0)
        return 1;
    size_t n = strlen(j->path);
    bool gz = n > 3 && strcmp(j->path + n - strlen(".gz"), ".gz") == 0;
    return (int64_t)st.st_size * (gz ? 8 : 1) + 1;
}

/* Cuts the inputs into nw contiguous parts of about equal weight: part[i]
 * is the worker of input i. Every pstats dump of a run then joins the
 * worker of the run's first dump. */
static void split(const pdb_job_list *jobs, const input_kind *kind, int nw, int *part)
{
    int64_t total = 0, acc = 0;
    for (int i = 0; i < jobs->n; i++)
        total += weight_of(&jobs->v[i]);
    int w = 0;
    for (int i = 0; i < jobs->n; i++) {
        part[i] = w;
        acc += weight_of(&jobs->v[i]);
        /* next worker once this one has its share, keeping one input per
         * worker still to come */
        if (w < nw - 1 && (acc * nw >= total * (w + 1) || jobs->n - 1 - i <= nw - 1 - w))
            w++;
    }
    for (int i = 0; i < jobs->n; i++) {
        if (kind[i] != IN_PSTATS)
            continue;
        for (int k = 0; k < i; k++)
            if (kind[k] == IN_PSTATS && jobs->v[k].group == jobs->v[i].group) {
                part[i] = part[k];
                break;
            }
    }
}

/* Gives each worker its inputs; a trace's order among its run's traces is
 * counted over the whole list, as one process would count it. */
static void assign(const pdb_job_list *jobs, const input_kind *kind, const int *part,
                   worker *ws)
{
    int traces_before = 0;
    for (int i = 0; i < jobs->n; i++) {
        if (i > 0 && jobs->v[i].group != jobs->v[i - 1].group)
            traces_before = 0;
        worker *w = &ws[part[i]];
        pdb_job_list *l = &w->part;
        if (l->n == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 8;
            l->v = pdb_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
            w->index = pdb_xrealloc(w->index, (size_t)l->cap * sizeof *w->index);
        }
        pdb_job j = jobs->v[i]; /* shares the strings of jobs: not freed per worker */
        j.trace_order = traces_before;
        w->index[l->n] = i;
        l->v[l->n++] = j;
        traces_before += kind[i] == IN_TRACE;
    }
}

/* Runs that exist already: refused at once unless --replace, as one
 * process refuses them, rather than after every input has been read. */
static int check_existing_runs(sqlite3 *db, const pdb_job_list *jobs,
                               const pdb_ingest_opts *opts)
{
    for (int i = 0; i < jobs->n && !opts->replace; i++) {
        if (i > 0 && jobs->v[i].group == jobs->v[i - 1].group)
            continue;
        int64_t id;
        bool found;
        if (pdb_run_find(db, "main", jobs->v[i].run, &id, &found) != PDB_OK)
            return PDB_ERR;
        if (found)
            return pdb_fail("run '%s' already exists (use --replace to replace it)",
                            jobs->v[i].run);
    }
    return PDB_OK;
}

/* ---- workers ----------------------------------------------------------------- */

static int progress_fd = -1;
static int files_done;

/* A worker's on_file: counts inputs and tells the parent (progress). */
static void worker_file_done(void)
{
    files_done++;
    if (progress_fd >= 0) {
        char c = 1;
        ssize_t ignored = write(progress_fd, &c, 1);
        (void)ignored;
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The worker process: loads its part into its shard and exits; never
 * returns. Its stderr (per-file lines, skip notes) goes to its log; an error
 * goes to its err file as "N\nmessage", N = inputs read before it. */
static void run_worker(worker *w, const pdb_ingest_opts *opts, int pipe_fd)
{
#ifdef __linux__
    /* a parent killed with SIGKILL cannot stop its workers: the kernel does */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    progress_fd = pipe_fd;
    int fd = open(w->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
    pdb_ingest_opts wo = *opts;
    wo.jobs = 1;
    wo.on_file = worker_file_done;
    wo.private_db = true;
    sqlite3 *db;
    /* a failed worker's shard is deleted, never rolled back */
    int rc = pdb_db_open(w->shard, PDB_DB_CREATE | PDB_DB_PRIVATE, &db);
    if (rc == PDB_OK)
        rc = pdb_jobs_ingest(db, &w->part, &wo);
    if (rc != PDB_OK) {
        pdb_buf b = PDB_BUF_INIT;
        pdb_buf_addf(&b, "%d\n%s", files_done, pdb_errmsg());
        write_file(w->err, pdb_buf_str(&b));
        pdb_buf_free(&b);
    }
    pdb_db_close(db);
    fflush(stderr);
    int sig = pdb_ingest_interrupted();
    _exit(rc == PDB_OK ? 0 : sig ? 128 + sig : PDB_EXIT_ERROR);
}

static int start_workers(worker *ws, int nw, const pdb_ingest_opts *opts, int pipe_fds[2])
{
    fflush(stdout);
    fflush(stderr); /* or the children would print it again */
    for (int k = 1; k < nw; k++) {
        pid_t pid = fork();
        if (pid < 0)
            return pdb_fail("cannot start a worker process: %s", strerror(errno));
        if (pid == 0) {
            close(pipe_fds[0]);
            run_worker(&ws[k], opts, pipe_fds[1]);
        }
        ws[k].pid = pid;
        ws[k].running = true;
    }
    return PDB_OK;
}

/* What the parent and its workers share while the inputs are read. */
typedef struct {
    worker *ws;
    int nw;
    int total;           /* inputs */
    int pipe_fd;         /* read end: a byte per input a worker has read */
    const char *dir;
    const pdb_ingest_opts *opts;
    int64_t runs_before; /* the target's largest run id before this ingest */
} split_state;

static int parent_done; /* inputs the parent has read itself */

static void parent_file_done(void)
{
    parent_done++;
}

/* Sends sig to every running worker. */
static void signal_workers(split_state *st, int sig)
{
    for (int k = 1; k < st->nw; k++)
        if (st->ws[k].running)
            kill(st->ws[k].pid, sig);
}

/* Waits for every worker, showing progress on a terminal. On SIGINT or
 * SIGTERM, or at once with stop (the parent failed), the workers are
 * stopped (they roll their shards back). A stopped worker (SIGSTOP, a
 * debugger, a job-control accident) would hold SIGTERM pending for ever,
 * so SIGCONT follows it, and a worker still there after STOP_GRACE_MS is
 * killed: its shard is thrown away either way. */
#define STOP_GRACE_MS 3000
static void wait_workers(split_state *st, bool stop)
{
    bool tty = !st->opts->quiet && isatty(STDERR_FILENO), shown = false, stopped = false;
    int done = 0, running = 0, waited_ms = 0;
    for (int k = 1; k < st->nw; k++)
        running += st->ws[k].running;
    while (running > 0) {
        if ((stop || pdb_ingest_interrupted()) && !stopped) {
            signal_workers(st, SIGTERM);
            signal_workers(st, SIGCONT);
            stopped = true;
        } else if (stopped && (waited_ms += 100) == STOP_GRACE_MS) {
            signal_workers(st, SIGKILL);
        }
        struct pollfd p = {.fd = st->pipe_fd, .events = POLLIN};
        if (poll(&p, 1, 100) > 0) {
            char buf[256];
            ssize_t n = read(st->pipe_fd, buf, sizeof buf);
            done += n > 0 ? (int)n : 0;
            if (tty && !stop) {
                fprintf(stderr, "\r\033[Kprofdb: %d of %d inputs read by %d processes",
                        done + parent_done, st->total, st->nw);
                fflush(stderr);
                shown = true;
            }
        }
        for (int k = 1; k < st->nw; k++) {
            worker *w = &st->ws[k];
            if (w->running && waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
                w->running = false;
                running--;
            }
        }
    }
    if (shown)
        fputs("\r\033[K", stderr);
}

/* Copies a worker's log to stderr. */
static void print_log(const worker *w)
{
    FILE *f = fopen(w->log, "r");
    if (!f)
        return;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stderr);
    fclose(f);
}

/* What a failed worker left: the position (in the whole list) of the input
 * it failed on, and its message (or how the process ended). */
static int read_failure(const worker *w, pdb_buf *msg)
{
    FILE *f = fopen(w->err, "r");
    int read_before = 0;
    char line[8192] = "";
    if (f) {
        if (fscanf(f, "%d\n", &read_before) != 1 || !fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    pdb_buf_reset(msg);
    if (line[0])
        pdb_buf_adds(msg, line);
    else if (WIFSIGNALED(w->status))
        pdb_buf_addf(msg, "%s: worker process killed by signal %d", w->part.v[0].path,
                     WTERMSIG(w->status));
    else
        pdb_buf_addf(msg, "%s: worker process failed", w->part.v[0].path);
    if (read_before < 0 || read_before >= w->part.n)
        read_before = read_before < 0 ? 0 : w->part.n - 1;
    return w->index[read_before];
}

/* After a failure: the error of the first failing input in command-line
 * order, after what its worker printed before it (notes on skipped files).
 * The logs of workers that succeeded are not shown: one process prints the
 * per-file lines they hold only after a commit. */
static int report_failure(const worker *ws, int nw)
{
    int first = -1, first_index = 0;
    pdb_buf msg = PDB_BUF_INIT, one = PDB_BUF_INIT;
    for (int k = 1; k < nw; k++) {
        if (WIFEXITED(ws[k].status) && WEXITSTATUS(ws[k].status) == 0)
            continue;
        int index = read_failure(&ws[k], &one);
        if (first < 0 || index < first_index) {
            first = k;
            first_index = index;
            pdb_buf_reset(&msg);
            pdb_buf_adds(&msg, pdb_buf_str(&one));
        }
    }
    assert(first >= 1); /* called only when a worker failed */
    print_log(&ws[first]);
    int rc = pdb_fail("%s", pdb_buf_str(&msg));
    pdb_buf_free(&msg);
    pdb_buf_free(&one);
    return rc;
}

/* ---- merging ------------------------------------------------------------------- */

static bool all_succeeded(const worker *ws, int nw)
{
    for (int k = 1; k < nw; k++)
        if (!WIFEXITED(ws[k].status) || WEXITSTATUS(ws[k].status) != 0)
            return false;
    return true;
}

static int fail_interrupted(void)
{
    return pdb_fail("interrupted by %s; nothing was stored",
                    pdb_ingest_interrupted() == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* The parent's before_commit: once its own part is loaded (and analysed)
 * in the transaction, the workers' shards join it. */
static int finish_with_shards(sqlite3 *db, void *arg)
{
    split_state *st = arg;
    wait_workers(st, false);
    if (pdb_ingest_interrupted())
        return fail_interrupted();
    if (!all_succeeded(st->ws, st->nw))
        return report_failure(st->ws, st->nw);
    const char **paths = pdb_xmalloc((size_t)st->nw * sizeof *paths);
    for (int k = 1; k < st->nw; k++)
        paths[k - 1] = st->ws[k].shard;
    pdb_merge_opts mo = {.as_ingest = true, .replace = st->opts->replace,
                         .runs_before = st->runs_before, .tmpdir = st->dir};
    bool tty = !st->opts->quiet && isatty(STDERR_FILENO);
    if (tty && st->nw == 2)
        fputs("\r\033[Kprofdb: merging the worker's shard", stderr);
    else if (tty)
        fprintf(stderr, "\r\033[Kprofdb: merging the workers' %d shards", st->nw - 1);
    int rc = pdb_merge(db, paths, st->nw - 1, &mo);
    if (tty)
        fputs("\r\033[K", stderr);
    free(paths);
    return rc;
}

/* ---- the command ---------------------------------------------------------------- */

static void name_files(worker *w, const char *dir, int k)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_buf_addf(&b, "%s/shard-%d.db", dir, k);
    w->shard = pdb_xstrdup(b.p);
    pdb_buf_reset(&b);
    pdb_buf_addf(&b, "%s/shard-%d.log", dir, k);
    w->log = pdb_xstrdup(b.p);
    pdb_buf_reset(&b);
    pdb_buf_addf(&b, "%s/shard-%d.err", dir, k);
    w->err = b.p;
}

static void free_workers(worker *ws, int nw)
{
    for (int k = 0; k < nw; k++) {
        free(ws[k].part.v);
        free(ws[k].index);
        free(ws[k].shard);
        free(ws[k].log);
        free(ws[k].err);
    }
    free(ws);
}

/* Reads the inputs with the parent and nw - 1 workers (file comment). */
static int ingest_split(sqlite3 *db, pdb_job_list *jobs, const pdb_ingest_opts *opts, int nw)
{
    input_kind *kind = pdb_xmalloc((size_t)jobs->n * sizeof *kind);
    int *part = pdb_xmalloc((size_t)jobs->n * sizeof *part);
    for (int i = 0; i < jobs->n; i++)
        kind[i] = sniff_kind(&jobs->v[i], opts);
    split(jobs, kind, nw, part);
    worker *ws = pdb_xcalloc((size_t)nw, sizeof *ws);
    assign(jobs, kind, part, ws);
    free(kind);
    free(part);
    char *dir = NULL;
    int pipe_fds[2] = {-1, -1};
    split_state st = {.ws = ws, .nw = nw, .total = jobs->n, .opts = opts};
    int rc = pdb_run_last_id(db, &st.runs_before);
    if (rc == PDB_OK)
        rc = pdb_shard_dir_make(sqlite3_db_filename(db, "main"), &dir);
    if (rc == PDB_OK && pipe(pipe_fds) != 0)
        rc = pdb_fail("cannot create a pipe: %s", strerror(errno));
    for (int k = 1; k < nw && rc == PDB_OK; k++)
        name_files(&ws[k], dir, k);
    st.dir = dir;
    st.pipe_fd = pipe_fds[0];
    if (rc == PDB_OK)
        rc = start_workers(ws, nw, opts, pipe_fds);
    if (pipe_fds[1] >= 0)
        close(pipe_fds[1]);
    if (rc == PDB_OK) {
        pdb_ingest_opts po = *opts;
        po.on_file = parent_file_done;
        po.before_commit = finish_with_shards;
        po.before_commit_arg = &st;
        rc = pdb_jobs_ingest(db, &ws[0].part, &po);
    }
    /* after a failure, workers still running are stopped and waited for */
    wait_workers(&st, true);
    if (pipe_fds[0] >= 0)
        close(pipe_fds[0]);
    if (rc == PDB_OK && !opts->quiet)
        for (int k = 1; k < nw; k++)
            print_log(&ws[k]);
    if (dir)
        pdb_shard_dir_remove(dir);
    free(dir);
    free_workers(ws, nw);
    return rc;
}

int pdb_jobs_ingest_parallel(sqlite3 *db, pdb_job_list *jobs, const pdb_ingest_opts *opts)
{
    if (!can_split(db, jobs, opts))
        return pdb_jobs_ingest(db, jobs, opts);
    if (pdb_jobs_check(jobs) != PDB_OK || check_existing_runs(db, jobs, opts) != PDB_OK)
        return PDB_ERR;
    int nw = opts->jobs < jobs->n ? opts->jobs : jobs->n;
    return ingest_split(db, jobs, opts, nw);
}
