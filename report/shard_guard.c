/* shard_guard.c: an authorizer that refuses reads of a shard-backed run's
 * event tables (see shard_guard.h). */
#include "report/shard_guard.h"
#include "common/error.h"
#include "common/runs.h"

#include <string.h>

/* The tables a merge without --full leaves in the shards
 * (ingest/shards/merge.c, event_tables). */
static const char *const event_tables[] = {
    "slices", "instants", "counters", "flows", "metadata_events",
    "analysis_gpu_attribution", "analysis_memory_allocs",
};

static struct {
    sqlite3 *db;
    bool on;
    const char *refused;
} guard;

static int authorize(void *arg, int action, const char *a1, const char *a2, const char *a3,
                     const char *a4)
{
    (void)arg, (void)a2, (void)a4;
    /* main, and a database attached to compare runs (temp tables are the
     * report's own) */
    if (action != SQLITE_READ || !a1 || !a3 || strcmp(a3, "temp") == 0)
        return SQLITE_OK;
    for (size_t i = 0; i < sizeof event_tables / sizeof *event_tables; i++)
        if (strcmp(a1, event_tables[i]) == 0) {
            guard.refused = event_tables[i];
            return SQLITE_DENY;
        }
    return SQLITE_OK;
}

void pdb_shard_guard_on(sqlite3 *db)
{
    guard.db = db;
    guard.on = true;
    guard.refused = NULL;
    sqlite3_set_authorizer(db, authorize, NULL);
}

int pdb_shard_guard_start(sqlite3 *db, const char *schema, int64_t run_id, int64_t *shards)
{
    if (pdb_run_shard_files(db, schema, run_id, shards) != PDB_OK)
        return PDB_ERR;
    if (*shards > 0)
        pdb_shard_guard_on(db);
    return PDB_OK;
}

void pdb_shard_guard_pause(sqlite3 *db, bool pause)
{
    if (guard.on && guard.db == db)
        sqlite3_set_authorizer(db, pause ? NULL : authorize, NULL);
}

const char *pdb_shard_guard_refused(void)
{
    return guard.refused;
}

bool pdb_shard_guard_active(void)
{
    return guard.on;
}

bool pdb_shard_guard_take(void)
{
    bool was = guard.refused != NULL;
    guard.refused = NULL;
    return was;
}

int pdb_shard_guard_fail(const char *what)
{
    if (!guard.refused)
        return PDB_ERR;
    return pdb_fail("%s reads events (%s) of a run merged without --full, whose events stay "
                    "in its shard files: merge the shards with --full to compare such runs",
                    what, guard.refused);
}

void pdb_shard_guard_stop(sqlite3 *db)
{
    if (guard.on && guard.db == db)
        sqlite3_set_authorizer(db, NULL, NULL);
    guard.on = false;
    guard.db = NULL;
}
