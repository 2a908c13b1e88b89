/* op_kernels.c: the kernels each CPU op launches (see op_kernels.h).
 *
 * Delays, hta mode: HTA walks every launch (names matching
 * ^(cuda.*LaunchKernel|cuLaunchKernel|runFunction)), takes the aten:: event
 * of any thread that encloses it (ts <= launch start, end >= launch end)
 * and starts last (the earlier in trace order on a tie, as pandas' sort of
 * a small frame keeps ties in order), and the one GPU event
 * whose index_correlation names the launch; more or fewer than one fails
 * the whole call, as in HTA. Launches are grouped per op instance (thread,
 * name, start) in trace order; an instance's delays are its first launch's.
 * Here the trace is read in start order: ops stay open until the scan
 * passes their end, launches wait until every event starting with them has
 * been seen, and an instance is summarised when it closes.
 *
 * Delays, exact mode: the attribution (analysis_gpu_attribution) already
 * names the innermost op around each launch; its rows, ordered by op and
 * launch, give the instances directly.
 *
 * Kernel sequences: see pdb_kernel_sequences below. */
#include "analyze/ondemand/op_kernels.h"
#include "analyze/hta.h"
#include "analyze/idmap.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "common/query.h"
#include "common/query_db.h"
#include "analyze/queries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Aggregation per (op, sequence) ------------------------------------------ */

typedef struct {
    char *op, *sequence;
    int64_t count, kernels, gpu_ns, cpu_ns;
    int64_t op_delay_sum, runtime_delay_sum;
} agg_row;

typedef struct {
    pdb_strmap *index;
    agg_row *v;
    size_t n, cap;
} agg;

static agg_row *agg_for(agg *a, const char *op, const char *sequence)
{
    pdb_buf key = PDB_BUF_INIT;
    pdb_buf_adds(&key, op);
    pdb_buf_addc(&key, '\x1f');
    pdb_buf_adds(&key, sequence);
    int64_t i;
    if (!pdb_strmap_get(a->index, key.p, key.len, &i)) {
        if (a->n == a->cap) {
            a->cap = a->cap ? a->cap * 2 : 32;
            a->v = pdb_xrealloc(a->v, a->cap * sizeof *a->v);
        }
        i = (int64_t)a->n++;
        a->v[i] = (agg_row){pdb_xstrdup(op), pdb_xstrdup(sequence), 0, 0, 0, 0, 0, 0};
        pdb_strmap_put(a->index, key.p, key.len, i);
    }
    pdb_buf_free(&key);
    return &a->v[i];
}

static int agg_emit(agg *a, int rank, pdb_op_kernels_fn fn, void *arg)
{
    int rc = PDB_OK;
    for (size_t i = 0; i < a->n && rc == PDB_OK; i++) {
        agg_row *r = &a->v[i];
        pdb_op_kernels_row row = {rank, r->op, r->sequence, r->count, r->kernels,
                                  (double)r->op_delay_sum / (double)r->count,
                                  (double)r->runtime_delay_sum / (double)r->count,
                                  r->gpu_ns, r->cpu_ns};
        rc = fn(arg, &row);
    }
    return rc;
}

static void agg_free(agg *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].op);
        free(a->v[i].sequence);
    }
    free(a->v);
    pdb_strmap_free(a->index);
}

/* Strings by id ----------------------------------------------------------- */

typedef struct {
    sqlite3_stmt *st;
    pdb_idmap index;
    char **text;
    size_t n;
} names;

static int names_open(sqlite3 *db, names *nm)
{
    *nm = (names){0};
    return pdb_common_prepare(db, "strings.text", NULL, &nm->st);
}

static const char *name_text(names *nm, int64_t id)
{
    int64_t i;
    if (pdb_idmap_get(&nm->index, id, &i))
        return nm->text[i];
    sqlite3_bind_int64(nm->st, 1, id);
    const char *t = sqlite3_step(nm->st) == SQLITE_ROW
                        ? (const char *)sqlite3_column_text(nm->st, 0) : "";
    nm->text = pdb_xrealloc(nm->text, (nm->n + 1) * sizeof *nm->text);
    nm->text[nm->n] = pdb_xstrdup(t ? t : "");
    sqlite3_reset(nm->st);
    pdb_idmap_put(&nm->index, id, (int64_t)nm->n);
    return nm->text[nm->n++];
}

static void names_close(names *nm)
{
    for (size_t i = 0; i < nm->n; i++)
        free(nm->text[i]);
    free(nm->text);
    pdb_idmap_free(&nm->index);
    sqlite3_finalize(nm->st);
}

/* Exact mode --------------------------------------------------------------- */

static int exact_delays(sqlite3 *db, int64_t run_id, int rank, agg *a, names *nm)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "op_kernels.exact", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, rank);
    int64_t op = -1, op_name = 0, op_delay = 0, runtime_delay = 0, kernels = 0;
    pdb_buf seq = PDB_BUF_INIT;
    int rc;
    for (;;) {
        rc = sqlite3_step(st);
        int64_t next = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
        if (next != op && op >= 0) { /* an instance ends */
            agg_row *r = agg_for(a, name_text(nm, op_name), pdb_buf_str(&seq));
            r->count++;
            r->kernels = kernels;
            r->op_delay_sum += op_delay;
            r->runtime_delay_sum += runtime_delay;
        }
        if (rc != SQLITE_ROW)
            break;
        if (next != op) {
            op = next;
            op_name = sqlite3_column_int64(st, 1);
            op_delay = sqlite3_column_int64(st, 3) - sqlite3_column_int64(st, 2);
            runtime_delay = sqlite3_column_int64(st, 4) - sqlite3_column_int64(st, 3);
            kernels = 0;
            pdb_buf_reset(&seq);
        }
        if (kernels++)
            pdb_buf_adds(&seq, " -> ");
        pdb_buf_adds(&seq, name_text(nm, sqlite3_column_int64(st, 5)));
    }
    pdb_buf_free(&seq);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "op delays");
}

/* hta mode ------------------------------------------------------------------ */

/* An HTA row read in start order; kept rows own their tid (a copy of the
 * whole value: threads that share a long prefix stay apart). */
typedef struct {
    int64_t id, name, ts, end, corr, stream;
    sqlite3_value *tid;
} hrow;

typedef struct {
    int64_t op_id, op_ts, op_end, name;
    sqlite3_value *tid;              /* owned */
    int64_t *launch, *kernel_name, *op_delay, *runtime_delay; /* per launch */
    size_t n, cap;
} instance;

typedef struct {
    sqlite3 *db;
    int64_t trace_id;
    pdb_hta_mode mode;
    int64_t trace_cat;
    names *nm;
    sqlite3_stmt *by_corr;
    hrow *ops;            /* aten:: ops still open */
    size_t nops, ops_cap;
    hrow *pending;        /* launches waiting for their start time to pass */
    size_t npending, pending_cap;
    instance *inst;
    size_t ninst, inst_cap;
    agg *a;
    const char **why;
    int64_t records;
} hta_delays;

static bool launch_name(const char *t)
{
    if (strncmp(t, "cuLaunchKernel", 14) == 0 || strncmp(t, "runFunction", 11) == 0)
        return true;
    return strncmp(t, "cuda", 4) == 0 && strstr(t + 4, "LaunchKernel") != NULL;
}

/* The one GPU event (stream not -1) whose link is the launch: the launch is
 * the last CPU-side event of its correlation. Sets *n to how many. */
static int kernel_of(hta_delays *h, const hrow *l, int64_t *ts, int64_t *name, int *n)
{
    *n = 0;
    if (l->corr == -1)
        return PDB_OK;
    sqlite3_bind_int64(h->by_corr, 1, h->trace_id);
    sqlite3_bind_int64(h->by_corr, 2, l->corr);
    int64_t last_cpu = 0;
    int64_t gts[64], gname[64];
    int ng = 0, rc;
    while ((rc = sqlite3_step(h->by_corr)) == SQLITE_ROW) {
        sqlite3_stmt *s = h->by_corr;
        if (sqlite3_column_type(s, 2) == SQLITE_NULL ||
            sqlite3_column_int64(s, 2) == h->trace_cat ||
            strcmp((const char *)sqlite3_column_text(s, 3), "X") != 0)
            continue;
        int64_t stream = pdb_hta_stream(sqlite3_column_value(s, 4));
        const char *nt = name_text(h->nm, sqlite3_column_int64(s, 1));
        bool gpu = (stream >= 0 && l->corr >= 0) || strcmp(nt, "Event Sync") == 0 ||
                   strcmp(nt, "Context Sync") == 0;
        if (!gpu)
            last_cpu = sqlite3_column_int64(s, 0);
        else if (stream != -1 && ng < 64) {
            int64_t t = sqlite3_column_int64(s, 5);
            gts[ng] = h->mode.round ? pdb_hta_ceil(t) : t;
            gname[ng++] = sqlite3_column_int64(s, 1);
        }
    }
    sqlite3_reset(h->by_corr);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(h->db, "op delays: correlation lookup");
    if (last_cpu == l->id) {
        *n = ng;
        if (ng == 1) {
            *ts = gts[0];
            *name = gname[0];
        }
    }
    return PDB_OK;
}

static instance *instance_for(hta_delays *h, const hrow *op)
{
    for (size_t i = 0; i < h->ninst; i++) {
        instance *in = &h->inst[i];
        if (in->name == op->name && in->op_ts == op->ts && pdb_value_equal(in->tid, op->tid)) {
            if (op->end > in->op_end)
                in->op_end = op->end;
            return in;
        }
    }
    if (h->ninst == h->inst_cap) {
        h->inst_cap = h->inst_cap ? h->inst_cap * 2 : 16;
        h->inst = pdb_xrealloc(h->inst, h->inst_cap * sizeof *h->inst);
    }
    instance *in = &h->inst[h->ninst++];
    *in = (instance){.op_id = op->id, .op_ts = op->ts, .op_end = op->end, .name = op->name,
                     .tid = sqlite3_value_dup(op->tid)};
    return in;
}

static int launch_done(hta_delays *h, const hrow *l)
{
    const hrow *best = NULL;
    for (size_t i = 0; i < h->nops; i++) {
        const hrow *o = &h->ops[i];
        if (o->ts <= l->ts && o->end >= l->end &&
            (!best || o->ts > best->ts || (o->ts == best->ts && o->id < best->id)))
            best = o;
    }
    if (!best)
        return PDB_OK;
    int64_t kts = 0, kname = 0;
    int n;
    if (kernel_of(h, l, &kts, &kname, &n) != PDB_OK)
        return PDB_ERR;
    if (n != 1) {
        *h->why = "HTA's ValueError: a launch inside an aten op without exactly one GPU event";
        return PDB_OK;
    }
    instance *in = instance_for(h, best);
    if (in->n == in->cap) {
        in->cap = in->cap ? in->cap * 2 : 4;
        in->launch = pdb_xrealloc(in->launch, in->cap * sizeof *in->launch);
        in->kernel_name = pdb_xrealloc(in->kernel_name, in->cap * sizeof *in->kernel_name);
        in->op_delay = pdb_xrealloc(in->op_delay, in->cap * sizeof *in->op_delay);
        in->runtime_delay = pdb_xrealloc(in->runtime_delay, in->cap * sizeof *in->runtime_delay);
    }
    in->launch[in->n] = l->id;
    in->kernel_name[in->n] = kname;
    in->op_delay[in->n] = l->ts - best->ts;
    in->runtime_delay[in->n++] = kts - l->ts;
    h->records++;
    return PDB_OK;
}

/* An instance closes: its launches in trace order make its sequence. */
static void instance_close(hta_delays *h, instance *in)
{
    size_t first = 0;
    pdb_buf seq = PDB_BUF_INIT;
    /* Launch ids are few per instance: insertion order by id. */
    for (size_t i = 1; i < in->n; i++)
        for (size_t j = i; j > 0 && in->launch[j] < in->launch[j - 1]; j--) {
            int64_t *cols[] = {in->launch, in->kernel_name, in->op_delay, in->runtime_delay};
            for (int c = 0; c < 4; c++) {
                int64_t t = cols[c][j];
                cols[c][j] = cols[c][j - 1];
                cols[c][j - 1] = t;
            }
        }
    for (size_t i = 0; i < in->n; i++) {
        if (i)
            pdb_buf_adds(&seq, " -> ");
        pdb_buf_adds(&seq, name_text(h->nm, in->kernel_name[i]));
    }
    if (in->n) {
        agg_row *r = agg_for(h->a, name_text(h->nm, in->name), pdb_buf_str(&seq));
        r->count++;
        r->kernels = (int64_t)in->n;
        r->op_delay_sum += in->op_delay[first];
        r->runtime_delay_sum += in->runtime_delay[first];
    }
    pdb_buf_free(&seq);
    sqlite3_value_free(in->tid);
    free(in->launch);
    free(in->kernel_name);
    free(in->op_delay);
    free(in->runtime_delay);
}

/* The scan reached now: launches that started before now are complete, ops
 * and instances that ended before now can take no more launches. */
static int advance(hta_delays *h, int64_t now)
{
    size_t keep = 0;
    int rc = PDB_OK;
    for (size_t i = 0; i < h->npending; i++) {
        if (rc == PDB_OK && h->pending[i].ts < now) {
            rc = launch_done(h, &h->pending[i]);
            sqlite3_value_free(h->pending[i].tid);
        } else
            h->pending[keep++] = h->pending[i];
    }
    h->npending = keep;
    if (rc != PDB_OK || h->npending)
        return rc; /* ops may still enclose a waiting launch */
    keep = 0;
    for (size_t i = 0; i < h->nops; i++)
        if (h->ops[i].end >= now)
            h->ops[keep++] = h->ops[i];
        else
            sqlite3_value_free(h->ops[i].tid);
    h->nops = keep;
    keep = 0;
    for (size_t i = 0; i < h->ninst; i++) {
        if (h->inst[i].op_end < now)
            instance_close(h, &h->inst[i]);
        else
            h->inst[keep++] = h->inst[i];
    }
    h->ninst = keep;
    return PDB_OK;
}

/* Keeps a row, with its own copy of the tid. */
static void push_row(hrow **v, size_t *n, size_t *cap, const hrow *r)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        *v = pdb_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[*n] = *r;
    (*v)[(*n)++].tid = sqlite3_value_dup(r->tid);
}

static int hta_delays_run(hta_delays *h)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(h->db, "op_kernels.delays_scan", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, h->trace_id);
    int rc = PDB_OK, s;
    while (rc == PDB_OK && !*h->why && (s = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 2) == SQLITE_NULL || sqlite3_column_int64(st, 2) == h->trace_cat ||
            strcmp((const char *)sqlite3_column_text(st, 3), "X") != 0)
            continue;
        hrow r = {.id = sqlite3_column_int64(st, 0), .name = sqlite3_column_int64(st, 1),
                  .ts = sqlite3_column_int64(st, 5),
                  .corr = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1
                                                                    : sqlite3_column_int64(st, 8),
                  .stream = pdb_hta_stream(sqlite3_column_value(st, 7)),
                  .tid = sqlite3_column_value(st, 4)};
        int64_t dur = sqlite3_column_int64(st, 6);
        r.end = r.ts + dur;
        if (h->mode.round)
            pdb_hta_round(sqlite3_column_int64(st, 5), dur, &r.ts, &r.end);
        bool gpu = r.stream >= 0 && r.corr >= 0;
        if (!gpu && h->mode.drop_last && r.ts >= h->mode.cutoff)
            continue;
        rc = advance(h, r.ts);
        const char *t = name_text(h->nm, r.name);
        if (strncmp(t, "aten::", 6) == 0)
            push_row(&h->ops, &h->nops, &h->ops_cap, &r);
        if (launch_name(t))
            push_row(&h->pending, &h->npending, &h->pending_cap, &r);
    }
    sqlite3_finalize(st);
    if (rc == PDB_OK && !*h->why)
        rc = advance(h, INT64_MAX);
    return rc;
}

int pdb_op_delays(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, bool hta,
                  pdb_op_kernels_fn fn, void *arg, const char **why)
{
    agg a = {.index = pdb_strmap_new()};
    names nm;
    *why = NULL;
    int rc = names_open(db, &nm);
    if (rc == PDB_OK && !hta)
        rc = exact_delays(db, run_id, rank, &a, &nm);
    if (rc == PDB_OK && hta) {
        hta_delays h = {.db = db, .trace_id = trace_id, .nm = &nm, .a = &a, .why = why};
        rc = pdb_hta_settings(db, trace_id, &h.mode);
        if (rc == PDB_OK)
            rc = pdb_analyze_int(db, "op_kernels.trace_category", -1, &h.trace_cat);
        if (rc == PDB_OK)
            rc = pdb_analyze_prepare(db, "op_kernels.delays_by_correlation", &h.by_corr);
        if (rc == PDB_OK)
            rc = hta_delays_run(&h);
        if (rc == PDB_OK && !*why && !h.records)
            *why = "HTA's KeyError 'thread_id': no launch lies inside an aten op";
        for (size_t i = 0; i < h.ninst; i++)
            h.inst[i].n = 0, instance_close(&h, &h.inst[i]);
        for (size_t i = 0; i < h.nops; i++)
            sqlite3_value_free(h.ops[i].tid);
        for (size_t i = 0; i < h.npending; i++)
            sqlite3_value_free(h.pending[i].tid);
        free(h.ops);
        free(h.pending);
        free(h.inst);
        sqlite3_finalize(h.by_corr);
    }
    if (rc == PDB_OK && !*why)
        rc = agg_emit(&a, rank, fn, arg);
    agg_free(&a);
    names_close(&nm);
    return rc;
}

/* Kernel sequences ----------------------------------------------------------
 *
 * HTA (get_frequent_cuda_kernel_sequences over trace_call_graph.CallGraph):
 * per CPU thread a call stack of its stream -1 events (HTA's endpoint sort:
 * at one time a closing end goes first unless either event has no
 * duration), the backward thread's top-level events moved under the main
 * thread's "## backward ##" (else ProfilerStep#) range around them, and each
 * GPU kernel (stream > 0) under the CPU event its index_correlation names.
 * The candidates are the events whose name contains the operator; only
 * those at the smallest depth among all of them count, and of those the
 * ones with at least min_len kernels below. A pattern is the op's name and
 * its kernels' names in start order. Exact mode takes the outermost
 * candidates of each thread instead of HTA's global depth. */

typedef struct {
    int64_t end, dur, depth, cand;  /* cand: index into cands, -1 */
} kstack_entry;

typedef struct {
    kstack_entry *v;
    size_t n, cap;
    bool bwd, main;
    int64_t zero_t, neg_ts, neg_end; /* HTA's sort error: see hta_sort_error */
    bool any_zero, any_neg;
} kthread;

typedef struct {
    int64_t ts, end, depth;
} range;

typedef struct {
    int64_t name, depth, dur;
    int64_t *kts, *kid, *kname, kdur_sum;
    size_t n, cap;
    bool live;
} candidate;

typedef struct {
    sqlite3 *db;
    int64_t trace_id;
    bool hta;
    pdb_hta_mode mode;
    int64_t trace_cat;
    names *nm;
    const char *op;
    int min_len;
    sqlite3_stmt *by_corr;
    kthread *threads;
    size_t nthreads, threads_cap;
    pdb_strmap *thread_ix;          /* whole (pid, tid) key -> index into threads */
    pdb_buf key;                    /* the thread key being looked up */
    range *parents;                 /* backward-thread parents seen on the main thread */
    size_t nparents, parents_cap;
    candidate *cands;
    size_t ncands, cands_cap;
    int64_t *free_c;
    size_t nfree_c, free_c_cap;
    int64_t min_depth;
    bool any_candidate;
    agg *a;
    const char **why;
    pdb_idmap is_cand_name, is_parent_name;
} kseq;

/* A thread's stack, found by its whole pid and tid values (hashed: a
 * prefix merged threads that share it, a list search was quadratic). */
static kthread *kthread_for(kseq *k, sqlite3_value *pid, sqlite3_value *tid)
{
    pdb_buf_reset(&k->key);
    pdb_value_key(&k->key, pid);
    pdb_value_key(&k->key, tid);
    int64_t i;
    if (pdb_strmap_get(k->thread_ix, k->key.p, k->key.len, &i))
        return &k->threads[i];
    if (k->nthreads == k->threads_cap) {
        k->threads_cap = k->threads_cap ? k->threads_cap * 2 : 16;
        k->threads = pdb_xrealloc(k->threads, k->threads_cap * sizeof *k->threads);
    }
    pdb_strmap_put(k->thread_ix, k->key.p, k->key.len, (int64_t)k->nthreads);
    kthread *t = &k->threads[k->nthreads++];
    *t = (kthread){0};
    return t;
}

/* HTA's main (a ProfilerStep# event) and backward (an autograd:: event)
 * threads, linked only when there is one of each. */
static int label_threads(kseq *k)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(k->db, "op_kernels.threads", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, k->trace_id);
    sqlite3_bind_int64(st, 2, k->trace_cat);
    int mains = 0, bwds = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        kthread *t = kthread_for(k, sqlite3_column_value(st, 0), sqlite3_column_value(st, 1));
        t->main = sqlite3_column_int(st, 2);
        t->bwd = !t->main && sqlite3_column_int(st, 3);
        mains += t->main;
        bwds += t->bwd;
    }
    sqlite3_finalize(st);
    if (mains != 1 || bwds != 1)
        for (size_t i = 0; i < k->nthreads; i++)
            k->threads[i].main = k->threads[i].bwd = false;
    return PDB_OK;
}

/* Whether the main thread has "## backward ##" ranges (else ProfilerStep#
 * ranges are the backward thread's parents). */
static int backward_parent_prefix(kseq *k, const char **prefix)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(k->db, "op_kernels.has_backward_ranges", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, k->trace_id);
    int step = sqlite3_step(st);
    bool n = step == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (step != SQLITE_ROW)
        return pdb_db_fail(k->db, "database error");
    *prefix = n ? "## backward ##" : "ProfilerStep#";
    return PDB_OK;
}

static bool name_flag(kseq *k, pdb_idmap *cache, int64_t name, const char *needle, bool prefix)
{
    int64_t v;
    if (pdb_idmap_get(cache, name, &v))
        return v;
    const char *t = name_text(k->nm, name);
    v = prefix ? strncmp(t, needle, strlen(needle)) == 0 : strstr(t, needle) != NULL;
    pdb_idmap_put(cache, name, v);
    return v;
}

/* HTA's call-stack sort raises ValueError comparing a negative-duration
 * event (HTA's rounding makes dur -1) with a zero-duration one at the same
 * time on a thread. */
static bool hta_sort_error(kthread *t, int64_t ts, int64_t end, int64_t dur)
{
    if (dur == 0) {
        t->zero_t = ts;
        t->any_zero = true;
        return t->any_neg && (t->neg_ts == ts || t->neg_end == ts);
    }
    if (dur < 0) {
        t->neg_ts = ts;
        t->neg_end = end;
        t->any_neg = true;
        return t->any_zero && (t->zero_t == ts || t->zero_t == end);
    }
    return false;
}

static void candidate_close(kseq *k, int64_t ci)
{
    candidate *c = &k->cands[ci];
    if (c->live && (int64_t)c->n >= k->min_len) {
        /* kernels by start (then trace order) */
        for (size_t i = 1; i < c->n; i++)
            for (size_t j = i; j > 0 && (c->kts[j] < c->kts[j - 1] ||
                                         (c->kts[j] == c->kts[j - 1] && c->kid[j] < c->kid[j - 1]));
                 j--) {
                int64_t *cols[] = {c->kts, c->kid, c->kname};
                for (int q = 0; q < 3; q++) {
                    int64_t t = cols[q][j];
                    cols[q][j] = cols[q][j - 1];
                    cols[q][j - 1] = t;
                }
            }
        pdb_buf seq = PDB_BUF_INIT, op = PDB_BUF_INIT;
        for (size_t i = 0; i < c->n; i++) {
            if (i)
                pdb_buf_addc(&seq, '|');
            pdb_buf_adds(&seq, name_text(k->nm, c->kname[i]));
        }
        pdb_buf_addf(&op, "%lld\x1f%s", (long long)c->depth, name_text(k->nm, c->name));
        agg_row *r = agg_for(k->a, pdb_buf_str(&op), pdb_buf_str(&seq));
        r->count++;
        r->kernels = (int64_t)c->n;
        r->gpu_ns += c->kdur_sum;
        r->cpu_ns += c->dur;
        pdb_buf_free(&seq);
        pdb_buf_free(&op);
    }
    free(c->kts);
    free(c->kid);
    free(c->kname);
    c->kts = c->kid = c->kname = NULL;
    c->live = false;
    if (k->nfree_c == k->free_c_cap) {
        k->free_c_cap = k->free_c_cap ? k->free_c_cap * 2 : 16;
        k->free_c = pdb_xrealloc(k->free_c, k->free_c_cap * sizeof *k->free_c);
    }
    k->free_c[k->nfree_c++] = ci;
}

static void pop_entry(kseq *k, kthread *t)
{
    kstack_entry *e = &t->v[--t->n];
    if (e->cand >= 0)
        candidate_close(k, e->cand);
}

/* The kernels a CPU event launches: exact, the GPU events of its
 * correlation when it is the first CPU-side event of it; hta, the events
 * on a stream > 0 whose index_correlation is it (it is the correlation's
 * last CPU-side event). Added to every open candidate of its thread. */
static int add_kernels(kseq *k, kthread *t, int64_t id, int64_t corr)
{
    bool any = false;
    for (size_t i = 0; i < t->n && !any; i++)
        any = t->v[i].cand >= 0;
    if (!any || corr == -1)
        return PDB_OK;
    sqlite3_bind_int64(k->by_corr, 1, k->trace_id);
    sqlite3_bind_int64(k->by_corr, 2, corr);
    int64_t first_cpu = 0, last_cpu = 0;
    int64_t kts[64], kid[64], kname[64], kdur[64];
    int nk = 0, rc;
    while ((rc = sqlite3_step(k->by_corr)) == SQLITE_ROW) {
        sqlite3_stmt *s = k->by_corr;
        bool cat = sqlite3_column_type(s, 2) != SQLITE_NULL;
        if (k->hta && (!cat || sqlite3_column_int64(s, 2) == k->trace_cat ||
                       strcmp((const char *)sqlite3_column_text(s, 3), "X") != 0))
            continue;
        int64_t stream = pdb_hta_stream(sqlite3_column_value(s, 4));
        const char *nt = name_text(k->nm, sqlite3_column_int64(s, 1));
        const char *ct = cat ? name_text(k->nm, sqlite3_column_int64(s, 2)) : "";
        bool gpu = k->hta ? (stream >= 0 && corr >= 0) || strcmp(nt, "Event Sync") == 0 ||
                                strcmp(nt, "Context Sync") == 0
                          : sqlite3_column_type(s, 4) != SQLITE_NULL &&
                                !strstr(" cuda_runtime cuda_driver hip_runtime cpu_op"
                                        " user_annotation python_function ", ct);
        bool kernel = k->hta ? stream > 0
                             : !cat || strcmp(ct, "kernel") == 0 || strcmp(ct, "gpu_memcpy") == 0 ||
                                   strcmp(ct, "gpu_memset") == 0;
        if (!gpu) {
            if (!first_cpu)
                first_cpu = sqlite3_column_int64(s, 0);
            last_cpu = sqlite3_column_int64(s, 0);
        } else if (kernel && nk < 64) {
            int64_t ts = sqlite3_column_int64(s, 5), dur = sqlite3_column_int64(s, 6), end = ts + dur;
            if (k->hta && k->mode.round)
                pdb_hta_round(ts, dur, &ts, &end);
            kts[nk] = ts;
            kid[nk] = sqlite3_column_int64(s, 0);
            kname[nk] = sqlite3_column_int64(s, 1);
            kdur[nk++] = end - ts;
        }
    }
    sqlite3_reset(k->by_corr);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(k->db, "kernel sequences: correlation lookup");
    if ((k->hta ? last_cpu : first_cpu) != id)
        return PDB_OK;
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].cand < 0)
            continue;
        candidate *c = &k->cands[t->v[i].cand];
        for (int j = 0; j < nk; j++) {
            if (c->n == c->cap) {
                c->cap = c->cap ? c->cap * 2 : 8;
                c->kts = pdb_xrealloc(c->kts, c->cap * sizeof *c->kts);
                c->kid = pdb_xrealloc(c->kid, c->cap * sizeof *c->kid);
                c->kname = pdb_xrealloc(c->kname, c->cap * sizeof *c->kname);
            }
            c->kts[c->n] = kts[j];
            c->kid[c->n] = kid[j];
            c->kname[c->n++] = kname[j];
            c->kdur_sum += kdur[j];
        }
    }
    return PDB_OK;
}

static int kseq_row(kseq *k, sqlite3_stmt *st, const char *parent_prefix)
{
    bool cat = sqlite3_column_type(st, 2) != SQLITE_NULL;
    if (k->hta && (!cat || sqlite3_column_int64(st, 2) == k->trace_cat ||
                   strcmp((const char *)sqlite3_column_text(st, 3), "X") != 0))
        return PDB_OK;
    int64_t id = sqlite3_column_int64(st, 0), name = sqlite3_column_int64(st, 1);
    int64_t ts = sqlite3_column_int64(st, 6), dur = sqlite3_column_int64(st, 7), end = ts + dur;
    int64_t corr = sqlite3_column_type(st, 9) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 9);
    if (k->hta) {
        if (k->mode.round)
            pdb_hta_round(ts, dur, &ts, &end);
        dur = end - ts;
        if (pdb_hta_stream(sqlite3_column_value(st, 8)) != -1)
            return PDB_OK; /* GPU events are not on the CPU stacks */
        if (k->mode.drop_last && ts >= k->mode.cutoff)
            return PDB_OK;
    } else {
        const char *ct = cat ? name_text(k->nm, sqlite3_column_int64(st, 2)) : "";
        bool cpu_cat = strstr(" cuda_runtime cuda_driver hip_runtime cpu_op user_annotation"
                              " python_function ", ct) && *ct;
        if ((sqlite3_column_type(st, 8) != SQLITE_NULL && !cpu_cat) || strcmp(ct, "Trace") == 0 ||
            strncmp(ct, "gpu_", 4) == 0)
            return PDB_OK;
    }
    kthread *t = kthread_for(k, sqlite3_column_value(st, 4), sqlite3_column_value(st, 5));
    if (k->hta && hta_sort_error(t, ts, end, dur)) {
        *k->why = "HTA's ValueError in its call-stack sort (an event rounded to -1 us "
                  "beside one of 0 us)";
        return PDB_OK;
    }
    while (t->n && (t->v[t->n - 1].end < ts ||
                    (t->v[t->n - 1].end == ts && t->v[t->n - 1].dur > 0 && dur > 0)))
        pop_entry(k, t);
    int64_t depth = t->n ? t->v[t->n - 1].depth + 1 : 0;
    if (k->hta && !t->n && t->bwd) /* moved under the main thread's range around it */
        for (size_t i = 0; i < k->nparents; i++)
            if (k->parents[i].ts <= ts && end <= k->parents[i].end)
                depth = k->parents[i].depth + 1;
    if (k->hta && t->main && name_flag(k, &k->is_parent_name, name, parent_prefix, true)) {
        if (k->nparents == k->parents_cap) {
            k->parents_cap = k->parents_cap ? k->parents_cap * 2 : 16;
            k->parents = pdb_xrealloc(k->parents, k->parents_cap * sizeof *k->parents);
        }
        k->parents[k->nparents++] = (range){ts, end, depth};
    }
    int64_t cand = -1;
    if (name_flag(k, &k->is_cand_name, name, k->op, false)) {
        bool outer = true;
        for (size_t i = 0; i < t->n && outer; i++)
            outer = t->v[i].cand < 0;
        if (k->hta || outer) {
            if (!k->any_candidate || depth < k->min_depth)
                k->min_depth = depth;
            k->any_candidate = true;
            if (k->nfree_c)
                cand = k->free_c[--k->nfree_c];
            else {
                if (k->ncands == k->cands_cap) {
                    k->cands_cap = k->cands_cap ? k->cands_cap * 2 : 16;
                    k->cands = pdb_xrealloc(k->cands, k->cands_cap * sizeof *k->cands);
                }
                cand = (int64_t)k->ncands++;
            }
            k->cands[cand] = (candidate){.name = name, .depth = k->hta ? depth : 0, .dur = dur,
                                         .live = true};
        }
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = pdb_xrealloc(t->v, t->cap * sizeof *t->v);
    }
    t->v[t->n++] = (kstack_entry){end, dur, depth, cand};
    return add_kernels(k, t, id, corr);
}

static int kseq_emit(kseq *k, int rank, pdb_op_kernels_fn fn, void *arg)
{
    int rc = PDB_OK;
    for (size_t i = 0; i < k->a->n && rc == PDB_OK; i++) {
        agg_row *r = &k->a->v[i];
        char *sep = strchr(r->op, '\x1f');
        if (k->hta && atoll(r->op) != k->min_depth)
            continue;
        pdb_buf pattern = PDB_BUF_INIT;
        pdb_buf_adds(&pattern, sep + 1);
        pdb_buf_addc(&pattern, '|');
        pdb_buf_adds(&pattern, r->sequence);
        pdb_op_kernels_row row = {rank, sep + 1, pdb_buf_str(&pattern), r->count, r->kernels,
                                  0, 0, r->gpu_ns, r->cpu_ns};
        rc = fn(arg, &row);
        pdb_buf_free(&pattern);
    }
    return rc;
}

int pdb_kernel_sequences(sqlite3 *db, int64_t trace_id, int rank, bool hta, const char *op_name,
                         int min_len, pdb_op_kernels_fn fn, void *arg, const char **why)
{
    agg a = {.index = pdb_strmap_new()};
    names nm;
    kseq k = {.db = db, .trace_id = trace_id, .hta = hta, .nm = &nm, .op = op_name,
              .min_len = min_len, .a = &a, .why = why, .thread_ix = pdb_strmap_new()};
    const char *prefix = "ProfilerStep#";
    sqlite3_stmt *st = NULL;
    *why = NULL;
    int rc = names_open(db, &nm);
    if (rc == PDB_OK)
        rc = pdb_hta_settings(db, trace_id, &k.mode);
    if (!hta)
        k.mode = (pdb_hta_mode){0};
    if (rc == PDB_OK)
        rc = pdb_analyze_int(db, "op_kernels.trace_category", -1, &k.trace_cat);
    if (rc == PDB_OK && hta)
        rc = label_threads(&k);
    if (rc == PDB_OK && hta)
        rc = backward_parent_prefix(&k, &prefix);
    if (rc == PDB_OK)
        rc = pdb_analyze_prepare(db, "op_kernels.sequences_by_correlation", &k.by_corr);
    if (rc == PDB_OK)
        rc = pdb_analyze_prepare(db, "op_kernels.sequences_scan", &st);
    if (rc == PDB_OK) {
        sqlite3_bind_int64(st, 1, trace_id);
        int s;
        while (rc == PDB_OK && !*why && (s = sqlite3_step(st)) == SQLITE_ROW)
            rc = kseq_row(&k, st, prefix);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < k.nthreads; i++) {
        while (k.threads[i].n)
            pop_entry(&k, &k.threads[i]);
        free(k.threads[i].v);
    }
    if (rc == PDB_OK && !*why)
        rc = kseq_emit(&k, rank, fn, arg);
    free(k.threads);
    pdb_strmap_free(k.thread_ix);
    pdb_buf_free(&k.key);
    free(k.parents);
    free(k.cands);
    free(k.free_c);
    pdb_idmap_free(&k.is_cand_name);
    pdb_idmap_free(&k.is_parent_name);
    sqlite3_finalize(k.by_corr);
    agg_free(&a);
    names_close(&nm);
    return rc;
}
