/* bounds.h: the memory bounds of the passes and readers, and a test mode
 * that makes them tiny.
 *
 * Every structure that could grow with the input's shape (distinct names,
 * threads, open events, steps) keeps at most a bound in memory and moves
 * the rest to SQLite. Real traces rarely reach a bound, so the paths past
 * them would go untested; with PROFDB_SPILL_TEST=1 in the environment
 * every bound is a handful, and tests compare the results with a normal
 * run's (tests/corpus/test_hostile_shapes.py). */
#ifndef PDB_BOUNDS_H
#define PDB_BOUNDS_H

#include <stdint.h>

/* normal, or small when PROFDB_SPILL_TEST is set. */
int64_t pdb_bound(int64_t normal, int64_t small);

#endif
