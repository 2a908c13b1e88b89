/* fuzz_ingest.c: libFuzzer target for every reader through the real ingest
 * path (sniffing, parsing, storing, analysis passes, rollback on error).
 *
 * Built once per reader: PDB_FUZZ_FORMAT is "trace", "pstats", "steplog"
 * (forced, like --format) or NULL (sniff, as `profdb ingest` does). Each input
 * replaces one run in a long-lived in-memory database, so what an earlier
 * input left behind is exercised too. Any crash, sanitizer report or leak is
 * a bug; a refused input (exit 2 in the CLI) is fine. */
#include "common/db.h"
#include "common/error.h"
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdlib.h>

#ifndef PDB_FUZZ_FORMAT
#define PDB_FUZZ_FORMAT NULL
#endif

static sqlite3 *db;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db && pdb_db_open(":memory:", PDB_DB_CREATE, &db) != PDB_OK)
        abort();
    pdb_ingest_opts o = {.run_name = "fuzz", .replace = true, .quiet = true,
                         .format = PDB_FUZZ_FORMAT};
    pdb_ingest_buffer(db, "fuzz-input", data, size, &o);
    pdb_clear_error();
    return 0;
}
