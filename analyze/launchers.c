/* launchers.c: which CPU-side event launches each correlation's GPU events,
 * and how many they are, for the scan (see scan.h).
 *
 * A launcher is the first CPU-side event of its correlation (by start, then
 * id); the attribution pass keeps it in flight until that many GPU events
 * came by (attr_pass.c). Asking the correlation index this for every row of
 * the scan cost two correlated subqueries (two index seeks) per CPU-side
 * row. Here one sequential read of that index, grouped by correlation,
 * answers it for the whole trace: the launchers of at least one GPU event
 * go to the temporary table scan_launchers, keyed by (start, id), which is
 * then read in key order alongside the scan, a merge. The scan's order is
 * (start, longest first, id): launchers with equal starts may come out of
 * id order, and then the one the merge has not reached is looked up.
 * Memory: up to MEM_LAUNCHERS launchers in an array sorted once (the
 * table's random inserts were 6% of the analysis); past that bound all of
 * them go to the temporary table scan_launchers, keyed by (start, id),
 * which spills to disk as SQLite's temporary tables do. */
#include "analyze/launchers.h"
#include "analyze/analyze.h"
#include "analyze/batch.h"
#include "analyze/value.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "analyze/queries.h"

#include <assert.h>
#include <stdlib.h>

#define MEM_LAUNCHERS (1 << 18) /* 6 MB of launchers before the table */

typedef struct {
    int64_t ts, id, gpu;
} launcher;

static int launcher_cmp(const void *pa, const void *pb)
{
    const launcher *a = pa, *b = pb;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* The string ids of the CPU-side categories (strings.value is unique: at
 * most one id per category). */
typedef struct {
    int64_t ids[8];
    int n;
} cpu_cats;

static int load_cpu_cats(sqlite3 *db, cpu_cats *c)
{
    sqlite3_stmt *st;
    if (pdb_analyze_prepare(db, "launchers.cpu_categories", &st) != PDB_OK)
        return PDB_ERR;
    int rc;
    c->n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        assert(c->n < (int)(sizeof c->ids / sizeof *c->ids));
        c->ids[c->n++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "reading the CPU categories");
}

/* cat IN (the CPU-side category ids), for a category that may be NULL. */
static bool is_cpu_cat(const cpu_cats *c, sqlite3_value *cat)
{
    if (sqlite3_value_type(cat) != SQLITE_INTEGER)
        return false;
    int64_t id = sqlite3_value_int64(cat);
    for (int i = 0; i < c->n; i++)
        if (c->ids[i] == id)
            return true;
    return false;
}

/* One correlation being read: its value, its first CPU-side event so far
 * and its GPU events. Integer correlations (all of Kineto's) are compared
 * as such; others keep a copy of the value. */
typedef struct {
    bool open;
    int64_t corr_int;
    sqlite3_value *corr;     /* NULL for an integer correlation */
    bool has_launcher;
    int64_t launcher_ts, launcher_id;
    int64_t gpu;
} group;

static bool same_corr(const group *g, sqlite3_value *corr)
{
    if (!g->open)
        return false;
    if (!g->corr)
        return sqlite3_value_type(corr) == SQLITE_INTEGER &&
               sqlite3_value_int64(corr) == g->corr_int;
    return pdb_value_equal(g->corr, corr);
}

static int group_open(group *g, sqlite3_value *corr)
{
    *g = (group){.open = true};
    if (sqlite3_value_type(corr) == SQLITE_INTEGER) {
        g->corr_int = sqlite3_value_int64(corr);
        return PDB_OK;
    }
    g->corr = sqlite3_value_dup(corr);
    return g->corr ? PDB_OK : pdb_fail("out of memory");
}

/* Where the launchers go: the array, and once it is full the table. */
typedef struct {
    sqlite3 *db;
    launcher *v;
    size_t n, cap, max;
    pdb_batch *w;            /* non-NULL: spilled */
} sink;

static int to_table(sink *k)
{
    if (pdb_batch_new(k->db, pdb_analyze_sql("launchers.add_launcher"), 3, &k->w) != PDB_OK)
        return PDB_ERR;
    pdb_bound_passed("launchers sent to a table");
    int rc = PDB_OK;
    for (size_t i = 0; i < k->n && rc == PDB_OK; i++)
        rc = pdb_batch_add(k->w, (int64_t[]){k->v[i].ts, k->v[i].id, k->v[i].gpu}, 0);
    free(k->v);
    k->v = NULL;
    k->n = k->cap = 0;
    return rc;
}

static int sink_add(sink *k, launcher l)
{
    if (!k->w && k->n == k->max && to_table(k) != PDB_OK)
        return PDB_ERR;
    if (k->w)
        return pdb_batch_add(k->w, (int64_t[]){l.ts, l.id, l.gpu}, 0);
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 1024;
        k->v = pdb_xrealloc(k->v, k->cap * sizeof *k->v);
    }
    k->v[k->n++] = l;
    return PDB_OK;
}

static int group_close(group *g, sink *k)
{
    int rc = PDB_OK;
    if (g->open && g->has_launcher && g->gpu > 0)
        rc = sink_add(k, (launcher){g->launcher_ts, g->launcher_id, g->gpu});
    sqlite3_value_free(g->corr);
    *g = (group){0};
    return rc;
}

/* The rows come grouped by correlation (the index order); the rule of a
 * CPU-side event and of a GPU event is the one of analyze.h. */
static int read_groups(sqlite3 *db, const cpu_cats *cats, sqlite3_stmt *q, sink *w)
{
    group g = {0};
    int step, rc = PDB_OK;
    while (rc == PDB_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
        sqlite3_value *corr = sqlite3_column_value(q, 0), *cat = sqlite3_column_value(q, 3);
        int stream = sqlite3_column_type(q, 4);
        if (!same_corr(&g, corr)) {
            rc = group_close(&g, w);
            if (rc == PDB_OK)
                rc = group_open(&g, corr);
        }
        int64_t ts = sqlite3_column_int64(q, 1), id = sqlite3_column_int64(q, 2);
        bool cpu_cat = is_cpu_cat(cats, cat);
        if (stream != SQLITE_INTEGER && (stream == SQLITE_NULL || cpu_cat) &&
            (!g.has_launcher || ts < g.launcher_ts ||
             (ts == g.launcher_ts && id < g.launcher_id))) {
            g.has_launcher = true;
            g.launcher_ts = ts;
            g.launcher_id = id;
        }
        if (stream != SQLITE_NULL && !cpu_cat)
            g.gpu++;
    }
    if (rc == PDB_OK)
        rc = group_close(&g, w);
    else
        sqlite3_value_free(g.corr);
    if (rc == PDB_OK && w->w)
        rc = pdb_batch_flush(w->w);
    if (rc == PDB_OK && step != SQLITE_DONE)
        return pdb_db_fail(db, "reading the correlations");
    return rc;
}

struct pdb_launchers {
    sqlite3 *db;
    launcher *v;             /* in memory: sorted by (ts, id); NULL: in the table */
    size_t n, next;
    sqlite3_stmt *ordered;   /* in the table: the launchers by (ts, id) */
    sqlite3_stmt *by_id;     /* one launcher's count */
    bool has_head;           /* the merge's next launcher */
    int64_t head_ts, head_id, head_gpu;
};

static int advance(pdb_launchers *l)
{
    if (!l->ordered) {
        l->has_head = l->next < l->n;
        if (l->has_head) {
            const launcher *h = &l->v[l->next++];
            l->head_ts = h->ts;
            l->head_id = h->id;
            l->head_gpu = h->gpu;
        }
        return PDB_OK;
    }
    int rc = sqlite3_step(l->ordered);
    l->has_head = rc == SQLITE_ROW;
    if (l->has_head) {
        l->head_ts = sqlite3_column_int64(l->ordered, 0);
        l->head_id = sqlite3_column_int64(l->ordered, 1);
        l->head_gpu = sqlite3_column_int64(l->ordered, 2);
        return PDB_OK;
    }
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(l->db, "reading the launchers");
}

/* In the table, launchers are keyed by (ts, id): read back in that order
 * without a sort, and found by key when starts tie. Correlations mostly
 * grow with time, so the inserts land near the end of the b-tree. */
static int fill(sqlite3 *db, int64_t trace_id, sink *k)
{
    cpu_cats cats;
    sqlite3_stmt *q;
    /* made before any query runs, even if it stays empty: a schema change
     * during the read below (or the scan) would abort it */
    if (pdb_analyze_exec(db, "launchers.create_launchers") != PDB_OK ||
        load_cpu_cats(db, &cats) != PDB_OK ||
        pdb_analyze_prepare(db, "launchers.correlated", &q) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(q, 1, trace_id);
    int rc = read_groups(db, &cats, q, k);
    sqlite3_finalize(q);
    return rc;
}

int pdb_launchers_new(sqlite3 *db, int64_t trace_id, pdb_launchers **out)
{
    pdb_launchers *l = pdb_xcalloc(1, sizeof *l);
    l->db = db;
    *out = l;
    sink k = {.db = db, .max = (size_t)pdb_bound(MEM_LAUNCHERS, 3)};
    int rc = fill(db, trace_id, &k);
    pdb_batch_free(k.w);
    if (rc != PDB_OK) {
        free(k.v);
        return PDB_ERR;
    }
    if (!k.w) {
        if (k.n) /* (qsort and bsearch want an array, even an empty one) */
            qsort(k.v, k.n, sizeof *k.v, launcher_cmp);
        l->v = k.v;
        l->n = k.n;
        return advance(l);
    }
    if (pdb_analyze_prepare(db, "launchers.ordered", &l->ordered) != PDB_OK ||
        pdb_analyze_prepare(db, "launchers.by_id", &l->by_id) != PDB_OK)
        return PDB_ERR;
    return advance(l);
}

/* A launcher found by key, when starts tie. */
static int look_up(pdb_launchers *l, int64_t ts, int64_t id, int64_t *gpu)
{
    if (!l->ordered) {
        const launcher key = {ts, id, 0};
        const launcher *f = l->n ? bsearch(&key, l->v, l->n, sizeof *l->v, launcher_cmp) : NULL;
        *gpu = f ? f->gpu : 0;
        return PDB_OK;
    }
    sqlite3_bind_int64(l->by_id, 1, ts);
    sqlite3_bind_int64(l->by_id, 2, id);
    int rc = sqlite3_step(l->by_id);
    if (rc == SQLITE_ROW)
        *gpu = sqlite3_column_int64(l->by_id, 0);
    sqlite3_reset(l->by_id);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(l->db, "reading a launcher");
}

/* Entries are passed only when matched or when the scan is past their
 * start, so at a start ts every entry before the head has had its row. */
int pdb_launchers_of(pdb_launchers *l, int64_t ts, int64_t id, int64_t *gpu)
{
    *gpu = 0;
    while (l->has_head && l->head_ts < ts)
        if (advance(l) != PDB_OK)
            return PDB_ERR;
    if (!l->has_head || l->head_ts > ts || l->head_id > id)
        return PDB_OK;
    if (l->head_id == id) {
        *gpu = l->head_gpu;
        return advance(l);
    }
    /* Equal starts, a longer row with a larger id first: look it up. */
    return look_up(l, ts, id, gpu);
}

void pdb_launchers_free(pdb_launchers *l)
{
    if (!l)
        return;
    sqlite3_finalize(l->ordered);
    sqlite3_finalize(l->by_id);
    free(l->v);
    free(l);
}
