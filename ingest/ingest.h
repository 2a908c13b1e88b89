/* ingest.h: loading input files into a profdb database.
 *
 * An ingest session is one write transaction: every input of one
 * `profdb ingest` command lands, or none does. Readers (one file per
 * format) receive a pdb_source that gives them the decompressed input, the
 * database, string interning and skip counting; they never commit. */
#ifndef PDB_INGEST_H
#define PDB_INGEST_H

#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/input.h"
#include "common/strmap.h"

typedef struct pdb_session pdb_session;

/* What one reader is working on. */
typedef struct pdb_source {
    pdb_session *session;
    sqlite3 *db;
    pdb_input *in;
    const char *path;       /* display name used in messages */
    const char *format;     /* set by the reader, e.g. "kineto-json" */
    const char *flavor;     /* forced format detail (--format steplog:X), or NULL */
    bool quiet;             /* print nothing but errors and warnings (--quiet) */
    const char *patterns;   /* step-log rules to read with (--pattern, --rules), or NULL */
    const char *pattern_origin; /* where they come from, for messages */
    const char *const *stored_rules; /* rules stored earlier, (rules, origin) pairs */
    int nstored_rules;
    int64_t run_id;
    int64_t source_id;
    int trace_order;        /* traces of this run before this one (rank fallback) */
    int64_t records;        /* records stored; the reader counts them */
    pdb_strmap *skips;      /* reason -> count */
    int64_t text_replaced;  /* strings stored with U+FFFD for invalid UTF-8 (a warning) */
    /* While another thread reads the input (trace_json.c's pipeline): the
     * bytes it has read, which progress shows instead of asking the input. */
    const atomic_llong *raw_read;
} pdb_source;

/* What a reader gets from its session (source.c). */
/* Interns a string for this session; ids are rows of the strings table. */
int pdb_intern(pdb_source *src, const char *s, size_t len, int64_t *id);
/* Counts a record passed over, by reason (stored in the skips table). */
void pdb_skip(pdb_source *src, const char *reason);
/* Reports progress on a TTY; cheap enough to call per record. */
void pdb_progress(pdb_source *src, int64_t records);

typedef struct pdb_ingest_opts {
    const char *run_name;   /* NULL: each input becomes a run named after it */
    bool replace;           /* replace runs of the same name */
    const char *format;     /* force a reader: "trace", "pstats", "steplog[:FLAVOR]" */
    /* Step-log rules (lines "step: PATTERN", ...; ingest/steplog/steplog_pattern.h)
     * that every step log of the command is read with, and where they come
     * from ("--pattern", a rules file); NULL: the built-in readers. */
    const char *patterns, *pattern_origin;
    /* Set by pdb_ingest_paths: the rules stored in the database, as pairs
     * (rules, origin), newest first; text logs try them (steplog_pattern.h). */
    const char *const *stored_rules;
    int nstored_rules;
    const char **labels;    /* "key=value" strings */
    int nlabels;
    bool quiet;
    /* Called for each run the command created, inside its transaction,
     * before the commit: the CLI passes the analysis passes (pdb_analyze_run),
     * so a run is never visible without its analysis. NULL: nothing. Not
     * called on a dry run. committed: see private_db. */
    int (*after_load)(sqlite3 *db, int64_t run_id, bool committed);
    /* The database is new and no other process opens it before it is
     * published or deleted (ingest/shards/fresh_db.h, a --jobs shard): when a
     * second thread is wanted, the loaded rows are committed (and the file
     * switched to WAL) before after_load, in a second transaction, so that
     * the analysis can read them on a connection of its own. A failure
     * still leaves nothing, as the file is then deleted. */
    bool private_db;
    bool dry_run;           /* read and check everything, then roll back */
    /* Worker processes for several inputs (parallel.c): each loads its
     * share into a shard, the shards are merged in one transaction. 0 or
     * 1: everything in this process, one input after another. */
    int jobs;
    void (*on_file)(void);  /* called after each input is read, or NULL */
    /* Called last inside the transaction, after after_load (NULL: nothing):
     * parallel.c merges the workers' shards there. */
    int (*before_commit)(sqlite3 *db, void *arg);
    void *before_commit_arg;
} pdb_ingest_opts;

/* Ingests all inputs (files, directories or "-") in one transaction. */
int pdb_ingest_paths(sqlite3 *db, const char *const *paths, int npaths,
                     const pdb_ingest_opts *opts);

/* Ingests one in-memory input named name (used by fuzzing and tests). */
int pdb_ingest_buffer(sqlite3 *db, const char *name, const void *data, size_t len,
                      const pdb_ingest_opts *opts);

/* Makes SIGINT and SIGTERM roll the running ingest back (source.c, session.c). */
void pdb_ingest_catch_signals(void);
/* The signal that interrupted an ingest, or 0. */
int pdb_ingest_interrupted(void);

/* Drops the indexes named bulk_* (see schemas/20_trace.sql) and appends
 * the statements that create them again to *saved, for a large load. */
struct pdb_buf;
int pdb_bulk_indexes_drop(sqlite3 *db, struct pdb_buf *saved);

/* BEGIN IMMEDIATE on db as an ingest takes it, for other writers (profdb
 * merge): waits for another writer while it makes progress, saying so
 * unless quiet, and stops on SIGINT/SIGTERM. Its busy handler stays until
 * sqlite3_busy_timeout() replaces it. */
int pdb_ingest_begin_write(sqlite3 *db, bool quiet);


#endif
