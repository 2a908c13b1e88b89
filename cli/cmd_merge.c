/* cmd_merge.c: `profdb merge OUT.db SHARD.db...`: combine databases. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "ingest/shards/fresh_db.h"
#include "ingest/ingest.h"
#include "ingest/shards/merge.h"

#include <signal.h>
#include <stdio.h>

static const pdb_cmd_help help = {
    "profdb merge [--full] OUT.db SHARD.db...",
    "Combines the runs of the shard databases into OUT.db (created when missing), in\n"
    "one transaction: on any error OUT.db is unchanged. By default the events stay in\n"
    "the shards: OUT.db gets runs, ranks, sources and the per-rank analysis tables that\n"
    "cross-rank reports read, and the shards' paths (keep the shards where they are;\n"
    "'profdb report --rank N' reads rank N's events from its shard). --full copies\n"
    "every event too, for one self-contained file. Runs of the same name become\n"
    "one run with the ranks of all of them (a run made of the ranks that Slurm array\n"
    "tasks or 'profdb ingest --jobs' workers ingested separately); all ids and strings\n"
    "are re-keyed, analysis results are carried over, pstats statistics of one run\n"
    "are added up as ingest adds its dumps. A rank that a run already has is refused.\n"
    "Shards must have this profdb's schema version ('profdb migrate --db SHARD'\n"
    "upgrades an older one).",
    "Ctrl-C (SIGINT) or SIGTERM rolls the merge back and exits with 130 or 143.",
};

/* The merge, inside a write transaction on out (interruptible). */
static int merge_all(sqlite3 *out, const char *const *shards, int n, bool quiet, bool full)
{
    /* another merge into the same database (a second Slurm array) is waited for */
    if (pdb_ingest_begin_write(out, quiet) != PDB_OK)
        return PDB_ERR;
    pdb_merge_opts o = {.shard_backed = !full};
    int rc = pdb_merge(out, shards, n, &o);
    if (rc == PDB_OK && pdb_ingest_interrupted())
        rc = pdb_fail("interrupted; nothing was merged");
    if (rc == PDB_OK)
        rc = pdb_db_commit(out);
    if (rc != PDB_OK) {
        if (pdb_ingest_interrupted())
            pdb_fail("interrupted by %s; nothing was merged",
                     pdb_ingest_interrupted() == SIGTERM ? "SIGTERM" : "SIGINT");
        pdb_db_rollback(out);
    }
    sqlite3_busy_timeout(out, PDB_DB_BUSY_MS);
    return rc;
}

int cmd_merge(int argc, char **argv, pdb_cli *cli)
{
    bool quiet = false, full = false;
    const pdb_opt opts[] = {
        {PDB_OPT_FLAG, "full", 0, &full, NULL,
         "copy every event into OUT.db too (default: events stay in the shards)"},
        {PDB_OPT_FLAG, "quiet", 'q', &quiet, NULL, "print nothing but errors"},
        {0},
    };
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    (void)cli;
    if (npos < 2) {
        pdb_fail("expected OUT.db and at least one SHARD.db (usage: %s)", help.usage);
        return pdb_cli_fail();
    }
    const char *out_path = argv[1];
    const char *const *shards = (const char *const *)argv + 2;
    int n = npos - 1;
    /* Shards are checked before OUT is created, so a bad one leaves no file. */
    if (pdb_db_check_user_path(out_path, "OUT.db") != PDB_OK)
        return pdb_cli_fail();
    for (int i = 0; i < n; i++)
        if (pdb_db_check_user_path(shards[i], "SHARD.db") != PDB_OK ||
            pdb_merge_check(shards[i]) != PDB_OK)
            return pdb_cli_fail();
    pdb_ingest_catch_signals();
    sqlite3 *out = NULL;
    pdb_fresh_db *fresh; /* a new OUT is built aside (ingest/shards/fresh_db.h) */
    if (pdb_fresh_db_open(out_path, &out, &fresh) != PDB_OK)
        return pdb_cli_fail();
    int rc = pdb_fresh_db_close(fresh, out, merge_all(out, shards, n, quiet, full), false, false, quiet);
    if (rc == PDB_OK && !quiet && pdb_db_open(out_path, PDB_DB_READONLY, &out) == PDB_OK) {
        int64_t runs = 0, traces = 0;
        pdb_db_query_int(out, pdb_common_sql("runs.count"), 0, &runs);
        pdb_db_query_int(out, pdb_common_sql("db.traces"), 0, &traces);
        pdb_buf name = PDB_BUF_INIT;
        fprintf(stderr, "profdb: %s: merged %d database%s; it holds %lld runs, %lld traces\n",
                pdb_cli_text(&name, out_path), n, n == 1 ? "" : "s", (long long)runs,
                (long long)traces);
        pdb_buf_free(&name);
        pdb_db_close(out);
    }
    if (rc == PDB_OK)
        return PDB_EXIT_OK;
    pdb_cli_fail();
    return pdb_ingest_interrupted() ? 128 + pdb_ingest_interrupted() : PDB_EXIT_ERROR;
}
