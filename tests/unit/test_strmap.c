/* test_strmap.c: the string map of ingest (common/strmap.c): every key
 * found again after the table has grown many times, keys that differ only
 * past the first eight bytes or in length told apart, NUL bytes kept, and
 * pdb_strmap_each visiting the entries in key order (skip reasons are
 * listed in that order, whatever the hash). */
#include "common/strmap.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    char keys[8][32];
    size_t lens[8];
    int64_t vals[8];
    int n;
} seen;

static void collect(const char *key, size_t len, int64_t val, void *arg)
{
    seen *s = arg;
    if (s->n < 8) {
        memcpy(s->keys[s->n], key, len);
        s->lens[s->n] = len;
        s->vals[s->n] = val;
    }
    s->n++;
}

static void test_many_keys(void)
{
    pdb_strmap *m = pdb_strmap_new();
    char key[64];
    for (int i = 0; i < 100000; i++) {
        int n = snprintf(key, sizeof key, "a long common prefix of names %d", i);
        pdb_strmap_put(m, key, (size_t)n, i);
    }
    CHECK_INT(pdb_strmap_count(m), 100000);
    int found = 0;
    for (int i = 0; i < 100000; i++) {
        int n = snprintf(key, sizeof key, "a long common prefix of names %d", i);
        int64_t v = -1;
        found += pdb_strmap_get(m, key, (size_t)n, &v) && v == i;
    }
    CHECK_INT(found, 100000);
    CHECK(!pdb_strmap_get(m, "a long common prefix of names 100000", 36, NULL));
    pdb_strmap_free(m);
}

static void test_close_keys(void)
{
    pdb_strmap *m = pdb_strmap_new();
    pdb_strmap_put(m, "abcdefgh1", 9, 1);
    pdb_strmap_put(m, "abcdefgh2", 9, 2);
    pdb_strmap_put(m, "abcdefgh", 8, 3);
    pdb_strmap_put(m, "abcdefgh\0", 9, 4);
    pdb_strmap_put(m, "", 0, 5);
    int64_t v;
    CHECK(pdb_strmap_get(m, "abcdefgh1", 9, &v) && v == 1);
    CHECK(pdb_strmap_get(m, "abcdefgh2", 9, &v) && v == 2);
    CHECK(pdb_strmap_get(m, "abcdefgh", 8, &v) && v == 3);
    CHECK(pdb_strmap_get(m, "abcdefgh\0", 9, &v) && v == 4);
    CHECK(pdb_strmap_get(m, "", 0, &v) && v == 5);
    CHECK(!pdb_strmap_get(m, "abcdefg", 7, &v));
    pdb_strmap_free(m);
}

static void test_each_in_key_order(void)
{
    pdb_strmap *m = pdb_strmap_new();
    const char *const keys[] = {"thread name", "bad ts", "unknown phase", "bad dur", "b"};
    for (int i = 0; i < 5; i++)
        pdb_strmap_put(m, keys[i], strlen(keys[i]), i);
    seen s = {0};
    pdb_strmap_each(m, collect, &s);
    CHECK_INT(s.n, 5);
    const char *const want[] = {"b", "bad dur", "bad ts", "thread name", "unknown phase"};
    const int64_t want_val[] = {4, 3, 1, 0, 2};
    for (int i = 0; i < 5 && i < s.n; i++) {
        CHECK(s.lens[i] == strlen(want[i]) && memcmp(s.keys[i], want[i], s.lens[i]) == 0);
        CHECK_INT(s.vals[i], want_val[i]);
    }
    pdb_strmap_free(m);
    m = pdb_strmap_new();
    s = (seen){0};
    pdb_strmap_each(m, collect, &s);
    CHECK_INT(s.n, 0);
    pdb_strmap_free(m);
}

int main(void)
{
    test_many_keys();
    test_close_keys();
    test_each_in_key_order();
    return check_report();
}
