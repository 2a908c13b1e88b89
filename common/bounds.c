/* bounds.c: see bounds.h. */
#include "common/bounds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_mode(void)
{
    static int test = -1;
    if (test < 0) {
        const char *v = getenv("PROFDB_SPILL_TEST");
        test = v && *v && *v != '0';
    }
    return test;
}

int64_t pdb_bound(int64_t normal, int64_t small)
{
    return test_mode() ? small : normal;
}

/* The paths already named in this process: a handful of distinct ones (one
 * per call site), so a short array; past it names are written again, which
 * the reader of the log does not mind. */
#define PASSED_MAX 32

void pdb_bound_passed(const char *what)
{
    static char *passed[PASSED_MAX];
    static int npassed;
    const char *log = getenv("PROFDB_SPILL_LOG");
    if (!log || !*log)
        return;
    for (int i = 0; i < npassed; i++)
        if (strcmp(passed[i], what) == 0)
            return;
    if (npassed < PASSED_MAX)
        passed[npassed++] = strdup(what); /* callers may free theirs */
    FILE *f = fopen(log, "a");
    if (f) {
        fprintf(f, "%s\n", what);
        fclose(f);
    }
}
