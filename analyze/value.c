/* value.c: values of pid, tid and stream: keys, equality, copies (see
 * value.h). */
#include "analyze/value.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

pdb_val pdb_val_of(sqlite3_value *v)
{
    pdb_val x = {.type = sqlite3_value_type(v)};
    if (x.type == SQLITE_INTEGER)
        x.i = sqlite3_value_int64(v);
    else if (x.type == SQLITE_FLOAT)
        x.d = sqlite3_value_double(v);
    else if (x.type == SQLITE_TEXT)
        x.p = (const char *)sqlite3_value_text(v);
    else if (x.type == SQLITE_BLOB)
        x.p = sqlite3_value_blob(v); /* the bytes as stored, NULs included */
    if (x.type == SQLITE_TEXT || x.type == SQLITE_BLOB) {
        x.n = (size_t)sqlite3_value_bytes(v);
        if (!x.p)
            x.p = "";
    }
    return x;
}

pdb_val pdb_val_dup(const pdb_val *v)
{
    pdb_val x = *v;
    if (v->type == SQLITE_TEXT || v->type == SQLITE_BLOB) {
        char *p = pdb_xmalloc(v->n + 1);
        memcpy(p, v->p, v->n);
        p[v->n] = '\0';
        x.p = p;
    }
    return x;
}

void pdb_val_free(pdb_val *v)
{
    if (v->type == SQLITE_TEXT || v->type == SQLITE_BLOB)
        free((char *)v->p);
    *v = (pdb_val){.type = SQLITE_NULL};
}

void pdb_val_key(pdb_buf *b, const pdb_val *v)
{
    pdb_buf_addc(b, (char)('0' + v->type));
    if (v->type == SQLITE_INTEGER) {
        pdb_buf_add(b, &v->i, sizeof v->i);
    } else if (v->type == SQLITE_FLOAT) {
        pdb_buf_add(b, &v->d, sizeof v->d);
    } else if (v->type == SQLITE_TEXT || v->type == SQLITE_BLOB) {
        uint64_t len = v->n;
        pdb_buf_add(b, &len, sizeof len);
        if (v->n)
            pdb_buf_add(b, v->p, v->n);
    }
}

void pdb_value_key(pdb_buf *b, sqlite3_value *v)
{
    pdb_val x = pdb_val_of(v);
    pdb_val_key(b, &x);
}

bool pdb_value_equal(sqlite3_value *a, sqlite3_value *b)
{
    int t = sqlite3_value_type(a);
    if (t != sqlite3_value_type(b))
        return false;
    if (t == SQLITE_INTEGER)
        return sqlite3_value_int64(a) == sqlite3_value_int64(b);
    if (t == SQLITE_FLOAT) {
        double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
        return memcmp(&x, &y, sizeof x) == 0; /* as the keys compare: by bits */
    }
    if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
        const void *p = sqlite3_value_blob(a), *q = sqlite3_value_blob(b);
        size_t n = (size_t)sqlite3_value_bytes(a);
        return n == (size_t)sqlite3_value_bytes(b) && (n == 0 || memcmp(p, q, n) == 0);
    }
    return true; /* both NULL */
}

void pdb_value_key_bind(sqlite3_stmt *st, int col, const unsigned char **key, size_t *len)
{
    assert(*len >= 1);
    int t = **key - '0';
    const unsigned char *p = *key + 1;
    size_t left = *len - 1;
    if (t == SQLITE_INTEGER || t == SQLITE_FLOAT) {
        assert(left >= 8);
        int64_t i;
        double d;
        memcpy(t == SQLITE_INTEGER ? (void *)&i : (void *)&d, p, 8);
        if (t == SQLITE_INTEGER)
            sqlite3_bind_int64(st, col, i);
        else
            sqlite3_bind_double(st, col, d);
        p += 8, left -= 8;
    } else if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
        uint64_t n;
        assert(left >= sizeof n);
        memcpy(&n, p, sizeof n);
        p += sizeof n, left -= sizeof n;
        assert(n <= left);
        if (t == SQLITE_TEXT)
            sqlite3_bind_text64(st, col, (const char *)p, n, SQLITE_TRANSIENT, SQLITE_UTF8);
        else
            sqlite3_bind_blob64(st, col, n ? (const void *)p : "", n, SQLITE_TRANSIENT);
        p += n, left -= n;
    } else {
        assert(t == SQLITE_NULL);
        sqlite3_bind_null(st, col);
    }
    *key = p;
    *len = left;
}
