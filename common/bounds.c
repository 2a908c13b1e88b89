/* bounds.c: see bounds.h. */
#include "common/bounds.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The analysis reads on a second thread (analyze/scan_reader.c): the test
 * mode is decided once, and the log of paths taken is written under a lock. */
static int test;
static pthread_once_t test_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t passed_lock = PTHREAD_MUTEX_INITIALIZER;

static void read_test_mode(void)
{
    const char *v = getenv("PROFDB_SPILL_TEST");
    test = v && *v && *v != '0';
}

static int test_mode(void)
{
    pthread_once(&test_once, read_test_mode);
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

/* Appends what to the file named by the environment variable env, once. */
static void log_once(const char *env, const char *what)
{
    static char *passed[PASSED_MAX];
    static int npassed;
    const char *log = getenv(env);
    if (!log || !*log)
        return;
    pthread_mutex_lock(&passed_lock);
    bool seen = false;
    for (int i = 0; i < npassed && !seen; i++)
        seen = strcmp(passed[i], what) == 0;
    if (!seen && npassed < PASSED_MAX)
        passed[npassed++] = strdup(what); /* callers may free theirs */
    FILE *f = seen ? NULL : fopen(log, "a");
    if (f) {
        fprintf(f, "%s\n", what);
        fclose(f);
    }
    pthread_mutex_unlock(&passed_lock);
}

void pdb_bound_passed(const char *what)
{
    log_once("PROFDB_SPILL_LOG", what);
}

void pdb_path_taken(const char *what)
{
    log_once("PROFDB_PATH_LOG", what);
}
