/* fuzz_ingest.c: libFuzzer target for every reader through the real ingest
 * path.
 *
 * Built once per reader (see CMakeLists.txt). PDB_FUZZ_FORMAT is what
 * --format would say ("trace", "pstats", "steplog:FLAVOR") or NULL (sniff, as
 * `profdb ingest` does).
 *
 * - The sniff target runs a whole ingest: each input replaces one run of a
 *   long-lived in-memory database (so what earlier inputs left behind is
 *   exercised too), indexes are rebuilt and the analysis passes run.
 * - Reader targets (PDB_FUZZ_DRY) run `ingest --dry-run --no-analyze`: the
 *   reader parses and stores every record, then the transaction rolls back.
 *   That is what reaches millions of executions: rebuilding indexes and
 *   analysing after every input costs a hundred times the parse.
 *
 * Any crash, sanitizer report or leak is a bug; a refused input (exit 2 in
 * the CLI) is fine. */
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdlib.h>

#ifndef PDB_FUZZ_FORMAT
#define PDB_FUZZ_FORMAT NULL
#endif
#ifndef PDB_FUZZ_DRY
#define PDB_FUZZ_DRY 0
#endif

static sqlite3 *db;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db && pdb_db_open(":memory:", PDB_DB_CREATE, &db) != PDB_OK)
        abort();
    pdb_ingest_opts o = {.run_name = "fuzz", .replace = true, .quiet = true,
                         .format = PDB_FUZZ_FORMAT, .dry_run = PDB_FUZZ_DRY,
                         .after_load = PDB_FUZZ_DRY ? NULL : pdb_analyze_run};
    pdb_ingest_buffer(db, "fuzz-input", data, size, &o);
    pdb_clear_error();
    return 0;
}
