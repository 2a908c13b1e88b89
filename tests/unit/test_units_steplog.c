/* test_units_steplog.c: the step-log pieces below the readers: timestamps,
 * spans in parts, line classification, and the phase statistics (percentiles, std, shares,
 * other/overhead, --skip-first) on an in-memory database. */
#include "report/steplog_stats.h"
#include "common/db.h"
#include "common/error.h"
#include "ingest/steplog/steplog.h"
#include "ingest/steplog/steplog_units.h"
#include "check.h"

#include <math.h>

static int near(double a, double b)
{
    return fabs(a - b) < 1e-6;
}

static void timestamps(void)
{
    double t = 0;
    const char *a = "2022-10-28 23:48:58,641] [INFO]";
    CHECK_INT(pdb_steplog_timestamp(a, strlen(a), &t), 23);
    CHECK(near(t, 1667000938.641));
    const char *b = "2025/03/30 19:24:56.821, 0 %";
    CHECK_INT(pdb_steplog_timestamp(b, strlen(b), &t), 23);
    CHECK(near(t, 1743362696.821));
    const char *c = "2024-02-29T00:00:00Z";
    CHECK_INT(pdb_steplog_timestamp(c, strlen(c), &t), 19);
    CHECK(near(t, 1709164800.0));
    CHECK_INT(pdb_steplog_timestamp("2024-13-01 00:00:00", 19, &t), 0);
    CHECK_INT(pdb_steplog_timestamp("2024-01-01 00:00", 16, &t), 0);
    CHECK_INT(pdb_steplog_timestamp("", 0, &t), 0);
}

/* Spans in parts (ms-swift's elapsed_time, StyleGAN's "1h 23m 02s"): the
 * parts come largest first, one per word. */
static void spans(void)
{
    double t = 0;
    CHECK(pdb_units_span("3m 53s", 6, &t) && near(t, 233));
    CHECK(pdb_units_span(" 1h 2m 3s ", 10, &t) && near(t, 3723));
    CHECK(pdb_units_span("2d 3h", 5, &t) && near(t, 183600));
    CHECK(pdb_units_span("43s", 3, &t) && near(t, 43));
    CHECK(!pdb_units_span("53s 3m", 6, &t)); /* not largest first */
    CHECK(!pdb_units_span("3m 3m", 5, &t));
    CHECK(!pdb_units_span("3 m", 3, &t));
    CHECK(!pdb_units_span("", 0, &t));
    CHECK(!pdb_units_span("3 metres", 8, &t));
    CHECK_INT(pdb_units_span_part("02s", 3, &t), 1);
    CHECK(near(t, 2));
    CHECK_INT(pdb_units_span_part("1.5h", 4, &t), 3);
    CHECK(near(t, 5400));
    CHECK_INT(pdb_units_span_part("h", 1, &t), 0);
    CHECK_INT(pdb_units_span_part("5x", 2, &t), 0);
}

static pdb_steplog_linekind kind(const char *s)
{
    return pdb_steplog_classify(s, strlen(s));
}

static void classify(void)
{
    CHECK_INT(kind(" iteration       10/ 1716613 | consumed samples:         2560 |"),
              PDB_SL_MEGATRON);
    CHECK_INT(kind("time (ms) | forward-compute: 340.72 | backward-compute: 176.25"),
              PDB_SL_MEGATRON);
    CHECK_INT(kind("[2023-06-03 00:10:23,345] [INFO] [logging.py:96:log_dist] [Rank 0] rank=0 "
                   "time (ms) | forward_microstep: 1330.05"), PDB_SL_DEEPSPEED);
    CHECK_INT(kind("iter 5: loss 4.2082, time 1431.27ms, mfu 0.01%"), PDB_SL_NANOGPT);
    CHECK_INT(kind("step:11/1750 train_time:36633ms step_avg:621.73ms"), PDB_SL_NANOGPT);
    CHECK_INT(kind("[rank0]:[titan] 2025-12-17 01:18:34,942 - root - INFO - step:  2  loss: 12.3984"
                   "  memory: 116.16GiB(83.14%)  tps: 5,970  tflops: 301.33  mfu: 30.47%"),
              PDB_SL_TORCHTITAN);
    CHECK_INT(kind("{'loss': 0.6081, 'grad_norm': 3.35, 'epoch': 0.01}"), PDB_SL_HF);
    CHECK_INT(kind("=== Profiling Report (Step 50) ==="), PDB_SL_RECTFLOW);
    CHECK_INT(kind("=== Epoch 1 Profiling Summary ==="), PDB_SL_MAE);
    CHECK_INT(kind("profile/train/dl_main/time_forward_ms: 3.21"), PDB_SL_KV);
    CHECK_INT(kind("number of parameters: 10.65M"), PDB_SL_NONE);
    CHECK_INT(kind("NCCL INFO Channel 00/02 :    0   1   2   3"), PDB_SL_NONE);
    CHECK_INT(kind(""), PDB_SL_NONE);
}

/* One row of steplog_values for run 1. */
static void add(sqlite3 *db, int64_t step, const char *metric, double value, const char *agg)
{
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db,
                       "INSERT INTO steplog_values (run_id, source_id, record, kind, step, metric,"
                       " value, unit, agg, raw_name) VALUES (1, 1, ?1, 'test', ?1, ?2, ?3, 's',"
                       " ?4, ?2)", -1, &st, NULL);
    sqlite3_bind_int64(st, 1, step);
    sqlite3_bind_text(st, 2, metric, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 3, value);
    sqlite3_bind_text(st, 4, agg, -1, SQLITE_STATIC);
    CHECK_INT(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
}

static double stat(sqlite3 *db, const char *col, const char *metric, const char *agg)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s FROM temp.steplog_phase_stats WHERE metric = ?1"
                              " AND agg = ?2", col);
    sqlite3_stmt *st;
    double v = NAN;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return v;
    sqlite3_bind_text(st, 1, metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, agg, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void phase_stats(void)
{
    sqlite3 *db;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    pdb_db_exec(db, "INSERT INTO runs VALUES (1, 'r', 'now');"
                    "INSERT INTO sources (source_id, run_id, path, format, compressed, bytes,"
                    " records, ingested_at) VALUES (1, 1, 'x', 'steplog:test', 0, 0, 0, 'now')");
    /* steps 1..100: forward = step/1000 s, data = 0.01 s, step_time = forward + data + 0.005 */
    for (int s = 1; s <= 100; s++) {
        add(db, s, "forward", s / 1000.0, "point");
        add(db, s, "data", 0.01, "point");
        add(db, s, "step_time", s / 1000.0 + 0.015, "point");
    }
    add(db, 1, "forward", 99, "interval_mean"); /* another kind: never mixed in */
    CHECK_INT(pdb_steplog_phase_stats(db, 1, 0), PDB_OK);
    CHECK(near(stat(db, "count", "forward", "point"), 100));
    CHECK(near(stat(db, "total_s", "forward", "point"), 5.05));
    CHECK(near(stat(db, "mean_s", "forward", "point"), 0.0505));
    CHECK(near(stat(db, "min_s", "forward", "point"), 0.001));
    CHECK(near(stat(db, "p50_s", "forward", "point"), 0.050)); /* nearest rank: 50th of 100 */
    CHECK(near(stat(db, "p90_s", "forward", "point"), 0.090));
    CHECK(near(stat(db, "p99_s", "forward", "point"), 0.099));
    CHECK(near(stat(db, "max_s", "forward", "point"), 0.100));
    /* population std of 1..100 ms: sqrt((100^2 - 1) / 12) ms */
    CHECK(near(stat(db, "std_s", "forward", "point"), sqrt((10000.0 - 1) / 12) / 1000));
    CHECK(near(stat(db, "count", "forward", "interval_mean"), 1));
    double step_total = 5.05 + 1.5;
    CHECK(near(stat(db, "share_pct", "forward", "point"), 100 * 5.05 / step_total));
    CHECK(near(stat(db, "share_pct", "data", "point"), 100 * 1.0 / step_total));
    CHECK(near(stat(db, "total_s", "other/overhead", "point"), 0.5));
    CHECK(near(stat(db, "share_pct", "other/overhead", "point"), 100 * 0.5 / step_total));
    /* --skip-first 10 drops steps 1..10 */
    CHECK_INT(pdb_steplog_phase_stats(db, 1, 10), PDB_OK);
    CHECK(near(stat(db, "count", "forward", "point"), 90));
    CHECK(near(stat(db, "min_s", "forward", "point"), 0.011));
    pdb_db_close(db);
}

int main(void)
{
    timestamps();
    spans();
    classify();
    phase_stats();
    return check_report();
}
