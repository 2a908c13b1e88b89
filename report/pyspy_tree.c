/* pyspy_tree.c: a run's py-spy stack tree in memory (see pyspy.h), for the
 * reports that draw or print the whole tree: pyspy-tree, folded and
 * flamegraph (pyspy_graph.c). Loading is two ordered scans; totals and
 * flame-graph positions are one pass each over the nodes, so the work is
 * linear in the stored tree whatever the depth of its stacks. */
#include "report/pyspy.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "report/queries.h"

#include <stdlib.h>
#include <string.h>

/* A node id and its index, sorted by id, to find parents. */
typedef struct { int64_t id; int32_t index; } id_index;

static int cmp_id(const void *a, const void *b)
{
    int64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
    return (x > y) - (x < y);
}

static int32_t find(const id_index *ids, size_t n, int64_t id)
{
    id_index key = {id, 0};
    const id_index *hit = bsearch(&key, ids, n, sizeof *ids, cmp_id);
    return hit ? hit->index : -1;
}

static int load_frames(sqlite3 *db, int64_t run_id, pdb_pyspy_tree *t, id_index **ids)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pyspy.tree_frames", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (t->nframes == cap) {
            cap = cap ? 2 * cap : 256;
            t->frames = pdb_xrealloc(t->frames, cap * sizeof *t->frames);
            t->pseudo = pdb_xrealloc(t->pseudo, cap * sizeof *t->pseudo);
            *ids = pdb_xrealloc(*ids, cap * sizeof **ids);
        }
        const char *kind = (const char *)sqlite3_column_text(st, 1);
        const char *text = (const char *)sqlite3_column_text(st, 2);
        (*ids)[t->nframes] = (id_index){sqlite3_column_int64(st, 0), (int32_t)t->nframes};
        t->pseudo[t->nframes] = kind && (!strcmp(kind, "process") || !strcmp(kind, "thread"));
        t->frames[t->nframes++] = pdb_xstrdup(text ? text : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "reading py-spy frames");
}

/* Reads the nodes with their parent's and frame's ids (in x and total until
 * resolved), then finds every parent and frame by one sorted lookup. */
static int load_nodes(sqlite3 *db, int64_t run_id, pdb_pyspy_tree *t, const id_index *fids)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pyspy.tree_nodes", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    id_index *ids = NULL;
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (t->n == cap) {
            cap = cap ? 2 * cap : 1024;
            t->nodes = pdb_xrealloc(t->nodes, cap * sizeof *t->nodes);
            ids = pdb_xrealloc(ids, cap * sizeof *ids);
        }
        t->nodes[t->n] = (pdb_pyspy_node){.self = sqlite3_column_int64(st, 4),
                                          .x = sqlite3_column_int64(st, 1),
                                          .total = sqlite3_column_int64(st, 2),
                                          .depth = sqlite3_column_int(st, 3), .first_child = -1};
        ids[t->n] = (id_index){sqlite3_column_int64(st, 0), (int32_t)t->n};
        t->n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(ids);
        return pdb_db_fail(db, "reading py-spy nodes");
    }
    if (t->n) /* ids is NULL for a run without nodes, and qsort's pointer must not be */
        qsort(ids, t->n, sizeof *ids, cmp_id);
    int err = PDB_OK;
    for (size_t i = 0; i < t->n && err == PDB_OK; i++) {
        pdb_pyspy_node *nd = &t->nodes[i];
        int64_t parent_id = nd->x, frame_id = nd->total;
        nd->parent = parent_id ? find(ids, t->n, parent_id) : -1;
        nd->frame = find(fids, t->nframes, frame_id);
        /* The order puts parents first; a parent after its child would be
         * a broken tree (its x and total would be wrong). */
        if ((parent_id && (nd->parent < 0 || (size_t)nd->parent >= i)) || nd->frame < 0)
            err = pdb_fail("py-spy stack tree of run %lld: a node without its parent or frame",
                           (long long)run_id);
        nd->x = nd->total = 0;
    }
    free(ids);
    return err;
}

/* Totals bottom-up, children's runs, x positions top-down. */
static void link_nodes(pdb_pyspy_tree *t)
{
    for (size_t i = 0; i < t->n; i++)
        t->nodes[i].total = t->nodes[i].self;
    for (size_t i = t->n; i-- > 0;)
        if (t->nodes[i].parent >= 0)
            t->nodes[t->nodes[i].parent].total += t->nodes[i].total;
    int64_t root_x = 0;
    int64_t *next_x = pdb_xmalloc((t->n + 1) * sizeof *next_x);
    for (size_t i = 0; i < t->n; i++) {
        pdb_pyspy_node *nd = &t->nodes[i];
        next_x[i] = 0;
        if (nd->parent < 0) {
            nd->x = root_x;
            root_x += nd->total;
        } else {
            pdb_pyspy_node *p = &t->nodes[nd->parent];
            if (p->first_child < 0) {
                p->first_child = (int32_t)i;
                next_x[nd->parent] = p->x;
            }
            p->children++;
            nd->x = next_x[nd->parent];
            next_x[nd->parent] += nd->total;
        }
        next_x[i] = nd->x;
    }
    free(next_x);
}

static int load_totals(sqlite3 *db, int64_t run_id, pdb_pyspy_tree *t)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pyspy.tree_totals", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        t->samples = sqlite3_column_int64(st, 0);
        t->exact = sqlite3_column_int(st, 1) != 0;
        t->rate_hz = sqlite3_column_double(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "reading py-spy profiles");
}

int pdb_pyspy_tree_load(sqlite3 *db, int64_t run_id, pdb_pyspy_tree *t)
{
    memset(t, 0, sizeof *t);
    id_index *fids = NULL;
    int rc = load_totals(db, run_id, t);
    if (rc == PDB_OK)
        rc = load_frames(db, run_id, t, &fids);
    if (rc == PDB_OK) {
        if (t->nframes) /* fids is NULL for a run without py-spy frames */
            qsort(fids, t->nframes, sizeof *fids, cmp_id);
        rc = load_nodes(db, run_id, t, fids);
    }
    free(fids);
    if (rc == PDB_OK)
        link_nodes(t);
    else
        pdb_pyspy_tree_free(t);
    return rc;
}

void pdb_pyspy_tree_free(pdb_pyspy_tree *t)
{
    for (size_t i = 0; i < t->nframes; i++)
        free(t->frames[i]);
    free(t->frames);
    free(t->pseudo);
    free(t->nodes);
    memset(t, 0, sizeof *t);
}
