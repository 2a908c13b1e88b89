/* pstats.c: the reader for cProfile/pstats dumps (marshal) -> pstats_* tables.
 *
 * A dump is small enough (MBs) to decode whole: read it into memory (capped),
 * decode it with marshal.c, check every entry's shape before anything is
 * stored, then add it to the run's functions and edges the way pstats'
 * Stats.add() does: counts and times are summed, new functions and new
 * callers are appended in dump order. Duplicate dict keys behave as in
 * Python (the last value wins, at the first key's position). */
#include "ingest/readers.h"
#include "ingest/pstats/marshal.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* A dump is decoded in memory (marshal has no streaming form). cProfile
 * dumps of large programs are a few MB, so this only stops a wrong file or a
 * decompression bomb from taking the machine's memory. */
#define MAX_DUMP_BYTES ((size_t)256 << 20)

typedef struct {
    const pdb_mval *file, *name;
    int64_t line;
} fkey;

/* One stats entry, or (with callers NULL) one callers entry. */
typedef struct {
    fkey key;
    int64_t cc, nc;
    double tt, ct;
    const pdb_mval *callers;
} entry;

typedef struct {
    entry *v;
    size_t n, cap;
    pdb_strmap *index;   /* key bytes -> position, for duplicate keys */
} entry_list;

/* ---- sniffing ------------------------------------------------------- */

/* A marshal dict ('{', maybe with FLAG_REF) whose first key is a tuple,
 * a back-reference, or the dict's end. */
int pdb_sniff_pstats(const unsigned char *d, size_t len)
{
    if (len < 2 || (d[0] & 0x7F) != '{')
        return PDB_SNIFF_NO;
    unsigned t = d[1] & 0x7F;
    if (t == '(' || t == ')')
        return PDB_SNIFF_SURE;
    if (t == '0' && len == 2)
        return PDB_SNIFF_LIKELY;   /* an empty stats dict */
    return PDB_SNIFF_NO;
}

/* ---- reading the file ----------------------------------------------- */

/* The first byte of a dump is a marshal dict ('{', 0x7b, or with FLAG_REF
 * 0xfb); anything else is refused at once, not after reading it all. */
static int refuse_top(pdb_source *src, unsigned first)
{
    unsigned code = first & 0x7F;
    if (code == 'c')
        return pdb_fail_at(src->path, 0, "expected a dict of functions, found a code object "
                                         "(not a pstats dump)");
    if (code >= 0x20 && code < 0x7F)
        return pdb_fail_at(src->path, 0, "expected a dict of functions at the top of the dump "
                                         "(marshal type '{'), found type '%c' (not a pstats "
                                         "dump?)", (int)code);
    return pdb_fail_at(src->path, 0, "expected a dict of functions at the top of the dump "
                                     "(marshal type '{'), found byte 0x%02x (not a pstats dump?)",
                       first);
}

static int slurp(pdb_source *src, unsigned char **data, size_t *len)
{
    size_t cap = 1 << 20, n = 0;
    int64_t size = pdb_input_size(src->in);
    if (size > 0 && (uint64_t)size < MAX_DUMP_BYTES)
        cap = (size_t)size + 1;
    unsigned char *buf = pdb_xmalloc(cap);
    for (;;) {
        if (n == cap) {
            if (cap >= MAX_DUMP_BYTES) {
                free(buf);
                return pdb_fail_at(src->path, (int64_t)n,
                                   "pstats dump larger than %zu MiB (refusing to load it)",
                                   MAX_DUMP_BYTES >> 20);
            }
            cap = cap * 2 > MAX_DUMP_BYTES ? MAX_DUMP_BYTES : cap * 2;
            buf = pdb_xrealloc(buf, cap);
        }
        ssize_t got = pdb_input_read(src->in, buf + n, cap - n);
        if (got < 0) {
            free(buf);
            return PDB_ERR;
        }
        if (got == 0)
            break;
        if (n == 0 && (buf[0] & 0x7F) != '{') { /* refuse before reading it all */
            unsigned first = buf[0];
            free(buf);
            return refuse_top(src, first);
        }
        n += (size_t)got;
    }
    *data = buf;
    *len = n;
    return PDB_OK;
}

/* ---- checking shapes ------------------------------------------------- */

static bool is_tuple(const pdb_mval *v, size_t n)
{
    return v->type == PDB_MV_TUPLE && v->u.seq.n == n;
}

static bool get_number(const pdb_mval *v, double *out)
{
    if (v->type == PDB_MV_FLOAT)
        *out = v->u.f;
    else if (v->type == PDB_MV_INT)
        *out = (double)v->u.i;
    else
        return false;
    return true;
}

static int bad(pdb_source *src, const pdb_mval *v, const char *expected)
{
    if (v->type == PDB_MV_TUPLE)
        return pdb_fail_at(src->path, v->offset,
                           "expected %s, found a tuple of %zu (not a pstats dump?)", expected,
                           v->u.seq.n);
    return pdb_fail_at(src->path, v->offset, "expected %s, found %s (not a pstats dump?)",
                       expected, pdb_mval_type_name(v->type));
}

static int get_key(pdb_source *src, const pdb_mval *k, fkey *out)
{
    const char *what = "a (file, line, function) tuple as a function key";
    if (!is_tuple(k, 3))
        return bad(src, k, what);
    const pdb_mval *f = k->u.seq.v[0], *l = k->u.seq.v[1], *n = k->u.seq.v[2];
    if (f->type != PDB_MV_STR)
        return bad(src, f, "a file name (str)");
    if (l->type != PDB_MV_INT)
        return bad(src, l, "a line number (int)");
    if (n->type != PDB_MV_STR)
        return bad(src, n, "a function name (str)");
    *out = (fkey){f, n, l->u.i};
    return PDB_OK;
}

/* Reads the 4 numbers of a stats value (cc, nc, tt, ct) or of a callers
 * value (nc, cc, tt, ct): the order is the caller's to say. */
static int get_counts(pdb_source *src, const pdb_mval *t, int64_t *c0, int64_t *c1, double *tt,
                      double *ct)
{
    const pdb_mval *const *v = (const pdb_mval *const *)t->u.seq.v;
    if (v[0]->type != PDB_MV_INT)
        return bad(src, v[0], "a call count (int)");
    if (v[1]->type != PDB_MV_INT)
        return bad(src, v[1], "a call count (int)");
    if (!get_number(v[2], tt))
        return bad(src, v[2], "a time in seconds (float)");
    if (!get_number(v[3], ct))
        return bad(src, v[3], "a time in seconds (float)");
    /* cProfile never writes these; SQL would store NULL and sums would vanish */
    if (!isfinite(*tt) || !isfinite(*ct))
        return pdb_fail_at(src->path, isfinite(*tt) ? v[3]->offset : v[2]->offset,
                           "expected a finite time in seconds, found %g",
                           isfinite(*tt) ? *ct : *tt);
    *c0 = v[0]->u.i;
    *c1 = v[1]->u.i;
    return PDB_OK;
}

/* Call counts beyond 2^53 are not counts cProfile can have made (a
 * function called 9e15 times); they would overflow 64-bit sums when dumps
 * are merged, so such entries are skipped and counted, not stored. */
#define MAX_CALLS (INT64_C(1) << 53)
static const char *const calls_out_of_range = "call count out of range (negative or above 2^53)";

static bool counts_ok(const entry *e)
{
    return e->cc >= 0 && e->nc >= 0 && e->cc <= MAX_CALLS && e->nc <= MAX_CALLS;
}

static void key_bytes(const fkey *k, pdb_buf *b)
{
    pdb_buf_reset(b);
    pdb_buf_add(b, k->file->u.s.p, k->file->u.s.len);
    pdb_buf_addf(b, "%c%lld%c", 0, (long long)k->line, 0);
    pdb_buf_add(b, k->name->u.s.p, k->name->u.s.len);
}

/* Appends e, or replaces the entry with the same key (Python dict rules). */
static void list_put(entry_list *l, const entry *e, pdb_buf *kb)
{
    key_bytes(&e->key, kb);
    int64_t at;
    if (pdb_strmap_get(l->index, kb->p, kb->len, &at)) {
        l->v[at] = *e;
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = pdb_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    pdb_strmap_put(l->index, kb->p, kb->len, (int64_t)l->n);
    l->v[l->n++] = *e;
}

/* Checks the whole stats dict and lists its entries in dict order. */
static int collect_functions(pdb_source *src, const pdb_mval *top, entry_list *out)
{
    if (top->type != PDB_MV_DICT)
        return bad(src, top, "a dict of functions at the top of the dump");
    pdb_buf kb = PDB_BUF_INIT;
    int rc = PDB_OK;
    for (size_t i = 0; i + 1 < top->u.seq.n && rc == PDB_OK; i += 2) {
        const pdb_mval *val = top->u.seq.v[i + 1];
        entry e = {0};
        rc = get_key(src, top->u.seq.v[i], &e.key);
        if (rc != PDB_OK)
            break;
        if (!is_tuple(val, 5)) {
            rc = bad(src, val, "a (cc, nc, tt, ct, callers) tuple");
            break;
        }
        rc = get_counts(src, val, &e.cc, &e.nc, &e.tt, &e.ct);
        e.callers = val->u.seq.v[4];
        if (rc == PDB_OK && e.callers->type != PDB_MV_DICT)
            rc = bad(src, e.callers, "a dict of callers");
        if (rc == PDB_OK && !counts_ok(&e))
            pdb_skip(src, calls_out_of_range);
        else if (rc == PDB_OK)
            list_put(out, &e, &kb);
    }
    pdb_buf_free(&kb);
    return rc;
}

/* count: count skipped entries (the storing pass; the checking pass reads
 * the same dicts first and must not count them twice). */
static int collect_callers(pdb_source *src, const pdb_mval *d, entry_list *out, pdb_buf *kb,
                           bool count)
{
    for (size_t i = 0; i + 1 < d->u.seq.n; i += 2) {
        const pdb_mval *val = d->u.seq.v[i + 1];
        entry e = {0};
        if (get_key(src, d->u.seq.v[i], &e.key) != PDB_OK)
            return PDB_ERR;
        if (val->type == PDB_MV_INT)
            return pdb_fail_at(src->path, val->offset,
                               "callers hold plain counts (a dump of the pure-Python 'profile' "
                               "module); only cProfile dumps are supported");
        if (!is_tuple(val, 4))
            return bad(src, val, "an (nc, cc, tt, ct) tuple for a caller");
        if (get_counts(src, val, &e.nc, &e.cc, &e.tt, &e.ct) != PDB_OK)
            return PDB_ERR;
        if (!counts_ok(&e)) {
            if (count)
                pdb_skip(src, calls_out_of_range);
        } else {
            list_put(out, &e, kb);
        }
    }
    return PDB_OK;
}

/* ---- storing ---------------------------------------------------------- */

typedef struct {
    pdb_source *src;
    sqlite3 *db;
    sqlite3_stmt *find, *add_func, *upd_func, *promote, *find_edge, *add_edge, *upd_edge, *top;
    int64_t next_ord, next_edge_ord;
    pdb_buf std;
} store;

/* The statements of store, in its order (pstats.sql). */
static const char *const store_queries[] = {
    "pstats.find_function", "pstats.add_function", "pstats.add_to_function",
    "pstats.promote_function", "pstats.find_edge", "pstats.add_edge", "pstats.add_to_edge",
    "pstats.top_level",
};

/* pstats' func_std_string(): "{built-in ...}" for ('~', 0, '<...>'). */
static void std_name(const fkey *k, pdb_buf *b)
{
    const char *f = k->file->u.s.p, *n = k->name->u.s.p;
    size_t fl = k->file->u.s.len, nl = k->name->u.s.len;
    pdb_buf_reset(b);
    if (fl == 1 && f[0] == '~' && k->line == 0) {
        if (nl >= 2 && n[0] == '<' && n[nl - 1] == '>') {
            pdb_buf_addc(b, '{');
            pdb_buf_add(b, n + 1, nl - 2);
            pdb_buf_addc(b, '}');
        } else {
            pdb_buf_add(b, n, nl);
        }
        return;
    }
    pdb_buf_add(b, f, fl);
    pdb_buf_addf(b, ":%lld(", (long long)k->line);
    pdb_buf_add(b, n, nl);
    pdb_buf_addc(b, ')');
}

static void bind_key(sqlite3_stmt *st, int first, const fkey *k)
{
    sqlite3_bind_text(st, first, k->file->u.s.p, (int)k->file->u.s.len, SQLITE_STATIC);
    sqlite3_bind_int64(st, first + 1, k->line);
    sqlite3_bind_text(st, first + 2, k->name->u.s.p, (int)k->name->u.s.len, SQLITE_STATIC);
}

/* Finds or creates the row of a function; a stats key (as_stats) gets its
 * counts added, and a caller-only row becomes a stats entry at the end of
 * the dict order, as Stats.add() inserts a new key. */
/* Runs a merging UPDATE (Stats.add) whose RETURNING says whether the sums
 * are still integers: SQLite turns an overflowing integer sum into a float
 * without a word, and a count of 9.2e18 calls would then print as one. */
static int merge_done(store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    bool fits = rc != SQLITE_ROW || sqlite3_column_int(st, 0);
    while (rc == SQLITE_ROW)
        rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return pdb_db_fail(s->db, "database error");
    return fits ? PDB_OK
                : pdb_fail("%s: merged call counts add up beyond 64-bit integers", s->src->path);
}

static int put_function(store *s, const entry *e, bool as_stats, int64_t *id)
{
    sqlite3_stmt *st = s->find;
    sqlite3_bind_int64(st, 1, s->src->run_id);
    bind_key(st, 2, &e->key);
    int rc = sqlite3_step(st);
    bool found = rc == SQLITE_ROW, was_stats = found && sqlite3_column_int(st, 1);
    if (found)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(s->db, "database error");
    if (!found) {
        st = s->add_func;
        std_name(&e->key, &s->std);
        sqlite3_bind_int64(st, 1, s->src->run_id);
        sqlite3_bind_int64(st, 2, s->src->source_id);
        sqlite3_bind_int64(st, 3, as_stats ? s->next_ord++ : -1);
        sqlite3_bind_int(st, 4, as_stats);
        bind_key(st, 5, &e->key);
        sqlite3_bind_text(st, 8, s->std.p, (int)s->std.len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 9, as_stats ? e->cc : 0);
        sqlite3_bind_int64(st, 10, as_stats ? e->nc : 0);
        sqlite3_bind_double(st, 11, as_stats ? e->tt : 0.0);
        sqlite3_bind_double(st, 12, as_stats ? e->ct : 0.0);
        if (pdb_db_step_done(s->db, st) != PDB_OK)
            return PDB_ERR;
        *id = sqlite3_last_insert_rowid(s->db);
        return PDB_OK;
    }
    if (!as_stats)
        return PDB_OK;
    if (!was_stats) {
        sqlite3_bind_int64(s->promote, 1, *id);
        sqlite3_bind_int64(s->promote, 2, s->next_ord++);
        if (pdb_db_step_done(s->db, s->promote) != PDB_OK)
            return PDB_ERR;
    }
    st = s->upd_func;
    sqlite3_bind_int64(st, 1, *id);
    sqlite3_bind_int64(st, 2, e->cc);
    sqlite3_bind_int64(st, 3, e->nc);
    sqlite3_bind_double(st, 4, e->tt);
    sqlite3_bind_double(st, 5, e->ct);
    return merge_done(s, st);
}

static int put_edge(store *s, int64_t callee, int64_t caller, const entry *e)
{
    sqlite3_stmt *st = s->find_edge;
    sqlite3_bind_int64(st, 1, s->src->run_id);
    sqlite3_bind_int64(st, 2, callee);
    sqlite3_bind_int64(st, 3, caller);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(s->db, "database error");
    bool found = rc == SQLITE_ROW;
    st = found ? s->upd_edge : s->add_edge;
    int i = 1;
    sqlite3_bind_int64(st, i++, s->src->run_id);
    sqlite3_bind_int64(st, i++, callee);
    sqlite3_bind_int64(st, i++, caller);
    if (!found)
        sqlite3_bind_int64(st, i++, s->next_edge_ord++);
    sqlite3_bind_int64(st, i++, e->nc);
    sqlite3_bind_int64(st, i++, e->cc);
    sqlite3_bind_double(st, i++, e->tt);
    sqlite3_bind_double(st, i, e->ct);
    return found ? merge_done(s, st) : pdb_db_step_done(s->db, st);
}

static int mark_top_level(store *s, int64_t id)
{
    sqlite3_bind_int64(s->top, 1, id);
    return pdb_db_step_done(s->db, s->top);
}

static bool is_jprofile(const fkey *k)
{
    return k->line == 0 && k->file->u.s.len == 8 && memcmp(k->file->u.s.p, "jprofile", 8) == 0 &&
           k->name->u.s.len == 8 && memcmp(k->name->u.s.p, "profiler", 8) == 0;
}

/* ?1 = run: the query's one number. */
static int next_ord(sqlite3 *db, const char *name, int64_t run_id, int64_t *out)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, name, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    pdb_db_release(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "database error");
}

static int store_open(store *s, pdb_source *src)
{
    memset(s, 0, sizeof *s);
    s->src = src;
    s->db = src->db;
    sqlite3_stmt **sts[] = {&s->find, &s->add_func, &s->upd_func, &s->promote,
                            &s->find_edge, &s->add_edge, &s->upd_edge, &s->top};
    for (size_t i = 0; i < sizeof sts / sizeof *sts; i++)
        if (pdb_ingest_prepare(s->db, store_queries[i], sts[i]) != PDB_OK)
            return PDB_ERR;
    if (next_ord(s->db, "pstats.next_function_ord", src->run_id, &s->next_ord) != PDB_OK)
        return PDB_ERR;
    return next_ord(s->db, "pstats.next_edge_ord", src->run_id, &s->next_edge_ord);
}

static void store_close(store *s)
{
    sqlite3_stmt *sts[] = {s->find, s->add_func, s->upd_func, s->promote,
                           s->find_edge, s->add_edge, s->upd_edge, s->top};
    for (size_t i = 0; i < sizeof sts / sizeof *sts; i++)
        pdb_db_release(sts[i]);
    pdb_buf_free(&s->std);
}

/* Adds one function and its callers to the run. */
static int store_function(store *s, const entry *f, const entry_list *callers, int64_t *nedges)
{
    int64_t callee;
    if (put_function(s, f, true, &callee) != PDB_OK)
        return PDB_ERR;
    for (size_t i = 0; i < callers->n; i++) {
        const entry *c = &callers->v[i];
        int64_t caller;
        if (put_function(s, c, false, &caller) != PDB_OK || put_edge(s, callee, caller, c) != PDB_OK)
            return PDB_ERR;
        if (is_jprofile(&c->key) && mark_top_level(s, callee) != PDB_OK)
            return PDB_ERR;
    }
    *nedges += (int64_t)callers->n;
    return PDB_OK;
}

/* ---- the dump row ------------------------------------------------------ */

typedef struct {
    int64_t functions, edges, total_calls, prim_calls;
    double total_tt;
} dump_totals;

/* The run's totals are the sums of its dumps' (Stats.add): refused when
 * they leave 64-bit integers, which would make every report of the run
 * print a wrapped (negative) call count. */
static int check_run_totals(pdb_source *src, const dump_totals *t)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(src->db, "pstats.run_totals", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, src->run_id);
    int64_t total = t->total_calls, prim = t->prim_calls;
    bool fits = true;
    int rc = SQLITE_DONE;
    while (fits && (rc = sqlite3_step(st)) == SQLITE_ROW)
        fits = !__builtin_add_overflow(total, sqlite3_column_int64(st, 0), &total) &&
               !__builtin_add_overflow(prim, sqlite3_column_int64(st, 1), &prim);
    pdb_db_release(st);
    if (fits && rc != SQLITE_DONE)
        return pdb_db_fail(src->db, "database error");
    if (fits)
        return PDB_OK;
    char *run = NULL;
    if (pdb_run_name(src->db, "main", src->run_id, &run) != PDB_OK)
        return PDB_ERR;
    rc = pdb_fail("%s: run '%s': the call counts of its pstats dumps add up beyond 64-bit "
                  "integers (%lld function calls in this dump on top of the earlier dumps'); "
                  "ingest it into a run of its own", src->path, run ? run : "",
                  (long long)t->total_calls);
    free(run);
    return rc;
}

static int store_dump(pdb_source *src, const dump_totals *t)
{
    if (check_run_totals(src, t) != PDB_OK)
        return PDB_ERR;
    struct stat stbuf;
    bool have_mtime = strcmp(src->path, "-") != 0 && stat(src->path, &stbuf) == 0;
    pdb_buf line = PDB_BUF_INIT;
    double mtime = 0;
    if (have_mtime) {
        /* time.ctime(): "Wed Nov 25 21:13:12 2026", local time. */
        char when[64];
        struct tm tm;
        time_t secs = stbuf.st_mtim.tv_sec;
        mtime = (double)stbuf.st_mtim.tv_sec + stbuf.st_mtim.tv_nsec / 1e9;
        localtime_r(&secs, &tm);
        strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm);
        pdb_buf_addf(&line, "%s    %s", when, src->path);
    } else {
        pdb_buf_adds(&line, src->path);
    }
    sqlite3_stmt *st;
    int rc = pdb_ingest_prepare(src->db, "pstats.add_dump", &st);
    if (rc == PDB_OK) {
        sqlite3_bind_int64(st, 1, src->source_id);
        sqlite3_bind_int64(st, 2, src->run_id);
        sqlite3_bind_text(st, 3, src->path, -1, SQLITE_STATIC);
        if (have_mtime)
            sqlite3_bind_double(st, 4, mtime);
        sqlite3_bind_text(st, 5, line.p, (int)line.len, SQLITE_STATIC);
        sqlite3_bind_int64(st, 6, t->functions);
        sqlite3_bind_int64(st, 7, t->edges);
        sqlite3_bind_int64(st, 8, t->total_calls);
        sqlite3_bind_int64(st, 9, t->prim_calls);
        sqlite3_bind_double(st, 10, t->total_tt);
        rc = pdb_db_step_done(src->db, st);
        pdb_db_release(st);
    }
    pdb_buf_free(&line);
    return rc;
}

/* ---- the reader -------------------------------------------------------- */

static void list_free(entry_list *l)
{
    free(l->v);
    pdb_strmap_free(l->index);
}

/* Checks every callers dict before the first row is written. */
static int check_all_callers(pdb_source *src, const entry_list *funcs)
{
    pdb_buf kb = PDB_BUF_INIT;
    int rc = PDB_OK;
    for (size_t i = 0; i < funcs->n && rc == PDB_OK; i++) {
        entry_list callers = {.index = pdb_strmap_new()};
        rc = collect_callers(src, funcs->v[i].callers, &callers, &kb, false);
        list_free(&callers);
    }
    pdb_buf_free(&kb);
    return rc;
}

static int store_all(pdb_source *src, const entry_list *funcs, dump_totals *t)
{
    store s;
    pdb_buf kb = PDB_BUF_INIT;
    int rc = store_open(&s, src);
    for (size_t i = 0; i < funcs->n && rc == PDB_OK; i++) {
        const entry *f = &funcs->v[i];
        entry_list callers = {.index = pdb_strmap_new()};
        rc = collect_callers(src, f->callers, &callers, &kb, true);
        if (rc == PDB_OK)
            rc = store_function(&s, f, &callers, &t->edges);
        list_free(&callers);
        /* Stats.get_top_level_stats(): summed in dict order, checked. */
        if (rc == PDB_OK && (__builtin_add_overflow(t->total_calls, f->nc, &t->total_calls) ||
                             __builtin_add_overflow(t->prim_calls, f->cc, &t->prim_calls)))
            rc = pdb_fail("%s: the call counts add up beyond 64-bit integers", src->path);
        t->total_tt += f->tt;
        src->records++;
        pdb_progress(src, src->records);
    }
    t->functions = (int64_t)funcs->n;
    store_close(&s);
    pdb_buf_free(&kb);
    return rc;
}

int pdb_read_pstats(pdb_source *src)
{
    src->format = "pstats";
    unsigned char *data = NULL;
    size_t len = 0;
    if (slurp(src, &data, &len) != PDB_OK)
        return PDB_ERR;
    if (len == 0) {
        free(data);
        return pdb_fail("%s: empty input (expected a pstats dump)", src->path);
    }
    pdb_marshal *m = pdb_marshal_new();
    const pdb_mval *top;
    entry_list funcs = {.index = pdb_strmap_new()};
    dump_totals t = {0};
    int rc = pdb_marshal_load(m, src->path, data, len, 0, &top);
    if (rc == PDB_OK)
        rc = collect_functions(src, top, &funcs);
    if (rc == PDB_OK)
        rc = check_all_callers(src, &funcs);
    if (rc == PDB_OK)
        rc = store_all(src, &funcs, &t);
    if (rc == PDB_OK)
        rc = store_dump(src, &t);
    list_free(&funcs);
    pdb_marshal_free(m);
    free(data);
    return rc;
}
