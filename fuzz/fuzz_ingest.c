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
 * - The pattern target (PDB_FUZZ_PATTERN) fuzzes the step-log rules users
 *   write (--rules, ingest/steplog/steplog_pattern.c) and the log they read
 *   together: the input up to its first NUL byte is the rules text (no
 *   NUL: its first line), the rest the log. The log is read dry with the
 *   rules as --rules gives them, then again with them as stored rules,
 *   which must claim the log first (pdb_sl_patterns_claim).
 *
 * Any crash, sanitizer report or leak is a bug; a refused input (exit 2 in
 * the CLI) is fine. */
#include "analyze/analyze.h"
#include "common/db.h"
#include "common/error.h"
#include "ingest/ingest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef PDB_FUZZ_FORMAT
#define PDB_FUZZ_FORMAT NULL
#endif
#ifndef PDB_FUZZ_DRY
#define PDB_FUZZ_DRY 0
#endif
#ifndef PDB_FUZZ_PATTERN
#define PDB_FUZZ_PATTERN 0
#endif

static sqlite3 *db;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rules (before the first NUL, else the first line) and the log after them,
 * read with the rules given and then with them stored. */
static void pattern_input(const uint8_t *data, size_t size)
{
    const uint8_t *cut = memchr(data, '\0', size);
    if (!cut)
        cut = memchr(data, '\n', size);
    size_t rl = cut ? (size_t)(cut - data) : size;
    char *rules = malloc(rl + 1);
    if (!rules)
        abort();
    memcpy(rules, data, rl);
    rules[rl] = '\0';
    const uint8_t *log = cut ? cut + 1 : data + size;
    size_t ll = (size_t)(data + size - log);
    pdb_ingest_opts o = {.run_name = "fuzz", .replace = true, .quiet = true, .dry_run = true,
                         .patterns = rules, .pattern_origin = "fuzz-rules"};
    pdb_ingest_buffer(db, "fuzz-input", log, ll, &o);
    pdb_clear_error();
    const char *stored[2] = {rules, "fuzz-rules"};
    o.patterns = o.pattern_origin = NULL;
    o.stored_rules = stored;
    o.nstored_rules = 1;
    pdb_ingest_buffer(db, "fuzz-input", log, ll, &o);
    pdb_clear_error();
    free(rules);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!db && pdb_db_open(":memory:", PDB_DB_CREATE, &db) != PDB_OK)
        abort();
    if (PDB_FUZZ_PATTERN) {
        pattern_input(data, size);
        return 0;
    }
    pdb_ingest_opts o = {.run_name = "fuzz", .replace = true, .quiet = true,
                         .format = PDB_FUZZ_FORMAT, .dry_run = PDB_FUZZ_DRY,
                         .after_load = PDB_FUZZ_DRY ? NULL : pdb_analyze_run};
    pdb_ingest_buffer(db, "fuzz-input", data, size, &o);
    pdb_clear_error();
    return 0;
}
