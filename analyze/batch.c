/* batch.c: inserts of rows, many per statement (see batch.h). */
#include "analyze/batch.h"
#include "common/strbuf.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct pdb_batch {
    sqlite3 *db;
    int ncols, n;
    char kinds[PDB_BATCH_COLS];
    sqlite3_stmt *many, *one;  /* PDB_BATCH_ROWS rows; one row (the rest) */
    pdb_batch_val v[PDB_BATCH_ROWS][PDB_BATCH_COLS];
    uint32_t nulls[PDB_BATCH_ROWS];
    pdb_buf text;              /* copies of 't' values, */
    size_t text_at[PDB_BATCH_ROWS][PDB_BATCH_COLS]; /* each at this offset */
};

int pdb_batch_new_typed(sqlite3 *db, const char *insert, const char *kinds, pdb_batch **out)
{
    int ncols = (int)strlen(kinds);
    assert(ncols > 0 && ncols <= PDB_BATCH_COLS);
    pdb_batch *b = pdb_xcalloc(1, sizeof *b);
    b->db = db;
    b->ncols = ncols;
    memcpy(b->kinds, kinds, (size_t)ncols);
    *out = b;
    pdb_buf sql = PDB_BUF_INIT;
    pdb_query_rows(insert, PDB_BATCH_ROWS, &sql);
    int rc = pdb_db_prepare(db, pdb_buf_str(&sql), &b->many);
    pdb_buf_free(&sql);
    if (rc == PDB_OK)
        rc = pdb_db_prepare(db, insert, &b->one);
    return rc;
}

int pdb_batch_new(sqlite3 *db, const char *insert, int ncols, pdb_batch **out)
{
    char kinds[PDB_BATCH_COLS + 1];
    assert(ncols > 0 && ncols <= PDB_BATCH_COLS);
    memset(kinds, 'i', (size_t)ncols);
    kinds[ncols] = '\0';
    return pdb_batch_new_typed(db, insert, kinds, out);
}

/* Binds row i of the buffer at parameter base + 1 on. */
static void bind_row(pdb_batch *b, sqlite3_stmt *st, int base, int i)
{
    for (int c = 0; c < b->ncols; c++) {
        const pdb_batch_val *v = &b->v[i][c];
        if (b->nulls[i] & (1u << c))
            sqlite3_bind_null(st, base + c + 1);
        else if (b->kinds[c] == 'r')
            sqlite3_bind_double(st, base + c + 1, v->r);
        else if (b->kinds[c] == 's')
            sqlite3_bind_text(st, base + c + 1, v->s, -1, SQLITE_STATIC);
        else if (b->kinds[c] == 't')
            sqlite3_bind_text(st, base + c + 1, v->t.n ? b->text.p + b->text_at[i][c] : "",
                              (int)v->t.n, SQLITE_STATIC);
        else
            sqlite3_bind_int64(st, base + c + 1, v->i);
    }
}

int pdb_batch_flush(pdb_batch *b)
{
    int done = 0;
    if (b->n == PDB_BATCH_ROWS) {
        for (int i = 0; i < PDB_BATCH_ROWS; i++)
            bind_row(b, b->many, i * b->ncols, i);
        if (pdb_db_step_done(b->db, b->many) != PDB_OK)
            return PDB_ERR;
        done = PDB_BATCH_ROWS;
    }
    for (; done < b->n; done++) {
        bind_row(b, b->one, 0, done);
        if (pdb_db_step_done(b->db, b->one) != PDB_OK)
            return PDB_ERR;
    }
    b->n = 0;
    pdb_buf_reset(&b->text);
    return PDB_OK;
}

int pdb_batch_add_vals(pdb_batch *b, const pdb_batch_val *v, uint32_t nulls)
{
    assert(b->n < PDB_BATCH_ROWS);
    memcpy(b->v[b->n], v, (size_t)b->ncols * sizeof *v);
    b->nulls[b->n] = nulls;
    for (int c = 0; c < b->ncols; c++)
        if (b->kinds[c] == 't' && !(nulls & (1u << c))) {
            b->text_at[b->n][c] = b->text.len;
            pdb_buf_add(&b->text, v[c].t.p, v[c].t.n);
        }
    return ++b->n == PDB_BATCH_ROWS ? pdb_batch_flush(b) : PDB_OK;
}

int pdb_batch_add(pdb_batch *b, const int64_t *v, uint32_t nulls)
{
    pdb_batch_val row[PDB_BATCH_COLS];
    for (int c = 0; c < b->ncols; c++)
        row[c].i = v[c];
    return pdb_batch_add_vals(b, row, nulls);
}

void pdb_batch_free(pdb_batch *b)
{
    if (!b)
        return;
    sqlite3_finalize(b->many);
    sqlite3_finalize(b->one);
    pdb_buf_free(&b->text);
    free(b);
}
