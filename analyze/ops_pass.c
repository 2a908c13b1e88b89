/* ops_pass.c: CPU operator statistics with self time.
 *
 * Fed by the scan with CPU slices in start order (longest first on ties).
 * Each thread keeps a stack of its enclosing slices: an event's direct
 * parent is the innermost open slice on the same thread that contains it,
 * and self = duration - sum of direct children, as PyTorch's key_averages()
 * computes it. Memory: stack depths plus one entry per (name, shape). */
#include "analyze/scan.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 100000

typedef struct {
    const pdb_name_info *name;
    const pdb_cat_info *cat;
    char *dims;
    int64_t count, self, total;
} op_stat;

typedef struct {
    int64_t end, dur, children;
    int64_t stat;
} frame;

typedef struct {
    frame *v;
    int depth, cap;
} thread_stack;

struct pdb_ops_acc {
    pdb_strmap *index;    /* (name id, cat id, dims) -> op_stat */
    op_stat *v;
    int64_t n, cap;
    pdb_strmap *threads;  /* (pid, tid) -> thread_stack */
    thread_stack *stacks;
    int nstacks;
    pdb_buf key;
};

pdb_ops_acc *pdb_ops_acc_new(void)
{
    pdb_ops_acc *a = pdb_xcalloc(1, sizeof *a);
    a->index = pdb_strmap_new();
    a->threads = pdb_strmap_new();
    return a;
}

static int64_t stat_for(pdb_ops_acc *a, const pdb_row *r)
{
    pdb_buf_reset(&a->key);
    pdb_buf_add(&a->key, &r->name_id, sizeof r->name_id);
    pdb_buf_add(&a->key, &r->cat_id, sizeof r->cat_id);
    pdb_buf_adds(&a->key, r->dims);
    int64_t i;
    if (pdb_strmap_get(a->index, a->key.p, a->key.len, &i))
        return i;
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = pdb_xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    i = a->n++;
    a->v[i] = (op_stat){r->name, r->cat, pdb_xstrdup(r->dims), 0, 0, 0};
    pdb_strmap_put(a->index, a->key.p, a->key.len, i);
    return i;
}

static thread_stack *stack_for(pdb_ops_acc *a, const pdb_row *r)
{
    char key[136];
    size_t n1, n2;
    pdb_value_key(r->pid, key, 64, &n1);
    key[n1] = '\x1f';
    pdb_value_key(r->tid, key + n1 + 1, 64, &n2);
    int64_t i;
    if (!pdb_strmap_get(a->threads, key, n1 + 1 + n2, &i)) {
        i = a->nstacks++;
        a->stacks = pdb_xrealloc(a->stacks, (size_t)a->nstacks * sizeof *a->stacks);
        a->stacks[i] = (thread_stack){0};
        pdb_strmap_put(a->threads, key, n1 + 1 + n2, i);
    }
    return &a->stacks[i];
}

static void pop(pdb_ops_acc *a, thread_stack *t)
{
    assert(t->depth > 0);
    frame *f = &t->v[--t->depth];
    a->v[f->stat].self += f->dur - f->children;
}

void pdb_ops_acc_add(pdb_ops_acc *a, const pdb_row *r)
{
    thread_stack *t = stack_for(a, r);
    int64_t stat = stat_for(a, r), end = r->ts + r->dur;
    while (t->depth > 0 && t->v[t->depth - 1].end < end)
        pop(a, t);
    if (t->depth > 0)
        t->v[t->depth - 1].children += r->dur;
    a->v[stat].count++;
    a->v[stat].total += r->dur;
    if (t->depth == MAX_DEPTH) {
        a->v[stat].self += r->dur; /* absurdly deep: count it as a leaf */
        return;
    }
    if (t->depth == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = pdb_xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
    }
    t->v[t->depth++] = (frame){end, r->dur, 0, stat};
}

int pdb_ops_acc_write(pdb_ops_acc *a, sqlite3 *db, int64_t run_id, int rank)
{
    for (int i = 0; i < a->nstacks; i++)
        while (a->stacks[i].depth > 0)
            pop(a, &a->stacks[i]);
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT INTO analysis_ops VALUES (?,?,?,?,?,?,?,?)", &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int64_t i = 0; i < a->n && rc == PDB_OK; i++) {
        const op_stat *s = &a->v[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int(st, 2, rank);
        sqlite3_bind_text(st, 3, s->name->text, -1, SQLITE_STATIC);
        if (s->cat)
            sqlite3_bind_text(st, 4, s->cat->text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        sqlite3_bind_text(st, 5, s->dims, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, s->count);
        sqlite3_bind_int64(st, 7, s->self);
        sqlite3_bind_int64(st, 8, s->total);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

void pdb_ops_acc_free(pdb_ops_acc *a)
{
    if (!a)
        return;
    for (int64_t i = 0; i < a->n; i++)
        free(a->v[i].dims);
    free(a->v);
    for (int i = 0; i < a->nstacks; i++)
        free(a->stacks[i].v);
    free(a->stacks);
    pdb_strmap_free(a->index);
    pdb_strmap_free(a->threads);
    pdb_buf_free(&a->key);
    free(a);
}
