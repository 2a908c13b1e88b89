/* scan_rows.c: the trace's slices in start order, as pdb_rows (see scan.h).
 *
 * One query returns the slices in start order (longest first on ties, then
 * by id). Names and categories arrive as string ids and are classified from
 * their text once, in a bounded cache; a CPU-side row that is the first of
 * its correlation comes with the number of GPU events it launched, found
 * before the query (launchers.c). Everything here uses one connection, so
 * the same reading runs on the analysis's own connection or on a reader
 * thread's (scan_reader.c). */
#include "analyze/scan.h"
#include "analyze/launchers.h"
#include "analyze/series.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "common/query.h"
#include "common/query_db.h"
#include "analyze/queries.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    return pdb_common_prepare(db, "strings.text", NULL, &c->text_of);
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

static void row_from(sqlite3_stmt *st, id_cache *names, id_cache *cats, pdb_row *r)
{
    *r = (pdb_row){.ts = sqlite3_column_int64(st, 0), .dur = sqlite3_column_int64(st, 1),
                   .name_id = sqlite3_column_int64(st, 2), .cat_id = sqlite3_column_int64(st, 3),
                   .stream = pdb_val_of(sqlite3_column_value(st, 4)),
                   .ph_x = sqlite3_column_int(st, 5),
                   .pid = pdb_val_of(sqlite3_column_value(st, 6)),
                   .tid = pdb_val_of(sqlite3_column_value(st, 7)),
                   .dims = (const char *)sqlite3_column_text(st, 8),
                   .id = sqlite3_column_int64(st, 9),
                   .has_corr = sqlite3_column_type(st, 10) != SQLITE_NULL,
                   .corr = sqlite3_column_int64(st, 10)};
    r->name = cached(names, r->name_id);
    r->cat = sqlite3_column_type(st, 3) == SQLITE_NULL ? NULL : cached(cats, r->cat_id);
    r->gpu = r->stream.type != SQLITE_NULL && !(r->cat && r->cat->cpu_side);
}

/* Rows with a correlation and no integer stream may be launchers. */
static int launches_of(pdb_launchers *l, pdb_row *r)
{
    if (!r->has_corr || r->stream.type == SQLITE_INTEGER)
        return PDB_OK;
    return pdb_launchers_of(l, r->ts, r->id, &r->launches);
}


struct pdb_scan_rows {
    sqlite3 *db;
    sqlite3_stmt *st;
    id_cache names, cats;
    pdb_launchers *launchers;
    int64_t prev_ts;
};

int pdb_scan_rows_open(sqlite3 *db, int64_t trace_id, pdb_scan_rows **out)
{
    pdb_scan_rows *s = pdb_xcalloc(1, sizeof *s);
    *out = s;
    s->db = db;
    s->prev_ts = INT64_MIN;
    if (cache_init(db, &s->names, classify_name, sizeof(pdb_name_info)) != PDB_OK ||
        cache_init(db, &s->cats, classify_cat, sizeof(pdb_cat_info)) != PDB_OK ||
        pdb_launchers_new(db, trace_id, &s->launchers) != PDB_OK ||
        pdb_analyze_prepare(db, "scan.slices", &s->st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(s->st, 1, trace_id);
    return PDB_OK;
}

int pdb_scan_rows_next(pdb_scan_rows *s, pdb_row *r)
{
    int step = sqlite3_step(s->st);
    if (step == SQLITE_ROW) {
        row_from(s->st, &s->names, &s->cats, r);
        assert(r->ts >= s->prev_ts); /* every accumulator relies on start order */
        s->prev_ts = r->ts;
        return launches_of(s->launchers, r) == PDB_OK ? 1 : PDB_ERR;
    }
    if (step != SQLITE_DONE)
        return pdb_db_fail(s->db, "analysis query failed");
    if (s->names.err != PDB_OK || s->cats.err != PDB_OK)
        return pdb_db_fail(s->db, "reading a name");
    return 0;
}

void pdb_scan_rows_close(pdb_scan_rows *s)
{
    if (!s)
        return;
    sqlite3_finalize(s->st);
    pdb_launchers_free(s->launchers);
    free_cache(&s->names);
    free_cache(&s->cats);
    free(s);
}
