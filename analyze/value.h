/* value.h: the values of pid, tid and stream as the analysis keeps them
 * (internal to analyze/).
 *
 * A trace may write these as integers, reals or text ("stream": "7",
 * "tid": "pytorch_backward"), so they are kept with SQLite's type and the
 * whole value: two threads whose names share a prefix stay apart. A
 * pdb_val is a plain struct, so the scan can hand rows to another thread
 * (scan_reader.c) without SQLite objects. */
#ifndef PDB_VALUE_H
#define PDB_VALUE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

typedef struct {
    int type;      /* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL */
    int64_t i;     /* INTEGER */
    double d;      /* FLOAT */
    const char *p; /* TEXT, BLOB: n bytes (a NUL follows TEXT) */
    size_t n;
} pdb_val;

/* The value of v, pointing into v's own bytes (valid as long as they are). */
pdb_val pdb_val_of(sqlite3_value *v);
/* A copy owning its bytes (pdb_val_free releases them). */
pdb_val pdb_val_dup(const pdb_val *v);
void pdb_val_free(pdb_val *v);

/* Appends a value to b as hashable bytes: a type tag and the whole value
 * (the length first for text, so keys of pairs stay unambiguous). */
void pdb_val_key(pdb_buf *b, const pdb_val *v);
/* The same for a column value. */
void pdb_value_key(pdb_buf *b, sqlite3_value *v);
/* Whether two column values are the same: the same type and the same whole
 * value (the keys pdb_value_key makes would be equal). */
bool pdb_value_equal(sqlite3_value *a, sqlite3_value *b);
/* Binds the value whose key starts at *key (len bytes left) to column col
 * of st, as pdb_value_key wrote it (same type, same bytes), and moves *key
 * and *len past it: keys kept in a table give their values back. */
void pdb_value_key_bind(sqlite3_stmt *st, int col, const unsigned char **key, size_t *len);

#endif
