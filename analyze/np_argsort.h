/* np_argsort.h: numpy's argsort(kind='quicksort') of int64 keys, the sort
 * pandas' sort_values() uses by default, ported so that profdb orders equal
 * keys as HTA does.
 *
 * The sort is not stable: where keys are equal, the order it leaves depends
 * on the whole array (its partitions), not on the equal keys alone. HTA's
 * get_memory_bw_time_series sorts its points with it, and the running sums
 * (and which points are above 0) at equal timestamps depend on that order.
 * This is numpy 1.24's aquicksort_ (numpy/core/src/npysort/quicksort.cpp:
 * introsort, median of three, partitions of 16 or fewer elements by
 * insertion sort, heapsort (aheapsort_) below a depth of 2 floor(log2 n)),
 * the one Debian 12's python3-numpy runs on every CPU (numpy 1.25 and later
 * may dispatch argsort to AVX-512 code, which orders ties otherwise).
 * tests/unit/test_np_argsort.c holds orders numpy gave. */
#ifndef PDB_NP_ARGSORT_H
#define PDB_NP_ARGSORT_H

#include <stddef.h>
#include <stdint.h>

/* Sets idx[0..n) to the permutation numpy's v.argsort(kind='quicksort')
 * returns for the keys v[0..n). */
void pdb_np_argsort(const int64_t *v, int64_t *idx, size_t n);

#endif
