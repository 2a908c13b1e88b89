/* marshal.c: CPython marshal decoding (see marshal.h).
 *
 * Follows Python/marshal.c's r_object(): one type byte (bit 7 = FLAG_REF),
 * then the payload. A flagged value takes the next reference index when it
 * starts, before a container's contents are read, and becomes usable by
 * TYPE_REF once complete (a reference to an unfinished container is refused,
 * so the tree has no cycles). Singletons ignore the flag, as in CPython.
 * All values live in an arena freed at once by pdb_marshal_free(). */
#include "ingest/pstats/marshal.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FLAG_REF 0x80

/* Arena blocks: a singly linked list of malloc'd chunks. */
typedef struct block {
    struct block *next;
    size_t used, cap;
    max_align_t data[];
} block;

struct pdb_marshal {
    block *blocks;
    const unsigned char *p;
    size_t len, pos;
    const char *path;
    pdb_mval **refs;            /* NULL while a reserved value is unfinished */
    size_t nrefs, caprefs;
    pdb_marshal_stats st;
};

pdb_marshal *pdb_marshal_new(void)
{
    return pdb_xcalloc(1, sizeof(pdb_marshal));
}

void pdb_marshal_free(pdb_marshal *m)
{
    if (!m)
        return;
    for (block *b = m->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(m->refs);
    free(m);
}

const pdb_marshal_stats *pdb_marshal_get_stats(const pdb_marshal *m)
{
    return &m->st;
}

const char *pdb_mval_type_name(pdb_mtype t)
{
    static const char *const names[] = {"None", "bool", "Ellipsis", "StopIteration", "int",
                                        "float", "str", "bytes", "tuple", "list", "set",
                                        "dict"};
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

/* Allocates n bytes (aligned) from the arena. */
static void *arena_alloc(pdb_marshal *m, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    block *b = m->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        b = pdb_xmalloc(sizeof(block) + cap);
        b->used = 0;
        b->cap = cap;
        b->next = m->blocks;
        m->blocks = b;
    }
    void *r = (char *)b->data + b->used;
    b->used += n;
    return r;
}

/* ---- primitive reads ------------------------------------------------- */

static int fail(pdb_marshal *m, size_t at, const char *what)
{
    return pdb_fail_at(m->path, (int64_t)at, "%s", what);
}

static int need(pdb_marshal *m, size_t n, const char *what)
{
    if (m->len - m->pos < n)
        return pdb_fail_at(m->path, (int64_t)m->len,
                           "unexpected end of data (truncated dump?): expected %s", what);
    return PDB_OK;
}

static int r_byte(pdb_marshal *m, unsigned *v, const char *what)
{
    if (need(m, 1, what) != PDB_OK)
        return PDB_ERR;
    *v = m->p[m->pos++];
    return PDB_OK;
}

static int r_int32(pdb_marshal *m, int32_t *v, const char *what)
{
    if (need(m, 4, what) != PDB_OK)
        return PDB_ERR;
    const unsigned char *b = m->p + m->pos;
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    m->pos += 4;
    memcpy(v, &u, sizeof *v);
    return PDB_OK;
}

/* A size field (int32 or, for short forms, one byte) that must fit in the
 * remaining data given at least min_item bytes per element. */
static int r_size(pdb_marshal *m, bool short_form, size_t min_item, size_t *n, const char *what)
{
    size_t at = m->pos;
    if (short_form) {
        unsigned b;
        if (r_byte(m, &b, what) != PDB_OK)
            return PDB_ERR;
        *n = b;
    } else {
        int32_t v;
        if (r_int32(m, &v, what) != PDB_OK)
            return PDB_ERR;
        if (v < 0)
            return fail(m, at, "negative size (corrupted dump?)");
        *n = (size_t)v;
    }
    if (min_item && *n > (m->len - m->pos) / min_item)
        return pdb_fail_at(m->path, (int64_t)at,
                           "size %zu is larger than the data left (truncated or corrupted dump?)",
                           *n);
    return PDB_OK;
}

/* ---- values ---------------------------------------------------------- */

static pdb_mval *new_val(pdb_marshal *m, pdb_mtype t, size_t at)
{
    pdb_mval *v = arena_alloc(m, sizeof *v);
    memset(v, 0, sizeof *v);
    v->type = t;
    v->offset = (int64_t)at;
    return v;
}

/* Takes the next reference index (value filled in later by set_ref). */
static size_t reserve_ref(pdb_marshal *m)
{
    if (m->nrefs == m->caprefs) {
        m->caprefs = m->caprefs ? m->caprefs * 2 : 256;
        m->refs = pdb_xrealloc(m->refs, m->caprefs * sizeof *m->refs);
    }
    m->refs[m->nrefs] = NULL;
    return m->nrefs++;
}

/* Checks UTF-8 as CPython's "surrogatepass" decoder accepts it. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            k = 1, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            k = 2, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            k = 3, min = 0x10000;
        } else {
            return false;
        }
        if (n - i <= k)
            return false;
        unsigned cp = c & (0x3F >> k);
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF)
            return false;
        i += k + 1;
    }
    return true;
}

/* The ASCII string kinds hold latin-1 in CPython: convert to UTF-8. */
static void set_latin1(pdb_marshal *m, pdb_mval *v, const unsigned char *s, size_t n)
{
    size_t high = 0;
    for (size_t i = 0; i < n; i++)
        high += s[i] >= 0x80;
    if (!high) {
        v->u.s.p = (const char *)s;
        v->u.s.len = n;
        return;
    }
    char *out = arena_alloc(m, n + high + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < 0x80) {
            out[o++] = (char)s[i];
        } else {
            out[o++] = (char)(0xC0 | s[i] >> 6);
            out[o++] = (char)(0x80 | (s[i] & 0x3F));
        }
    }
    v->u.s.p = out;
    v->u.s.len = o;
}

static int r_string(pdb_marshal *m, unsigned type, pdb_mval *v)
{
    size_t at = v->offset, n;
    bool short_form = type == 'z' || type == 'Z';
    if (r_size(m, short_form, 1, &n, "a string length") != PDB_OK)
        return PDB_ERR;
    const unsigned char *s = m->p + m->pos;
    m->pos += n;
    if (type == 's') {
        v->type = PDB_MV_BYTES;
        v->u.s.p = (const char *)s;
        v->u.s.len = n;
    } else if (type == 'u' || type == 't') {
        if (!utf8_valid(s, n))
            return fail(m, at, "string is not valid UTF-8 (corrupted dump?)");
        v->u.s.p = (const char *)s;
        v->u.s.len = n;
    } else {
        set_latin1(m, v, s, n);
    }
    return PDB_OK;
}

/* TYPE_LONG: a signed count of 15-bit digits, least significant first. */
static int r_long(pdb_marshal *m, pdb_mval *v)
{
    size_t at = v->offset;
    int32_t n;
    if (r_int32(m, &n, "a long's digit count") != PDB_OK)
        return PDB_ERR;
    if (n < -5 || n > 5)
        return fail(m, at, "integer too large (more than 64 bits) or corrupted size");
    size_t size = (size_t)(n < 0 ? -n : n);
    if (need(m, 2 * size, "a long's digits") != PDB_OK)
        return PDB_ERR;
    uint64_t u = 0;
    for (size_t i = 0; i < size; i++) {
        unsigned d = m->p[m->pos] | (unsigned)m->p[m->pos + 1] << 8;
        m->pos += 2;
        if (d > 0x7FFF)
            return fail(m, at, "bad long digit (corrupted dump?)");
        if (i == size - 1 && d == 0)
            return fail(m, at, "unnormalized long (corrupted dump?)");
        if (i == 4 && d >= 8)
            return fail(m, at, "integer too large (more than 63 bits)");
        u |= (uint64_t)d << (15 * i);
    }
    v->u.i = n < 0 ? -(int64_t)u : (int64_t)u;
    return PDB_OK;
}

static int r_float_text(pdb_marshal *m, pdb_mval *v)
{
    size_t n;
    if (r_size(m, true, 1, &n, "a float's length") != PDB_OK)
        return PDB_ERR;
    char buf[257];
    memcpy(buf, m->p + m->pos, n);
    buf[n] = '\0';
    m->pos += n;
    char *end;
    v->u.f = strtod(buf, &end);
    if (n == 0 || end != buf + n)
        return fail(m, (size_t)v->offset, "bad float text (corrupted dump?)");
    return PDB_OK;
}

static int r_float_binary(pdb_marshal *m, pdb_mval *v)
{
    if (need(m, 8, "an 8-byte float") != PDB_OK)
        return PDB_ERR;
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | m->p[m->pos + (size_t)i];
    m->pos += 8;
    memcpy(&v->u.f, &u, sizeof u);
    return PDB_OK;
}

static int r_object(pdb_marshal *m, int depth, pdb_mval **out);

/* Containers nest; the statistics record the deepest one. */
static void note_depth(pdb_marshal *m, int depth)
{
    if (depth > m->st.max_depth)
        m->st.max_depth = depth;
}

/* Tuples, lists, sets: a size, then that many values. */
static int r_sequence(pdb_marshal *m, unsigned type, int depth, pdb_mval *v)
{
    size_t n;
    if (r_size(m, type == ')', 1, &n, "a container size") != PDB_OK)
        return PDB_ERR;
    v->type = type == '[' ? PDB_MV_LIST : (type == '<' || type == '>') ? PDB_MV_SET
                                                                      : PDB_MV_TUPLE;
    v->u.seq.n = n;
    v->u.seq.v = n ? arena_alloc(m, n * sizeof(pdb_mval *)) : NULL;
    for (size_t i = 0; i < n; i++) {
        if (r_object(m, depth + 1, &v->u.seq.v[i]) != PDB_OK)
            return PDB_ERR;
        if (!v->u.seq.v[i])
            return fail(m, m->pos - 1, "unexpected NULL inside a container (corrupted dump?)");
    }
    return PDB_OK;
}

/* Dicts: key, value pairs until a NULL key. */
static int r_dict(pdb_marshal *m, int depth, pdb_mval *v)
{
    pdb_mval **items = NULL;
    size_t n = 0, cap = 0;
    int rc = PDB_OK;
    for (;;) {
        pdb_mval *key, *val;
        if ((rc = r_object(m, depth + 1, &key)) != PDB_OK)
            break;
        if (!key)
            break;
        size_t at = m->pos;
        if ((rc = r_object(m, depth + 1, &val)) != PDB_OK)
            break;
        if (!val) {
            rc = fail(m, at, "dict value missing (corrupted dump?)");
            break;
        }
        if (n + 2 > cap) {
            cap = cap ? cap * 2 : 16;
            items = pdb_xrealloc(items, cap * sizeof *items);
        }
        items[n++] = key;
        items[n++] = val;
    }
    if (rc == PDB_OK) {
        v->u.seq.n = n;
        v->u.seq.v = n ? arena_alloc(m, n * sizeof *items) : NULL;
        if (n)
            memcpy(v->u.seq.v, items, n * sizeof *items);
    }
    free(items);
    return rc;
}

static int r_ref(pdb_marshal *m, size_t at, pdb_mval **out)
{
    int32_t idx;
    if (r_int32(m, &idx, "a reference index") != PDB_OK)
        return PDB_ERR;
    m->st.backrefs++;
    if (idx < 0 || (size_t)idx >= m->nrefs)
        return pdb_fail_at(m->path, (int64_t)at,
                           "back-reference %d to an object not seen yet (corrupted dump?)",
                           (int)idx);
    if (!m->refs[idx])
        return pdb_fail_at(m->path, (int64_t)at,
                           "back-reference %d to an unfinished container (corrupted dump?)",
                           (int)idx);
    *out = m->refs[idx];
    return PDB_OK;
}

/* Reads one value; *out is NULL for TYPE_NULL (the end of a dict). */
static int r_object(pdb_marshal *m, int depth, pdb_mval **out)
{
    *out = NULL;
    size_t at = m->pos;
    unsigned code;
    if (r_byte(m, &code, "a type code") != PDB_OK)
        return PDB_ERR;
    if (depth > PDB_MARSHAL_MAX_DEPTH)
        return pdb_fail_at(m->path, (int64_t)at, "values nested deeper than %d levels",
                           PDB_MARSHAL_MAX_DEPTH);
    unsigned type = code & 0x7F;
    bool flag = code & FLAG_REF;
    (flag ? m->st.flagged : m->st.plain)[type]++;

    switch (type) {
    case '0':
        return PDB_OK;
    case 'N': *out = new_val(m, PDB_MV_NONE, at); return PDB_OK;
    case 'F': *out = new_val(m, PDB_MV_BOOL, at); return PDB_OK;
    case 'T': *out = new_val(m, PDB_MV_BOOL, at); (*out)->u.i = 1; return PDB_OK;
    case '.': *out = new_val(m, PDB_MV_ELLIPSIS, at); return PDB_OK;
    case 'S': *out = new_val(m, PDB_MV_STOPITER, at); return PDB_OK;
    case 'r': return r_ref(m, at, out);
    case 'c':
        return fail(m, at, "a code object (not a pstats dump)");
    case 'x': case 'y':
        return fail(m, at, "a complex number (not a pstats dump)");
    default:
        break;
    }

    size_t ref = flag ? reserve_ref(m) : 0;
    pdb_mval *v = new_val(m, PDB_MV_NONE, at);
    int rc;
    switch (type) {
    case 'i': {
        int32_t x;
        v->type = PDB_MV_INT;
        rc = r_int32(m, &x, "a 4-byte int");
        if (rc == PDB_OK)   /* x is unset after a failed read */
            v->u.i = x;
        break;
    }
    case 'l': v->type = PDB_MV_INT; rc = r_long(m, v); break;
    case 'f': v->type = PDB_MV_FLOAT; rc = r_float_text(m, v); break;
    case 'g': v->type = PDB_MV_FLOAT; rc = r_float_binary(m, v); break;
    case 's': case 'u': case 't': case 'a': case 'A': case 'z': case 'Z':
        v->type = PDB_MV_STR;
        rc = r_string(m, type, v);
        break;
    case '(': case ')': case '[': case '<': case '>':
        note_depth(m, depth);
        rc = r_sequence(m, type, depth, v);
        break;
    case '{':
        v->type = PDB_MV_DICT;
        note_depth(m, depth);
        rc = r_dict(m, depth, v);
        break;
    default:
        return pdb_fail_at(m->path, (int64_t)at, "unknown marshal type code 0x%02x", code);
    }
    if (rc != PDB_OK)
        return rc;
    if (flag)
        m->refs[ref] = v;
    *out = v;
    return PDB_OK;
}

int pdb_marshal_load(pdb_marshal *m, const char *path, const unsigned char *data, size_t len,
                     int allow_trailing, const pdb_mval **out)
{
    m->p = data;
    m->len = len;
    m->pos = 0;
    m->path = path;
    pdb_mval *v;
    if (r_object(m, 1, &v) != PDB_OK)
        return PDB_ERR;
    if (!v)
        return fail(m, 0, "a value, not NULL");
    m->st.refs = (int64_t)m->nrefs;
    if (!allow_trailing && m->pos != len)
        return pdb_fail_at(path, (int64_t)m->pos,
                           "%zu unexpected bytes after the end of the marshal data",
                           len - m->pos);
    *out = v;
    return PDB_OK;
}
