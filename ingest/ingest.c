/* ingest.c: the entry point of an ingest (ingest.h): plans the inputs and
 * hands them to one transaction here (session.c) or to worker processes
 * (shards/parallel.c).
 *
 * Planning expands directories (a directory is one run; its regular files,
 * in name order, are its inputs) and decides run names, from --run or the
 * input's name. The plan is a job list (jobs.h); loading it is session.c's
 * job, on one connection, or parallel.c's, which splits it among workers
 * that load their parts with the same session code, into shards it merges. */
#include "ingest/ingest.h"
#include "ingest/jobs.h"
#include "ingest/steplog/steplog_pattern.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef pdb_job job;
typedef pdb_job_list job_list;

/* ---- deciding what to read ------------------------------------------ */

/* "dir/rank-0.pt.trace.json.gz" -> "rank-0": the name without directories
 * and without the usual trace and log suffixes. */
static char *run_name_for(const char *path)
{
    /* "." or "traces/..": name the run after the directory it stands for. */
    char real[PATH_MAX];
    const char *last = strrchr(path, '/');
    const char *tail = last ? last + 1 : path;
    if ((strcmp(tail, ".") == 0 || strcmp(tail, "..") == 0) && realpath(path, real) &&
        strcmp(real, "/") != 0)
        path = real;
    static const char *const suffixes[] = {".gz", ".json", ".pt.trace", ".trace",
                                           ".prof", ".pstats", ".log", ".jsonl",
                                           ".csv", ".txt", NULL};
    if (strcmp(path, "-") == 0)
        return pdb_xstrdup("stdin");
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *base = path;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            base = path + i + 1;
    char *name = pdb_xstrndup(base, (size_t)(path + len - base));
    for (bool again = true; again;) {
        again = false;
        for (int i = 0; suffixes[i]; i++) {
            size_t n = strlen(name), s = strlen(suffixes[i]);
            if (n > s && strcmp(name + n - s, suffixes[i]) == 0) {
                name[n - s] = '\0';
                again = true;
            }
        }
    }
    return name;
}

static void add_job(job_list *jobs, const char *path, const char *run, int group,
                    bool from_dir)
{
    if (jobs->n == jobs->cap) {
        jobs->cap = jobs->cap ? jobs->cap * 2 : 8;
        jobs->v = pdb_xrealloc(jobs->v, (size_t)jobs->cap * sizeof(job));
    }
    jobs->v[jobs->n++] = (job){pdb_xstrdup(path), pdb_xstrdup(run), group, from_dir, NULL, 0, 0};
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory is one run; its regular files, in name order, are its inputs. */
static int add_directory(job_list *jobs, const char *dir, const char *run, int group)
{
    DIR *d = opendir(dir);
    if (!d)
        return pdb_fail("%s: cannot read directory", dir);
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            names = pdb_xrealloc(names, (size_t)cap * sizeof *names);
        }
        names[n++] = pdb_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    int added = 0;
    for (int i = 0; i < n; i++) {
        pdb_buf p = PDB_BUF_INIT;
        pdb_buf_addf(&p, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(p.p, &st) == 0 && S_ISREG(st.st_mode)) {
            add_job(jobs, p.p, run, group, true);
            added++;
        } else {
            /* Said, not silent: a run's directory is read one level deep. */
            fprintf(stderr, "profdb: %s: skipped (not a regular file; subdirectories are not "
                            "read, give them as inputs of their own)\n", p.p);
        }
        pdb_buf_free(&p);
        free(names[i]);
    }
    free(names);
    if (added == 0)
        return pdb_fail("%s: directory has no files to ingest", dir);
    return PDB_OK;
}

static int plan_jobs(const char *const *paths, int npaths, const pdb_ingest_opts *opts,
                     job_list *jobs)
{
    for (int i = 0; i < npaths; i++) {
        /* With --run every input joins one run; without, each is its own. */
        int group = opts->run_name ? 0 : i;
        char *run = opts->run_name ? pdb_xstrdup(opts->run_name) : run_name_for(paths[i]);
        struct stat st;
        int rc = PDB_OK;
        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = add_directory(jobs, paths[i], run, group);
        else
            add_job(jobs, paths[i], run, group, false);
        free(run);
        if (rc != PDB_OK)
            return rc;
    }
    return PDB_OK;
}

static void free_jobs(job_list *jobs)
{
    for (int i = 0; i < jobs->n; i++) {
        free(jobs->v[i].path);
        free(jobs->v[i].run);
    }
    free(jobs->v);
}

int pdb_ingest_paths(sqlite3 *db, const char *const *paths, int npaths,
                     const pdb_ingest_opts *opts)
{
    job_list jobs = {0};
    /* the step-log rules users taught, read here once: --jobs workers write
     * shards of their own and see them only through the options */
    pdb_ingest_opts o = *opts;
    char **stored = NULL;
    int rc = plan_jobs(paths, npaths, opts, &jobs);
    if (rc == PDB_OK && !opts->patterns && !opts->format)
        rc = pdb_sl_patterns_load(db, &stored, &o.nstored_rules);
    o.stored_rules = (const char *const *)stored;
    if (rc == PDB_OK)
        rc = o.jobs > 1 ? pdb_jobs_ingest_parallel(db, &jobs, &o) : pdb_jobs_ingest(db, &jobs, &o);
    free_jobs(&jobs);
    for (int i = 0; i < 2 * o.nstored_rules; i++)
        free(stored[i]);
    free(stored);
    return rc;
}

int pdb_ingest_buffer(sqlite3 *db, const char *name, const void *data, size_t len,
                      const pdb_ingest_opts *opts)
{
    job_list jobs = {0};
    char *run = opts->run_name ? pdb_xstrdup(opts->run_name) : run_name_for(name);
    add_job(&jobs, name, run, 0, false);
    jobs.v[0].mem = data;
    jobs.v[0].mem_len = len;
    free(run);
    int rc = pdb_jobs_ingest(db, &jobs, opts);
    free_jobs(&jobs);
    return rc;
}
