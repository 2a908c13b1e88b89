/* jobs.h: the inputs of one ingest command, planned (inside ingest/ only).
 *
 * ingest.c plans the inputs (directories expanded, run names decided);
 * session.c loads a list of them in one transaction; shards/parallel.c
 * splits the list among worker processes, each loading its part into a
 * shard with the same code. */
#ifndef PDB_JOBS_H
#define PDB_JOBS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "ingest/ingest.h"

/* One input file and the run it goes to. */
typedef struct pdb_job {
    char *path;
    char *run;
    int group;           /* jobs of one group form one run */
    bool from_directory;
    const void *mem;     /* in-memory input (pdb_ingest_buffer), else NULL */
    size_t mem_len;
    int trace_order;     /* traces of the run before this job, when it starts a list's run */
} pdb_job;

typedef struct pdb_job_list {
    pdb_job *v;
    int n, cap;
} pdb_job_list;

/* Fails when two inputs without --run would become runs of the same name. */
int pdb_jobs_check(const pdb_job_list *jobs);
/* Loads the jobs in one transaction on db (session.c). */
int pdb_jobs_ingest(sqlite3 *db, pdb_job_list *jobs, const pdb_ingest_opts *opts);
/* Loads the jobs with opts->jobs worker processes into shards, then merges
 * them into db in one transaction (parallel.c); falls back to
 * pdb_jobs_ingest where workers cannot help (one input, stdin, dry run). */
int pdb_jobs_ingest_parallel(sqlite3 *db, pdb_job_list *jobs, const pdb_ingest_opts *opts);

#endif
