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
 * Memory. Op records (one per name, category and shape) and context nodes
 * (one per distinct launching path) live in stores (recstore.h): in memory
 * up to a bound, in temporary tables past it, so millions of distinct names
 * cost disk, not memory, and the numbers stay exact. A bucket holding more
 * than BUCKET_MAX ops is written out and started again (analysis_op_steps
 * may then hold a step's op twice; readers sum, as they do for overlapping
 * steps). Stacks hold the open slices: a frame that ended before the scan's
 * time can take no more children, so when threads pile up (a trace with a
 * thread per event) every stack is popped up to the scan's time and empty
 * stacks are dropped; what remains is the slices open at that time. When
 * even those are more than STACKS_IN_MEMORY threads (a slice open on each
 * of a million threads), the stacks used least recently move whole to a
 * temporary table and come back when their thread does (or at the end):
 * a frame's numbers do not depend on when it is popped, only on the
 * children it had, and no thread gets children while it is away. */
#include "analyze/batch.h"
#include "analyze/idmap.h"
#include "analyze/recstore.h"
#include "analyze/passes.h"
#include "analyze/sum.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "common/query.h"
#include "common/query_db.h"
#include "analyze/queries.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 100000
#define NO_STEP INT64_MIN
#define OPS_IN_MEMORY 32768          /* op records before the store spills */
#define OP_KEYS_IN_MEMORY (8 << 20)  /* bytes of their keys (shapes can be long) */
#define NODES_IN_MEMORY 32768
#define BUCKET_MAX 16384             /* ops of one step held before a partial write */
#define LAST_DIMS 4096               /* (name, cat) -> the op record seen last */
#define STACKS_PRUNE 1024            /* stacks kept before popping up to the scan's time */
#define STACKS_IN_MEMORY 4096        /* open stacks kept before the idle half moves out */

enum { K_OTHER, K_STEP, K_OP, K_ANNOT, K_MODULE };

/* Key: name id, category id (0: none), then the Input Dims text. */
typedef struct {
    int64_t name_id, cat_id;
    int64_t has_cat, kind;
    int64_t count, self, total;
    int64_t gpu_self, gpu_total;
    int64_t mark;               /* last node walk that counted this stat */
} op_stat;

typedef struct {
    int64_t end, dur, children;
    int64_t stat, slice_id, step, step_idx;
    int64_t name_id, cat_id;    /* of the stat, for the step bucket */
    int64_t node;               /* context node of the path up to here, -2 unknown */
    int32_t op_frame;           /* innermost op frame at or below this one, -1 */
    int8_t kind, family;
    bool has_cat;
    bool family_outer;          /* the outermost open call of its op family */
} frame;

typedef struct {
    frame *v;
    int depth, cap;
    int open[PDB_FAMILY_COUNT]; /* open frames per op family */
    pdb_buf key;                /* (pid, tid) */
    int64_t used;               /* when a row last came to it (for eviction) */
} thread_stack;

/* Key: (parent node, stat). op, top, annot, module: stat numbers or -1, and
 * their name ids (for the attribution rows). */
typedef struct {
    int64_t parent, stat;
    int64_t op, top, annot, module;
    int64_t op_name, top_name, annot_name;
    int64_t module_node;        /* the node of the innermost module frame, -1 */
    int64_t module_sid;         /* strings id of the module path, -1 until asked */
    int64_t gpu;                /* GPU time launched with exactly this path */
} ctx_node;

/* One step's op totals: (name id, cat id) -> calls, total, self. */
typedef struct {
    int64_t name_id, cat_id;
    bool has_cat;
    int64_t calls, total, self;
} step_op;

typedef struct {
    int64_t step;
    int64_t open;               /* frames of this step still on a stack */
    pdb_idmap index;            /* (name id, cat id) -> step_op */
    step_op *v;
    int64_t n, cap;
} step_bucket;

typedef struct {
    int64_t key, stat;          /* key -1: empty */
} last_dims;

struct pdb_ops_acc {
    sqlite3 *db;
    pdb_steps_acc *steps;
    int64_t run_id;
    int rank;
    pdb_batch *step_insert;      /* analysis_op_steps rows */
    sqlite3_stmt *text_of;
    pdb_recstore *stats;  /* (name id, cat id, dims) -> op_stat */
    last_dims shapes[LAST_DIMS]; /* most ops repeat their shape: the key is rarely built */
    pdb_strmap *threads;  /* (pid, tid) -> index into stacks */
    pdb_buf thread_key;
    int64_t last_stack;
    thread_stack *stacks;
    int nstacks, stacks_cap, prune_at;
    int64_t rows;         /* rows added: the clock of thread_stack.used */
    int64_t away;         /* stacks in temp.ops_stacks */
    sqlite3_stmt *stack_put, *stack_get, *stack_del;
    pdb_buf blob;
    thread_stack *last;   /* the stack of the last row added */
    pdb_recstore *nodes;  /* (parent node, stat) -> ctx_node */
    step_bucket *buckets;
    int nbuckets, buckets_cap;
    int64_t walk;         /* counter for op_stat.mark */
    pdb_buf key;
};

int pdb_ops_acc_new(sqlite3 *db, int64_t run_id, int rank, pdb_steps_acc *steps,
                    pdb_ops_acc **out)
{
    pdb_ops_acc *a = pdb_xcalloc(1, sizeof *a);
    *out = a;
    a->db = db;
    a->steps = steps;
    a->run_id = run_id;
    a->rank = rank;
    a->threads = pdb_strmap_new();
    a->last_stack = -1;
    a->prune_at = (int)pdb_bound(STACKS_PRUNE, 8);
    for (int i = 0; i < LAST_DIMS; i++)
        a->shapes[i].key = -1;
    /* Made before the scan: a schema change would abort its query. */
    if (pdb_analyze_exec(db, "ops_pass.create_stacks") != PDB_OK ||
        pdb_analyze_prepare(db, "ops_pass.stack_put", &a->stack_put) != PDB_OK ||
        pdb_analyze_prepare(db, "ops_pass.stack_get", &a->stack_get) != PDB_OK ||
        pdb_analyze_prepare(db, "ops_pass.stack_delete", &a->stack_del) != PDB_OK ||
        pdb_rs_new(db, "ops", sizeof(op_stat), OPS_IN_MEMORY, OP_KEYS_IN_MEMORY, &a->stats) !=
            PDB_OK ||
        pdb_rs_new(db, "nodes", sizeof(ctx_node), NODES_IN_MEMORY, SIZE_MAX, &a->nodes) !=
            PDB_OK)
        return PDB_ERR;
    return pdb_common_prepare(db, "strings.text", NULL, &a->text_of);
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

static op_stat *stat_at(pdb_ops_acc *a, int64_t i)
{
    return pdb_rs_get(a->stats, i);
}

/* The record of the row's (name, category, shape), or -1 after a database
 * error (which the write reports). */
static int64_t stat_for(pdb_ops_acc *a, const pdb_row *r, size_t dims_len)
{
    int64_t nc = name_cat_key(r);
    last_dims *l = &a->shapes[(size_t)(((uint64_t)nc * 0x9E3779B97F4A7C15ULL) >> 40) & (LAST_DIMS - 1)];
    const size_t head = 2 * sizeof(int64_t);
    if (l->key == nc && l->stat >= 0) {
        size_t klen;
        const char *k = pdb_rs_key(a->stats, l->stat, &klen);
        if (klen == head + dims_len && memcmp(k + head, r->dims, dims_len) == 0)
            return l->stat;
    }
    unsigned char ids[16];
    pdb_rs_key_int(ids, r->name_id);
    pdb_rs_key_int(ids + 8, r->cat_id);
    pdb_buf_reset(&a->key);
    pdb_buf_add(&a->key, ids, sizeof ids);
    pdb_buf_add(&a->key, r->dims, dims_len);
    op_stat init = {r->name_id, r->cat_id, r->cat != NULL, kind_of(r), 0, 0, 0, 0, 0, -1};
    bool created;
    int64_t i = pdb_rs_find(a->stats, a->key.p, a->key.len, &init, &created);
    if (i >= 0)
        *l = (last_dims){nc, i};
    return i;
}

/* A stack as bytes: the family counts, then the frames. */
static void stack_to_blob(pdb_buf *b, const thread_stack *t)
{
    pdb_buf_reset(b);
    pdb_buf_add(b, t->open, sizeof t->open);
    pdb_buf_add(b, t->v, (size_t)t->depth * sizeof *t->v);
}

/* Brings a thread's stack back from the table into t, if it is there. */
static int stack_back(pdb_ops_acc *a, thread_stack *t)
{
    if (a->away == 0)
        return PDB_OK;
    sqlite3_bind_blob(a->stack_get, 1, t->key.p, (int)t->key.len, SQLITE_STATIC);
    int rc = sqlite3_step(a->stack_get);
    if (rc == SQLITE_ROW) {
        const char *p = sqlite3_column_blob(a->stack_get, 0);
        size_t n = (size_t)sqlite3_column_bytes(a->stack_get, 0);
        assert(n >= sizeof t->open && (n - sizeof t->open) % sizeof(frame) == 0);
        memcpy(t->open, p, sizeof t->open);
        t->depth = t->cap = (int)((n - sizeof t->open) / sizeof(frame));
        t->v = pdb_xmalloc((size_t)t->cap * sizeof *t->v + 1);
        memcpy(t->v, p + sizeof t->open, n - sizeof t->open);
    }
    sqlite3_reset(a->stack_get);
    if (rc == SQLITE_ROW) {
        pdb_bound_passed("op stack back from the table");
        sqlite3_bind_blob(a->stack_del, 1, t->key.p, (int)t->key.len, SQLITE_STATIC);
        a->away--;
        return pdb_db_step_done(a->db, a->stack_del);
    }
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(a->db, "reading an op stack");
}

static int cmp_int64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Moves the stacks used least recently (half of them) to the table. */
static int send_away(pdb_ops_acc *a)
{
    pdb_bound_passed("op stacks sent to a table");
    int64_t *used = pdb_xmalloc((size_t)a->nstacks * sizeof *used);
    for (int i = 0; i < a->nstacks; i++)
        used[i] = a->stacks[i].used;
    qsort(used, (size_t)a->nstacks, sizeof *used, cmp_int64);
    int64_t cut = used[a->nstacks / 2];
    free(used);
    int kept = 0, rc = PDB_OK;
    pdb_strmap_free(a->threads);
    a->threads = pdb_strmap_new();
    for (int i = 0; i < a->nstacks; i++) {
        thread_stack *t = &a->stacks[i];
        if (t->used < cut && rc == PDB_OK) {
            stack_to_blob(&a->blob, t);
            sqlite3_bind_blob(a->stack_put, 1, t->key.p, (int)t->key.len, SQLITE_STATIC);
            sqlite3_bind_blob(a->stack_put, 2, a->blob.p, (int)a->blob.len, SQLITE_STATIC);
            rc = pdb_db_step_done(a->db, a->stack_put);
            a->away++;
            free(t->v);
            pdb_buf_free(&t->key);
            continue;
        }
        a->stacks[kept] = *t;
        pdb_strmap_put(a->threads, t->key.p, t->key.len, kept);
        kept++;
    }
    a->nstacks = kept;
    a->last_stack = -1;
    return rc;
}

static thread_stack *stack_for(pdb_ops_acc *a, const pdb_row *r)
{
    pdb_buf *key = &a->thread_key;
    pdb_buf_reset(key);
    pdb_val_key(key, &r->pid);
    pdb_val_key(key, &r->tid);
    int64_t i;
    if (a->last_stack >= 0) {
        const pdb_buf *k = &a->stacks[a->last_stack].key;
        if (key->len == k->len && memcmp(key->p, k->p, key->len) == 0)
            return &a->stacks[a->last_stack];
    }
    if (!pdb_strmap_get(a->threads, key->p, key->len, &i)) {
        if (a->nstacks == a->stacks_cap) {
            a->stacks_cap = a->stacks_cap ? a->stacks_cap * 2 : 16;
            a->stacks = pdb_xrealloc(a->stacks, (size_t)a->stacks_cap * sizeof *a->stacks);
        }
        i = a->nstacks++;
        a->stacks[i] = (thread_stack){0};
        pdb_buf_add(&a->stacks[i].key, key->p, key->len);
        pdb_strmap_put(a->threads, key->p, key->len, i);
        if (stack_back(a, &a->stacks[i]) != PDB_OK)
            return NULL;
    }
    a->last_stack = i;
    a->stacks[i].used = a->rows;
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

/* Writes a bucket's op totals and empties it. */
static int bucket_write(pdb_ops_acc *a, step_bucket *b)
{
    int rc = PDB_OK;
    if (!a->step_insert)
        rc = pdb_batch_new(a->db, pdb_analyze_sql("ops_pass.add_op_step"), 8, &a->step_insert);
    for (int64_t k = 0; k < b->n && rc == PDB_OK; k++) {
        const step_op *o = &b->v[k];
        int64_t v[] = {a->run_id, a->rank, b->step, o->name_id, o->cat_id,
                       o->calls, o->total, o->self};
        uint32_t nulls = (b->step == NO_STEP ? 1u << 2 : 0) | (o->has_cat ? 0 : 1u << 4);
        rc = pdb_batch_add(a->step_insert, v, nulls);
    }
    pdb_idmap_free(&b->index);
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
    return rc;
}

static int bucket_add(pdb_ops_acc *a, step_bucket *b, const frame *f, int64_t total,
                      int64_t self)
{
    int64_t key = pdb_idmap_pair(f->name_id, f->cat_id), i;
    if (!pdb_idmap_get(&b->index, key, &i)) {
        if (b->n == pdb_bound(BUCKET_MAX, 4)) {
            pdb_bound_passed("step bucket written in parts");
            if (bucket_write(a, b) != PDB_OK)
                return PDB_ERR;
        }
        if (b->n == b->cap) {
            b->cap = b->cap ? b->cap * 2 : 64;
            b->v = pdb_xrealloc(b->v, (size_t)b->cap * sizeof *b->v);
        }
        i = b->n++;
        b->v[i] = (step_op){f->name_id, f->cat_id, f->has_cat, 0, 0, 0};
        pdb_idmap_put(&b->index, key, i);
    }
    b->v[i].calls++;
    pdb_sum(&b->v[i].total, total);
    pdb_sum(&b->v[i].self, self);
    return PDB_OK;
}

/* Writes a finished step's op totals and frees the bucket. */
static int bucket_flush(pdb_ops_acc *a, int i)
{
    int rc = bucket_write(a, &a->buckets[i]);
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

static int pop(pdb_ops_acc *a, thread_stack *t)
{
    assert(t->depth > 0);
    frame *f = &t->v[--t->depth];
    int64_t self = f->dur;
    pdb_sum_sub(&self, f->children);
    pdb_sum(&stat_at(a, f->stat)->self, self);
    step_bucket *b = bucket_for(a, f->step);
    b->open--;
    if (f->family != PDB_FAMILY_NONE) {
        t->open[f->family]--;
        if (f->family_outer && f->step != NO_STEP)
            pdb_steps_acc_family(a->steps, f->step_idx, f->family, f->dur);
    }
    return bucket_add(a, b, f, f->dur, self);
}

/* Pops, on every stack, the frames that ended before now (no row from now
 * on can be their child) and drops the stacks left empty; the next prune
 * comes when the stacks have doubled. */
static int prune_stacks(pdb_ops_acc *a, int64_t now)
{
    int kept = 0;
    pdb_strmap_free(a->threads);
    a->threads = pdb_strmap_new();
    for (int i = 0; i < a->nstacks; i++) {
        thread_stack *t = &a->stacks[i];
        while (t->depth > 0 && t->v[t->depth - 1].end < now)
            if (pop(a, t) != PDB_OK)
                return PDB_ERR;
        if (t->depth == 0) {
            free(t->v);
            pdb_buf_free(&t->key);
            continue;
        }
        a->stacks[kept] = *t;
        pdb_strmap_put(a->threads, t->key.p, t->key.len, kept);
        kept++;
    }
    a->nstacks = kept;
    a->last_stack = -1;
    if (a->nstacks > pdb_bound(STACKS_IN_MEMORY, 4) && send_away(a) != PDB_OK)
        return PDB_ERR;
    int floor = (int)pdb_bound(STACKS_PRUNE, 8);
    a->prune_at = a->nstacks * 2 > floor ? a->nstacks * 2 : floor;
    return PDB_OK;
}

int pdb_ops_acc_add(pdb_ops_acc *a, const pdb_row *r)
{
    int64_t step = r->in_step ? r->step : NO_STEP;
    if (flush_done(a, step) != PDB_OK)
        return PDB_ERR;
    if (a->nstacks >= a->prune_at && prune_stacks(a, r->ts) != PDB_OK)
        return PDB_ERR;
    size_t dims_len = strlen(r->dims);
    int64_t stat = stat_for(a, r, dims_len);
    if (stat < 0)
        return pdb_rs_error(a->stats);
    a->rows++;
    thread_stack *t = stack_for(a, r);
    if (!t)
        return PDB_ERR;
    a->last = t;
    int64_t end = r->ts + r->dur;
    while (t->depth > 0 && t->v[t->depth - 1].end < end)
        if (pop(a, t) != PDB_OK)
            return PDB_ERR;
    if (t->depth > 0)
        pdb_sum(&t->v[t->depth - 1].children, r->dur);
    op_stat *s = stat_at(a, stat);
    s->count++;
    pdb_sum(&s->total, r->dur);
    int kind = (int)s->kind, family = r->name->family;
    frame f = {end, r->dur, 0, stat, r->id, step, r->in_step ? r->step_idx : -1, r->name_id, r->cat_id, -2, -1,
               (int8_t)kind, (int8_t)family, r->cat != NULL,
               family != PDB_FAMILY_NONE && t->open[family] == 0};
    if (t->depth == MAX_DEPTH) {
        pdb_sum(&s->self, r->dur); /* absurdly deep: count it as a leaf */
        a->last = NULL;
        return bucket_add(a, bucket_for(a, step), &f, r->dur, r->dur);
    }
    if (t->depth == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = pdb_xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
    }
    int32_t below = t->depth > 0 ? t->v[t->depth - 1].op_frame : -1;
    f.op_frame = kind == K_OP ? t->depth : below;
    t->v[t->depth] = f;
    if (family != PDB_FAMILY_NONE)
        t->open[family]++;
    t->depth++;
    bucket_for(a, step)->open++;
    return PDB_OK;
}

/* Contexts -------------------------------------------------------------- */

static int64_t node_for(pdb_ops_acc *a, int64_t parent, const frame *f)
{
    ctx_node n = {parent, f->stat, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0};
    if (parent >= 0) {
        const ctx_node *p = pdb_rs_read(a->nodes, parent);
        n.op = p->op, n.top = p->top, n.annot = p->annot, n.module = p->module;
        n.op_name = p->op_name, n.top_name = p->top_name, n.annot_name = p->annot_name;
        n.module_node = p->module_node;
    }
    if (f->kind == K_OP) {
        n.op = f->stat;
        n.op_name = f->name_id;
        if (n.top < 0) {
            n.top = f->stat;
            n.top_name = f->name_id;
        }
    } else if (f->kind == K_ANNOT) {
        n.annot = f->stat;
        n.annot_name = f->name_id;
    } else if (f->kind == K_MODULE) {
        n.module = f->stat;
    }
    unsigned char key[16];
    pdb_rs_key_int(key, parent);
    pdb_rs_key_int(key + 8, f->stat);
    bool created;
    int64_t h = pdb_rs_find(a->nodes, key, sizeof key, &n, &created);
    if (created && f->kind == K_MODULE)
        ((ctx_node *)pdb_rs_get(a->nodes, h))->module_node = h;
    return h < 0 ? -1 : h;
}

/* The node of the path up to and including frame i (-1: no op, annotation
 * or module on it), computed from the highest frame that knows its own. */
static int64_t frame_node(pdb_ops_acc *a, thread_stack *t, int i)
{
    int j = i;
    while (j >= 0 && t->v[j].node == -2)
        j--;
    int64_t node = j >= 0 ? t->v[j].node : -1;
    for (j++; j <= i; j++) {
        int kind = t->v[j].kind;
        if (kind == K_OP || kind == K_ANNOT || kind == K_MODULE)
            node = node_for(a, node, &t->v[j]);
        t->v[j].node = node;
    }
    return node;
}

int64_t pdb_ops_acc_context(pdb_ops_acc *a, int64_t *op_slice)
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

void pdb_ops_acc_gpu(pdb_ops_acc *a, int64_t node, int64_t dur)
{
    if (node >= 0)
        pdb_sum(&((ctx_node *)pdb_rs_get(a->nodes, node))->gpu, dur);
}

/* The strings id of text, adding it if new (module paths are not in the
 * trace as such). */
static int intern(sqlite3 *db, const char *text, size_t len, int64_t *id)
{
    sqlite3_stmt *st;
    if (pdb_common_prepare(db, "strings.add", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, text, (int)len, SQLITE_STATIC);
    int rc = pdb_db_step_done(db, st);
    pdb_db_release(st);
    if (rc != PDB_OK ||
        pdb_common_prepare(db, "strings.id", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, text, (int)len, SQLITE_STATIC);
    rc = sqlite3_step(st) == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "interning a module path");
    *id = sqlite3_column_int64(st, 0);
    pdb_db_release(st);
    return rc;
}

/* Appends the text of string id to b. */
static int add_text(pdb_ops_acc *a, int64_t id, pdb_buf *b)
{
    sqlite3_bind_int64(a->text_of, 1, id);
    int rc = sqlite3_step(a->text_of);
    if (rc == SQLITE_ROW)
        pdb_buf_add(b, sqlite3_column_blob(a->text_of, 0),
                    (size_t)sqlite3_column_bytes(a->text_of, 0));
    sqlite3_reset(a->text_of);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(a->db, "reading a module name");
}

/* "Model_0/Linear_1": the nn.Module names on the path, prefix dropped,
 * interned in strings once per node. */
static int module_path(pdb_ops_acc *a, int64_t mnode, int64_t *sid)
{
    const ctx_node *n = pdb_rs_read(a->nodes, mnode);
    if (n->module_sid >= 0) {
        *sid = n->module_sid;
        return PDB_OK;
    }
    int64_t chain[256];
    int depth = 0;
    for (int64_t m = mnode; m >= 0 && depth < 256;) {
        const ctx_node *c = pdb_rs_read(a->nodes, m);
        chain[depth++] = c->stat;
        int64_t up = c->parent;
        m = up >= 0 ? ((const ctx_node *)pdb_rs_read(a->nodes, up))->module_node : -1;
    }
    static const char prefix[] = "nn.Module: ";
    pdb_buf path = PDB_BUF_INIT, name = PDB_BUF_INIT;
    int rc = PDB_OK;
    for (int i = depth - 1; i >= 0 && rc == PDB_OK; i--) {
        pdb_buf_reset(&name);
        rc = add_text(a, ((const op_stat *)pdb_rs_read(a->stats, chain[i]))->name_id, &name);
        size_t skip = name.len >= sizeof prefix - 1 &&
                              memcmp(name.p, prefix, sizeof prefix - 1) == 0
                          ? sizeof prefix - 1 : 0;
        if (i != depth - 1)
            pdb_buf_addc(&path, '/');
        if (name.len > skip)
            pdb_buf_add(&path, name.p + skip, name.len - skip);
    }
    if (rc == PDB_OK)
        rc = intern(a->db, path.p ? path.p : "", path.len, sid);
    pdb_buf_free(&path);
    pdb_buf_free(&name);
    if (rc == PDB_OK)
        ((ctx_node *)pdb_rs_get(a->nodes, mnode))->module_sid = *sid;
    return rc;
}

int pdb_ops_acc_names(pdb_ops_acc *a, int64_t node, pdb_ctx_names *out)
{
    *out = (pdb_ctx_names){-1, -1, -1, -1};
    if (node < 0)
        return PDB_OK;
    const ctx_node *n = pdb_rs_read(a->nodes, node);
    out->op = n->op_name;
    out->top_op = n->top_name;
    out->annotation = n->annot_name;
    int64_t mnode = n->module_node;
    return mnode >= 0 ? module_path(a, mnode, &out->module) : PDB_OK;
}

/* Gives each node's GPU time to the stats on its path: self to the
 * innermost op, annotation and module, total to each distinct one. */
static void propagate_gpu(pdb_ops_acc *a)
{
    int64_t count = pdb_rs_count(a->nodes);
    for (int64_t i = 0; i < count; i++) {
        ctx_node n = *(const ctx_node *)pdb_rs_read(a->nodes, i);
        if (!n.gpu)
            continue;
        a->walk++;
        for (int64_t m = i; m >= 0;) {
            const ctx_node *c = pdb_rs_read(a->nodes, m);
            int64_t stat = c->stat;
            m = c->parent;
            op_stat *s = stat_at(a, stat);
            if (s->mark == a->walk)
                continue; /* recursion: counted once */
            s->mark = a->walk;
            pdb_sum(&s->gpu_total, n.gpu);
        }
        int64_t inner[] = {n.op, n.annot, n.module};
        for (size_t k = 0; k < sizeof inner / sizeof *inner; k++)
            if (inner[k] >= 0)
                pdb_sum(&stat_at(a, inner[k])->gpu_self, n.gpu);
    }
}

typedef struct {
    pdb_batch *rows;
    int64_t run_id;
    int rank;
} op_writer;

/* One analysis_ops row: the name and category as ids (the view adds the
 * texts), the shape from the key. */
static int write_op(int64_t h, const void *key, size_t klen, const void *rec, void *arg)
{
    const op_writer *w = arg;
    const op_stat *s = rec;
    const size_t head = 2 * sizeof(int64_t);
    (void)h;
    assert(klen >= head);
    pdb_batch_val v[] = {
        {.i = w->run_id}, {.i = w->rank}, {.i = s->name_id}, {.i = s->cat_id},
        {.t = {(const char *)key + head, klen - head}}, {.i = s->count}, {.i = s->self},
        {.i = s->total}, {.i = s->gpu_self}, {.i = s->gpu_total},
    };
    return pdb_batch_add_vals(w->rows, v, s->has_cat ? 0 : 1u << 3);
}

/* Pops every frame of the stacks still in the table. */
static int pop_away(pdb_ops_acc *a)
{
    sqlite3_stmt *st;
    if (a->away == 0)
        return PDB_OK;
    if (pdb_analyze_prepare(a->db, "ops_pass.stacks", &st) != PDB_OK)
        return PDB_ERR;
    thread_stack t = {0};
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *p = sqlite3_column_blob(st, 0);
        size_t n = (size_t)sqlite3_column_bytes(st, 0);
        assert(n >= sizeof t.open && (n - sizeof t.open) % sizeof(frame) == 0);
        memcpy(t.open, p, sizeof t.open);
        t.depth = (int)((n - sizeof t.open) / sizeof(frame));
        if (t.depth > t.cap) {
            t.cap = t.depth;
            t.v = pdb_xrealloc(t.v, (size_t)t.cap * sizeof *t.v);
        }
        memcpy(t.v, p + sizeof t.open, n - sizeof t.open);
        while (rc == PDB_OK && t.depth > 0)
            rc = pop(a, &t);
    }
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(a->db, "reading an op stack");
    free(t.v);
    sqlite3_finalize(st);
    a->away = 0;
    return rc == PDB_OK ? pdb_analyze_exec(a->db, "ops_pass.clear_stacks") : rc;
}

int pdb_ops_acc_write(pdb_ops_acc *a)
{
    for (int i = 0; i < a->nstacks; i++)
        while (a->stacks[i].depth > 0)
            if (pop(a, &a->stacks[i]) != PDB_OK)
                return PDB_ERR;
    if (pop_away(a) != PDB_OK)
        return PDB_ERR;
    while (a->nbuckets > 0)
        if (bucket_flush(a, 0) != PDB_OK)
            return PDB_ERR;
    if (a->step_insert && pdb_batch_flush(a->step_insert) != PDB_OK)
        return PDB_ERR;
    propagate_gpu(a);
    if (pdb_rs_error(a->nodes) != PDB_OK || pdb_rs_error(a->stats) != PDB_OK)
        return PDB_ERR;
    op_writer w = {NULL, a->run_id, a->rank};
    int rc = pdb_batch_new_typed(a->db, pdb_analyze_sql("ops_pass.add_op"), "iiiitiiiii", &w.rows);
    if (rc == PDB_OK)
        rc = pdb_rs_each(a->stats, write_op, &w);
    if (rc == PDB_OK)
        rc = pdb_batch_flush(w.rows);
    pdb_batch_free(w.rows);
    return rc;
}

void pdb_ops_acc_free(pdb_ops_acc *a)
{
    if (!a)
        return;
    pdb_rs_free(a->stats);
    pdb_rs_free(a->nodes);
    for (int i = 0; i < a->nstacks; i++) {
        free(a->stacks[i].v);
        pdb_buf_free(&a->stacks[i].key);
    }
    free(a->stacks);
    for (int i = 0; i < a->nbuckets; i++) {
        pdb_idmap_free(&a->buckets[i].index);
        free(a->buckets[i].v);
    }
    free(a->buckets);
    pdb_batch_free(a->step_insert);
    sqlite3_finalize(a->text_of);
    sqlite3_finalize(a->stack_put);
    sqlite3_finalize(a->stack_get);
    sqlite3_finalize(a->stack_del);
    pdb_buf_free(&a->blob);
    pdb_strmap_free(a->threads);
    pdb_buf_free(&a->key);
    pdb_buf_free(&a->thread_key);
    free(a);
}
