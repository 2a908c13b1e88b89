/* bounds.h: the memory bounds of the passes and readers, and a test mode
 * that makes them tiny.
 *
 * Every structure that could grow with the input's shape (distinct names,
 * threads, open events, steps) keeps at most a bound in memory and moves
 * the rest to SQLite. Real traces rarely reach a bound, so the paths past
 * them would go untested; with PROFDB_SPILL_TEST=1 in the environment
 * every bound is a handful, and tests compare the results with a normal
 * run's (tests/corpus/test_spill_exact.py). With PROFDB_SPILL_LOG=FILE,
 * each path past a bound names itself in FILE, once per process, so those
 * tests can check that the paths they compare were taken, and not taken
 * by the normal run. */
#ifndef PDB_BOUNDS_H
#define PDB_BOUNDS_H

#include <stdint.h>

/* normal, or small when PROFDB_SPILL_TEST is set. */
int64_t pdb_bound(int64_t normal, int64_t small);

/* Called where a path past a bound starts (`what` names it, e.g. "open B
 * events sent to a table"): with PROFDB_SPILL_LOG set, appends `what` and
 * a newline to that file the first time in this process. Otherwise does
 * nothing. */
void pdb_bound_passed(const char *what);

/* The same for a path that is no bound but that tests must see taken (the
 * analysis's reader thread), logged to PROFDB_PATH_LOG instead. */
void pdb_path_taken(const char *what);

#endif
