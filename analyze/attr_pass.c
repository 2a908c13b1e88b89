/* attr_pass.c: which launch, op, annotation, module and step each GPU event
 * belongs to (analysis_gpu_attribution), and the annotation ranges with the
 * GPU time inside them (analysis_annotations).
 *
 * Launches. The scan tells each CPU-side row that is the first of its
 * correlation how many GPU events share that correlation (found before the
 * scan in one read of the correlation index, launchers.c). Such a
 * launcher's context (ops_pass.c: the ops,
 * annotation and module around it, as a node of interned paths), its step
 * and its slice id wait in a hash map keyed by correlation until its GPU
 * events have come by; then the entry is dropped. So the map holds the
 * launches in flight (the GPU queue), not the trace. Two cases leave the
 * map, both rare and both exact:
 *   - more than MAP_MAX launches in flight: further launchers go to a
 *     temporary table, where their GPU events look them up (tests lower
 *     the limit with PROFDB_ATTR_MAP_MAX to take this path on small traces);
 *   - a GPU event scanned before its launcher (clock skew, or equal start
 *     times): its row is written without context and noted; at the end,
 *     the launchers still waiting are matched to those rows in one join.
 * A GPU event whose correlation matches no CPU-side event has no launch.
 *
 * GPU annotation ranges. HTA's rule (get_gpu_kernels_with_user_annotations):
 * a kernel belongs to the shortest gpu_user_annotation on its pid and tid
 * whose [ts, end) overlaps its own [ts, end); on equal lengths the later
 * one wins here (HTA's order there is unspecified). Per (pid, tid) lane the
 * pass keeps the ranges and kernels that can still overlap something to
 * come: a range starting later than a kernel can still claim it, and then
 * the kernel's row is updated. It runs twice: in exact mode for every GPU
 * event, and on HTA's rounded, filtered events for --compat hta. */
#include "analyze/batch.h"
#include "analyze/hta.h"
#include "analyze/queries.h"
#include "analyze/recstore.h"
#include "analyze/passes.h"
#include "analyze/sum.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAP_MAX (1 << 17)
#define NO_STEP INT64_MIN

/* Launches in flight --------------------------------------------------- */

typedef struct {
    bool used;
    int64_t corr, launch_id, launch_ts, op_id, step;
    int64_t node;
    int32_t remaining;
} launch;

typedef struct {
    launch *v;
    size_t cap, count;          /* cap a power of two, count < cap */
} launch_map;

static size_t slot_of(const launch_map *m, int64_t corr)
{
    uint64_t h = (uint64_t)corr * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 17) & (m->cap - 1);
}

static launch *map_find(launch_map *m, int64_t corr)
{
    if (!m->count)
        return NULL;
    for (size_t i = slot_of(m, corr);; i = (i + 1) & (m->cap - 1)) {
        if (!m->v[i].used)
            return NULL;
        if (m->v[i].corr == corr)
            return &m->v[i];
    }
}

static void map_put(launch_map *m, const launch *e)
{
    if ((m->count + 1) * 4 > m->cap * 3) {
        launch_map g = {pdb_xcalloc(m->cap ? m->cap * 2 : 256, sizeof(launch)),
                        m->cap ? m->cap * 2 : 256, 0};
        for (size_t i = 0; i < m->cap; i++)
            if (m->v[i].used)
                map_put(&g, &m->v[i]);
        free(m->v);
        *m = g;
    }
    size_t i = slot_of(m, e->corr);
    while (m->v[i].used)
        i = (i + 1) & (m->cap - 1);
    m->v[i] = *e;
    m->v[i].used = true;
    m->count++;
}

/* Linear-probing deletion: shifts later members of the cluster back. */
static void map_delete(launch_map *m, launch *e)
{
    size_t i = (size_t)(e - m->v), j = i;
    m->v[i].used = false;
    for (;;) {
        j = (j + 1) & (m->cap - 1);
        if (!m->v[j].used)
            break;
        size_t home = slot_of(m, m->v[j].corr);
        /* Move j into the hole i unless its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            m->v[i] = m->v[j];
            m->v[j].used = false;
            i = j;
        }
    }
    m->count--;
}

/* Annotation ranges ---------------------------------------------------- */

enum { RANGE_CPU, RANGE_GPU };

typedef struct {
    int64_t count, total, min, max;
    double mean, m2;
    int64_t kernel_ns, kernels;  /* GPU ranges: the GPU events they claim */
} range_stat;

/* A name's ranges, one record for both modes and kinds (a trace of
 * distinct names spilled four records per name, where a name has one
 * here); a count of 0: none of that mode and kind. */
typedef struct {
    int64_t name_id;
    range_stat s[2][2];          /* [mode: exact, hta][kind: RANGE_CPU, RANGE_GPU] */
} range_rec;

/* Annotation names kept in memory before the store spills (recstore.h). */
#define RANGES_IN_MEMORY 8192

/* A range stat is named by its record's number, mode and kind together. */
static int64_t range_handle(int64_t h, int mode, int kind)
{
    return h * 4 + mode * 2 + kind;
}

/* The stat of (mode, kind, name), or -1 after a database error. */
static int64_t range_stat_for(pdb_recstore *s, const pdb_row *r, int mode, int kind)
{
    unsigned char key[8];
    pdb_rs_key_int(key, r->name_id);
    range_rec init = {.name_id = r->name_id};
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 2; k++)
            init.s[m][k] = (range_stat){.min = INT64_MAX, .max = INT64_MIN};
    bool created;
    int64_t h = pdb_rs_find(s, key, sizeof key, &init, &created);
    return h < 0 ? -1 : range_handle(h, mode, kind);
}

static range_stat *range_at(pdb_recstore *s, int64_t stat)
{
    range_rec *rec = pdb_rs_get(s, stat / 4);
    return &rec->s[stat / 2 % 2][stat % 2];
}

static int64_t range_name(pdb_recstore *s, int64_t stat)
{
    return ((const range_rec *)pdb_rs_read(s, stat / 4))->name_id;
}

static void range_stat_add(range_stat *st, int64_t dur)
{
    st->count++;
    pdb_sum(&st->total, dur);
    if (dur < st->min)
        st->min = dur;
    if (dur > st->max)
        st->max = dur;
    double delta = (double)dur - st->mean;
    st->mean += delta / (double)st->count;
    st->m2 += delta * ((double)dur - st->mean);
}

/* Lanes: GPU ranges and kernels per (pid, tid) that may still overlap. */
typedef struct {
    int64_t start, end, dur, stat;
} lane_range;

typedef struct {
    int64_t slice_id, start, end, dur, stat, stat_dur;
} lane_kernel;

typedef struct {
    lane_range *r;
    int nr, rcap;
    lane_kernel *k;
    int nk, kcap;
} lane;

typedef struct {
    lane *v;
    int64_t n, cap;
    pdb_strmap *index;           /* (pid, tid) key -> index into v */
    pdb_buf key;
} mode_state;

/* The lane of a row's (pid, tid), found by hashing: a linear search was
 * quadratic in GPU streams. */
static lane *lane_for(mode_state *m, const pdb_row *r)
{
    pdb_buf_reset(&m->key);
    pdb_val_key(&m->key, &r->pid);
    pdb_val_key(&m->key, &r->tid);
    int64_t i;
    if (pdb_strmap_get(m->index, m->key.p, m->key.len, &i))
        return &m->v[i];
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->v = pdb_xrealloc(m->v, (size_t)m->cap * sizeof *m->v);
    }
    pdb_strmap_put(m->index, m->key.p, m->key.len, m->n);
    lane *l = &m->v[m->n++];
    *l = (lane){0};
    return l;
}

/* Drops what can overlap nothing to come: everything later starts at or
 * after now, in either mode (HTA's rounded start is ceil of the raw one). */
static void lane_prune(lane *l, int64_t now)
{
    int j = 0;
    for (int i = 0; i < l->nr; i++)
        if (l->r[i].end > now)
            l->r[j++] = l->r[i];
    l->nr = j;
    j = 0;
    for (int i = 0; i < l->nk; i++)
        if (l->k[i].end > now)
            l->k[j++] = l->k[i];
    l->nk = j;
}

static bool overlaps(int64_t s1, int64_t e1, int64_t s2, int64_t e2)
{
    return s1 < e2 && s2 < e1; /* [s, e) intervals, as pandas' closed='left' */
}

/* The whole pass ------------------------------------------------------- */

/* The queries are analyze/queries/attr_pass.sql: the launcher of a
 * correlation (probe), the rows (add_attribution, through a batch). */

/* Recent probe answers, so GPU events sharing a correlation that has no
 * launcher in the map look it up once, not once each. */
#define PROBE_CACHE 64
typedef struct {
    bool used, found;
    int64_t corr, id, ts;
} probe_answer;

struct pdb_attr_acc {
    sqlite3 *db;
    int64_t run_id, trace_id;
    int rank;
    pdb_ops_acc *ops;
    launch_map map;
    size_t map_max;
    bool spilled, deferred;
    pdb_recstore *ranges;        /* name id -> range_rec */
    pdb_batch *insert;
    sqlite3_stmt *probe, *spill_put, *spill_get, *defer_put, *set_gpu_range;
    mode_state mode[2];          /* exact, hta */
    bool lanes;                  /* gpu_user_annotation is a known category: lanes are kept */
    /* What pdb_attr_resolve found for the row it was last given. */
    int64_t cur_id;
    bool cur_ctx;                /* the launcher's context is known */
    int64_t cur_node;
    int64_t cur_step, cur_op_id;
    probe_answer cache[PROBE_CACHE];
};


static int temp_tables(pdb_attr_acc *a);

int pdb_attr_acc_new(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank, pdb_ops_acc *ops,
                     pdb_attr_acc **out)
{
    pdb_attr_acc *a = pdb_xcalloc(1, sizeof *a);
    *a = (pdb_attr_acc){.db = db, .run_id = run_id, .trace_id = trace_id, .rank = rank,
                        .ops = ops, .cur_id = -1, .map_max = (size_t)pdb_bound(MAP_MAX, 4)};
    const char *limit = getenv("PROFDB_ATTR_MAP_MAX");
    if (limit && atol(limit) > 0)
        a->map_max = (size_t)atol(limit);
    *out = a;
    for (int m = 0; m < 2; m++)
        a->mode[m].index = pdb_strmap_new();
    if (pdb_rs_new(db, "ranges", sizeof(range_rec), RANGES_IN_MEMORY, SIZE_MAX, &a->ranges) !=
        PDB_OK)
        return PDB_ERR;
    if (pdb_batch_new(db, pdb_analyze_sql("attr_pass.add_attribution"), 13, &a->insert) !=
            PDB_OK ||
        pdb_analyze_prepare(db, "attr_pass.probe", &a->probe) != PDB_OK ||
        temp_tables(a) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(a->probe, 1, trace_id);
    /* Without the category in the string table no trace has such ranges,
     * and the lanes (a lookup per GPU event) are not needed. */
    int64_t n;
    if (pdb_analyze_int(db, "attr_pass.has_gpu_ranges", 0, &n) != PDB_OK)
        return PDB_ERR;
    a->lanes = n > 0;
    return PDB_OK;
}

static void bind_step(sqlite3_stmt *st, int i, int64_t step)
{
    if (step == NO_STEP)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, step);
}

static void bind_id(sqlite3_stmt *st, int i, int64_t id)
{
    if (id < 0)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, id);
}

/* Temporary tables for the rare cases (see the file comment), made before
 * the scan starts: a schema change would abort its running query. */
static int temp_tables(pdb_attr_acc *a)
{
    if (pdb_analyze_exec(a->db, "attr_pass.create_spill") != PDB_OK ||
        pdb_analyze_prepare(a->db, "attr_pass.spill_put", &a->spill_put) != PDB_OK ||
        pdb_analyze_prepare(a->db, "attr_pass.spill_get", &a->spill_get) != PDB_OK ||
        pdb_analyze_prepare(a->db, "attr_pass.defer_put", &a->defer_put) != PDB_OK)
        return PDB_ERR;
    return PDB_OK;
}

static int spill(pdb_attr_acc *a, const launch *e)
{
    sqlite3_stmt *st = a->spill_put;
    sqlite3_bind_int64(st, 1, e->corr);
    sqlite3_bind_int64(st, 2, e->launch_id);
    sqlite3_bind_int64(st, 3, e->launch_ts);
    bind_step(st, 4, e->step);
    bind_id(st, 5, e->op_id);
    sqlite3_bind_int64(st, 6, e->node);
    a->spilled = true;
    return pdb_db_step_done(a->db, st);
}

int pdb_attr_launcher(pdb_attr_acc *a, const pdb_row *r)
{
    assert(r->has_corr && r->launches > 0);
    if (map_find(&a->map, r->corr))
        return PDB_OK; /* two CPU events of one correlation at the same start: the first wins */
    launch e = {true, r->corr, r->id, r->ts, -1, r->in_step ? r->step : NO_STEP, -1,
                (int32_t)(r->launches < INT32_MAX ? r->launches : INT32_MAX)};
    e.node = pdb_ops_acc_context(a->ops, &e.op_id);
    if (a->map.count >= a->map_max) {
        pdb_bound_passed("launches in flight sent to a table");
        return spill(a, &e);
    }
    map_put(&a->map, &e);
    return PDB_OK;
}

static bool spill_lookup(pdb_attr_acc *a, pdb_row *r)
{
    if (!a->spilled)
        return false;
    sqlite3_stmt *st = a->spill_get;
    sqlite3_bind_int64(st, 1, r->corr);
    bool found = sqlite3_step(st) == SQLITE_ROW;
    if (found) {
        r->has_launch = true;
        r->launch_id = sqlite3_column_int64(st, 0);
        r->launch = sqlite3_column_int64(st, 1);
        a->cur_ctx = true;
        a->cur_step = sqlite3_column_type(st, 2) == SQLITE_NULL ? NO_STEP
                                                                : sqlite3_column_int64(st, 2);
        a->cur_op_id = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1
                                                                 : sqlite3_column_int64(st, 3);
        a->cur_node = sqlite3_column_int64(st, 4);
    }
    sqlite3_reset(st);
    return found;
}

int pdb_attr_resolve(pdb_attr_acc *a, pdb_row *r)
{
    assert(r->has_corr);
    a->cur_id = r->id;
    a->cur_ctx = false;
    launch *e = map_find(&a->map, r->corr);
    if (e) {
        r->has_launch = true;
        r->launch = e->launch_ts;
        r->launch_id = e->launch_id;
        a->cur_ctx = true;
        a->cur_node = e->node;
        a->cur_step = e->step;
        a->cur_op_id = e->op_id;
        if (r->gpu && --e->remaining <= 0)
            map_delete(&a->map, e);
        return PDB_OK;
    }
    if (spill_lookup(a, r))
        return PDB_OK;
    /* Not launched yet in scan order, or launched by nothing in the trace. */
    probe_answer *c = &a->cache[(uint64_t)r->corr % PROBE_CACHE];
    if (!c->used || c->corr != r->corr) {
        sqlite3_bind_int64(a->probe, 2, r->corr);
        int rc = sqlite3_step(a->probe);
        *c = (probe_answer){true, rc == SQLITE_ROW, r->corr, sqlite3_column_int64(a->probe, 0),
                            sqlite3_column_int64(a->probe, 1)};
        sqlite3_reset(a->probe);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return pdb_db_fail(a->db, "looking up a launch");
    }
    r->has_launch = c->found;
    r->launch_id = c->id;
    r->launch = c->ts;
    return PDB_OK;
}

/* The GPU range a kernel falls in, by the rule in the file comment; adds the
 * kernel to that range's sums. Returns the range's stat index or -1. */
static int64_t lane_kernel_add(pdb_attr_acc *a, int mode, const pdb_row *r, int64_t start,
                               int64_t end, int64_t now)
{
    lane *l = lane_for(&a->mode[mode], r);
    lane_prune(l, now);
    int64_t best = -1, best_dur = 0;
    for (int i = 0; i < l->nr; i++) {
        const lane_range *g = &l->r[i];
        if (overlaps(start, end, g->start, g->end) && (best < 0 || g->dur <= best_dur)) {
            best = g->stat;
            best_dur = g->dur;
        }
    }
    if (best >= 0) {
        range_stat *g = range_at(a->ranges, best);
        pdb_sum(&g->kernel_ns, end - start);
        g->kernels++;
    }
    if (l->nk == l->kcap) {
        l->kcap = l->kcap ? l->kcap * 2 : 8;
        l->k = pdb_xrealloc(l->k, (size_t)l->kcap * sizeof *l->k);
    }
    l->k[l->nk++] = (lane_kernel){r->id, start, end, end - start, best, best_dur};
    return best;
}

/* A GPU range: claims the kernels already seen that it overlaps, where it
 * is shorter than their range. exact: their rows are updated. */
static int lane_range_add(pdb_attr_acc *a, int mode, const pdb_row *r, int64_t start,
                          int64_t end, int64_t stat)
{
    mode_state *m = &a->mode[mode];
    lane *l = lane_for(m, r);
    lane_prune(l, r->ts);
    int64_t dur = end - start;
    for (int i = 0; i < l->nk; i++) {
        lane_kernel *k = &l->k[i];
        if (!overlaps(k->start, k->end, start, end) || (k->stat >= 0 && dur > k->stat_dur))
            continue;
        if (k->stat >= 0) {
            range_stat *old = range_at(a->ranges, k->stat);
            pdb_sum_sub(&old->kernel_ns, k->dur);
            old->kernels--;
        }
        k->stat = stat;
        k->stat_dur = dur;
        range_stat *g = range_at(a->ranges, stat);
        pdb_sum(&g->kernel_ns, k->dur);
        g->kernels++;
        if (mode == 0) {
            if (pdb_batch_flush(a->insert) != PDB_OK)
                return PDB_ERR;
            if (!a->set_gpu_range &&
                pdb_analyze_prepare(a->db, "attr_pass.set_gpu_range", &a->set_gpu_range) !=
                    PDB_OK)
                return PDB_ERR;
            sqlite3_bind_int64(a->set_gpu_range, 1, range_name(a->ranges, stat));
            sqlite3_bind_int64(a->set_gpu_range, 2, k->slice_id);
            sqlite3_bind_int64(a->set_gpu_range, 3, a->run_id);
            sqlite3_bind_int(a->set_gpu_range, 4, a->rank);
            if (pdb_db_step_done(a->db, a->set_gpu_range) != PDB_OK)
                return PDB_ERR;
        }
    }
    if (l->nr == l->rcap) {
        l->rcap = l->rcap ? l->rcap * 2 : 8;
        l->r = pdb_xrealloc(l->r, (size_t)l->rcap * sizeof *l->r);
    }
    l->r[l->nr++] = (lane_range){start, end, dur, stat};
    return PDB_OK;
}

int pdb_attr_range(pdb_attr_acc *a, const pdb_row *r, bool hta, int64_t start, int64_t end)
{
    int kind = r->cat->gpu_range ? RANGE_GPU : RANGE_CPU;
    int64_t stat = range_stat_for(a->ranges, r, hta, kind);
    if (stat < 0)
        return pdb_rs_error(a->ranges);
    range_stat_add(range_at(a->ranges, stat), end - start);
    return kind == RANGE_GPU ? lane_range_add(a, hta, r, start, end, stat) : PDB_OK;
}

void pdb_attr_hta_kernel(pdb_attr_acc *a, const pdb_row *r, int64_t start, int64_t end)
{
    if (a->lanes)
        lane_kernel_add(a, 1, r, start, end, r->ts);
}

int pdb_attr_gpu(pdb_attr_acc *a, const pdb_row *r)
{
    bool ctx = r->has_corr && a->cur_id == r->id && a->cur_ctx;
    int64_t range = a->lanes ? lane_kernel_add(a, 0, r, r->ts, r->ts + r->dur, r->ts) : -1;
    pdb_ctx_names names = {-1, -1, -1, -1};
    if (ctx) {
        pdb_ops_acc_gpu(a->ops, a->cur_node, r->dur);
        if (pdb_ops_acc_names(a->ops, a->cur_node, &names) != PDB_OK)
            return PDB_ERR;
    } else if (r->has_launch) {
        /* The launcher comes later in the scan: resolved at the end. */
        sqlite3_bind_int64(a->defer_put, 1, r->id);
        sqlite3_bind_int64(a->defer_put, 2, r->corr);
        sqlite3_bind_int64(a->defer_put, 3, r->dur);
        if (pdb_db_step_done(a->db, a->defer_put) != PDB_OK)
            return PDB_ERR;
        a->deferred = true;
    }
    int64_t step = ctx ? a->cur_step : NO_STEP, op_id = ctx ? a->cur_op_id : -1;
    int64_t launch_id = r->has_launch ? r->launch_id : -1;
    int64_t gpu_range = range >= 0 ? range_name(a->ranges, range) : -1;
    int64_t v[] = {a->run_id, a->rank, r->id, r->name_id, r->dur, step, launch_id, op_id,
                   names.op, names.top_op, names.annotation, gpu_range, names.module};
    /* NULL: no step; no id (negative) from launch_id on */
    uint32_t nulls = step == NO_STEP ? 1u << 5 : 0;
    for (int c = 6; c < 13; c++)
        if (v[c] < 0)
            nulls |= 1u << c;
    return pdb_batch_add(a->insert, v, nulls);
}

/* GPU events scanned before their launcher get its context now: the
 * launchers still in the map go to the spill table, and one join finds
 * them for the deferred rows. */
static int resolve_deferred(pdb_attr_acc *a)
{
    if (!a->deferred)
        return PDB_OK;
    for (size_t i = 0; i < a->map.cap; i++)
        if (a->map.v[i].used && spill(a, &a->map.v[i]) != PDB_OK)
            return PDB_ERR;
    sqlite3_stmt *q, *up;
    if (pdb_analyze_prepare(a->db, "attr_pass.deferred", &q) != PDB_OK)
        return PDB_ERR;
    if (pdb_analyze_prepare(a->db, "attr_pass.set_deferred", &up) != PDB_OK) {
        sqlite3_finalize(q);
        return PDB_ERR;
    }
    int rc = PDB_OK, step;
    while (rc == PDB_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t node = sqlite3_column_int64(q, 4);
        pdb_ctx_names names;
        pdb_ops_acc_gpu(a->ops, node, sqlite3_column_int64(q, 1));
        rc = pdb_ops_acc_names(a->ops, node, &names);
        sqlite3_bind_value(up, 1, sqlite3_column_value(q, 2));
        sqlite3_bind_value(up, 2, sqlite3_column_value(q, 3));
        bind_id(up, 3, names.op);
        bind_id(up, 4, names.top_op);
        bind_id(up, 5, names.annotation);
        bind_id(up, 6, names.module);
        sqlite3_bind_int64(up, 7, a->run_id);
        sqlite3_bind_int(up, 8, a->rank);
        sqlite3_bind_int64(up, 9, sqlite3_column_int64(q, 0));
        if (rc == PDB_OK)
            rc = pdb_db_step_done(a->db, up);
    }
    sqlite3_finalize(q);
    sqlite3_finalize(up);
    return rc;
}

typedef struct {
    pdb_attr_acc *a;
    pdb_batch *rows;
    sqlite3_stmt *launched;      /* a CPU range's GPU time (exact mode), from analysis_ops */
} range_writer;

/* The GPU time launched inside CPU ranges of a name (exact mode): the sums
 * over the name's user_annotation rows of analysis_ops, written before
 * this; NULL (nulls bits 11, 12) when it has none. */
static int launched_in(const range_writer *w, int64_t name_id, pdb_batch_val *v, uint32_t *nulls)
{
    sqlite3_stmt *st = w->launched;
    sqlite3_bind_int64(st, 3, name_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        for (int c = 0; c < 2; c++) {
            if (sqlite3_column_type(st, c) == SQLITE_NULL)
                *nulls |= 1u << (11 + c);
            else
                v[11 + c].i = sqlite3_column_int64(st, c);
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(w->a->db, "reading GPU time of annotations");
}

/* One analysis_annotations row (the name as its id: the view adds the text). */
static int write_range(const range_writer *w, int64_t name_id, int mode, int kind,
                       const range_stat *g)
{
    bool gpu = kind == RANGE_GPU;
    /* The standard deviation of one range is 0, HTA's fillna(0). */
    pdb_batch_val v[] = {
        {.i = w->a->run_id}, {.s = mode ? "hta" : "exact"}, {.i = w->a->rank},
        {.s = gpu ? "gpu" : "cpu"}, {.i = name_id}, {.i = g->count}, {.i = g->total},
        {.i = g->min}, {.i = g->max}, {.r = (double)g->total / (double)g->count},
        {.r = g->count > 1 ? sqrt(g->m2 / (double)(g->count - 1)) : 0.0},
        {.i = g->kernel_ns}, {.i = 0}, {.i = g->kernels},
    };
    uint32_t nulls = gpu ? 1u << 12 : 1u << 13;
    if (!gpu && mode == 0 && launched_in(w, name_id, v, &nulls) != PDB_OK)
        return PDB_ERR;
    if (!gpu && mode == 1)
        nulls |= (1u << 11) | (1u << 12);
    return pdb_batch_add_vals(w->rows, v, nulls);
}

/* The rows of a name: each mode and kind it has ranges of. */
static int write_name_ranges(int64_t h, const void *key, size_t klen, const void *rec, void *arg)
{
    const range_rec *r = rec;
    (void)h, (void)key, (void)klen;
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 2; k++)
            if (r->s[m][k].count > 0 && write_range(arg, r->name_id, m, k, &r->s[m][k]) != PDB_OK)
                return PDB_ERR;
    return PDB_OK;
}

static int write_ranges(pdb_attr_acc *a)
{
    pdb_batch *rows;
    sqlite3_stmt *st;
    if (pdb_batch_new_typed(a->db, pdb_analyze_sql("attr_pass.add_range"), "isisiiiiirriii",
                            &rows) != PDB_OK) {
        pdb_batch_free(rows);
        return PDB_ERR;
    }
    if (pdb_analyze_prepare(a->db, "attr_pass.range_gpu_time", &st) != PDB_OK) {
        pdb_batch_free(rows);
        return PDB_ERR;
    }
    sqlite3_bind_int64(st, 1, a->run_id);
    sqlite3_bind_int(st, 2, a->rank);
    range_writer w = {a, rows, st};
    int rc = pdb_rs_error(a->ranges);
    if (rc == PDB_OK)
        rc = pdb_rs_each(a->ranges, write_name_ranges, &w);
    if (rc == PDB_OK)
        rc = pdb_batch_flush(rows);
    pdb_batch_free(rows);
    sqlite3_finalize(st);
    return rc;
}

int pdb_attr_acc_finish(pdb_attr_acc *a)
{
    if (pdb_batch_flush(a->insert) != PDB_OK)
        return PDB_ERR;
    return resolve_deferred(a);
}

int pdb_attr_acc_write(pdb_attr_acc *a)
{
    return write_ranges(a);
}

void pdb_attr_acc_free(pdb_attr_acc *a)
{
    if (!a)
        return;
    free(a->map.v);
    for (int m = 0; m < 2; m++) {
        for (int64_t i = 0; i < a->mode[m].n; i++) {
            free(a->mode[m].v[i].r);
            free(a->mode[m].v[i].k);
        }
        free(a->mode[m].v);
        pdb_strmap_free(a->mode[m].index);
        pdb_buf_free(&a->mode[m].key);
    }
    pdb_rs_free(a->ranges);
    pdb_batch_free(a->insert);
    sqlite3_finalize(a->probe);
    sqlite3_finalize(a->spill_put);
    sqlite3_finalize(a->spill_get);
    sqlite3_finalize(a->defer_put);
    sqlite3_finalize(a->set_gpu_range);
    free(a);
}
