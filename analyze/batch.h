/* batch.h: inserts of rows, many per statement (internal to analyze/).
 *
 * A prepared INSERT run once per row costs SQLite a statement's setup and
 * teardown (cursors opened and closed, transaction checks) per row, as much
 * again as the row's own b-tree work. A batch keeps up to PDB_BATCH_ROWS
 * rows in a fixed buffer and inserts them with one multi-row statement, so
 * memory stays a constant (plus the copied text of those rows' 't'
 * values). Rows are inserted in the order added; anything
 * that reads or updates the table must flush the batch first.
 *
 * Write the INSERT as INSERT OR FAIL: a statement of many rows that may
 * abort (the default conflict rule) makes SQLite journal every page it
 * changes, to undo the statement alone, and past 64 KiB that journal is a
 * file (a write per page). FAIL needs no undo; callers run in a
 * transaction that an error rolls back whole. */
#ifndef PDB_BATCH_H
#define PDB_BATCH_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define PDB_BATCH_ROWS 32
#define PDB_BATCH_COLS 16

typedef struct pdb_batch pdb_batch;

/* insert: the INSERT of one row, "INSERT OR FAIL INTO t (cols) VALUES
 * (?,?,(SELECT ... = ?))" (a query of analyze/queries/), with a ? per
 * column (ncols of them, at most PDB_BATCH_COLS); the statement of many
 * rows repeats its row of values (pdb_query_rows). */
int pdb_batch_new(sqlite3 *db, const char *insert, int ncols, pdb_batch **out);
/* Adds a row: v[ncols] values; bit i of nulls set: column i is NULL. */
int pdb_batch_add(pdb_batch *b, const int64_t *v, uint32_t nulls);

/* Rows of mixed values: kinds has one letter per column, 'i' an integer,
 * 'r' a double, 's' text that outlives the batch (a string constant: the
 * batch keeps the pointer, not a copy), 't' text of t.n bytes at t.p that
 * the batch copies (valid only during the call that adds it). */
typedef union {
    int64_t i;
    double r;
    const char *s;
    struct {
        const char *p;
        size_t n;
    } t;
} pdb_batch_val;
int pdb_batch_new_typed(sqlite3 *db, const char *insert, const char *kinds, pdb_batch **out);
int pdb_batch_add_vals(pdb_batch *b, const pdb_batch_val *v, uint32_t nulls);
/* Inserts the rows waiting. */
int pdb_batch_flush(pdb_batch *b);
void pdb_batch_free(pdb_batch *b);

#endif
