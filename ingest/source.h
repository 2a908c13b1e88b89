/* source.h: the session behind a reader's pdb_source (internal to
 * ingest/): what session.c, which runs the transaction, shares with
 * source.c, which serves the readers (interning, skips, progress, the
 * interrupt flag; ingest.h declares those). */
#ifndef PDB_SOURCE_H
#define PDB_SOURCE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "ingest/ingest.h"
#include "common/strbuf.h"
#include "common/strmap.h"

struct pdb_session {
    sqlite3 *db;
    const pdb_ingest_opts *opts;
    pdb_strmap *strings, *strings_old; /* the current and the previous generation */
    size_t strings_bytes;              /* key bytes in the current one */
    sqlite3_stmt *find_string, *add_string;
    bool tty;
    pdb_buf report;        /* per-file lines, printed once the commit succeeded */
    int64_t *runs;         /* runs created, analysed before the commit */
    int nruns;
    double last_progress;
    bool progress_shown;
    /* Waiting for another writer: when its write-ahead log last changed. */
    double other_seen;
    off_t other_wal_size;
    struct timespec other_wal_mtime;
};

/* Seconds on a monotonic clock. */
static inline double pdb_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
