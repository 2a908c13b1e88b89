/* test_np_argsort.c: pdb_np_argsort orders keys as numpy 1.24's
 * argsort(kind='quicksort') does (analyze/np_argsort.h), equal keys
 * included: the expected orders were printed by Debian 12's python3-numpy
 * (1.24.2) for these keys. */
#include "check.h"
#include "analyze/np_argsort.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static void check_case(const int64_t *keys, const int64_t *want, size_t n)
{
    int64_t *got = calloc(n + 1, sizeof *got);
    pdb_np_argsort(keys, got, n);
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i]);
    free(got);
}
/* seventeen equal keys */
static const int64_t keys0[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
static const int64_t want0[] = {0, 14, 13, 12, 11, 10, 9, 15, 8, 6, 5, 4, 3, 2, 1, 7, 16};
/* thirty-four equal keys */
static const int64_t keys1[] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0
};
static const int64_t want1[] = {
    0, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 1, 2, 3, 4, 5, 6,
    32, 7, 9, 10, 11, 12, 13, 14, 8, 33
};
/* 60 keys of 4 values */
static const int64_t keys2[] = {
    2, 0, 1, 0, 3, 2, 0, 3, 2, 2, 0, 1, 0, 2, 2, 0, 1, 0, 0, 2, 2, 0, 3, 1, 2, 2, 3, 2, 1, 1,
    3, 1, 1, 3, 3, 1, 1, 0, 0, 3, 2, 3, 0, 2, 1, 1, 3, 2, 3, 0, 3, 3, 3, 2, 1, 3, 2, 1, 1, 1
};
static const int64_t want2[] = {
    38, 1, 21, 3, 49, 6, 18, 42, 10, 17, 12, 37, 15, 31, 32, 35, 29, 58, 44, 45, 54, 57, 36,
    28, 59, 2, 23, 16, 11, 25, 56, 53, 5, 47, 8, 43, 24, 40, 9, 0, 14, 27, 19, 20, 13, 26, 55,
    4, 22, 52, 51, 39, 48, 46, 7, 33, 34, 41, 50, 30
};
/* 200 keys of 6 values, some runs sorted */
static const int64_t keys3[] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5,
    5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 4, 5, 2, 3, 5, 2, 4, 4, 0, 5, 1, 1, 5, 4, 5, 2, 5, 0, 2, 0,
    0, 3, 3, 3, 4, 2, 1, 4, 4, 2, 0, 2, 2, 5, 2, 2, 5, 5, 0, 2, 2, 1, 3, 4, 3, 0, 0, 0, 5, 0,
    4, 4, 4, 3, 0, 4, 2, 3, 4, 0, 1, 3, 3, 0, 5, 3, 5, 2, 5, 1, 0, 1, 4, 5, 5, 3, 2, 1, 2, 0,
    3, 3, 1, 1, 5, 1, 0, 5, 4, 5, 1, 0, 5, 0, 2, 2, 1, 2, 4, 2
};
static const int64_t want3[] = {
    0, 186, 170, 163, 159, 154, 149, 147, 146, 145, 138, 130, 120, 119, 117, 108, 191, 193,
    179, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 19, 169, 13, 160, 18, 141, 126, 111, 110, 14, 171,
    12, 177, 25, 24, 23, 17, 16, 15, 190, 183, 182, 22, 21, 20, 185, 196, 115, 129, 118, 125,
    197, 135, 132, 134, 176, 195, 139, 140, 194, 156, 105, 167, 178, 131, 102, 199, 40, 39, 38,
    37, 42, 43, 36, 35, 34, 33, 44, 32, 31, 30, 29, 28, 27, 26, 41, 65, 121, 123, 122, 64, 52,
    53, 144, 57, 62, 61, 60, 142, 51, 59, 58, 54, 63, 50, 46, 162, 181, 180, 175, 165, 103, 45,
    161, 55, 56, 157, 48, 49, 153, 47, 158, 152, 143, 155, 172, 150, 188, 151, 77, 100, 198,
    76, 75, 74, 106, 107, 73, 72, 71, 113, 82, 83, 81, 78, 79, 70, 127, 124, 66, 128, 80, 68,
    67, 69, 91, 90, 89, 88, 184, 87, 192, 187, 85, 189, 84, 86, 92, 137, 94, 136, 133, 148,
    116, 114, 112, 109, 104, 93, 164, 101, 168, 98, 97, 173, 174, 96, 95, 166, 99
};

int main(void)
{
    check_case(keys0, want0, sizeof keys0 / sizeof *keys0);
    check_case(keys1, want1, sizeof keys1 / sizeof *keys1);
    check_case(keys2, want2, sizeof keys2 / sizeof *keys2);
    check_case(keys3, want3, sizeof keys3 / sizeof *keys3);
    /* a stable sort would keep equal keys in place: numpy does not */
    CHECK(want0[1] != 1);
    int64_t one = 5, idx = -1;
    pdb_np_argsort(&one, &idx, 1);
    CHECK(idx == 0);
    return check_report();
}
