/* rowq.h: rows for prepared INSERT statements, executed on a thread of
 * their own.
 *
 * A reader that both parses and inserts spends about a third of its time
 * inside SQLite (step logs: bench/steplog.sh). With a row queue the calling
 * thread only records each row's parameters; a writer thread binds and
 * steps them, in order, on the same connection. The connection is never
 * used by both threads at once: before the caller touches the connection
 * itself (a query, a prepare, an UPDATE), it calls pdb_rowq_sync, which
 * returns once every row has been executed and the writer waits.
 *
 * Rows travel in a fixed number of batches, so memory is bounded whatever
 * the input: the caller waits when all are full. Without a thread
 * (pdb_rowq_new(db, false), or when none can be started) every row is
 * executed at pdb_rowq_end, on the calling thread: same results, same
 * errors, one code path for the callers. */
#ifndef PDB_ROWQ_H
#define PDB_ROWQ_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PDB_ROWQ_MAX_PARAMS 64 /* parameters a row can have */

typedef struct pdb_rowq pdb_rowq;

/* threaded: rows wait in batches, executed on a writer thread started by
 * the first full batch (when one can be started; else here). */
pdb_rowq *pdb_rowq_new(sqlite3 *db, bool threaded);
/* Whether readers should use a second thread: yes on a machine with more
 * than one core; PROFDB_PIPELINE=0 says no and =1 yes (tests compare both
 * ways). */
bool pdb_rowq_threads_wanted(void);
/* Executes what is pending (pdb_rowq_sync) and stops the thread; returns
 * what that sync returned. q may be NULL. */
int pdb_rowq_free(pdb_rowq *q);

/* A row for st: its parameters follow in order (?1, ?2, ...). When
 * expect_rowid is not 0, the row's rowid after the insert must be that
 * (callers number rows themselves, ahead of the insert). */
void pdb_rowq_begin(pdb_rowq *q, sqlite3_stmt *st, int64_t expect_rowid);
void pdb_rowq_int(pdb_rowq *q, int64_t v);
void pdb_rowq_double(pdb_rowq *q, double v);
void pdb_rowq_null(pdb_rowq *q);
/* v when has, else NULL. */
void pdb_rowq_int_or_null(pdb_rowq *q, bool has, int64_t v);
void pdb_rowq_double_or_null(pdb_rowq *q, bool has, double v);
/* The text is copied. */
void pdb_rowq_text(pdb_rowq *q, const char *s, size_t len);
/* Ends the row. PDB_ERR when a row (this one, or an earlier one on the
 * writer thread) failed: the message is the failing row's, in this thread. */
int pdb_rowq_end(pdb_rowq *q);

/* Waits until every row ended so far is executed; then the connection is
 * the caller's until the next row. PDB_ERR as pdb_rowq_end. */
int pdb_rowq_sync(pdb_rowq *q);

#endif
