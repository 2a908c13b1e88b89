/* bounds.c: see bounds.h. */
#include "common/bounds.h"

#include <stdlib.h>

int64_t pdb_bound(int64_t normal, int64_t small)
{
    static int test = -1;
    if (test < 0) {
        const char *v = getenv("PROFDB_SPILL_TEST");
        test = v && *v && *v != '0';
    }
    return test ? small : normal;
}
