/* check.h: the smallest test harness that reports well.
 *
 * CHECK(cond) records a failure with file:line and goes on; a test file's
 * main() ends with `return check_report();`, which prints
 * "N passed, N failed" and exits non-zero on any failure, and when no check
 * ran at all (a test that checked nothing proved nothing). */
#ifndef PDB_CHECK_H
#define PDB_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (cond)                                                              \
            check_passed++;                                                    \
        else {                                                                 \
            check_failed++;                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                      \
    } while (0)

#define CHECK_INT(a, b)                                                        \
    do {                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
        if (check_a_ == check_b_)                                              \
            check_passed++;                                                    \
        else {                                                                 \
            check_failed++;                                                    \
            fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, \
                    check_a_, check_b_);                                       \
        }                                                                      \
    } while (0)

#define CHECK_STR(a, b)                                                        \
    do {                                                                       \
        const char *check_a_ = (a), *check_b_ = (b);                           \
        if (check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0)           \
            check_passed++;                                                    \
        else {                                                                 \
            check_failed++;                                                    \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
                    check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); \
        }                                                                      \
    } while (0)

static inline int check_report(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    if (check_passed + check_failed == 0) {
        printf("FAIL: no check ran\n");
        return 1;
    }
    return check_failed ? 1 : 0;
}

#endif
