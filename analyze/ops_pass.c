/* ops_pass.c: CPU operator statistics with self time, per-step op totals,
 * and the CPU context that GPU work is attributed to.
 *
 * Fed by the scan with CPU slices in start order (longest first on ties).
 * Each thread keeps a stack of its enclosing slices: an event's direct
 * parent is the innermost open slice on the same thread that contains it,
 * and self = duration - sum of direct children, as PyTorch's key_averages()
 * computes it.
 *
 * Contexts. Attribution (attr_pass.c) asks, when a runtime call launches GPU
 * work, which ops, annotations and modules enclose it. The answer is a node
 * of a trie of stack paths: a node is (parent node, the op_stat of one
 * frame), interned, so a path is stored once however often it launches.
 * Only ops, user annotations and nn.Module frames make nodes; ProfilerStep,
 * runtime calls and plain python frames are transparent (a step's subtree
 * would otherwise be a new path every step). A frame's node is computed
 * when a launch first needs it and kept in the frame. GPU time is added to
 * nodes; at the end each node gives its time to the innermost op,
 * annotation and module on its path (self) and to every distinct op,
 * annotation and module on it (total).
 *
 * Per-step totals. Each frame remembers the ProfilerStep its start lies in;
 * its calls, total and self go to that step's bucket when it is popped. A
 * bucket is written and freed once the scan has left its step and none of
 * its frames is open, so memory holds the steps in flight, not all of them.
 *
 * Memory: stack depths, one entry per (name, category, shape), one node per
 * distinct launching path, the op names of the open steps. */
#include "analyze/idmap.h"
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
#define NO_STEP INT64_MIN

enum { K_OTHER, K_STEP, K_OP, K_ANNOT, K_MODULE };

typedef struct {
    const pdb_name_info *name;
    const pdb_cat_info *cat;
    int64_t name_id, cat_id;
    char *dims;
    int kind;
    int64_t count, self, total;
    int64_t gpu_self, gpu_total;
    int64_t mark;               /* last node walk that counted this stat */
} op_stat;

typedef struct {
    int64_t end, dur, children;
    int64_t stat, slice_id, step;
    int32_t op_frame;           /* innermost op frame at or below this one, -1 */
    int32_t node;               /* context node of the path up to here, -2 unknown */
    bool family_outer;          /* the outermost open call of its op family */
} frame;

typedef struct {
    frame *v;
    int depth, cap;
    int open[PDB_FAMILY_COUNT]; /* open frames per op family */
} thread_stack;

typedef struct {
    int32_t parent;
    int64_t stat;
    int64_t op, top, annot, module;  /* innermost / outermost op, innermost annotation, module: stat or -1 */
    int32_t module_node;        /* the node of the innermost module frame, -1 */
    int64_t module_sid;         /* strings id of the module path, -1 until asked */
    int64_t gpu;                /* GPU time launched with exactly this path */
} ctx_node;

/* One step's op totals: (name id, cat id) -> calls, total, self. */
typedef struct {
    const pdb_name_info *name;
    const pdb_cat_info *cat;
    int64_t calls, total, self;
} step_op;

typedef struct {
    int64_t step;
    int64_t open;               /* frames of this step still on a stack */
    pdb_idmap index;            /* (name id, cat id) -> step_op */
    step_op *v;
    int64_t n, cap;
} step_bucket;

struct pdb_ops_acc {
    sqlite3 *db;
    pdb_steps_acc *steps;
    int64_t run_id;
    int rank;
    sqlite3_stmt *step_insert;
    pdb_strmap *index;    /* (name id, cat id, dims) -> op_stat */
    pdb_idmap last_dims;  /* (name id, cat id) -> the op_stat seen last: most ops
                             repeat their shape, so the string key is rarely needed */
    op_stat *v;
    int64_t n, cap;
    pdb_strmap *threads;  /* (pid, tid) -> thread_stack */
    pdb_buf thread_key, last_thread;
    int64_t last_stack;
    thread_stack *stacks;
    int nstacks;
    thread_stack *last;   /* the stack of the last row added */
    pdb_idmap node_index; /* (parent node, stat) -> ctx_node */
    ctx_node *nodes;
    int32_t nnodes, nodes_cap;
    step_bucket *buckets;
    int nbuckets, buckets_cap;
    int64_t walk;         /* counter for op_stat.mark */
    pdb_buf key;
};

pdb_ops_acc *pdb_ops_acc_new(sqlite3 *db, int64_t run_id, int rank, pdb_steps_acc *steps)
{
    pdb_ops_acc *a = pdb_xcalloc(1, sizeof *a);
    a->db = db;
    a->steps = steps;
    a->run_id = run_id;
    a->rank = rank;
    a->index = pdb_strmap_new();
    a->threads = pdb_strmap_new();
    a->last_stack = -1;
    return a;
}

static int kind_of(const pdb_row *r)
{
    if (r->name->profiler_step)
        return K_STEP;
    if (!r->cat || r->cat->op)
        return K_OP; /* legacy traces (no categories) hold ops only */
    if (r->cat->annotation)
        return K_ANNOT;
    if (r->cat->python && r->name->module)
        return K_MODULE;
    return K_OTHER;
}

/* String ids fit 32 bits (a database would need 4 billion strings). */
static int64_t name_cat_key(const pdb_row *r)
{
    return pdb_idmap_pair(r->name_id, r->cat_id);
}

static int64_t stat_for(pdb_ops_acc *a, const pdb_row *r)
{
    int64_t i;
    if (pdb_idmap_get(&a->last_dims, name_cat_key(r), &i) && strcmp(a->v[i].dims, r->dims) == 0)
        return i;
    pdb_buf_reset(&a->key);
    pdb_buf_add(&a->key, &r->name_id, sizeof r->name_id);
    pdb_buf_add(&a->key, &r->cat_id, sizeof r->cat_id);
    pdb_buf_adds(&a->key, r->dims);
    if (pdb_strmap_get(a->index, a->key.p, a->key.len, &i)) {
        pdb_idmap_put(&a->last_dims, name_cat_key(r), i);
        return i;
    }
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 64;
        a->v = pdb_xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    i = a->n++;
    a->v[i] = (op_stat){r->name, r->cat, r->name_id, r->cat_id, pdb_xstrdup(r->dims),
                        kind_of(r), 0, 0, 0, 0, 0, -1};
    pdb_strmap_put(a->index, a->key.p, a->key.len, i);
    pdb_idmap_put(&a->last_dims, name_cat_key(r), i);
    return i;
}

static thread_stack *stack_for(pdb_ops_acc *a, const pdb_row *r)
{
    pdb_buf *key = &a->thread_key;
    pdb_buf_reset(key);
    pdb_value_key(key, r->pid);
    pdb_value_key(key, r->tid);
    int64_t i;
    if (a->last_stack >= 0 && key->len == a->last_thread.len &&
        memcmp(key->p, a->last_thread.p, key->len) == 0)
        return &a->stacks[a->last_stack];
    if (!pdb_strmap_get(a->threads, key->p, key->len, &i)) {
        i = a->nstacks++;
        a->stacks = pdb_xrealloc(a->stacks, (size_t)a->nstacks * sizeof *a->stacks);
        a->stacks[i] = (thread_stack){0};
        pdb_strmap_put(a->threads, key->p, key->len, i);
    }
    pdb_buf_reset(&a->last_thread);
    pdb_buf_add(&a->last_thread, key->p, key->len);
    a->last_stack = i;
    return &a->stacks[i];
}

/* Per-step buckets ------------------------------------------------------ */

static step_bucket *bucket_for(pdb_ops_acc *a, int64_t step)
{
    for (int i = 0; i < a->nbuckets; i++)
        if (a->buckets[i].step == step)
            return &a->buckets[i];
    if (a->nbuckets == a->buckets_cap) {
        a->buckets_cap = a->buckets_cap ? a->buckets_cap * 2 : 4;
        a->buckets = pdb_xrealloc(a->buckets, (size_t)a->buckets_cap * sizeof *a->buckets);
    }
    step_bucket *b = &a->buckets[a->nbuckets++];
    *b = (step_bucket){.step = step};
    return b;
}

static void bucket_add(step_bucket *b, const op_stat *s, int64_t total, int64_t self)
{
    int64_t key = pdb_idmap_pair(s->name_id, s->cat_id), i;
    if (!pdb_idmap_get(&b->index, key, &i)) {
        if (b->n == b->cap) {
            b->cap = b->cap ? b->cap * 2 : 64;
            b->v = pdb_xrealloc(b->v, (size_t)b->cap * sizeof *b->v);
        }
        i = b->n++;
        b->v[i] = (step_op){s->name, s->cat, 0, 0, 0};
        pdb_idmap_put(&b->index, key, i);
    }
    b->v[i].calls++;
    pdb_sum(&b->v[i].total, total);
    pdb_sum(&b->v[i].self, self);
}

/* Writes a finished step's op totals and frees the bucket. */
static int bucket_flush(pdb_ops_acc *a, int i)
{
    step_bucket *b = &a->buckets[i];
    int rc = PDB_OK;
    if (!a->step_insert)
        rc = pdb_db_prepare(a->db, "INSERT INTO analysis_op_steps VALUES (?,?,?,?,?,?,?,?)",
                            &a->step_insert);
    sqlite3_stmt *st = a->step_insert;
    for (int64_t k = 0; k < b->n && rc == PDB_OK; k++) {
        const step_op *o = &b->v[k];
        sqlite3_bind_int64(st, 1, a->run_id);
        sqlite3_bind_int(st, 2, a->rank);
        if (b->step == NO_STEP)
            sqlite3_bind_null(st, 3);
        else
            sqlite3_bind_int64(st, 3, b->step);
        sqlite3_bind_text(st, 4, o->name->text, -1, SQLITE_STATIC);
        if (o->cat)
            sqlite3_bind_text(st, 5, o->cat->text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 5);
        sqlite3_bind_int64(st, 6, o->calls);
        sqlite3_bind_int64(st, 7, o->total);
        sqlite3_bind_int64(st, 8, o->self);
        rc = pdb_db_step_done(a->db, st);
    }
    pdb_idmap_free(&b->index);
    free(b->v);
    a->buckets[i] = a->buckets[--a->nbuckets];
    return rc;
}

/* Flushes the buckets of steps the scan has left whose frames are closed. */
static int flush_done(pdb_ops_acc *a, int64_t current_step)
{
    for (int i = 0; i < a->nbuckets;) {
        step_bucket *b = &a->buckets[i];
        if (b->step != NO_STEP && b->step != current_step && b->open == 0) {
            if (bucket_flush(a, i) != PDB_OK)
                return PDB_ERR;
        } else {
            i++;
        }
    }
    return PDB_OK;
}

/* Stacks ---------------------------------------------------------------- */

static void pop(pdb_ops_acc *a, thread_stack *t)
{
    assert(t->depth > 0);
    frame *f = &t->v[--t->depth];
    op_stat *s = &a->v[f->stat];
    int64_t self = f->dur;
    pdb_sum_sub(&self, f->children);
    pdb_sum(&s->self, self);
    step_bucket *b = bucket_for(a, f->step);
    bucket_add(b, s, f->dur, self);
    b->open--;
    int family = s->name->family;
    if (family != PDB_FAMILY_NONE) {
        t->open[family]--;
        if (f->family_outer && f->step != NO_STEP)
            pdb_steps_acc_family(a->steps, f->step, family, f->dur);
    }
}

int pdb_ops_acc_add(pdb_ops_acc *a, const pdb_row *r)
{
    int64_t step = r->in_step ? r->step : NO_STEP;
    if (flush_done(a, step) != PDB_OK)
        return PDB_ERR;
    thread_stack *t = stack_for(a, r);
    a->last = t;
    int64_t stat = stat_for(a, r), end = r->ts + r->dur;
    while (t->depth > 0 && t->v[t->depth - 1].end < end)
        pop(a, t);
    if (t->depth > 0)
        pdb_sum(&t->v[t->depth - 1].children, r->dur);
    op_stat *s = &a->v[stat];
    s->count++;
    pdb_sum(&s->total, r->dur);
    if (t->depth == MAX_DEPTH) {
        pdb_sum(&s->self, r->dur); /* absurdly deep: count it as a leaf */
        bucket_add(bucket_for(a, step), s, r->dur, r->dur);
        a->last = NULL;
        return PDB_OK;
    }
    if (t->depth == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = pdb_xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
    }
    int32_t below = t->depth > 0 ? t->v[t->depth - 1].op_frame : -1;
    int family = r->name->family;
    t->v[t->depth] = (frame){end, r->dur, 0, stat, r->id, step,
                             s->kind == K_OP ? t->depth : below, -2,
                             family != PDB_FAMILY_NONE && t->open[family] == 0};
    if (family != PDB_FAMILY_NONE)
        t->open[family]++;
    t->depth++;
    bucket_for(a, step)->open++;
    return PDB_OK;
}

/* Contexts -------------------------------------------------------------- */

static int32_t node_for(pdb_ops_acc *a, int32_t parent, int64_t stat)
{
    int64_t key = pdb_idmap_pair(parent, stat), i;
    if (pdb_idmap_get(&a->node_index, key, &i))
        return (int32_t)i;
    if (a->nnodes == a->nodes_cap) {
        a->nodes_cap = a->nodes_cap ? a->nodes_cap * 2 : 64;
        a->nodes = pdb_xrealloc(a->nodes, (size_t)a->nodes_cap * sizeof *a->nodes);
    }
    const ctx_node *p = parent >= 0 ? &a->nodes[parent] : NULL;
    int kind = a->v[stat].kind;
    ctx_node n = {parent, stat, p ? p->op : -1, p ? p->top : -1, p ? p->annot : -1,
                  p ? p->module : -1, p ? p->module_node : -1, -1, 0};
    if (kind == K_OP) {
        n.op = stat;
        if (n.top < 0)
            n.top = stat;
    } else if (kind == K_ANNOT) {
        n.annot = stat;
    } else if (kind == K_MODULE) {
        n.module = stat;
        n.module_node = a->nnodes;
    }
    a->nodes[a->nnodes] = n;
    pdb_idmap_put(&a->node_index, key, a->nnodes);
    return a->nnodes++;
}

/* The node of the path up to and including frame i (-1: no op, annotation
 * or module on it), computed from the highest frame that knows its own. */
static int32_t frame_node(pdb_ops_acc *a, thread_stack *t, int i)
{
    int j = i;
    while (j >= 0 && t->v[j].node == -2)
        j--;
    int32_t node = j >= 0 ? t->v[j].node : -1;
    for (j++; j <= i; j++) {
        int kind = a->v[t->v[j].stat].kind;
        if (kind == K_OP || kind == K_ANNOT || kind == K_MODULE)
            node = node_for(a, node, t->v[j].stat);
        t->v[j].node = node;
    }
    return node;
}

int32_t pdb_ops_acc_context(pdb_ops_acc *a, int64_t *op_slice)
{
    thread_stack *t = a->last;
    *op_slice = -1;
    if (!t || t->depth < 2)
        return -1; /* the row itself is the top frame; nothing encloses it */
    int parent = t->depth - 2;
    int32_t op = t->v[parent].op_frame;
    if (op >= 0)
        *op_slice = t->v[op].slice_id;
    return frame_node(a, t, parent);
}

void pdb_ops_acc_gpu(pdb_ops_acc *a, int32_t node, int64_t dur)
{
    if (node >= 0)
        pdb_sum(&a->nodes[node].gpu, dur);
}

static int64_t name_of(const pdb_ops_acc *a, int64_t stat)
{
    return stat >= 0 ? a->v[stat].name_id : -1;
}

/* The strings id of text, adding it if new (module paths are not in the
 * trace as such). */
static int intern(sqlite3 *db, const char *text, int64_t *id)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "INSERT OR IGNORE INTO strings (value) VALUES (?)", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    if (rc != PDB_OK ||
        pdb_db_prepare(db, "SELECT id FROM strings WHERE value = ?", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "interning a module path");
    *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc;
}

/* "Model_0/Linear_1": the nn.Module names on the path, prefix dropped,
 * interned in strings once per node. */
static int module_path(pdb_ops_acc *a, int32_t mnode, int64_t *sid)
{
    ctx_node *n = &a->nodes[mnode];
    if (n->module_sid >= 0) {
        *sid = n->module_sid;
        return PDB_OK;
    }
    pdb_buf path = PDB_BUF_INIT;
    int32_t chain[256], depth = 0;
    for (int32_t m = mnode; m >= 0 && depth < 256;) {
        chain[depth++] = m;
        int32_t up = a->nodes[m].parent;
        m = up >= 0 ? a->nodes[up].module_node : -1;
    }
    static const char prefix[] = "nn.Module: ";
    for (int32_t i = depth - 1; i >= 0; i--) {
        const char *name = a->v[a->nodes[chain[i]].stat].name->text;
        if (strncmp(name, prefix, sizeof prefix - 1) == 0)
            name += sizeof prefix - 1;
        if (i != depth - 1)
            pdb_buf_addc(&path, '/');
        pdb_buf_adds(&path, name);
    }
    int rc = intern(a->db, pdb_buf_str(&path), sid);
    pdb_buf_free(&path);
    if (rc == PDB_OK)
        n->module_sid = *sid;
    return rc;
}

int pdb_ops_acc_names(pdb_ops_acc *a, int32_t node, pdb_ctx_names *out)
{
    *out = (pdb_ctx_names){-1, -1, -1, -1};
    if (node < 0)
        return PDB_OK;
    const ctx_node *n = &a->nodes[node];
    out->op = name_of(a, n->op);
    out->top_op = name_of(a, n->top);
    out->annotation = name_of(a, n->annot);
    return n->module_node >= 0 ? module_path(a, n->module_node, &out->module) : PDB_OK;
}

/* Gives each node's GPU time to the stats on its path: self to the
 * innermost op, annotation and module, total to each distinct one. */
static void propagate_gpu(pdb_ops_acc *a)
{
    for (int32_t i = 0; i < a->nnodes; i++) {
        const ctx_node *n = &a->nodes[i];
        if (!n->gpu)
            continue;
        a->walk++;
        for (int32_t m = i; m >= 0; m = a->nodes[m].parent) {
            op_stat *s = &a->v[a->nodes[m].stat];
            if (s->mark == a->walk)
                continue; /* recursion: counted once */
            s->mark = a->walk;
            pdb_sum(&s->gpu_total, n->gpu);
        }
        int64_t inner[] = {n->op, n->annot, n->module};
        for (size_t k = 0; k < sizeof inner / sizeof *inner; k++)
            if (inner[k] >= 0)
                pdb_sum(&a->v[inner[k]].gpu_self, n->gpu);
    }
}

int pdb_ops_acc_write(pdb_ops_acc *a)
{
    for (int i = 0; i < a->nstacks; i++)
        while (a->stacks[i].depth > 0)
            pop(a, &a->stacks[i]);
    while (a->nbuckets > 0)
        if (bucket_flush(a, 0) != PDB_OK)
            return PDB_ERR;
    propagate_gpu(a);
    sqlite3_stmt *st;
    if (pdb_db_prepare(a->db, "INSERT INTO analysis_ops VALUES (?,?,?,?,?,?,?,?,?,?)", &st) !=
        PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    for (int64_t i = 0; i < a->n && rc == PDB_OK; i++) {
        const op_stat *s = &a->v[i];
        sqlite3_bind_int64(st, 1, a->run_id);
        sqlite3_bind_int(st, 2, a->rank);
        sqlite3_bind_text(st, 3, s->name->text, -1, SQLITE_STATIC);
        if (s->cat)
            sqlite3_bind_text(st, 4, s->cat->text, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 4);
        sqlite3_bind_text(st, 5, s->dims, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, s->count);
        sqlite3_bind_int64(st, 7, s->self);
        sqlite3_bind_int64(st, 8, s->total);
        sqlite3_bind_int64(st, 9, s->gpu_self);
        sqlite3_bind_int64(st, 10, s->gpu_total);
        rc = pdb_db_step_done(a->db, st);
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
    for (int i = 0; i < a->nbuckets; i++) {
        pdb_idmap_free(&a->buckets[i].index);
        free(a->buckets[i].v);
    }
    free(a->buckets);
    free(a->nodes);
    sqlite3_finalize(a->step_insert);
    pdb_strmap_free(a->index);
    pdb_strmap_free(a->threads);
    pdb_idmap_free(&a->node_index);
    pdb_idmap_free(&a->last_dims);
    pdb_buf_free(&a->key);
    pdb_buf_free(&a->thread_key);
    pdb_buf_free(&a->last_thread);
    free(a);
}
