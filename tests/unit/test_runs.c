/* test_runs.c: finding, deleting and forgetting runs (common/runs.h).
 *
 * Real inputs from samples/ (a trace, a step log, a pstats dump) are
 * ingested and analysed as runs a (rank 0), b, c and d (rank 1). The oracle
 * for a deletion is a second database into which only the runs that stay
 * (b, c, d) were ingested: after
 * deleting run a, every table holds as many rows as there (strings aside:
 * they are never deleted). Trend summaries are written directly, as
 * `profdb trend` would, to see that forgetting a run's drops only its own. */
#include "check.h"
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "ingest/ingest.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ingests samples/REL as run name. */
static void ingest(sqlite3 *db, const char *rel, const char *name)
{
    const char *src = getenv("PROFDB_SOURCE");
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/%s", src ? src : ".", rel);
    const char *paths[] = {path};
    pdb_ingest_opts o = {.run_name = name, .quiet = true, .after_load = pdb_analyze_run};
    int rc = pdb_ingest_paths(db, paths, 1, &o);
    if (rc != PDB_OK)
        fprintf(stderr, "%s: %s\n", path, pdb_errmsg());
    CHECK_INT(rc, PDB_OK);
}

static sqlite3 *open_with(bool with_a)
{
    sqlite3 *db;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    if (with_a)
        ingest(db, "traces/train_rank0.pt.trace.json.gz", "a");
    ingest(db, "steplogs/train.jsonl", "b");
    ingest(db, "pstats/sample.prof", "c");
    ingest(db, "traces/train_rank1.pt.trace.json.gz", "d");
    return db;
}

static int64_t count(sqlite3 *db, const char *sql)
{
    int64_t n = -1;
    CHECK_INT(pdb_db_query_int(db, sql, -1, &n), PDB_OK);
    return n;
}

/* The runs with trend summaries, as the digits of one number: "134". */
#define SUMMARIZED                                                                               \
    "SELECT group_concat(run_id, '') FROM (SELECT run_id FROM run_summaries ORDER BY run_id)"

static void summary(sqlite3 *db, int64_t run_id)
{
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO run_summaries (run_id, metric, method, samples,"
             " absent) VALUES (%lld, 'step_time', 1, 0, 0)", (long long)run_id);
    CHECK_INT(pdb_db_exec(db, sql), PDB_OK);
}

static void check_find(sqlite3 *db)
{
    int64_t id = -1;
    bool found = false;
    CHECK_INT(pdb_run_find(db, "main", "b", &id, &found), PDB_OK);
    CHECK(found);
    CHECK_INT(id, 2);
    CHECK_INT(pdb_run_find(db, "main", "nope", &id, &found), PDB_OK);
    CHECK(!found);
    CHECK_INT(pdb_run_find(db, "main", NULL, &id, &found), PDB_OK);
    CHECK(found);
    CHECK_INT(id, 4);
    char *name = NULL;
    CHECK_INT(pdb_run_name(db, "main", 3, &name), PDB_OK);
    CHECK_STR(name, "c");
    free(name);
    CHECK_INT(pdb_run_name(db, "main", 99, &name), PDB_OK);
    CHECK(name == NULL);
    CHECK_INT(pdb_run_need(db, "nope", &id), PDB_ERR);
    CHECK_STR(pdb_errmsg(), "no run named 'nope' (see 'profdb runs')");
    CHECK_INT(pdb_run_need(db, "a", &id), PDB_OK);
    CHECK_INT(id, 1);
    CHECK_INT(pdb_run_newest(db, "main", &id, &name), PDB_OK);
    CHECK_INT(id, 4);
    CHECK_STR(name, "d");
    free(name);
    CHECK_INT(pdb_run_last_id(db, &id), PDB_OK);
    CHECK_INT(id, 4);
}

/* A database without runs has no newest; a created run is the next id. */
static void check_empty(void)
{
    sqlite3 *db;
    CHECK_INT(pdb_db_open(":memory:", PDB_DB_CREATE, &db), PDB_OK);
    int64_t id = -1;
    char *name = (char *)"x";
    bool found = true;
    CHECK_INT(pdb_run_newest(db, "main", &id, &name), PDB_OK);
    CHECK(name == NULL);
    CHECK_INT(pdb_run_find(db, "main", NULL, &id, &found), PDB_OK);
    CHECK(!found);
    CHECK_INT(pdb_run_last_id(db, &id), PDB_OK);
    CHECK_INT(id, 0);
    CHECK_INT(pdb_run_create(db, "e", &id), PDB_OK);
    CHECK_INT(id, 1);
    CHECK_INT(pdb_run_need(db, "e", &id), PDB_OK);
    CHECK_INT(id, 1);
    pdb_db_close(db);
}

/* Every run of main, oldest first, into ids. */
static int collect(sqlite3 *db, int64_t run_id, void *arg)
{
    (void)db;
    int64_t *ids = arg;
    ids[++ids[0]] = run_id;
    return PDB_OK;
}

/* Per table, rows in db and in want: equal for every table but strings. */
static void check_same_rows(sqlite3 *db, sqlite3 *want)
{
    sqlite3_stmt *st;
    CHECK_INT(sqlite3_prepare_v2(want, "SELECT name FROM sqlite_schema WHERE type = 'table'"
                                       " AND name NOT IN ('strings', 'sqlite_sequence')",
                                 -1, &st, NULL), SQLITE_OK);
    int tables = 0, nonempty = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", sqlite3_column_text(st, 0));
        int64_t got = count(db, sql), expected = count(want, sql);
        if (got != expected)
            fprintf(stderr, "table %s: %lld rows, expected %lld\n", sqlite3_column_text(st, 0),
                    (long long)got, (long long)expected);
        CHECK_INT(got, expected);
        tables++;
        nonempty += expected > 0;
    }
    sqlite3_finalize(st);
    CHECK(tables > 20);
    CHECK(nonempty > 20); /* the runs that stay left rows to compare */
}

int main(void)
{
    sqlite3 *db = open_with(true), *want = open_with(false);
    check_find(db);
    check_empty();
    int64_t ids[8] = {0};
    CHECK_INT(pdb_run_each(db, collect, ids), PDB_OK);
    CHECK_INT(ids[0], 4);
    CHECK(ids[1] == 1 && ids[2] == 2 && ids[3] == 3 && ids[4] == 4);

    CHECK(count(db, "SELECT count(*) FROM slices") > 0);
    for (int64_t r = 1; r <= 4; r++)
        summary(db, r);
    CHECK_INT(pdb_run_forget_caches(db, 2), PDB_OK);
    CHECK_INT(count(db, SUMMARIZED), 134);

    CHECK_INT(pdb_run_delete(db, 1), PDB_OK);
    CHECK_INT(count(db, SUMMARIZED), 34);
    CHECK_INT(pdb_db_exec(db, "DELETE FROM run_summaries"), PDB_OK);
    check_same_rows(db, want);
    int64_t id;
    bool found = true;
    CHECK_INT(pdb_run_find(db, "main", "a", &id, &found), PDB_OK);
    CHECK(!found);
    pdb_db_close(db);
    pdb_db_close(want);
    return check_report();
}
