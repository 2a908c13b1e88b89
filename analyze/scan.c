/* scan.c: the analysis of one trace in a single pass (see scan.h).
 *
 * One query returns the trace's slices in start order (longest first on
 * ties). A CPU-side row that is the first of its correlation comes with the
 * number of GPU events it launched (found before the scan, launchers.c);
 * the attribution pass (attr_pass.c) remembers it until they come by, and
 * gives them the start of their launch. Every row goes to the accumulators
 * of both modes: exact (the trace as written) and hta (HTA's event set,
 * rounding and dropped last step, see hta.h). */
#include "analyze/scan.h"
#include "analyze/hta.h"
#include "analyze/idmap.h"
#include "analyze/series.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strmap.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const scan_sql =
    "SELECT s.ts, s.dur, s.name, s.cat, s.stream, s.ph = 'X', s.pid, s.tid,"
    " coalesce(s.input_dims, ''), s.id, s.correlation"
    " FROM slices s WHERE s.trace_id = ?1 ORDER BY s.ts, s.dur DESC, s.id";

/* Names and categories by string id, classified from their text, in a
 * direct-mapped cache of ID_CACHE slots: a trace with millions of distinct
 * names re-reads a name's text when it comes back after its slot was
 * taken, instead of keeping every name (933 MB at 2 million names). */
#define ID_CACHE 4096

typedef struct {
    size_t slots;     /* ID_CACHE (4 under PROFDB_SPILL_TEST) */
    sqlite3_stmt *text_of;
    void (*classify)(const char *text, void *info);
    size_t info_size;
    int64_t *ids;     /* per slot: the string id held, or -1 */
    char *infos;      /* per slot: a pdb_name_info or pdb_cat_info */
    int err;
} id_cache;

static int cache_init(sqlite3 *db, id_cache *c, void (*classify)(const char *, void *),
                      size_t info_size)
{
    c->classify = classify;
    c->info_size = info_size;
    c->slots = (size_t)pdb_bound(ID_CACHE, 4);
    c->ids = pdb_xmalloc(c->slots * sizeof *c->ids);
    memset(c->ids, -1, c->slots * sizeof *c->ids);
    c->infos = pdb_xcalloc(c->slots, info_size);
    return pdb_db_prepare(db, "SELECT value FROM strings WHERE id = ?", &c->text_of);
}

static bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* The text is cut at a NUL here: classification looks at prefixes and
 * whole names, and a name with a NUL matches none of them. */
static void classify_name(const char *text, void *info)
{
    pdb_name_info *n = info;
    *n = (pdb_name_info){0};
    n->kt = pdb_kernel_type_of(text);
    n->kt_hta = pdb_kernel_type_hta(text);
    n->profiler_step = starts(text, "ProfilerStep#");
    n->dataloader = strstr(text, "DataLoader") != NULL;
    n->memset = strstr(text, "Memset") != NULL;
    n->module = starts(text, "nn.Module: ");
    static const char *const copy[] = {"aten::to", "aten::_to_copy", "aten::copy_"};
    static const char *const sync[] = {
        "aten::item", "aten::_local_scalar_dense", "cudaStreamSynchronize",
        "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy", "hipStreamSynchronize",
        "hipDeviceSynchronize", "hipEventSynchronize", "hipMemcpy"};
    for (size_t i = 0; i < sizeof copy / sizeof *copy; i++)
        if (strcmp(text, copy[i]) == 0)
            n->family = PDB_FAMILY_COPY;
    for (size_t i = 0; i < sizeof sync / sizeof *sync; i++)
        if (strcmp(text, sync[i]) == 0)
            n->family = PDB_FAMILY_SYNC;
    n->device_sync = strcmp(text, "Event Sync") == 0 || strcmp(text, "Context Sync") == 0;
    n->memory_filtered = pdb_memory_filtered_name(text);
    n->hta_launch = pdb_queue_launch_name(text);
}

static void classify_cat(const char *text, void *info)
{
    pdb_cat_info *c = info;
    *c = (pdb_cat_info){0};
    static const char *const cpu[] = {"cuda_runtime", "cuda_driver", "hip_runtime", "cpu_op",
                                      "user_annotation", "python_function"};
    static const char *const idle[] = {"kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events"};
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++)
        c->cpu_side |= strcmp(text, cpu[i]) == 0;
    for (size_t i = 0; i < sizeof idle / sizeof idle[0]; i++)
        c->hta_idle |= strcmp(text, idle[i]) == 0;
    c->runtime = strcmp(text, "cuda_runtime") == 0 || strcmp(text, "cuda_driver") == 0 ||
                 strcmp(text, "hip_runtime") == 0;
    c->trace = strcmp(text, "Trace") == 0;
    c->gpu_annotation = starts(text, "gpu_");
    c->op = strcmp(text, "cpu_op") == 0 || strcasecmp(text, "operator") == 0;
    c->annotation = strcmp(text, "user_annotation") == 0;
    c->gpu_range = strcmp(text, "gpu_user_annotation") == 0;
    c->python = strcmp(text, "python_function") == 0;
}

/* The info of string id, classified now if its slot holds another id. */
static const void *cached(id_cache *c, int64_t id)
{
    size_t slot = (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ULL) >> 40) & (c->slots - 1);
    void *info = c->infos + slot * c->info_size;
    if (c->ids[slot] == id)
        return info;
    sqlite3_bind_int64(c->text_of, 1, id);
    int rc = sqlite3_step(c->text_of);
    const char *t = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(c->text_of, 0) : NULL;
    c->classify(t ? t : "", info);
    sqlite3_reset(c->text_of);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE && c->err == PDB_OK)
        c->err = PDB_ERR;
    c->ids[slot] = id;
    return info;
}

static void free_cache(id_cache *c)
{
    free(c->ids);
    free(c->infos);
    sqlite3_finalize(c->text_of);
}

static bool sum_overflowed;

void pdb_sum(int64_t *sum, int64_t v)
{
    if (__builtin_add_overflow(*sum, v, sum))
        sum_overflowed = true;
}

void pdb_sum_sub(int64_t *sum, int64_t v)
{
    if (__builtin_sub_overflow(*sum, v, sum))
        sum_overflowed = true;
}

void pdb_value_key(pdb_buf *b, sqlite3_value *v)
{
    int t = sqlite3_value_type(v);
    pdb_buf_addc(b, (char)('0' + t));
    if (t == SQLITE_INTEGER) {
        int64_t i = sqlite3_value_int64(v);
        pdb_buf_add(b, &i, sizeof i);
    } else if (t == SQLITE_FLOAT) {
        double d = sqlite3_value_double(v);
        pdb_buf_add(b, &d, sizeof d);
    } else if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
        const void *p = sqlite3_value_blob(v); /* the bytes as stored, NULs included */
        size_t n = (size_t)sqlite3_value_bytes(v);
        uint64_t len = n; /* the length first: keys of pairs (pid, tid) stay unambiguous */
        pdb_buf_add(b, &len, sizeof len);
        if (n)
            pdb_buf_add(b, p, n);
    }
}

bool pdb_value_equal(sqlite3_value *a, sqlite3_value *b)
{
    int t = sqlite3_value_type(a);
    if (t != sqlite3_value_type(b))
        return false;
    if (t == SQLITE_INTEGER)
        return sqlite3_value_int64(a) == sqlite3_value_int64(b);
    if (t == SQLITE_FLOAT) {
        double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
        return memcmp(&x, &y, sizeof x) == 0; /* as the keys compare: by bits */
    }
    if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
        const void *p = sqlite3_value_blob(a), *q = sqlite3_value_blob(b);
        size_t n = (size_t)sqlite3_value_bytes(a);
        return n == (size_t)sqlite3_value_bytes(b) && (n == 0 || memcmp(p, q, n) == 0);
    }
    return true; /* both NULL */
}

void pdb_value_key_bind(sqlite3_stmt *st, int col, const unsigned char **key, size_t *len)
{
    assert(*len >= 1);
    int t = **key - '0';
    const unsigned char *p = *key + 1;
    size_t left = *len - 1;
    if (t == SQLITE_INTEGER || t == SQLITE_FLOAT) {
        assert(left >= 8);
        int64_t i;
        double d;
        memcpy(t == SQLITE_INTEGER ? (void *)&i : (void *)&d, p, 8);
        if (t == SQLITE_INTEGER)
            sqlite3_bind_int64(st, col, i);
        else
            sqlite3_bind_double(st, col, d);
        p += 8, left -= 8;
    } else if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
        uint64_t n;
        assert(left >= sizeof n);
        memcpy(&n, p, sizeof n);
        p += sizeof n, left -= sizeof n;
        assert(n <= left);
        if (t == SQLITE_TEXT)
            sqlite3_bind_text64(st, col, (const char *)p, n, SQLITE_TRANSIENT, SQLITE_UTF8);
        else
            sqlite3_bind_blob64(st, col, n ? (const void *)p : "", n, SQLITE_TRANSIENT);
        p += n, left -= n;
    } else {
        assert(t == SQLITE_NULL);
        sqlite3_bind_null(st, col);
    }
    *key = p;
    *len = left;
}

typedef struct {
    pdb_gpu_acc *gpu[2];
    pdb_idle_acc *idle[2];
    pdb_ops_acc *ops;
    pdb_steps_acc *steps;
    pdb_attr_acc *attr;
    pdb_series_acc *series;
    pdb_hta_mode hta;
} accs;

/* HTA's view of a row: X events with a category other than Trace, rounded;
 * with the last step dropped, HTA's kernels (GPUKernelFilter: a stream and
 * a correlation >= 0, or a device-wide sync) stay when launched before the
 * cut and every other event when it starts before it. Events on a stream
 * other than -1 make the temporal breakdown; kernels and annotation ranges
 * make the hta rows of analysis_annotations. */
static int feed_hta(accs *a, const pdb_row *r)
{
    if (!r->ph_x || !r->cat || r->cat->trace)
        return PDB_OK;
    int64_t stream = pdb_hta_stream(r->stream);
    bool kernel = (stream >= 0 && r->has_corr && r->corr >= 0) || r->name->device_sync;
    bool range = r->cat->annotation || r->cat->gpu_range;
    if (stream == -1 && !kernel && !range)
        return PDB_OK;
    int64_t start = r->ts, end = r->ts + r->dur, launch = r->launch;
    if (a->hta.round) {
        pdb_hta_round(r->ts, r->dur, &start, &end);
        if (r->has_launch)
            launch = pdb_hta_ceil(r->launch);
    }
    if (a->hta.drop_last &&
        !(kernel ? r->has_launch && launch < a->hta.cutoff : start < a->hta.cutoff))
        return PDB_OK;
    if (stream != -1) {
        pdb_gpu_acc_add(a->gpu[1], r, start, end);
        if (r->cat->hta_idle)
            pdb_idle_acc_add(a->idle[1], r->stream, start, end, r->has_launch, launch);
    }
    if (kernel)
        pdb_attr_hta_kernel(a->attr, r, start, end);
    return range ? pdb_attr_range(a->attr, r, true, start, end) : PDB_OK;
}

static int feed(accs *a, pdb_row *r)
{
    r->in_step = pdb_steps_acc_step_at(a->steps, r->ts, &r->step, &r->step_idx);
    bool op = !r->gpu && !(r->cat && (r->cat->trace || r->cat->gpu_annotation));
    if (op) { /* the profiler's span and GPU annotations are not ops */
        if (pdb_ops_acc_add(a->ops, r) != PDB_OK)
            return PDB_ERR;
        if (r->launches > 0 && pdb_attr_launcher(a->attr, r) != PDB_OK)
            return PDB_ERR;
    }
    if (r->has_corr && sqlite3_value_type(r->stream) != SQLITE_NULL &&
        pdb_attr_resolve(a->attr, r) != PDB_OK)
        return PDB_ERR;
    if (r->gpu) {
        pdb_gpu_acc_add(a->gpu[0], r, r->ts, r->ts + r->dur);
        pdb_idle_acc_add(a->idle[0], r->stream, r->ts, r->ts + r->dur, r->has_launch, r->launch);
        if (pdb_attr_gpu(a->attr, r) != PDB_OK)
            return PDB_ERR;
    }
    if (r->cat && (r->cat->annotation || r->cat->gpu_range) &&
        pdb_attr_range(a->attr, r, false, r->ts, r->ts + r->dur) != PDB_OK)
        return PDB_ERR;
    pdb_steps_acc_add(a->steps, r);
    if (pdb_series_acc_add(a->series, r) != PDB_OK)
        return PDB_ERR;
    return feed_hta(a, r);
}

static void row_from(sqlite3_stmt *st, id_cache *names, id_cache *cats, pdb_row *r)
{
    *r = (pdb_row){.ts = sqlite3_column_int64(st, 0), .dur = sqlite3_column_int64(st, 1),
                   .name_id = sqlite3_column_int64(st, 2), .cat_id = sqlite3_column_int64(st, 3),
                   .stream = sqlite3_column_value(st, 4), .ph_x = sqlite3_column_int(st, 5),
                   .pid = sqlite3_column_value(st, 6), .tid = sqlite3_column_value(st, 7),
                   .dims = (const char *)sqlite3_column_text(st, 8),
                   .id = sqlite3_column_int64(st, 9),
                   .has_corr = sqlite3_column_type(st, 10) != SQLITE_NULL,
                   .corr = sqlite3_column_int64(st, 10)};
    r->name = cached(names, r->name_id);
    r->cat = sqlite3_column_type(st, 3) == SQLITE_NULL ? NULL : cached(cats, r->cat_id);
    r->gpu = sqlite3_value_type(r->stream) != SQLITE_NULL && !(r->cat && r->cat->cpu_side);
}

/* Rows with a correlation and no integer stream may be launchers. */
static int launches_of(pdb_launchers *l, pdb_row *r)
{
    if (!r->has_corr || sqlite3_value_type(r->stream) == SQLITE_INTEGER)
        return PDB_OK;
    return pdb_launchers_of(l, r->ts, r->id, &r->launches);
}

static int read_rows(sqlite3 *db, int64_t trace_id, id_cache *names, id_cache *cats,
                     pdb_launchers *l, accs *a)
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
        if (launches_of(l, &r) != PDB_OK || feed(a, &r) != PDB_OK) {
            sqlite3_finalize(st);
            return PDB_ERR;
        }
    }
    sqlite3_finalize(st);
    if (step == SQLITE_DONE && (names->err != PDB_OK || cats->err != PDB_OK))
        return pdb_db_fail(db, "reading a name");
    return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "analysis query failed");
}

/* Deferred attributions first (their GPU time goes to the ops), then
 * analysis_ops, which the annotation rows take their GPU time from. */
static int write_all(sqlite3 *db, int64_t run_id, int rank, accs *a)
{
    static const char *const modes[] = {"exact", "hta"};
    if (pdb_attr_acc_finish(a->attr) != PDB_OK || pdb_ops_acc_write(a->ops) != PDB_OK ||
        pdb_attr_acc_write(a->attr) != PDB_OK)
        return PDB_ERR;
    for (int m = 0; m < 2; m++)
        if (pdb_gpu_acc_write(a->gpu[m], db, run_id, rank, modes[m]) != PDB_OK ||
            pdb_idle_acc_write(a->idle[m], db, run_id, rank) != PDB_OK)
            return PDB_ERR;
    if (pdb_series_acc_write(a->series) != PDB_OK)
        return PDB_ERR;
    return pdb_steps_acc_write(a->steps, db, run_id, rank);
}

/* The trace's file and why its analysis stops. */
static int fail_overflow(sqlite3 *db, int64_t trace_id)
{
    sqlite3_stmt *st;
    if (pdb_db_prepare(db, "SELECT s.path FROM traces t JOIN sources s USING (source_id)"
                           " WHERE t.trace_id = ?", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, trace_id);
    const char *path = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0)
                                                      : "trace";
    pdb_fail("%s: a sum of event durations exceeds int64 nanoseconds (292 years): the "
             "durations are not plausible", path);
    sqlite3_finalize(st);
    return PDB_ERR;
}

int pdb_analyze_trace(sqlite3 *db, int64_t run_id, int64_t trace_id, int rank)
{
    id_cache names = {0}, cats = {0};
    accs a = {{NULL, NULL}, {NULL, NULL}, NULL, NULL, NULL, NULL, {0}};
    int rc = cache_init(db, &names, classify_name, sizeof(pdb_name_info));
    for (int m = 0; m < 2 && rc == PDB_OK; m++)
        rc = pdb_idle_acc_new(db, m == 1, &a.idle[m]);
    if (rc == PDB_OK)
        rc = cache_init(db, &cats, classify_cat, sizeof(pdb_cat_info));
    for (int m = 0; m < 2 && rc == PDB_OK; m++)
        rc = pdb_gpu_acc_new(db, m == 1, &a.gpu[m]);
    if (rc == PDB_OK)
        rc = pdb_steps_acc_new(db, trace_id, &a.steps);
    if (rc == PDB_OK)
        rc = pdb_ops_acc_new(db, run_id, rank, a.steps, &a.ops);
    if (rc == PDB_OK)
        rc = pdb_attr_acc_new(db, run_id, trace_id, rank, a.ops, &a.attr);
    if (rc == PDB_OK)
        rc = pdb_hta_settings(db, trace_id, &a.hta);
    sum_overflowed = false;
    if (rc == PDB_OK)
        rc = pdb_series_acc_new(db, run_id, trace_id, rank, &a.hta, &a.series);
    pdb_launchers *launchers = NULL;
    if (rc == PDB_OK)
        rc = pdb_launchers_new(db, trace_id, &launchers);
    if (rc == PDB_OK)
        rc = read_rows(db, trace_id, &names, &cats, launchers, &a);
    pdb_launchers_free(launchers);
    if (rc == PDB_OK)
        rc = write_all(db, run_id, rank, &a);
    if (rc == PDB_OK && sum_overflowed)
        rc = fail_overflow(db, trace_id);
    for (int m = 0; m < 2; m++) {
        pdb_gpu_acc_free(a.gpu[m]);
        pdb_idle_acc_free(a.idle[m]);
    }
    pdb_attr_acc_free(a.attr);
    pdb_series_acc_free(a.series);
    pdb_ops_acc_free(a.ops);
    pdb_steps_acc_free(a.steps);
    free_cache(&names);
    free_cache(&cats);
    return rc;
}
