/* pyspy_store.c: the writer the py-spy readers share (see pyspy_store.h).
 *
 * Memory: frame ids are remembered by their printed text in two
 * generations of at most FRAME_CACHE_BYTES of keys (as source.c interns
 * strings); node ids in a direct-mapped table of NODE_CACHE slots keyed by
 * (parent, frame), where a collision simply overwrites. A miss costs one
 * lookup in the UNIQUE index, never a wrong id. */
#include "ingest/pyspy/pyspy_store.h"
#include "ingest/queries.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/strmap.h"
#include "common/utf8.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define FRAME_CACHE_BYTES (8 << 20)
#define NODE_CACHE (1 << 16)

typedef struct {
    int64_t parent, frame, node;
} node_slot;

struct pdb_pyspy_store {
    pdb_source *src;
    sqlite3 *db;
    sqlite3_stmt *add_profile, *done_profile, *find_frame, *add_frame, *find_node, *add_node,
        *add_samples;
    pdb_strmap *frames, *frames_old;
    size_t frames_bytes;
    node_slot *nodes;
    pdb_buf key, name, file;
};

static const char *const kind_text[] = {
    [PDB_PYSPY_PYTHON] = "python", [PDB_PYSPY_NATIVE] = "native",
    [PDB_PYSPY_PROCESS] = "process", [PDB_PYSPY_THREAD] = "thread",
};

pdb_pyspy_store *pdb_pyspy_store_open(pdb_source *src)
{
    pdb_pyspy_store *s = pdb_xcalloc(1, sizeof *s);
    s->src = src;
    s->db = src->db;
    s->frames = pdb_strmap_new();
    s->frames_old = pdb_strmap_new();
    s->nodes = pdb_xcalloc((size_t)NODE_CACHE, sizeof *s->nodes);
    static const char *const names[] = {
        "pyspy.add_profile", "pyspy.finish_profile", "pyspy.find_frame", "pyspy.add_frame",
        "pyspy.find_node",   "pyspy.add_node",       "pyspy.add_samples",
    };
    sqlite3_stmt **sts[] = {&s->add_profile, &s->done_profile, &s->find_frame, &s->add_frame,
                            &s->find_node,   &s->add_node,     &s->add_samples};
    for (size_t i = 0; i < sizeof sts / sizeof *sts; i++)
        if (pdb_ingest_prepare(s->db, names[i], sts[i]) != PDB_OK) {
            pdb_pyspy_store_close(s);
            return NULL;
        }
    return s;
}

void pdb_pyspy_store_close(pdb_pyspy_store *s)
{
    if (!s)
        return;
    sqlite3_stmt *sts[] = {s->add_profile, s->done_profile, s->find_frame, s->add_frame,
                           s->find_node,   s->add_node,     s->add_samples};
    for (size_t i = 0; i < sizeof sts / sizeof *sts; i++)
        pdb_db_release(sts[i]);
    pdb_strmap_free(s->frames);
    pdb_strmap_free(s->frames_old);
    free(s->nodes);
    pdb_buf_free(&s->key);
    pdb_buf_free(&s->name);
    pdb_buf_free(&s->file);
    free(s);
}

static void add_text(pdb_pyspy_store *s, pdb_buf *b, const char *t, size_t len);

/* ---- profiles ------------------------------------------------------------ */

int pdb_pyspy_profile(pdb_pyspy_store *s, const char *format, const char *name, size_t name_len,
                      bool exact, int64_t *profile_id)
{
    sqlite3_stmt *st = s->add_profile;
    sqlite3_bind_int64(st, 1, s->src->run_id);
    sqlite3_bind_int64(st, 2, s->src->source_id);
    sqlite3_bind_text(st, 3, format, -1, SQLITE_STATIC);
    pdb_buf_reset(&s->name);
    if (name) {
        if (pdb_utf8_needs_clean(name, name_len, 0)) {
            pdb_utf8_clean(&s->name, name, name_len, 0);
            s->src->text_replaced++;
        } else {
            pdb_buf_add(&s->name, name, name_len);
        }
        sqlite3_bind_text(st, 4, pdb_buf_str(&s->name), (int)s->name.len, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, 4);
    }
    sqlite3_bind_int(st, 5, exact);
    if (pdb_db_step_done(s->db, st) != PDB_OK)
        return PDB_ERR;
    *profile_id = sqlite3_last_insert_rowid(s->db);
    return PDB_OK;
}

int pdb_pyspy_profile_done(pdb_pyspy_store *s, int64_t profile_id, int64_t samples,
                           double rate_hz, const char *options, const char *name,
                           size_t name_len)
{
    sqlite3_stmt *st = s->done_profile;
    sqlite3_bind_int64(st, 1, profile_id);
    sqlite3_bind_int64(st, 2, samples);
    if (rate_hz > 0)
        sqlite3_bind_double(st, 3, rate_hz);
    else
        sqlite3_bind_null(st, 3);
    pdb_buf_reset(&s->name);
    if (options) {
        pdb_utf8_clean(&s->name, options, strlen(options), 0);
        sqlite3_bind_text(st, 4, pdb_buf_str(&s->name), (int)s->name.len, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, 4);
    }
    pdb_buf_reset(&s->file);
    if (name) {
        add_text(s, &s->file, name, name_len);
        sqlite3_bind_text(st, 5, pdb_buf_str(&s->file), (int)s->file.len, SQLITE_STATIC);
    } else {
        sqlite3_bind_null(st, 5);
    }
    return pdb_db_step_done(s->db, st);
}

/* ---- frames -------------------------------------------------------------- */

bool pdb_pyspy_is_process(const char *t, size_t len)
{
    static const char head[] = "process ";
    size_t n = sizeof head - 1, i = n;
    if (len < n || memcmp(t, head, n) != 0)
        return false;
    while (i < len && t[i] >= '0' && t[i] <= '9')
        i++;
    return i > n && i + 1 < len && t[i] == ':' && t[i + 1] == '"';
}

bool pdb_pyspy_is_thread(const char *t, size_t len)
{
    static const char head[] = "thread (";
    size_t n = sizeof head - 1, i = n;
    if (len < n || memcmp(t, head, n) != 0)
        return false;
    if (i + 1 < len && t[i] == '0' && t[i + 1] == 'x') {
        i += 2;
        size_t d = i;
        while (i < len && strchr("0123456789abcdefABCDEF", t[i]) && t[i])
            i++;
        if (i == d)
            return false;
    } else {
        size_t d = i;
        while (i < len && t[i] >= '0' && t[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    if (i >= len || t[i] != ')')
        return false;
    i++;
    return i == len || (len - i >= 2 && t[i] == ':' && t[i + 1] == ' ');
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
    size_t n = strlen(tail);
    return len >= n && memcmp(s + len - n, tail, n) == 0;
}

/* A shared object's name: .so, .so.1.2, .dylib, .dll, .pyd. */
static bool is_library(const char *f, size_t len)
{
    if (ends_with(f, len, ".dylib") || ends_with(f, len, ".dll") || ends_with(f, len, ".pyd") ||
        ends_with(f, len, ".so"))
        return true;
    /* .so.N(.N)*: strip the trailing numeric parts */
    size_t i = len;
    while (i > 0) {
        size_t j = i;
        while (j > 0 && f[j - 1] >= '0' && f[j - 1] <= '9')
            j--;
        if (j == i || j == 0 || f[j - 1] != '.')
            break;
        i = j - 1;
        if (ends_with(f, i, ".so"))
            return true;
    }
    return false;
}

/* The interpreter binary itself (python3.14, Python): native frames. */
static bool is_interpreter(const char *f, size_t len)
{
    size_t b = len;
    while (b > 0 && f[b - 1] != '/' && f[b - 1] != '\\')
        b--;
    const char *base = f + b;
    size_t n = len - b;
    if (n == 6 && memcmp(base, "Python", 6) == 0)
        return true;
    if (n < 6 || memcmp(base, "python", 6) != 0)
        return false;
    for (size_t i = 6; i < n; i++)
        if (!(base[i] == '.' || (base[i] >= '0' && base[i] <= '9')))
            return false;
    return true;
}

/* py-spy --native frames: a bare address, or a symbol in a shared object
 * or in the interpreter binary. */
static bool looks_native(const char *name, size_t nlen, const char *file, size_t flen)
{
    if (flen == 0)
        return false;
    if (nlen > 2 && name[0] == '0' && name[1] == 'x') {
        size_t i = 2;
        while (i < nlen && strchr("0123456789abcdefABCDEF", name[i]) && name[i])
            i++;
        if (i == nlen)
            return true;
    }
    return is_library(file, flen) || is_interpreter(file, flen);
}

/* Splits "name (file:line)" / "name (file)" / "name" at the last balanced
 * parenthesised group that ends the text and follows a space (the oracle's
 * rule: "C:\Program Files (x86)\a.py:3" stays one path). */
static void split_printed(const char *t, size_t len, size_t *nlen, const char **file,
                          size_t *flen, int64_t *line)
{
    *nlen = len;
    *file = "";
    *flen = 0;
    *line = 0;
    if (len == 0 || t[len - 1] != ')')
        return;
    int64_t depth = 0;
    size_t i = len;
    while (i-- > 0) {
        if (t[i] == ')')
            depth++;
        else if (t[i] == '(' && --depth == 0)
            break;
    }
    if (i == (size_t)-1 || i == 0 || t[i - 1] != ' ')
        return;
    const char *in = t + i + 1;
    size_t inlen = len - i - 2;
    *nlen = i - 1;
    *file = in;
    *flen = inlen;
    /* ":DIGITS" (or ":-DIGITS") at the end is the line */
    size_t j = inlen;
    while (j > 0 && in[j - 1] >= '0' && in[j - 1] <= '9')
        j--;
    if (j == inlen)
        return;
    size_t digits = j;
    bool neg = j > 0 && in[j - 1] == '-';
    if (neg)
        j--;
    if (j == 0 || in[j - 1] != ':' || inlen - digits > 18)
        return;
    int64_t v = 0;
    for (size_t k = digits; k < inlen; k++)
        v = v * 10 + (in[k] - '0');
    *line = neg ? -v : v;
    *flen = j - 1;
}

static void remember_frame(pdb_pyspy_store *s, const char *key, size_t len, int64_t id)
{
    size_t cost = len + 48, budget = (size_t)pdb_bound(FRAME_CACHE_BYTES, 256);
    if (s->frames_bytes + cost > budget) {
        pdb_bound_passed("py-spy frames: a cache generation dropped");
        pdb_strmap_free(s->frames_old);
        s->frames_old = s->frames;
        s->frames = pdb_strmap_new();
        s->frames_bytes = 0;
    }
    if (cost <= budget) {
        pdb_strmap_put(s->frames, key, len, id);
        s->frames_bytes += cost;
    }
}

static bool cached_frame(pdb_pyspy_store *s, int64_t *id)
{
    if (pdb_strmap_get(s->frames, s->key.p, s->key.len, id))
        return true;
    if (!pdb_strmap_get(s->frames_old, s->key.p, s->key.len, id))
        return false;
    remember_frame(s, s->key.p, s->key.len, *id);
    return true;
}

/* Appends text as valid UTF-8 (each bad sequence U+FFFD, counted). */
static void add_text(pdb_pyspy_store *s, pdb_buf *b, const char *t, size_t len)
{
    pdb_buf_reset(b);
    if (pdb_utf8_needs_clean(t, len, 0)) {
        pdb_utf8_clean(b, t, len, 0);
        s->src->text_replaced++;
    } else {
        pdb_buf_add(b, t, len);
    }
}

/* Adds the frame of s->name, s->file (clean UTF-8), or finds it when the
 * run has it: the insert is tried first, as most cache misses are new
 * frames. */
static int store_frame(pdb_pyspy_store *s, pdb_pyspy_kind kind, int64_t line, int64_t *id)
{
    sqlite3_stmt *sts[] = {s->add_frame, s->find_frame};
    for (int i = 0; i < 2; i++) {
        sqlite3_stmt *st = sts[i];
        sqlite3_bind_int64(st, 1, s->src->run_id);
        sqlite3_bind_text(st, 2, kind_text[kind], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, pdb_buf_str(&s->name), (int)s->name.len, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, pdb_buf_str(&s->file), (int)s->file.len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, line);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            *id = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return pdb_db_fail(s->db, "database error");
        if (i == 0 && sqlite3_changes(s->db) > 0) {
            *id = sqlite3_last_insert_rowid(s->db);
            return PDB_OK;
        }
        if (i == 1 && rc == SQLITE_ROW)
            return PDB_OK;
    }
    return pdb_fail("py-spy frame neither added nor found (database changed meanwhile?)");
}

int pdb_pyspy_frame_printed(pdb_pyspy_store *s, pdb_pyspy_kind kind, const char *text,
                            size_t len, int64_t *frame_id)
{
    pdb_buf_reset(&s->key);
    pdb_buf_addc(&s->key, (char)('a' + kind));
    pdb_buf_add(&s->key, text, len);
    if (cached_frame(s, frame_id))
        return PDB_OK;
    int64_t line = 0;
    if (kind == PDB_PYSPY_PROCESS || kind == PDB_PYSPY_THREAD) {
        add_text(s, &s->name, text, len);
        pdb_buf_reset(&s->file);
    } else {
        size_t nlen, flen;
        const char *file;
        split_printed(text, len, &nlen, &file, &flen, &line);
        if (looks_native(text, nlen, file, flen))
            kind = PDB_PYSPY_NATIVE;
        add_text(s, &s->name, text, nlen);
        add_text(s, &s->file, file, flen);
    }
    if (store_frame(s, kind, line, frame_id) != PDB_OK)
        return PDB_ERR;
    remember_frame(s, s->key.p, s->key.len, *frame_id);
    return PDB_OK;
}

int pdb_pyspy_frame(pdb_pyspy_store *s, pdb_pyspy_kind kind, const char *name, size_t nlen,
                    const char *file, size_t flen, int64_t line, int64_t *frame_id)
{
    pdb_buf_reset(&s->key);
    pdb_buf_addc(&s->key, (char)('A' + kind));
    pdb_buf_add(&s->key, name, nlen);
    pdb_buf_addc(&s->key, 0);
    pdb_buf_add(&s->key, file, flen);
    pdb_buf_addf(&s->key, "%c%lld", 0, (long long)line);
    if (cached_frame(s, frame_id))
        return PDB_OK;
    if (kind == PDB_PYSPY_PYTHON && looks_native(name, nlen, file, flen))
        kind = PDB_PYSPY_NATIVE;
    add_text(s, &s->name, name, nlen);
    add_text(s, &s->file, file, flen);
    if (store_frame(s, kind, line, frame_id) != PDB_OK)
        return PDB_ERR;
    remember_frame(s, s->key.p, s->key.len, *frame_id);
    return PDB_OK;
}

/* ---- nodes and samples ------------------------------------------------- */

static size_t node_slot_of(int64_t parent, int64_t frame)
{
    uint64_t h = (uint64_t)parent * 0x9E3779B97F4A7C15u ^ (uint64_t)frame * 0xC2B2AE3D27D4EB4Fu;
    h ^= h >> 29;
    return (size_t)(h & (uint64_t)(pdb_bound(NODE_CACHE, 4) - 1));
}

int pdb_pyspy_node(pdb_pyspy_store *s, int64_t parent, int64_t frame_id, int64_t depth,
                   int64_t *node_id)
{
    node_slot *slot = &s->nodes[node_slot_of(parent, frame_id)];
    if (slot->node && slot->parent == parent && slot->frame == frame_id) {
        *node_id = slot->node;
        return PDB_OK;
    }
    /* the insert first: most cache misses are new nodes */
    sqlite3_stmt *sts[] = {s->add_node, s->find_node};
    bool found = false;
    for (int i = 0; i < 2 && !found; i++) {
        sqlite3_stmt *st = sts[i];
        sqlite3_bind_int64(st, 1, s->src->run_id);
        sqlite3_bind_int64(st, 2, parent);
        sqlite3_bind_int64(st, 3, frame_id);
        if (i == 0)
            sqlite3_bind_int64(st, 4, depth);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            *node_id = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return pdb_db_fail(s->db, "database error");
        if (i == 0 && sqlite3_changes(s->db) > 0) {
            *node_id = sqlite3_last_insert_rowid(s->db);
            found = true;
        }
        found |= i == 1 && rc == SQLITE_ROW;
    }
    if (!found)
        return pdb_fail("py-spy stack node neither added nor found (database changed "
                        "meanwhile?)");
    *slot = (node_slot){parent, frame_id, *node_id};
    return PDB_OK;
}

int pdb_pyspy_samples(pdb_pyspy_store *s, int64_t profile_id, int64_t node_id, int64_t count)
{
    sqlite3_stmt *st = s->add_samples;
    sqlite3_bind_int64(st, 1, profile_id);
    sqlite3_bind_int64(st, 2, node_id);
    sqlite3_bind_int64(st, 3, s->src->run_id);
    sqlite3_bind_int64(st, 4, count);
    return pdb_db_step_done(s->db, st);
}
