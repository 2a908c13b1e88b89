/* analysis_state.c: is a run's trace analysis missing or older than the
 * passes (see analysis_state.h)? report/queries/analysis_state.sql. */
#include "report/analysis_state.h"
#include "common/db.h"
#include "common/error.h"
#include "report/queries.h"
#include "report/shard_guard.h"

#include <stdio.h>
#include <string.h>

int pdb_analysis_state_get(sqlite3 *db, int64_t run_id, pdb_analysis_state *s)
{
    memset(s, 0, sizeof *s);
    sqlite3_stmt *st;
    /* it asks whether event rows exist, and knows a run whose events stay
     * in shard files (report/shard_guard.h); a statement is prepared again
     * under the authorizer in place when it runs, so the pause lasts until
     * it is finalized */
    pdb_shard_guard_pause(db, true);
    if (pdb_report_prepare(db, "analysis_state.state", &st) != PDB_OK) {
        pdb_shard_guard_pause(db, false);
        return PDB_ERR;
    }
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        int64_t slices = sqlite3_column_int64(st, 0);
        s->gpu_events = sqlite3_column_int64(st, 1);
        if (slices > 0 && !sqlite3_column_int(st, 2)) {
            s->never = true;
            s->what = "is not analysed (ingested with --no-analyze, or merged from shards that "
                      "were)";
        } else if (sqlite3_column_int(st, 3)) {
            s->what = "was analysed by an older profdb (a database migrated from schema "
                      "version 1 has no GPU attribution, annotations, copy or sync times)";
        } else if (sqlite3_column_int(st, 4) || sqlite3_column_int(st, 5)) {
            s->what = "was analysed by an older profdb (a database migrated from before schema "
                      "version 4 has no launch queue or memory analyses)";
        }
        s->missing = s->what != NULL;
    }
    sqlite3_finalize(st);
    pdb_shard_guard_pause(db, false);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "database error");
}

void pdb_analysis_state_message(const pdb_analysis_state *s, const char *run, char *buf,
                                size_t cap)
{
    snprintf(buf, cap, "run '%s' %s; its traces hold %lld GPU events: run 'profdb analyze %s' "
             "first", run, s->what ? s->what : "", (long long)s->gpu_events, run);
}
