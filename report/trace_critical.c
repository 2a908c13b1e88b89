/* trace_critical.c: the critical-path report. For each rank and window (by
 * default every iteration: the events whose name contains "ProfilerStep";
 * --annotation TEXT picks other ranges, --annotation '' the whole trace,
 * --instance I one of them) it runs the critical path analysis on demand
 * (analyze/ondemand/critical_path.h) into temp tables (trace_critical.create_*) and
 * renders them: the summary per window (path length, span, the share of
 * each bound), --by bound, --by edge-type, --by node (the path itself).
 * --compat hta: HTA's critical_path_analysis(rank, annotation, instance)
 * with HTA's event set, rounding and window rules. */
#include "report/reports.h"
#include "analyze/ondemand/critical_path.h"
#include "analyze/hta.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "report/queries.h"
#include "report/trace_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *ins_path;
    int rank;
    long instance;
    int64_t seq;
} path_sink;

static int on_step(void *arg, const pdb_cp_step *s)
{
    path_sink *p = arg;
    sqlite3_stmt *st = p->ins_path;
    sqlite3_bind_int(st, 1, p->rank);
    sqlite3_bind_int64(st, 2, p->instance);
    sqlite3_bind_int64(st, 3, p->seq++);
    sqlite3_bind_int64(st, 4, s->node);
    sqlite3_bind_int64(st, 5, s->slice_id);
    sqlite3_bind_int64(st, 6, s->ts);
    sqlite3_bind_int(st, 7, s->is_start);
    if (s->edge_type >= 0) {
        sqlite3_bind_text(st, 8, pdb_cp_edge_name(s->edge_type), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 9, s->weight_ns);
        sqlite3_bind_text(st, 11, pdb_cp_bound_name(s->bound), -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, 8);
        sqlite3_bind_null(st, 9);
        sqlite3_bind_null(st, 11);
    }
    if (s->edge_slice_id >= 0)
        sqlite3_bind_int64(st, 10, s->edge_slice_id);
    else
        sqlite3_bind_null(st, 10);
    return pdb_db_step_done(p->db, st);
}

/* The summary fill's launches in window w of rank (trace_critical.sql's
 * window_launches) onto the window's row, the last inserted. */
static int store_launches(sqlite3 *db, int64_t run_id, int rank, const pdb_cp_window *w)
{
    int64_t row = sqlite3_last_insert_rowid(db), n = 0;
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "trace_critical.window_launches", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, rank);
    sqlite3_bind_int64(st, 3, w->start);
    sqlite3_bind_int64(st, 4, w->end);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return pdb_db_fail(db, "critical path: launches in a window");
    if (pdb_report_prepare(db, "trace_critical.set_launches", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, row);
    sqlite3_bind_int64(st, 2, n);
    rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

static int store_window(sqlite3 *db, int rank, long instance, const char *annotation,
                        const char *name, const pdb_cp_window *w, const pdb_cp_result *r,
                        int64_t launches_of_run)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "trace_critical.insert_window", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 18, name, -1, SQLITE_TRANSIENT);
    int64_t v[] = {r->nodes, r->graph_nodes, r->edges, r->clipped, r->length_ns,
                   r->object_length_ns, r->path_nodes, r->critical_events, r->first_ts,
                   r->last_ts};
    sqlite3_bind_int(st, 1, rank);
    sqlite3_bind_int64(st, 2, instance);
    sqlite3_bind_text(st, 3, annotation, -1, SQLITE_TRANSIENT);
    if (w->whole) {
        sqlite3_bind_null(st, 4);
        sqlite3_bind_null(st, 5);
    } else {
        sqlite3_bind_int64(st, 4, w->start);
        sqlite3_bind_int64(st, 5, w->end);
    }
    sqlite3_bind_int(st, 6, r->ok);
    if (r->ok)
        sqlite3_bind_null(st, 7);
    else
        sqlite3_bind_text(st, 7, r->why, -1, SQLITE_STATIC);
    for (int i = 0; i < 10; i++)
        if (r->ok || i < 4)
            sqlite3_bind_int64(st, 8 + i, v[i]);
        else
            sqlite3_bind_null(st, 8 + i);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    if (rc == PDB_OK && launches_of_run >= 0 && !w->whole)
        rc = store_launches(db, launches_of_run, rank, w);
    if (rc != PDB_OK || !r->ok)
        return rc;
    if (pdb_report_prepare(db, "trace_critical.insert_bound", &st) != PDB_OK)
        return PDB_ERR;
    for (int k = 0; k < PDB_CP_BOUNDS + PDB_CP_EDGE_TYPES && rc == PDB_OK; k++) {
        bool bound = k < PDB_CP_BOUNDS;
        int i = bound ? k : k - PDB_CP_BOUNDS;
        int64_t edges = bound ? r->bound_edges[i] : r->type_edges[i];
        if (!edges)
            continue;
        sqlite3_bind_int(st, 1, rank);
        sqlite3_bind_int64(st, 2, instance);
        sqlite3_bind_text(st, 3, bound ? "bound" : "type", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, bound ? pdb_cp_bound_name(i) : pdb_cp_edge_name(i), -1,
                          SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, bound ? r->bound_ns[i] : r->type_ns[i]);
        sqlite3_bind_int64(st, 6, edges);
        rc = pdb_db_step_done(db, st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The windows of a trace: instances of the annotation (their start, end). */
static int windows_of(sqlite3 *db, int64_t trace_id, bool hta, const char *annotation,
                      sqlite3_stmt **st)
{
    if (pdb_report_prepare(db, hta ? "trace_critical.windows_hta"
                                        : "trace_critical.windows_exact", st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(*st, 1, trace_id);
    sqlite3_bind_text(*st, 2, annotation, -1, SQLITE_STATIC);
    if (hta) {
        pdb_hta_mode m;
        if (pdb_hta_settings(db, trace_id, &m) != PDB_OK)
            return PDB_ERR;
        sqlite3_bind_int(*st, 3, m.round);
        sqlite3_bind_int(*st, 4, m.drop_last);
        sqlite3_bind_int64(*st, 5, m.cutoff);
    }
    return PDB_OK;
}

typedef struct {
    sqlite3 *db;
    bool hta, zero_weight_launch, with_path;
    const char *annotation;
    long instance, max_windows;
    int64_t launches_of_run; /* the summary fill: count each window's launches (cp_windows) */
} cp_request;

static int run_trace(const cp_request *q, int64_t trace_id, int rank, path_sink *sink)
{
    const char *annotation = q->annotation;
    bool hta = q->hta;
    pdb_cp *cp;
    int rc = pdb_cp_open(q->db, trace_id, hta, q->instance >= 0 || q->max_windows > 0, &cp);
    sqlite3_stmt *wins = NULL;
    bool whole = !*annotation || strcmp(annotation, "all") == 0;
    if (rc == PDB_OK && whole) {
        pdb_cp_window w = {.hta = hta, .whole = true,
                           .zero_weight_launch = q->zero_weight_launch};
        pdb_cp_result r;
        sink->rank = rank;
        sink->instance = 0;
        sink->seq = 0;
        rc = pdb_cp_run(cp, &w, &r, on_step, sink);
        if (rc == PDB_OK)
            rc = store_window(q->db, rank, 0, "", "the whole trace", &w, &r, -1);
    }
    if (rc == PDB_OK && !whole)
        rc = windows_of(q->db, trace_id, hta, annotation, &wins);
    for (long i = 0; rc == PDB_OK && !whole && sqlite3_step(wins) == SQLITE_ROW; i++) {
        if ((q->instance >= 0 && i != q->instance) || (q->max_windows > 0 && i >= q->max_windows))
            continue;
        pdb_cp_window w = {.hta = hta, .start = sqlite3_column_int64(wins, 0),
                           .end = sqlite3_column_int64(wins, 1),
                           .zero_weight_launch = q->zero_weight_launch};
        pdb_cp_result r;
        sink->rank = rank;
        sink->instance = i;
        sink->seq = 0;
        rc = pdb_cp_run(cp, &w, &r, q->with_path ? on_step : NULL, sink);
        if (rc == PDB_OK)
            rc = store_window(q->db, rank, i, annotation,
                              (const char *)sqlite3_column_text(wins, 2), &w, &r,
                              q->launches_of_run);
    }
    sqlite3_finalize(wins);
    pdb_cp_close(cp);
    return rc;
}

/* Runs the analysis for every trace of the run into the temp tables. */
static int fill(const cp_request *q, int64_t run_id)
{
    if (pdb_trace_sql_functions(q->db) != PDB_OK ||
        pdb_db_exec(q->db, pdb_report_sql("trace_critical.create_critical")) != PDB_OK)
        return PDB_ERR;
    path_sink sink = {.db = q->db};
    if (pdb_report_prepare(q->db, "trace_critical.insert_path", &sink.ins_path) != PDB_OK)
        return PDB_ERR;
    /* The traces first: the analysis writes temp tables, which needs no
     * statement running on the connection. */
    sqlite3_stmt *traces;
    int64_t *ids = NULL;
    int *ranks = NULL, n = 0;
    int rc = pdb_report_prepare(q->db, "traces.of_run", &traces);
    if (rc == PDB_OK) {
        sqlite3_bind_int64(traces, 1, run_id);
        while (sqlite3_step(traces) == SQLITE_ROW) {
            ids = pdb_xrealloc(ids, (size_t)(n + 1) * sizeof *ids);
            ranks = pdb_xrealloc(ranks, (size_t)(n + 1) * sizeof *ranks);
            ids[n] = sqlite3_column_int64(traces, 0);
            ranks[n++] = sqlite3_column_int(traces, 1);
        }
        sqlite3_finalize(traces);
    }
    for (int i = 0; rc == PDB_OK && i < n; i++)
        rc = run_trace(q, ids[i], ranks[i], &sink);
    free(ids);
    free(ranks);
    sqlite3_finalize(sink.ins_path);
    return rc;
}

static const struct {
    const char *by, *query;
} by_queries[] = {
    {"bound", "trace_critical.bounds"},
    {"edge-type", "trace_critical.edge_types"},
    {"node", "trace_critical.path"},
};

int pdb_report_critical_path(pdb_report_ctx *ctx)
{
    const char *mode, *query = "trace_critical.summary";
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    for (size_t i = 0; ctx->by && i < sizeof by_queries / sizeof *by_queries; i++)
        if (strcmp(ctx->by, by_queries[i].by) == 0)
            query = by_queries[i].query;
    if (ctx->by && strcmp(query, "trace_critical.summary") == 0)
        return pdb_fail("critical-path --by takes bound, edge-type or node");
    pdb_report_title(ctx, "critical-path");
    if (pdb_report_require(ctx, "critical-path", "trace_gpu.require", mode,
                           "no GPU events in this run: the critical path runs from CPU launches "
                           "to GPU kernels and does not apply",
                           &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    cp_request q = {ctx->db, strcmp(mode, "hta") == 0, ctx->zero_weight_launch,
                    ctx->by && strcmp(ctx->by, "node") == 0,
                    ctx->annotation ? ctx->annotation : "ProfilerStep", ctx->instance, -1, -1};
    if (fill(&q, ctx->run_id) != PDB_OK)
        return PDB_ERR;
    return pdb_trace_query(ctx, query, mode, NULL);
}

/* The summary fill: exact mode, default windows, the first
 * PDB_CP_FIRST_STEPS of each rank. temp.cp_filled remembers which run it
 * holds, so the insights and the chart of one report folder build the
 * graphs once; any other fill (the critical-path report's) clears it. */
int pdb_critical_summary(sqlite3 *db, int64_t run_id)
{
    int64_t gpu, have;
    if (pdb_db_exec(db, pdb_report_sql("trace_critical.create_filled")) != PDB_OK ||
        pdb_report_number(db, "trace_critical.filled", run_id, &have) != PDB_OK)
        return PDB_ERR;
    if (have)
        return PDB_OK;
    if (pdb_report_number(db, "trace_critical.gpu_events", run_id, &gpu) != PDB_OK)
        return PDB_ERR;
    /* Without GPU events there is no path from a launch to a kernel: the
     * tables stay empty and what reads them finds nothing. */
    cp_request q = {db, false, false, false, "ProfilerStep", -1, PDB_CP_FIRST_STEPS, run_id};
    int rc = gpu ? fill(&q, run_id)
                 : pdb_db_exec(db, pdb_report_sql("trace_critical.create_critical"));
    if (rc != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "trace_critical.insert_filled", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}
