/* scan.c: the analysis of one trace in a single pass (see scan.h).
 *
 * One query returns the trace's slices in start order (longest first on
 * ties), each GPU event with the start of the runtime call that launched it
 * (same correlation, looked up through the correlation index). Every row goes
 * to the accumulators of both modes: exact (the trace as written) and hta
 * (HTA's event set, rounding and dropped last step, see hta.h). */
#include "analyze/scan.h"
#include "analyze/hta.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The launching call is on the CPU side by both modes' rules. "+ 0" keeps
 * SQLite from answering min() by walking the (trace, ts) index. */
static const char *const scan_sql =
    "SELECT s.ts, s.dur, s.name, s.cat, s.stream, s.ph = 'X', s.pid, s.tid,"
    " coalesce(s.input_dims, ''),"
    " CASE WHEN s.stream IS NOT NULL AND s.correlation IS NOT NULL THEN"
    "  (SELECT min(r.ts + 0) FROM slices r WHERE r.trace_id = s.trace_id"
    "   AND r.correlation = s.correlation AND typeof(r.stream) <> 'integer'"
    "   AND (r.stream IS NULL OR r.cat IN (SELECT id FROM strings WHERE value IN "
    PDB_CPU_CATEGORIES "))) END"
    " FROM slices s WHERE s.trace_id = ?1 ORDER BY s.ts, s.dur DESC, s.id";

/* Names and categories by string id, classified once. */
typedef struct {
    sqlite3_stmt *text_of;
    pdb_strmap *index;
    void **v; /* pdb_name_info* or pdb_cat_info* */
    int64_t n;
} id_cache;

static char *lookup_text(id_cache *c, int64_t id)
{
    sqlite3_bind_int64(c->text_of, 1, id);
    const char *t = sqlite3_step(c->text_of) == SQLITE_ROW
                        ? (const char *)sqlite3_column_text(c->text_of, 0) : NULL;
    char *copy = pdb_xstrdup(t ? t : "");
    sqlite3_reset(c->text_of);
    return copy;
}

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static void *classify_name(char *text)
{
    pdb_name_info *n = pdb_xcalloc(1, sizeof *n);
    n->text = text;
    n->kt = pdb_kernel_type_of(text);
    n->kt_hta = pdb_kernel_type_hta(text);
    n->profiler_step = starts(text, "ProfilerStep#");
    n->dataloader = strstr(text, "DataLoader") != NULL;
    n->memset = strstr(text, "Memset") != NULL;
    return n;
}

static void *classify_cat(char *text)
{
    pdb_cat_info *c = pdb_xcalloc(1, sizeof *c);
    static const char *const cpu[] = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op",
                                      "user_annotation", "python_function"};
    static const char *const idle[] = {"kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events"};
    c->text = text;
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++)
        c->cpu_side |= strcmp(text, cpu[i]) == 0;
    for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
        c->hta_idle |= strcmp(text, idle[i]) == 0;
    c->runtime = strcmp(text, "cuda_runtime") == 0 || strcmp(text, "cuda_driver") == 0 ||
                 strcmp(text, "hip_runtime") == 0;
    c->trace = strcmp(text, "Trace") == 0;
    c->gpu_annotation = starts(text, "gpu_");
    return c;
}

static void *cached(id_cache *c, int64_t id, void *(*classify)(char *))
{
    int64_t i;
    if (pdb_strmap_get(c->index, (const char *)&id, sizeof id, &i))
        return c->v[i];
    c->v = pdb_xrealloc(c->v, (size_t)(c->n + 1) * sizeof *c->v);
    c->v[c->n] = classify(lookup_text(c, id));
    pdb_strmap_put(c->index, (const char *)&id, sizeof id, c->n);
    return c->v[c->n++];
}

static void free_cache(id_cache *c)
{
    for (int64_t i = 0; i < c->n; i++) {
        free(*(char **)c->v[i]); /* text is the first member of both infos */
        free(c->v[i]);
    }
    free(c->v);
    pdb_strmap_free(c->index);
    sqlite3_finalize(c->text_of);
}

void pdb_value_key(sqlite3_value *v, char *buf, size_t cap, size_t *len)
{
    int t = sqlite3_value_type(v);
    buf[0] = (char)('0' + t);
    *len = 1;
    if (t == SQLITE_INTEGER || t == SQLITE_FLOAT) {
        int64_t i = t == SQLITE_INTEGER ? sqlite3_value_int64(v) : 0;
        double d = t == SQLITE_FLOAT ? sqlite3_value_double(v) : 0;
        memcpy(buf + 1, t == SQLITE_INTEGER ? (const void *)&i : (const void *)&d, 8);
        *len = 9;
    } else if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
        size_t n = (size_t)sqlite3_value_bytes(v);
        if (n > cap - 1)
            n = cap - 1; /* stream and thread names are short */
        memcpy(buf + 1, sqlite3_value_text(v), n);
        *len = 1 + n;
    }
}

typedef struct {
    pdb_gpu_acc *gpu[2];
    pdb_idle_acc *idle[2];
    pdb_ops_acc *ops;
    pdb_steps_acc *steps;
    pdb_hta_mode hta;
} accs;

/* HTA's view of a GPU event: kept, rounded, launched before the cut. */
static void feed_hta(accs *a, const pdb_row *r)
{
    if (!r->ph_x || !r->cat || r->cat->trace || !pdb_hta_gpu_stream(r->stream))
        return;
    int64_t start = r->ts, end = r->ts + r->dur, launch = r->launch, ignore;
    if (a->hta.round) {
        pdb_hta_round(r->ts, r->dur, &start, &end);
        if (r->has_launch)
            pdb_hta_round(r->launch, 0, &launch, &ignore);
    }
    if (a->hta.drop_last && !(r->has_launch && launch < a->hta.cutoff))
        return;
    pdb_gpu_acc_add(a->gpu[1], r, start, end);
    if (r->cat->hta_idle)
        pdb_idle_acc_add(a->idle[1], r->stream, start, end, r->has_launch, launch);
}

static void feed(accs *a, const pdb_row *r)
{
    if (r->gpu) {
        pdb_gpu_acc_add(a->gpu[0], r, r->ts, r->ts + r->dur);
        pdb_idle_acc_add(a->idle[0], r->stream, r->ts, r->ts + r->dur, r->has_launch, r->launch);
    } else if (!(r->cat && (r->cat->trace || r->cat->gpu_annotation))) {
        pdb_ops_acc_add(a->ops, r); /* the profiler's span and GPU annotations are not ops */
    }
    pdb_steps_acc_add(a->steps, r);
    feed_hta(a, r);
}

static void row_from(sqlite3_stmt *st, id_cache *names, id_cache *cats, pdb_row *r)
{
    *r = (pdb_row){.ts = sqlite3_column_int64(st, 0), .dur = sqlite3_column_int64(st, 1),
                   .name_id = sqlite3_column_int64(st, 2), .cat_id = sqlite3_column_int64(st, 3),
                   .stream = sqlite3_column_value(st, 4), .ph_x = sqlite3_column_int(st, 5),
                   .pid = sqlite3_column_value(st, 6), .tid = sqlite3_column_value(st, 7),
                   .dims = (const char *)sqlite3_column_text(st, 8),
                   .has_launch = sqlite3_column_type(st, 9) != SQLITE_NULL,
                   .launch = sqlite3_column_int64(st, 9)};
    r->name = cached(names, r->name_id, classify_name);
    r->cat = sqlite3_column_type(st, 3) == SQLITE_NULL ? NULL : cached(cats, r->cat_id, classify_cat);
    r->gpu = sqlite3_value_type(r->stream) != SQLITE_NULL && !(r->cat && r->cat->cpu_side);
}

static int read_rows(sqlite3 *db, int64_t trace_id, id_cache *names, id_cache *cats, accs *a)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, scan_sql, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    int step;
    int64_t prev_ts = INT64_MIN;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        pdb_row r;
        row_from(st, names, cats, &r);
        assert(r.ts >= prev_ts); /* every accumulator relies on start order */
        prev_ts = r.ts;
        feed(a, &r);
    }
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "analysis query failed");
}

static int write_all(sqlite3 *db, int64_t run_id, int rank, accs *a)
{
    static const char *const modes[] = {"exact", "hta"};
    for (int m = 0; m < 2; m++)
        if (pdb_gpu_acc_write(a->gpu[m], db, run_id, rank, modes[m]) != PDB_OK ||
            pdb_idle_acc_write(a->idle[m], db, run_id, rank) != PDB_OK)
            return PDB_ERR;
    if (pdb_ops_acc_write(a->ops, db, run_id, rank) != PDB_OK)
        return PDB_ERR;
    return pdb_steps_acc_write(a->steps, db, run_id, rank);
}

int pdb_analyze_trace(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank)
{
    id_cache names = {.index = pdb_strmap_new()};
    id_cache cats = {.index = pdb_strmap_new()};
    accs a = {{pdb_gpu_acc_new(false), pdb_gpu_acc_new(true)},
              {pdb_idle_acc_new(false), pdb_idle_acc_new(true)}, pdb_ops_acc_new(), NULL, {0}};
    int rc = pdb_db_prepare(db, "SELECT value FROM strings WHERE id = ?", &names.text_of);
    if (rc == PDB_OK)
        rc = pdb_db_prepare(db, "SELECT value FROM strings WHERE id = ?", &cats.text_of);
    if (rc == PDB_OK)
        rc = pdb_steps_acc_new(db, trace_id, &a.steps);
    if (rc == PDB_OK)
        rc = pdb_hta_settings(db, trace_id, &a.hta);
    if (rc == PDB_OK)
        rc = read_rows(db, trace_id, &names, &cats, &a);
    if (rc == PDB_OK)
        rc = write_all(db, run_id, rank, &a);
    for (int m = 0; m < 2; m++) {
        pdb_gpu_acc_free(a.gpu[m]);
        pdb_idle_acc_free(a.idle[m]);
    }
    pdb_ops_acc_free(a.ops);
    pdb_steps_acc_free(a.steps);
    free_cache(&names);
    free_cache(&cats);
    return rc;
}
