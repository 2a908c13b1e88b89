/* sum.c: sums of durations that notice overflow (see sum.h). */
#include "analyze/sum.h"

static bool sum_overflowed;

void pdb_sum(int64_t *sum, int64_t v)
{
    if (__builtin_add_overflow(*sum, v, sum))
        sum_overflowed = true;
}

void pdb_sum_sub(int64_t *sum, int64_t v)
{
    if (__builtin_sub_overflow(*sum, v, sum))
        sum_overflowed = true;
}

void pdb_sum_clear(void)
{
    sum_overflowed = false;
}

bool pdb_sum_overflowed(void)
{
    return sum_overflowed;
}
