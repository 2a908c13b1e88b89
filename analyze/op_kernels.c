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
#include "analyze/op_kernels.h"
#include "analyze/hta.h"
#include "analyze/idmap.h"
#include "analyze/scan.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/xalloc.h"

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
    return pdb_db_prepare(db, "SELECT value FROM strings WHERE id = ?", &nm->st);
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

static const char *const exact_sql =
    "SELECT a.op_id, a.op, o.ts, l.ts, g.ts, a.name FROM analysis_gpu_attribution a"
    " JOIN slices l ON l.id = a.launch_id JOIN slices o ON o.id = a.op_id"
    " JOIN slices g ON g.id = a.slice_id"
    " WHERE a.run_id = ?1 AND a.rank = ?2 AND a.op_id IS NOT NULL"
    " AND coalesce(g.cat, 0) IN (SELECT id FROM strings WHERE value IN"
    "   ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events') UNION ALL SELECT 0)"
    " ORDER BY a.op_id, l.ts, l.id, g.ts, g.id";

static int exact_delays(sqlite3 *db, int64_t run_id, int rank, agg *a, names *nm)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, exact_sql, &st) != PDB_OK)
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

/* An HTA row read in start order. */
typedef struct {
    int64_t id, name, ts, end, corr, stream;
    char tid[72];
    size_t tlen;
} hrow;

typedef struct {
    int64_t op_id, op_ts, op_end, name;
    char tid[72];
    size_t tlen;
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
        if (in->name == op->name && in->op_ts == op->ts && in->tlen == op->tlen &&
            memcmp(in->tid, op->tid, op->tlen) == 0) {
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
                     .tlen = op->tlen};
    memcpy(in->tid, op->tid, op->tlen);
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
    for (size_t i = 0; i < h->npending; i++) {
        if (h->pending[i].ts < now) {
            if (launch_done(h, &h->pending[i]) != PDB_OK)
                return PDB_ERR;
        } else
            h->pending[keep++] = h->pending[i];
    }
    h->npending = keep;
    if (h->npending)
        return PDB_OK; /* ops may still enclose a waiting launch */
    keep = 0;
    for (size_t i = 0; i < h->nops; i++)
        if (h->ops[i].end >= now)
            h->ops[keep++] = h->ops[i];
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

static void push_row(hrow **v, size_t *n, size_t *cap, const hrow *r)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        *v = pdb_xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = *r;
}

static int hta_delays_run(hta_delays *h)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(h->db,
                       "SELECT id, name, cat, ph, tid, ts, dur, stream, correlation FROM slices"
                       " WHERE trace_id = ?1 ORDER BY ts, dur DESC, id",
                       &st) != PDB_OK)
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
                  .stream = pdb_hta_stream(sqlite3_column_value(st, 7))};
        int64_t dur = sqlite3_column_int64(st, 6);
        r.end = r.ts + dur;
        if (h->mode.round)
            pdb_hta_round(sqlite3_column_int64(st, 5), dur, &r.ts, &r.end);
        pdb_value_key(sqlite3_column_value(st, 4), r.tid, sizeof r.tid, &r.tlen);
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
            rc = pdb_db_query_int(db, "SELECT coalesce((SELECT id FROM strings WHERE value ="
                                      " 'Trace'), -1)", -1, &h.trace_cat);
        if (rc == PDB_OK)
            rc = pdb_db_prepare(db, "SELECT id, name, cat, ph, stream, ts FROM slices"
                                    " WHERE trace_id = ?1 AND correlation = ?2 ORDER BY id",
                                &h.by_corr);
        if (rc == PDB_OK)
            rc = hta_delays_run(&h);
        if (rc == PDB_OK && !*why && !h.records)
            *why = "HTA's KeyError 'thread_id': no launch lies inside an aten op";
        for (size_t i = 0; i < h.ninst; i++)
            h.inst[i].n = 0, instance_close(&h, &h.inst[i]);
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
