/* pstats_model.c: loading, sorting and restricting pstats statistics
 * (see pstats_model.h). Mirrors CPython's Lib/pstats.py: get_sort_arg_defs(),
 * sort_stats() with TupleComp and a stable sort, eval_print_amount() and
 * get_print_list(). The queries are in report/queries/pstats.sql. */
#include "report/pstats_model.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "render/render.h"
#include "report/queries.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading ----------------------------------------------------------- */

static char *col_text(sqlite3_stmt *st, int c, size_t *len)
{
    const unsigned char *t = sqlite3_column_text(st, c);
    *len = (size_t)sqlite3_column_bytes(st, c);
    char *s = pdb_xmalloc(*len + 1);
    memcpy(s, t ? (const char *)t : "", *len);
    s[*len] = '\0';
    return s;
}

static int load_functions(sqlite3 *db, int64_t run_id, pdb_pstats *ps)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pstats.functions", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (ps->n == cap) {
            cap = cap ? cap * 2 : 256;
            ps->f = pdb_xrealloc(ps->f, cap * sizeof *ps->f);
        }
        pdb_pfunc *f = &ps->f[ps->n++];
        f->id = sqlite3_column_int64(st, 0);
        f->ord = sqlite3_column_int64(st, 1);
        f->file = col_text(st, 2, &f->file_len);
        f->line = sqlite3_column_int64(st, 3);
        f->name = col_text(st, 4, &f->name_len);
        f->std = col_text(st, 5, &f->std_len);
        f->cc = sqlite3_column_int64(st, 6);
        f->nc = sqlite3_column_int64(st, 7);
        f->tt = sqlite3_column_double(st, 8);
        f->ct = sqlite3_column_double(st, 9);
        f->top_level = sqlite3_column_int(st, 10);
        f->width = pdb_utf8_width(f->std, f->std_len);
        if (f->width > ps->max_name_len)
            ps->max_name_len = f->width;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "database error");
}

/* Totals are added dump by dump in ingest order, as Stats.add() does. */
static int load_dumps(sqlite3 *db, int64_t run_id, pdb_pstats *ps)
{
    sqlite3_stmt *st;
    if (pdb_report_prepare(db, "pstats.dumps", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc;
    bool fits = true;
    while (fits && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        pdb_buf_adds(&ps->files, (const char *)sqlite3_column_text(st, 0));
        pdb_buf_addc(&ps->files, '\n');
        ps->nfiles++;
        fits = !__builtin_add_overflow(ps->total_calls, sqlite3_column_int64(st, 1),
                                       &ps->total_calls) &&
               !__builtin_add_overflow(ps->prim_calls, sqlite3_column_int64(st, 2),
                                       &ps->prim_calls);
        ps->total_tt += sqlite3_column_double(st, 3);
    }
    /* Ingest and merge refuse such a run; a database written before they
     * did may hold one. Never a wrapped (negative) count. */
    if (!fits)
        rc = pdb_fail("run '%s': the call counts of its pstats dumps add up beyond 64-bit "
                      "integers (ingested before profdb refused that): ingest its dumps into "
                      "runs of their own", (const char *)sqlite3_column_text(st, 4));
    else
        rc = rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "database error");
    sqlite3_finalize(st);
    return rc;
}

int pdb_pstats_load(sqlite3 *db, int64_t run_id, pdb_pstats *ps)
{
    memset(ps, 0, sizeof *ps);
    if (load_dumps(db, run_id, ps) != PDB_OK || load_functions(db, run_id, ps) != PDB_OK)
        return PDB_ERR;
    if (ps->nfiles == 0)
        return pdb_fail("the run holds no pstats dump (ingest a cProfile/pstats file)");
    int64_t edges;
    if (pdb_report_number(db, "pstats.edge_count", run_id, &edges) != PDB_OK)
        return PDB_ERR;
    ps->has_edges = edges > 0;
    ps->list = pdb_xmalloc((ps->n ? ps->n : 1) * sizeof *ps->list);
    for (size_t i = 0; i < ps->n; i++)
        ps->list[i] = i;
    ps->nlist = ps->n;
    return PDB_OK;
}

void pdb_pstats_free(pdb_pstats *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->f[i].file);
        free(ps->f[i].name);
        free(ps->f[i].std);
    }
    free(ps->f);
    free(ps->list);
    pdb_buf_free(&ps->files);
    pdb_buf_free(&ps->msg);
    memset(ps, 0, sizeof *ps);
}

/* ---- sorting ------------------------------------------------------------- */

/* Stats.sort_arg_dict_default, in its order (the order matters for which
 * abbreviations are ambiguous). Field numbers are sort_stats()' tuple
 * indexes: 0 cc, 1 nc, 2 tt, 3 ct, 4 file, 5 line, 6 name, 7 std name. */
typedef struct {
    const char *word;
    int nfields;
    int field[3], dir[3];
    const char *desc;
} sort_def;

static const sort_def sort_defs[] = {
    {"calls", 1, {1}, {-1}, "call count"},
    {"ncalls", 1, {1}, {-1}, "call count"},
    {"cumtime", 1, {3}, {-1}, "cumulative time"},
    {"cumulative", 1, {3}, {-1}, "cumulative time"},
    {"filename", 1, {4}, {1}, "file name"},
    {"line", 1, {5}, {1}, "line number"},
    {"module", 1, {4}, {1}, "file name"},
    {"name", 1, {6}, {1}, "function name"},
    {"nfl", 3, {6, 4, 5}, {1, 1, 1}, "name/file/line"},
    {"pcalls", 1, {0}, {-1}, "primitive call count"},
    {"stdname", 1, {7}, {1}, "standard name"},
    {"time", 1, {2}, {-1}, "internal time"},
    {"tottime", 1, {2}, {-1}, "internal time"},
};
#define NSORT (sizeof sort_defs / sizeof *sort_defs)

/* get_sort_arg_defs(): every prefix of a word maps to it, walking the words
 * in order; a word's prefixes stop at the first one already taken, and that
 * one is dropped as ambiguous. Simulated once into a table. */
typedef struct {
    char frag[16];
    int def;     /* index into sort_defs, -1 when dropped */
} sort_frag;

static int sort_lookup(const char *w, size_t len)
{
    static sort_frag frags[128];
    static int nfrags = -1;
    if (nfrags < 0) {
        nfrags = 0;
        char bad[128][16];
        int nbad = 0;
        for (int i = 0; i < (int)NSORT; i++) {
            char frag[16];
            snprintf(frag, sizeof frag, "%s", sort_defs[i].word);
            for (size_t fl = strlen(frag); fl > 0; frag[--fl] = '\0') {
                int found = -1;
                for (int k = 0; k < nfrags; k++)
                    if (strcmp(frags[k].frag, frag) == 0)
                        found = k;
                if (found >= 0) {
                    snprintf(bad[nbad++], sizeof bad[0], "%s", frag);
                    break;
                }
                snprintf(frags[nfrags].frag, sizeof frags[0].frag, "%s", frag);
                frags[nfrags++].def = i;
            }
        }
        for (int b = 0; b < nbad; b++)
            for (int k = 0; k < nfrags; k++)
                if (strcmp(frags[k].frag, bad[b]) == 0)
                    frags[k].def = -1;
    }
    for (int k = 0; k < nfrags; k++)
        if (strlen(frags[k].frag) == len && strncmp(frags[k].frag, w, len) == 0)
            return frags[k].def;
    return -1;
}

typedef struct {
    int n;
    int field[24], dir[24];
} sort_spec;

static const pdb_pstats *sort_ps;
static const sort_spec *sort_sp;

static int cmp_bytes(const char *a, size_t al, const char *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

static int cmp_field(const pdb_pfunc *a, const pdb_pfunc *b, int field)
{
    switch (field) {
    case 0: return (a->cc > b->cc) - (a->cc < b->cc);
    case 1: return (a->nc > b->nc) - (a->nc < b->nc);
    case 2: return (a->tt > b->tt) - (a->tt < b->tt);
    case 3: return (a->ct > b->ct) - (a->ct < b->ct);
    case 4: return cmp_bytes(a->file, a->file_len, b->file, b->file_len);
    case 5: return (a->line > b->line) - (a->line < b->line);
    case 6: return cmp_bytes(a->name, a->name_len, b->name, b->name_len);
    default: return cmp_bytes(a->std, a->std_len, b->std, b->std_len);
    }
}

/* TupleComp.compare, then dict order: list.sort() is stable. */
static int cmp_funcs(const void *pa, const void *pb)
{
    const pdb_pfunc *a = &sort_ps->f[*(const size_t *)pa], *b = &sort_ps->f[*(const size_t *)pb];
    for (int i = 0; i < sort_sp->n; i++) {
        int c = cmp_field(a, b, sort_sp->field[i]);
        if (c)
            return c * sort_sp->dir[i];
    }
    return (a->ord > b->ord) - (a->ord < b->ord);
}

static int parse_sort(const char *keys, sort_spec *sp, pdb_buf *type)
{
    static const char *const old_keys[] = {"stdname", "calls", "time", "cumulative"};
    const char *connector = "";
    sp->n = 0;
    /* sort_stats(-1|0|1|2): the old profiler's numeric keys. */
    if (strcmp(keys, "-1") == 0 || (strlen(keys) == 1 && keys[0] >= '0' && keys[0] <= '2'))
        keys = old_keys[keys[0] == '-' ? 0 : keys[0] - '0' + 1];
    for (const char *p = keys; *p;) {
        size_t len = strcspn(p, ", ");
        if (len) {
            int d = sort_lookup(p, len);
            if (d < 0)
                return pdb_fail("--sort: unknown key '%.*s' (expected calls, ncalls, pcalls, "
                                "cumulative, cumtime, tottime, time, filename, module, line, "
                                "name, nfl, stdname, or a unique prefix)", (int)len, p);
            const sort_def *def = &sort_defs[d];
            for (int i = 0; i < def->nfields && sp->n < 24; i++, sp->n++) {
                sp->field[sp->n] = def->field[i];
                sp->dir[sp->n] = def->dir[i];
            }
            pdb_buf_addf(type, "%s%s", connector, def->desc);
            connector = ", ";
        }
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return PDB_OK;
}

int pdb_pstats_sort(pdb_pstats *ps, const char *keys)
{
    pdb_buf_reset(&ps->msg);
    for (size_t i = 0; i < ps->n; i++)
        ps->list[i] = i;
    ps->nlist = ps->n;
    sort_spec sp;
    pdb_buf type = PDB_BUF_INIT;
    if (keys && parse_sort(keys, &sp, &type) != PDB_OK) {
        pdb_buf_free(&type);
        return PDB_ERR;
    }
    /* `if self.fcn_list:` - an empty sort leaves the random order message. */
    ps->sorted = keys && sp.n > 0 && ps->n > 0;
    if (ps->sorted) {
        sort_ps = ps;
        sort_sp = &sp;
        qsort(ps->list, ps->n, sizeof *ps->list, cmp_funcs);
        pdb_buf_addf(&ps->msg, "   Ordered by: %s\n", pdb_buf_str(&type));
    } else {
        pdb_buf_adds(&ps->msg, "   Random listing order was used\n");
    }
    pdb_buf_free(&type);
    return PDB_OK;
}

/* ---- restrictions ---------------------------------------------------- */

void pdb_py_repr_str(const char *s, pdb_buf *out)
{
    char quote = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    pdb_buf_addc(out, quote);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if (c == (unsigned char)quote || c == '\\') {
            pdb_buf_addc(out, '\\');
            pdb_buf_addc(out, (char)c);
        } else if (c == '\t') {
            pdb_buf_adds(out, "\\t");
        } else if (c == '\n') {
            pdb_buf_adds(out, "\\n");
        } else if (c == '\r') {
            pdb_buf_adds(out, "\\r");
        } else if (c < 0x20 || c == 0x7F) {
            pdb_buf_addf(out, "\\x%02x", c);
        } else if (c == 0xC2 && p[1] >= 0x80 && (p[1] <= 0xA0 || p[1] == 0xAD)) {
            /* U+0080..U+00A0 and U+00AD are not printable for Python. */
            pdb_buf_addf(out, "\\x%02x", p[1]);
            p++;
        } else {
            pdb_buf_addc(out, (char)c);
        }
    }
    pdb_buf_addc(out, quote);
}

/* Python's repr() of a float: the shortest text that reads back. */
static void py_repr_float(double v, pdb_buf *out)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (isinf(v))
        snprintf(buf, sizeof buf, "%s", v < 0 ? "-inf" : "inf");
    else if (isnan(v))
        snprintf(buf, sizeof buf, "nan");
    else if (!strpbrk(buf, ".e"))
        strcat(buf, ".0");
    pdb_buf_adds(out, buf);
}

/* One print_stats() argument: an int, a float or a regex (str). */
typedef struct {
    int pos;            /* index in the command line, for ordering */
    const char *text;
    bool is_regex;
} restriction;

/* Where value came from in the command line (--opt VALUE or --opt=VALUE). */
static int arg_position(const pdb_report_ctx *ctx, const char *value, int fallback)
{
    for (int i = 0; i < ctx->nargs; i++) {
        const char *a = ctx->args[i];
        if (a == value)
            return i;
        const char *eq = a[0] == '-' ? strchr(a, '=') : NULL;
        if (eq && eq + 1 == value)
            return i;
    }
    return fallback;
}

static int cmp_restriction(const void *a, const void *b)
{
    return ((const restriction *)a)->pos - ((const restriction *)b)->pos;
}

static void reduced(pdb_pstats *ps, size_t before, const char *repr)
{
    if (before != ps->nlist)
        pdb_buf_addf(&ps->msg, "   List reduced from %zu to %zu due to restriction <%s>\n",
                     before, ps->nlist, repr);
}

static int apply_regex(pdb_pstats *ps, const char *re_text)
{
    pdb_buf repr = PDB_BUF_INIT;
    pdb_py_repr_str(re_text, &repr);
    regex_t re;
    if (regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB) != 0) {
        pdb_buf_addf(&ps->msg, "   <Invalid regular expression %s>\n", repr.p);
        pdb_buf_free(&repr);
        return PDB_OK;
    }
    size_t before = ps->nlist, out = 0;
    for (size_t i = 0; i < ps->nlist; i++)
        if (regexec(&re, ps->f[ps->list[i]].std, 0, NULL, 0) == 0)
            ps->list[out++] = ps->list[i];
    ps->nlist = out;
    regfree(&re);
    reduced(ps, before, repr.p);
    pdb_buf_free(&repr);
    return PDB_OK;
}

/* An amount: int(text) first, then float(text), as pstats' browser does. */
static int apply_amount(pdb_pstats *ps, const char *text)
{
    size_t before = ps->nlist;
    char *end;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    pdb_buf repr = PDB_BUF_INIT;
    if (end != text && *end == '\0' && errno == 0) {
        if (n >= 0 && (size_t)n < ps->nlist)
            ps->nlist = (size_t)n;
        pdb_buf_addf(&repr, "%lld", n);
    } else {
        double f = strtod(text, &end);
        /* nan restricts nothing in pstats' browser: a typo, not a limit */
        if (end == text || *end != '\0' || !isfinite(f)) {
            pdb_buf_free(&repr);
            return pdb_fail("--limit: expected a count or a fraction, got '%s'", text);
        }
        if (f >= 0.0 && f < 1.0)
            ps->nlist = (size_t)((double)ps->nlist * f + .5);
        py_repr_float(f, &repr);
    }
    reduced(ps, before, repr.p);
    pdb_buf_free(&repr);
    return PDB_OK;
}

int pdb_pstats_restrict(pdb_pstats *ps, const pdb_report_ctx *ctx)
{
    int n = ctx->limits.n + ctx->matches.n;
    restriction *r = pdb_xmalloc((size_t)(n ? n : 1) * sizeof *r);
    int k = 0;
    for (int i = 0; i < ctx->limits.n; i++, k++)
        r[k] = (restriction){arg_position(ctx, ctx->limits.v[i], 100000 + k),
                             ctx->limits.v[i], false};
    for (int i = 0; i < ctx->matches.n; i++, k++)
        r[k] = (restriction){arg_position(ctx, ctx->matches.v[i], 100000 + k),
                             ctx->matches.v[i], true};
    qsort(r, (size_t)n, sizeof *r, cmp_restriction);
    int rc = PDB_OK;
    for (int i = 0; i < n && rc == PDB_OK; i++)
        rc = r[i].is_regex ? apply_regex(ps, r[i].text) : apply_amount(ps, r[i].text);
    free(r);
    return rc;
}

int pdb_pstats_select(pdb_pstats *ps, const pdb_report_ctx *ctx)
{
    if (pdb_pstats_sort(ps, ctx->sort) != PDB_OK)
        return PDB_ERR;
    return pdb_pstats_restrict(ps, ctx);
}
