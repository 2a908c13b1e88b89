/* test_marshal.c: the marshal decoder on hand-made byte strings.
 *
 * Every type pstats dumps use (and the other data types), FLAG_REF and
 * TYPE_REF with the index taken when a flagged object starts, and the
 * refusals: truncation, bad sizes, bad references, depth, trailing bytes.
 * With a folder argument (tests/pstats/tests.cmake passes the corpus),
 * also checks the byte-level facts in each X.oracle.json "marshal" section
 * (exit 77, Skipped, when the folder is absent, unless
 * PROFDB_REQUIRE_PREREQS=1 makes that a failure). */
#include "check.h"
#include "common/error.h"
#include "ingest/pstats/marshal.h"

#include <dirent.h>
#include <stdlib.h>
#include <yajl/yajl_tree.h>

/* Decodes len bytes; returns the top value or NULL (error recorded). */
static const pdb_mval *load(pdb_marshal **m, const char *bytes, size_t len)
{
    const pdb_mval *v = NULL;
    *m = pdb_marshal_new();
    pdb_clear_error();
    if (pdb_marshal_load(*m, "t", (const unsigned char *)bytes, len, 0, &v) != PDB_OK)
        return NULL;
    return v;
}

#define LOAD(lit) load(&m, lit, sizeof(lit) - 1)

static void test_scalars(void)
{
    pdb_marshal *m;
    const pdb_mval *v = LOAD("i\xfe\xff\xff\xff");
    CHECK(v && v->type == PDB_MV_INT && v->u.i == -2);
    pdb_marshal_free(m);
    /* long 2**40 + 5: digits 5, 0, 1024 (15 bits each) */
    v = LOAD("l\x03\x00\x00\x00\x05\x00\x00\x00\x00\x04");
    CHECK(v && v->type == PDB_MV_INT && v->u.i == (1LL << 40) + 5);
    pdb_marshal_free(m);
    v = LOAD("l\xfe\xff\xff\xff\x01\x00\x01\x00"); /* -(1 + 2**15) */
    CHECK(v && v->u.i == -(1 + 32768));
    pdb_marshal_free(m);
    v = LOAD("l\x06\x00\x00\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00\x01\x00");
    CHECK(v == NULL && strstr(pdb_errmsg(), "integer too large"));
    pdb_marshal_free(m);
    v = LOAD("g\x00\x00\x00\x00\x00\x00\xf8\x3f"); /* 1.5 */
    CHECK(v && v->type == PDB_MV_FLOAT && v->u.f == 1.5);
    pdb_marshal_free(m);
    v = LOAD("f\x04-2.5");
    CHECK(v && v->type == PDB_MV_FLOAT && v->u.f == -2.5);
    pdb_marshal_free(m);
    v = LOAD("f\x03" "2x5");
    CHECK(v == NULL && strstr(pdb_errmsg(), "byte 0: bad float text"));
    pdb_marshal_free(m);
    v = LOAD("N");
    CHECK(v && v->type == PDB_MV_NONE);
    pdb_marshal_free(m);
    v = LOAD("T");
    CHECK(v && v->type == PDB_MV_BOOL && v->u.i == 1);
    pdb_marshal_free(m);
}

static void test_strings(void)
{
    pdb_marshal *m;
    const pdb_mval *v = LOAD("z\x03" "abc");
    CHECK(v && v->type == PDB_MV_STR && v->u.s.len == 3 && memcmp(v->u.s.p, "abc", 3) == 0);
    pdb_marshal_free(m);
    v = LOAD("Z\x02" "\xe9t"); /* latin-1 e-acute becomes UTF-8 */
    CHECK(v && v->u.s.len == 3 && memcmp(v->u.s.p, "\xc3\xa9t", 3) == 0);
    pdb_marshal_free(m);
    v = LOAD("u\x03\x00\x00\x00\xe2\x82\xac");
    CHECK(v && v->type == PDB_MV_STR && v->u.s.len == 3);
    pdb_marshal_free(m);
    v = LOAD("t\x01\x00\x00\x00x");
    CHECK(v && v->type == PDB_MV_STR);
    pdb_marshal_free(m);
    v = LOAD("a\x02\x00\x00\x00hi");
    CHECK(v && v->type == PDB_MV_STR && v->u.s.len == 2);
    pdb_marshal_free(m);
    v = LOAD("A\x02\x00\x00\x00hi");
    CHECK(v && v->type == PDB_MV_STR);
    pdb_marshal_free(m);
    v = LOAD("s\x02\x00\x00\x00\x00\xff");
    CHECK(v && v->type == PDB_MV_BYTES && v->u.s.len == 2);
    pdb_marshal_free(m);
    v = LOAD("u\x02\x00\x00\x00\xc3(");
    CHECK(v == NULL && strstr(pdb_errmsg(), "not valid UTF-8"));
    pdb_marshal_free(m);
    v = LOAD("u\x09\x00\x00\x00" "ab");
    CHECK(v == NULL && strstr(pdb_errmsg(), "byte 1: size 9 is larger than the data left"));
    pdb_marshal_free(m);
}

static void test_containers(void)
{
    pdb_marshal *m;
    /* {('a', 1): [None], (): frozenset()} */
    const pdb_mval *v = LOAD("{)\x02z\x01" "ai\x01\x00\x00\x00[\x01\x00\x00\x00N)\x00>\x00\x00\x00\x00" "0");
    CHECK(v && v->type == PDB_MV_DICT && v->u.seq.n == 4);
    if (v && v->u.seq.n == 4) {
        CHECK(v->u.seq.v[0]->type == PDB_MV_TUPLE && v->u.seq.v[0]->u.seq.n == 2);
        CHECK(v->u.seq.v[1]->type == PDB_MV_LIST && v->u.seq.v[1]->u.seq.n == 1);
        CHECK(v->u.seq.v[3]->type == PDB_MV_SET);
        CHECK(v->u.seq.v[1]->offset == 11);
    }
    CHECK_INT(pdb_marshal_get_stats(m)->max_depth, 2);
    pdb_marshal_free(m);
    v = LOAD("(\x02\x00\x00\x00i\x01\x00\x00\x00");
    CHECK(v == NULL && strstr(pdb_errmsg(), "byte 10: unexpected end of data"));
    pdb_marshal_free(m);
    v = LOAD("(\xff\xff\xff\xff");
    CHECK(v == NULL && strstr(pdb_errmsg(), "byte 1: negative size"));
    pdb_marshal_free(m);
    v = LOAD("{z\x01" "a");
    CHECK(v == NULL && strstr(pdb_errmsg(), "byte 4: unexpected end of data"));
    pdb_marshal_free(m);
    v = LOAD("N!");
    CHECK(v == NULL && strstr(pdb_errmsg(), "byte 1: 1 unexpected bytes after the end"));
    pdb_marshal_free(m);
    char deep[2 * (PDB_MARSHAL_MAX_DEPTH + 2) + 1];
    for (int i = 0; i < PDB_MARSHAL_MAX_DEPTH + 2; i++)
        memcpy(deep + 2 * i, ")\x01", 2);
    deep[sizeof deep - 1] = 'N';
    v = load(&m, deep, sizeof deep);
    CHECK(v == NULL && strstr(pdb_errmsg(), "nested deeper than"));
    pdb_marshal_free(m);
}

/* The index of a flagged object is taken when it starts: in
 * (flagged tuple)( 'x'(flagged), ref 1, ref 0? ) the string is index 1. */
static void test_refs(void)
{
    pdb_marshal *m;
    const pdb_mval *v = LOAD("\xa9\x03\xda\x01xr\x01\x00\x00\x00\xe9\x07\x00\x00\x00");
    CHECK(v && v->type == PDB_MV_TUPLE && v->u.seq.n == 3);
    if (v && v->u.seq.n == 3) {
        CHECK(v->u.seq.v[1] == v->u.seq.v[0]);   /* ref 1 is the string */
        CHECK(v->u.seq.v[2]->u.i == 7);
    }
    const pdb_marshal_stats *st = m ? pdb_marshal_get_stats(m) : NULL;
    CHECK(st && st->refs == 3 && st->backrefs == 1);
    CHECK(st && st->flagged[')'] == 1 && st->flagged['Z'] == 1 && st->plain['r'] == 1);
    pdb_marshal_free(m);
    /* A reference to the tuple still being read is refused. */
    v = LOAD("\xa9\x01r\x00\x00\x00\x00");
    CHECK(v == NULL && strstr(pdb_errmsg(), "byte 2: back-reference 0 to an unfinished"));
    pdb_marshal_free(m);
    v = LOAD(")\x01r\x00\x00\x00\x00");
    CHECK(v == NULL && strstr(pdb_errmsg(), "not seen yet"));
    pdb_marshal_free(m);
    /* Singletons ignore FLAG_REF, as in CPython: no index is taken. */
    v = LOAD(")\x02\xce\xe9\x05\x00\x00\x00");
    CHECK(v && pdb_marshal_get_stats(m)->refs == 1);
    pdb_marshal_free(m);
}

/* ---- the corpus facts ---------------------------------------------------- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[n < cap ? n : cap - 1] = '\0';
    *len = n;
    return buf;
}

static long long jnum(yajl_val root, const char **path)
{
    yajl_val v = yajl_tree_get(root, path, yajl_t_number);
    return v ? YAJL_GET_INTEGER(v) : -1;
}

static void check_dump(const char *dir, const char *name)
{
    char path[4096];
    size_t len, jlen;
    snprintf(path, sizeof path, "%s/%s.prof", dir, name);
    char *data = read_file(path, &len);
    snprintf(path, sizeof path, "%s/%s.oracle.json", dir, name);
    char *json = read_file(path, &jlen);
    CHECK(data && json);
    if (!data || !json)
        return;
    char err[256];
    yajl_val root = yajl_tree_parse(json, err, sizeof err);
    CHECK(root != NULL);
    pdb_marshal *m;
    const pdb_mval *v = load(&m, data, len);
    CHECK(v && v->type == PDB_MV_DICT);
    const pdb_marshal_stats *st = pdb_marshal_get_stats(m);
    const char *p_refs[] = {"marshal", "ref_table_size", NULL};
    const char *p_back[] = {"marshal", "type_ref_backrefs", NULL};
    const char *p_depth[] = {"marshal", "max_nesting_depth", NULL};
    CHECK_INT(st->refs, jnum(root, p_refs));
    CHECK_INT(st->backrefs, jnum(root, p_back));
    CHECK_INT(st->max_depth, jnum(root, p_depth));
    const char *p_codes[] = {"marshal", "type_codes", NULL};
    yajl_val codes = yajl_tree_get(root, p_codes, yajl_t_object);
    CHECK(codes != NULL);
    int64_t listed_plain = 0, listed_flag = 0, all = 0;
    for (size_t i = 0; codes && i < codes->u.object.len; i++) {
        unsigned code = (unsigned char)codes->u.object.keys[i][0];
        const char *pp[] = {"plain", NULL}, *pf[] = {"flag_ref", NULL};
        CHECK_INT(st->plain[code & 0x7F], jnum(codes->u.object.values[i], pp));
        CHECK_INT(st->flagged[code & 0x7F], jnum(codes->u.object.values[i], pf));
        listed_plain += st->plain[code & 0x7F];
        listed_flag += st->flagged[code & 0x7F];
    }
    for (int c = 0; c < 128; c++)
        all += st->plain[c] + st->flagged[c];
    CHECK_INT(all, listed_plain + listed_flag); /* no type the oracle did not see */
    printf("%s: %lld refs, %lld back-references, depth %d\n", name, (long long)st->refs,
           (long long)st->backrefs, st->max_depth);
    pdb_marshal_free(m);
    yajl_tree_free(root);
    free(data);
    free(json);
}

static int check_corpus(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        /* Skipped in a fresh clone; a failure where the corpus is required. */
        const char *req = getenv("PROFDB_REQUIRE_PREREQS");
        if (req && strcmp(req, "1") == 0) {
            printf("FAIL: %s is not present, and PROFDB_REQUIRE_PREREQS=1 says it must be\n",
                   dir);
            return 1;
        }
        printf("SKIPPED: %s is not present\n", dir);
        return 77;
    }
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".prof") == 0) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(l - 5), e->d_name);
            check_dump(dir, name);
            n++;
        }
    }
    closedir(d);
    CHECK(n > 0);
    return check_report();
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return check_corpus(argv[1]);
    test_scalars();
    test_strings();
    test_containers();
    test_refs();
    return check_report();
}
