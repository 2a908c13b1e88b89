/* trace_launch.c: the reports that join the CPU and GPU sides of a trace:
 * launch (runtime call -> kernel delays; --by launch: every launch with its
 * CPU and GPU durations and delay; --by op: per op and kernel sequence, the
 * delay from the op's start to its first launch and from that launch to its
 * kernel) and comm (collectives: count, time, bytes, bandwidth). SQL over
 * slices and the attribution: report/queries/trace_launch.sql. --compat hta
 * gives HTA's get_cuda_kernel_launch_stats (summary, --by launch: its rows)
 * and get_aten_op_kernels_and_delay (--by op). */
#include "report/reports.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "analyze/ondemand/op_kernels.h"
#include "common/db.h"
#include "report/queries.h"
#include "report/trace_sql.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int launch_by_op(pdb_report_ctx *ctx, const char *mode);

/* --compat hta: HTA's launch statistics over HTA's event set. */
static int launch_hta(pdb_report_ctx *ctx, bool rows)
{
    if (pdb_hta_traces_table(ctx->db, ctx->run_id) != PDB_OK)
        return PDB_ERR;
    return pdb_trace_query(ctx, rows ? "trace_launch.hta_launches" : "trace_launch.hta_launch_summary",
                           "hta", NULL);
}

/* Runs the named statement with ?1 bound to run_id. */
static int run_bound(sqlite3 *db, const char *query, int64_t run_id)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

/* The p50, p90 and p99 of each rank of temp.launch_ranks: by nearest rank,
 * the delay at place max(1, ceil(n * p / 100)) of the rank's, read in the
 * (rank, delay) index. The ranks first: the updates need no statement
 * running on the connection. */
static int launch_percentiles(sqlite3 *db)
{
    sqlite3_stmt *ranks, *at = NULL, *set = NULL;
    int64_t (*v)[2] = NULL;
    size_t n = 0;
    if (pdb_report_prepare(db, "trace_launch.launch_ranks", &ranks) != PDB_OK)
        return PDB_ERR;
    while (sqlite3_step(ranks) == SQLITE_ROW) {
        v = pdb_xrealloc(v, (n + 1) * sizeof *v);
        v[n][0] = sqlite3_column_int64(ranks, 0);
        v[n++][1] = sqlite3_column_int64(ranks, 1);
    }
    int rc = sqlite3_finalize(ranks) == SQLITE_OK ? PDB_OK : pdb_db_fail(db, "launch: ranks");
    if (rc == PDB_OK && (pdb_report_prepare(db, "trace_launch.launch_delay_at", &at) != PDB_OK ||
                         pdb_report_prepare(db, "trace_launch.set_launch_percentiles", &set) !=
                             PDB_OK))
        rc = PDB_ERR;
    static const int pct[3] = {50, 90, 99};
    for (size_t i = 0; rc == PDB_OK && i < n; i++) {
        sqlite3_bind_int64(set, 1, v[i][0]);
        for (int k = 0; k < 3 && rc == PDB_OK; k++) {
            int64_t place = (v[i][1] * pct[k] + 99) / 100;
            sqlite3_bind_int64(at, 1, v[i][0]);
            sqlite3_bind_int64(at, 2, (place > 1 ? place : 1) - 1);
            if (sqlite3_step(at) == SQLITE_ROW)
                sqlite3_bind_value(set, 2 + k, sqlite3_column_value(at, 0));
            else
                rc = pdb_db_fail(db, "launch: percentiles");
            sqlite3_reset(at);
        }
        if (rc == PDB_OK)
            rc = pdb_db_step_done(db, set);
    }
    sqlite3_finalize(at);
    sqlite3_finalize(set);
    free(v);
    return rc;
}

/* temp.launch_delays of the run, filled once per connection and run
 * (trace_launch.sql's create_launch_delays). */
static int launch_delays(sqlite3 *db, int64_t run_id)
{
    int64_t have;
    if (pdb_db_exec(db, pdb_report_sql("trace_launch.create_launch_delays_of")) != PDB_OK ||
        pdb_report_number(db, "trace_launch.launch_delays_of", run_id, &have) != PDB_OK)
        return PDB_ERR;
    if (have)
        return PDB_OK;
    if (pdb_db_exec(db, pdb_report_sql("trace_launch.create_launch_delays")) != PDB_OK ||
        run_bound(db, "trace_launch.fill_launch_delays", run_id) != PDB_OK ||
        pdb_db_exec(db, pdb_report_sql("trace_launch.index_launch_delays")) != PDB_OK ||
        pdb_db_exec(db, pdb_report_sql("trace_launch.fill_launch_ranks")) != PDB_OK ||
        launch_percentiles(db) != PDB_OK)
        return PDB_ERR;
    return run_bound(db, "trace_launch.insert_launch_delays_of", run_id);
}

int pdb_report_launch(pdb_report_ctx *ctx)
{
    bool ok;
    const char *mode;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    if (ctx->by && strcmp(ctx->by, "launch") != 0 && strcmp(ctx->by, "op") != 0)
        return pdb_fail("launch --by takes 'launch' (every launch) or 'op' (per op and kernel "
                        "sequence)");
    pdb_report_title(ctx, "launch");
    if (pdb_report_require(ctx, "launch", "trace_launch.launch_require", "exact",
                           "no GPU events with a correlation id in this run: launch statistics "
                           "do not apply", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    if (ctx->by && strcmp(ctx->by, "op") == 0)
        return launch_by_op(ctx, mode);
    if (strcmp(mode, "hta") == 0)
        return launch_hta(ctx, ctx->by != NULL);
    if (ctx->by)
        return pdb_trace_query(ctx, "trace_launch.launch_rows", mode, NULL);
    if (launch_delays(ctx->db, ctx->run_id) != PDB_OK ||
        pdb_report_query_mode(ctx, "trace_launch.launch", "exact") != PDB_OK)
        return PDB_ERR;
    /* Machine formats carry one table: the summary. */
    if (ctx->render.format != PDB_OUT_TABLE && ctx->render.format != PDB_OUT_MD)
        return PDB_OK;
    fprintf(ctx->out, "\nlongest launch delays:\n");
    return pdb_report_query_mode(ctx, "trace_launch.longest", "exact");
}

/* NCCL collectives: kind from the Collective name arg or the kernel name. */
int pdb_report_comm(pdb_report_ctx *ctx)
{
    bool ok;
    pdb_report_title(ctx, "comm");
    if (pdb_report_require(ctx, "comm", "trace_launch.comm_require", "exact",
                           "no communication kernels in this run", &ok) != PDB_OK)
        return PDB_ERR;
    return ok ? pdb_report_query_mode(ctx, "trace_launch.comm", "exact") : PDB_OK;
}

/* launch --by op: analyze/ondemand/op_kernels.h into temp.op_delays, rank by rank. */
static int on_delay(void *arg, const pdb_op_kernels_row *r)
{
    sqlite3_stmt *st = arg;
    sqlite3_bind_int(st, 1, r->rank);
    sqlite3_bind_text(st, 2, r->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->sequence, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, r->count);
    sqlite3_bind_int64(st, 5, r->kernels);
    sqlite3_bind_double(st, 6, r->op_delay_ns);
    sqlite3_bind_double(st, 7, r->runtime_delay_ns);
    return pdb_db_step_done(sqlite3_db_handle(st), st);
}

/* One rank's rows into the temp table (arg: what the rows need). */
typedef int (*rank_fn)(pdb_report_ctx *ctx, bool hta, int64_t trace_id, int rank, void *arg,
                       const char **why);

/* Runs fn on each trace (rank) of the run in rank order, printing the
 * reason a rank has no rows (HTA's errors) as a note; stops at an error. */
static int each_rank(pdb_report_ctx *ctx, const char *mode, const char *what, rank_fn fn,
                     void *arg)
{
    sqlite3_stmt *traces = NULL; /* sqlite3_prepare_v2 sets NULL on failure */
    int rc = pdb_report_prepare(ctx->db, "traces.of_run", &traces);
    if (rc == PDB_OK)
        sqlite3_bind_int64(traces, 1, ctx->run_id);
    while (rc == PDB_OK && sqlite3_step(traces) == SQLITE_ROW) {
        const char *why;
        int rank = sqlite3_column_int(traces, 1);
        rc = fn(ctx, strcmp(mode, "hta") == 0, sqlite3_column_int64(traces, 0), rank, arg, &why);
        if (rc == PDB_OK && why)
            fprintf(stderr, "profdb: %s, rank %d: %s\n", what, rank, why);
    }
    sqlite3_finalize(traces); /* on errors too: an open statement keeps the connection open */
    return rc;
}

static int rank_op_delays(pdb_report_ctx *ctx, bool hta, int64_t trace_id, int rank, void *ins,
                          const char **why)
{
    return pdb_op_delays(ctx->db, ctx->run_id, trace_id, rank, hta, on_delay, ins, why);
}

static int launch_by_op(pdb_report_ctx *ctx, const char *mode)
{
    sqlite3_stmt *ins;
    if (pdb_db_exec(ctx->db, pdb_report_sql("trace_launch.create_op_delays")) != PDB_OK ||
        pdb_report_prepare(ctx->db, "trace_launch.insert_op_delay", &ins) != PDB_OK)
        return PDB_ERR;
    int rc = each_rank(ctx, mode, "launch --by op", rank_op_delays, ins);
    sqlite3_finalize(ins);
    return rc == PDB_OK ? pdb_trace_query(ctx, "trace_launch.op_delays", mode, NULL) : PDB_ERR;
}

/* kernel-sequences: analyze/ondemand/op_kernels.h into temp.kernel_sequences. */
static int on_sequence(void *arg, const pdb_op_kernels_row *r)
{
    sqlite3_stmt *st = arg;
    sqlite3_bind_int(st, 1, r->rank);
    sqlite3_bind_text(st, 2, r->op, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->sequence, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, r->count);
    sqlite3_bind_int64(st, 5, r->kernels);
    sqlite3_bind_int64(st, 6, r->gpu_ns);
    sqlite3_bind_int64(st, 7, r->cpu_ns);
    return pdb_db_step_done(sqlite3_db_handle(st), st);
}

struct sequences_arg {
    sqlite3_stmt *ins;
    const char *op;
};

static int rank_sequences(pdb_report_ctx *ctx, bool hta, int64_t trace_id, int rank, void *arg,
                          const char **why)
{
    const struct sequences_arg *a = arg;
    return pdb_kernel_sequences(ctx->db, trace_id, rank, hta, a->op,
                                ctx->min_len > 0 ? (int)ctx->min_len : 3, on_sequence, a->ins,
                                why);
}

int pdb_report_kernel_sequences(pdb_report_ctx *ctx)
{
    const char *mode;
    bool ok;
    if (pdb_report_mode(ctx, &mode) != PDB_OK)
        return PDB_ERR;
    pdb_report_title(ctx, "kernel-sequences");
    if (pdb_report_require(ctx, "kernel-sequences", "trace_launch.launch_require", "exact",
                           "no GPU events with a correlation id in this run: kernel sequences "
                           "do not apply", &ok) != PDB_OK)
        return PDB_ERR;
    if (!ok)
        return PDB_OK;
    char *op = NULL;
    if (!ctx->op) {
        sqlite3_stmt *st;
        if (pdb_report_prepare(ctx->db, "trace_launch.default_op", &st) != PDB_OK)
            return PDB_ERR;
        sqlite3_bind_int64(st, 1, ctx->run_id);
        sqlite3_bind_int64(st, 2, ctx->min_len > 0 ? ctx->min_len : 3);
        if (sqlite3_step(st) == SQLITE_ROW)
            op = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        /* none qualifies: an empty result (every format still parses) and why, below */
    }
    sqlite3_stmt *ins;
    int rc = pdb_db_exec(ctx->db, pdb_report_sql("trace_launch.create_sequences"));
    if (rc == PDB_OK)
        rc = pdb_report_prepare(ctx->db, "trace_launch.insert_sequence", &ins);
    if (rc != PDB_OK) {
        free(op);
        return PDB_ERR;
    }
    struct sequences_arg arg = {ins, ctx->op ? ctx->op : op};
    if (arg.op)
        rc = each_rank(ctx, mode, "kernel-sequences", rank_sequences, &arg);
    sqlite3_finalize(ins);
    if (rc == PDB_OK)
        rc = pdb_trace_query(ctx, "trace_launch.sequences", mode, NULL);
    /* Which op was chosen, after the table (a line before it would read as a row). */
    bool text = ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD;
    if (rc == PDB_OK && op && text) {
        fputs("\noperator: ", ctx->out);
        pdb_fput_text(ctx->out, op, ctx->render.format == PDB_OUT_MD);
        fputs(" (the most GPU time of the ops launching a sequence; --op NAME picks another)\n",
              ctx->out);
    }
    if (rc == PDB_OK && !op && !ctx->op)
        fprintf(text ? ctx->out : stderr,
                "%skernel-sequences: no op launches %ld or more GPU events per call below it; "
                "name one with --op\n",
                text ? "\n" : "profdb: ", ctx->min_len > 0 ? ctx->min_len : 3);
    free(op);
    return rc;
}
