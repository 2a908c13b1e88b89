/* cmd_analyze.c: `profdb analyze`: (re)compute the analysis tables. */
#include "cli/cli.h"
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"

#include <stdbool.h>

static const pdb_cmd_help help = {
    "profdb analyze [--db FILE] [RUN...]",
    "Recomputes the analysis_* tables (GPU breakdown, kernel types, kernels, CPU ops)\n"
    "for the named runs, or for every run, and drops their summaries for 'profdb\n"
    "trend' (it computes them again). 'profdb ingest' already does this unless it was\n"
    "given --no-analyze. Both modes are computed: exact (the trace as written, in\n"
    "nanoseconds) and hta (Holistic Trace Analysis's conventions); reports choose\n"
    "with --compat hta.",
    NULL,
};

/* A run merged without --full has its events in shard files: the passes
 * would find none and replace its analysis with nothing. */
static int in_shards(sqlite3 *db, int64_t run_id, bool *yes)
{
    int64_t n;
    if (pdb_run_shard_files(db, "main", run_id, &n) != PDB_OK)
        return PDB_ERR;
    *yes = n > 0;
    return PDB_OK;
}

static int analyze_named(sqlite3 *db, char **names, int n)
{
    for (int i = 0; i < n; i++) {
        int64_t run_id;
        bool shards;
        if (pdb_run_need(db, names[i], &run_id) != PDB_OK ||
            in_shards(db, run_id, &shards) != PDB_OK)
            return PDB_ERR;
        if (shards)
            return pdb_fail("run '%s' keeps its events in its shard files (merged without "
                            "--full): analyze the shards ('profdb analyze --db SHARD'), then "
                            "merge them again", names[i]);
        if (pdb_cli_after_load(db, run_id, true) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

static int analyze_one(sqlite3 *db, int64_t run_id, void *arg)
{
    (void)arg;
    bool shards;
    if (in_shards(db, run_id, &shards) != PDB_OK)
        return PDB_ERR;
    return shards ? PDB_OK : pdb_cli_after_load(db, run_id, true); /* its shards' analysis */
}

int cmd_analyze(int argc, char **argv, pdb_cli *cli)
{
    const pdb_opt opts[] = {PDB_OPT_DB(cli), {0}};
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    sqlite3 *db;
    if (pdb_cli_open_db(cli, 0, &db) != PDB_OK)
        return pdb_cli_fail();
    int rc = pdb_db_begin_immediate(db);
    if (rc == PDB_OK)
        rc = npos ? analyze_named(db, argv + 1, npos) : pdb_run_each(db, analyze_one, NULL);
    if (rc == PDB_OK)
        rc = pdb_db_commit(db);
    else
        pdb_db_rollback(db);
    pdb_db_close(db);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
