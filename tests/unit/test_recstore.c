/* test_recstore.c: the per-name record store of the analysis passes
 * (analyze/recstore.c) past its memory bound, on an in-memory database:
 * records keep their numbers, keys and contents through the spill table;
 * a walk in roughly ascending order (misses 2, 1, 4, 3, ... as the ops
 * pass's end makes them) and a random walk read and change the right
 * records; keys are found again; the final walk sees every change. The
 * walk starts right past a memory part of one record, where the read-ahead
 * must not reach below the table's first record. */
#include "analyze/recstore.h"
#include "common/error.h"
#include "check.h"

#include <sqlite3.h>
#include <stdlib.h>

#define N 3000

typedef struct {
    int64_t id, value;
} rec;

static int check_each(int64_t h, const void *key, size_t klen, const void *r, void *arg)
{
    const rec *x = r;
    int *bad = arg;
    unsigned char want[8];
    pdb_rs_key_int(want, h);
    if (x->id != h || x->value != h * 3 + 2 || klen != 8 || memcmp(key, want, 8) != 0)
        (*bad)++;
    return 0;
}

static int64_t find(pdb_recstore *s, int64_t i, bool *created)
{
    unsigned char key[8];
    pdb_rs_key_int(key, i);
    rec init = {i, 0};
    return pdb_rs_find(s, key, sizeof key, &init, created);
}

int main(void)
{
    sqlite3 *db;
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    pdb_recstore *s;
    CHECK_INT(pdb_rs_new(db, "unit", sizeof(rec), 1, SIZE_MAX, &s), PDB_OK);
    int made = 0;
    for (int64_t i = 0; i < N; i++) {
        bool created;
        made += find(s, i, &created) == i && created;
        ((rec *)pdb_rs_get(s, i))->value = i * 3;
    }
    CHECK_INT(made, N);
    CHECK_INT(pdb_rs_spilled(s), N - 1);
    /* a walk in about ascending order: 2, 1, 4, 3, ... */
    int right = 0;
    for (int64_t k = 1; k + 1 < N; k += 2)
        for (int64_t d = 1; d >= 0; d--) {
            rec *x = pdb_rs_get(s, k + d);
            right += x->id == k + d && x->value == (k + d) * 3;
            x->value++;
        }
    rec *z = pdb_rs_get(s, 0);
    z->value++;
    if (N % 2 == 0)
        ((rec *)pdb_rs_get(s, N - 1))->value++;
    CHECK_INT(right, N - 1 - (N % 2 == 0));
    /* a random walk */
    srand(7);
    int fine = 0;
    for (int t = 0; t < 5000; t++) {
        int64_t h = rand() % N;
        const rec *x = pdb_rs_read(s, h);
        fine += x->id == h && (x->value == h * 3 + 1);
    }
    CHECK_INT(fine, 5000);
    /* every key found again, none made twice */
    int again = 0;
    for (int64_t i = N - 1; i >= 0; i--) {
        bool created;
        again += find(s, i, &created) == i && !created;
        ((rec *)pdb_rs_get(s, i))->value++;
    }
    CHECK_INT(again, N);
    CHECK_INT(pdb_rs_count(s), N);
    int bad = 0;
    CHECK_INT(pdb_rs_each(s, check_each, &bad), 0);
    CHECK_INT(bad, 0);
    CHECK_INT(pdb_rs_error(s), PDB_OK);
    pdb_rs_free(s);
    sqlite3_close(db);
    return check_report();
}
