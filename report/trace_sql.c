/* trace_sql.c: SQL functions for the trace reports: short names and the
 * Mann-Whitney test (see trace_sql.h).
 *
 * Short names. The name is read as nested brackets: <>, (), [] and {}. Unbalanced text
 * is left alone. Steps: drop "(anonymous namespace)::"; drop a trailing
 * argument list (a top-level "(...)" ending the name, right after a name or
 * a '>') and then the return type before the last top-level space; of a
 * qualified name keep the last component (two when the last is a lambda or
 * local type, "{lambda(...)#1}"); write the top-level template arguments,
 * each shortened the same way one level down, where every bracket is
 * written empty: <…>, (…), […]. */
#include "report/trace_sql.h"
#include "analyze/hta.h"
#include "common/error.h"
#include "common/db.h"
#include "common/stats.h"
#include "render/shorten.h"
#include "report/queries.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char ELLIPSIS[] = "\xe2\x80\xa6"; /* … */

static bool opener(char c)
{
    return c == '<' || c == '(' || c == '[' || c == '{';
}

static bool closer(char c)
{
    return c == '>' || c == ')' || c == ']' || c == '}';
}

static char closing(char c)
{
    return c == '<' ? '>' : c == '(' ? ')' : c == '[' ? ']' : '}';
}

/* The index of the bracket closing s[i] within [i, end), or -1. */
static long match(const char *s, long i, long end)
{
    char stack[64];
    int depth = 0;
    for (long j = i; j < end; j++) {
        if (opener(s[j])) {
            if (depth == (int)sizeof stack)
                return -1;
            stack[depth++] = closing(s[j]);
        } else if (closer(s[j])) {
            if (depth == 0 || stack[depth - 1] != s[j])
                return -1;
            if (--depth == 0)
                return j;
        }
    }
    return -1;
}

/* Whether every bracket in [from, to) is balanced. */
static bool balanced(const char *s, long from, long to)
{
    for (long i = from; i < to; i++) {
        if (closer(s[i]))
            return false;
        if (opener(s[i])) {
            long j = match(s, i, to);
            if (j < 0)
                return false;
            i = j;
        }
    }
    return true;
}

static void trim(const char *s, long *from, long *to)
{
    while (*from < *to && s[*from] == ' ')
        (*from)++;
    while (*to > *from && s[*to - 1] == ' ')
        (*to)--;
}

static void emit(const char *s, long from, long to, int level, pdb_buf *out);

/* Copies one "::" component: brackets one level down or deeper are written
 * empty; at the top the template arguments are shortened one by one. */
static void emit_component(const char *s, long from, long to, int level, pdb_buf *out)
{
    for (long i = from; i < to; i++) {
        if (!opener(s[i])) {
            if (!(s[i] == ' ' && i + 1 < to && s[i + 1] == '>'))
                pdb_buf_addc(out, s[i]);
            continue;
        }
        long j = match(s, i, to);
        if (s[i] == '<' && level == 0) {
            pdb_buf_addc(out, '<');
            long a = i + 1;
            for (long k = a; k <= j; k++) {
                if (k < j && opener(s[k])) {
                    k = match(s, k, j);
                    continue;
                }
                if (k == j || s[k] == ',') {
                    if (a > i + 1)
                        pdb_buf_adds(out, ", ");
                    emit(s, a, k, level + 1, out);
                    a = k + 1;
                }
            }
            pdb_buf_addc(out, '>');
        } else if (s[i] == '{') {
            pdb_buf_addc(out, '{');
            emit_component(s, i + 1, j, level + 1, out);
            pdb_buf_addc(out, '}');
        } else {
            pdb_buf_addc(out, s[i]);
            pdb_buf_adds(out, ELLIPSIS);
            pdb_buf_addc(out, closing(s[i]));
        }
        i = j;
    }
}

/* A qualified name: its last "::" component, or its last two when the last
 * is a lambda or local type ("f(...)::{lambda(...)#1}"). */
static void emit(const char *s, long from, long to, int level, pdb_buf *out)
{
    trim(s, &from, &to);
    long last = from, before = -1;
    for (long i = from; i < to; i++) {
        if (opener(s[i])) {
            i = match(s, i, to);
        } else if (s[i] == ':' && i + 1 < to && s[i + 1] == ':') {
            before = last;
            last = i + 2;
            i++;
        }
    }
    if (last < to && s[last] == '{' && before >= 0) {
        emit_component(s, before, last - 2, level, out);
        pdb_buf_adds(out, "::");
    }
    emit_component(s, last, to, level, out);
}

/* Drops every "(anonymous namespace)::" (and a bare one). */
static void drop_anonymous(const char *name, pdb_buf *out)
{
    static const char anon[] = "(anonymous namespace)";
    for (const char *p = name; *p;) {
        if (strncmp(p, anon, sizeof anon - 1) == 0) {
            p += sizeof anon - 1;
            if (p[0] == ':' && p[1] == ':')
                p += 2;
            continue;
        }
        pdb_buf_addc(out, *p++);
    }
}

static bool ident_end(char c)
{
    return c == '_' || c == '>' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

void pdb_short_name(const char *name, pdb_buf *out)
{
    pdb_buf b = PDB_BUF_INIT;
    drop_anonymous(name, &b);
    const char *s = pdb_buf_str(&b);
    long n = (long)b.len, end = n, start = 0;
    if (!balanced(s, 0, n)) {
        pdb_buf_adds(out, name);
        pdb_buf_free(&b);
        return;
    }
    /* The argument list: the top-level "(...)" that ends the name. */
    bool args = false;
    for (long i = 0; i < n; i++) {
        if (!opener(s[i]))
            continue;
        long j = match(s, i, n);
        if (s[i] == '(' && j == n - 1 && i > 0 && ident_end(s[i - 1])) {
            end = i;
            args = true;
        }
        i = j;
    }
    if (args) { /* the return type, before the last top-level space */
        for (long i = 0; i < end; i++) {
            if (opener(s[i]))
                i = match(s, i, end);
            else if (s[i] == ' ')
                start = i + 1;
        }
    }
    bool templ = end > start && memchr(s + start, '<', (size_t)(end - start)) != NULL;
    if (args || templ)
        emit(s, start, end, 0, out);
    else
        pdb_buf_adds(out, name);
    pdb_buf_free(&b);
}

/* short_name(name) and short_name(name, width): the short form, then (with
 * a width of 1 or more) cut to that many columns between words as a table
 * cuts a name alone (render/shorten.h); NULL for a NULL name. */
static void sql_short_name(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    if (!name || (argc > 1 && sqlite3_value_type(argv[1]) == SQLITE_NULL)) {
        sqlite3_result_null(cx);
        return;
    }
    sqlite3_int64 width = argc > 1 ? sqlite3_value_int64(argv[1]) : 0;
    if (width < 0) {
        sqlite3_result_error(cx, "short_name(name, width): width must be 0 (no cut) or more", -1);
        return;
    }
    pdb_buf b = PDB_BUF_INIT;
    pdb_short_name(name, &b);
    if (width > 0) {
        char *cut = pdb_shorten_one(pdb_buf_str(&b), width > 1000000 ? 1000000 : (size_t)width);
        sqlite3_result_text(cx, cut, -1, free);
    } else
        sqlite3_result_text(cx, pdb_buf_str(&b), (int)b.len, SQLITE_TRANSIENT);
    pdb_buf_free(&b);
}

/* Four hex digits of FNV-1a over the full name: tells apart two names
 * with one short form, the same way in every report and run. */
static void sql_name_tag(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *p = sqlite3_value_text(argv[0]);
    if (!p) {
        sqlite3_result_null(cx);
        return;
    }
    uint32_t h = 2166136261u;
    for (; *p; p++)
        h = (h ^ *p) * 16777619u;
    char tag[8];
    snprintf(tag, sizeof tag, "%04x", (unsigned)((h >> 16) ^ (h & 0xffff)));
    sqlite3_result_text(cx, tag, -1, SQLITE_TRANSIENT);
}

void pdb_name_shape(const char *name, pdb_buf *out)
{
    int depth = 0;
    for (const char *p = name; *p; p++) {
        if (*p == '<') {
            if (depth++ == 0)
                pdb_buf_adds(out, "<>");
        } else if (*p == '>' && depth > 0) {
            depth--;
        } else if (depth == 0 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
                   isxdigit((unsigned char)p[2])) {
            pdb_buf_adds(out, "0x");
            p++;
            while (isxdigit((unsigned char)p[1]))
                p++;
        } else if (depth == 0) {
            pdb_buf_addc(out, *p);
        }
    }
}

static void sql_name_shape(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    if (!name) {
        sqlite3_result_null(cx);
        return;
    }
    pdb_buf b = PDB_BUF_INIT;
    pdb_name_shape(name, &b);
    sqlite3_result_text(cx, pdb_buf_str(&b), (int)b.len, SQLITE_TRANSIENT);
    pdb_buf_free(&b);
}

/* Mann-Whitney ---------------------------------------------------------- */

/* The test itself is common/stats.c's, the one every comparison uses. */
double pdb_mann_whitney_p(double u, long n1, long n2, double ties)
{
    return pdb_mwu_p_greater_u(u, n1, n2, ties);
}

static void sql_mann_whitney_p(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    for (int i = 0; i < 4; i++)
        if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
            sqlite3_result_null(cx);
            return;
        }
    double p = pdb_mann_whitney_p(sqlite3_value_double(argv[0]), (long)sqlite3_value_int64(argv[1]),
                                  (long)sqlite3_value_int64(argv[2]), sqlite3_value_double(argv[3]));
    if (isnan(p))
        sqlite3_result_null(cx);
    else
        sqlite3_result_double(cx, p);
}

/* The smallest p-value the test gives: sample 1 above every value of
 * sample 2 (U = n1 n2), by the same method as mann_whitney_p with the
 * pool's ties (third argument, 0 when absent). Exact, that is 1/C(n1 + n2,
 * n1); beyond PDB_MWU_EXACT_MAX the normal approximation's floor, which is
 * far higher (5 steps of one rank against 5,115: 5.4e-05, not 1/C(5120, 5)),
 * so "too few steps to test" is said where the approximation can never
 * reach the level. */
static void sql_mann_whitney_min_p(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    long n1 = (long)sqlite3_value_int64(argv[0]), n2 = (long)sqlite3_value_int64(argv[1]);
    double ties = argc > 2 ? sqlite3_value_double(argv[2]) : 0.0;
    double p = n1 < 1 || n2 < 1 ? NAN : pdb_mwu_p_greater_u((double)n1 * (double)n2, n1, n2, ties);
    if (isnan(p))
        sqlite3_result_null(cx);
    else
        sqlite3_result_double(cx, p);
}

/* sqrt(x) for the standard deviations (SQLite's math functions are a
 * compile-time option); NULL for NULL or negative x. */
static void sql_sqrt(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
    (void)argc;
    double x = sqlite3_value_double(argv[0]);
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || x < 0)
        sqlite3_result_null(cx);
    else
        sqlite3_result_double(cx, sqrt(x));
}

int pdb_trace_sql_functions(sqlite3 *db)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    if (sqlite3_create_function(db, "short_name", 1, flags, NULL, sql_short_name, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function(db, "short_name", 2, flags, NULL, sql_short_name, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function(db, "name_tag", 1, flags, NULL, sql_name_tag, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function(db, "name_shape", 1, flags, NULL, sql_name_shape, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function(db, "mann_whitney_p", 4, flags, NULL, sql_mann_whitney_p, NULL,
                                NULL) != SQLITE_OK ||
        sqlite3_create_function(db, "mann_whitney_min_p", 2, flags, NULL, sql_mann_whitney_min_p,
                                NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function(db, "mann_whitney_min_p", 3, flags, NULL, sql_mann_whitney_min_p,
                                NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function(db, "sqrt", 1, flags, NULL, sql_sqrt, NULL, NULL) != SQLITE_OK)
        return pdb_fail("cannot register SQL functions: %s", sqlite3_errmsg(db));
    if (pdb_hta_sql_functions(db) != PDB_OK)
        return pdb_fail("cannot register SQL functions: %s", sqlite3_errmsg(db));
    return PDB_OK;
}

int pdb_report_short_names(const pdb_report_ctx *ctx, int *on)
{
    if (!ctx->names) {
        *on = ctx->render.format == PDB_OUT_TABLE || ctx->render.format == PDB_OUT_MD;
        return PDB_OK;
    }
    if (strcmp(ctx->names, "short") == 0 || strcmp(ctx->names, "full") == 0) {
        *on = strcmp(ctx->names, "short") == 0;
        return PDB_OK;
    }
    return pdb_fail("unknown --names '%s' (expected full or short)", ctx->names);
}

int pdb_trace_query(pdb_report_ctx *ctx, const char *query, const char *mode, const char *key)
{
    int short_names = 0;
    sqlite3_stmt *st;
    if (pdb_report_short_names(ctx, &short_names) != PDB_OK ||
        pdb_trace_sql_functions(ctx->db) != PDB_OK ||
        pdb_report_prepare(ctx->db, query, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, ctx->run_id);
    sqlite3_bind_text(st, 2, mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, ctx->top);
    sqlite3_bind_int(st, 4, short_names);
    if (key)
        sqlite3_bind_text(st, 5, key, -1, SQLITE_STATIC);
    return pdb_report_render(ctx, st);
}

int pdb_hta_traces_table(sqlite3 *db, int64_t run_id)
{
    sqlite3_stmt *list, *ins;
    if (pdb_db_exec(db, pdb_report_sql("trace_launch.create_hta_traces")) != PDB_OK ||
        pdb_report_prepare(db, "traces.of_run", &list) != PDB_OK)
        return PDB_ERR;
    if (pdb_report_prepare(db, "trace_launch.insert_hta_trace", &ins) != PDB_OK) {
        sqlite3_finalize(list);
        return PDB_ERR;
    }
    sqlite3_bind_int64(list, 1, run_id);
    int rc = PDB_OK;
    while (rc == PDB_OK && sqlite3_step(list) == SQLITE_ROW) {
        pdb_hta_mode m;
        int64_t trace_id = sqlite3_column_int64(list, 0);
        rc = pdb_hta_settings(db, trace_id, &m);
        if (rc != PDB_OK)
            break;
        sqlite3_bind_int64(ins, 1, trace_id);
        sqlite3_bind_int64(ins, 2, sqlite3_column_int64(list, 1));
        sqlite3_bind_int(ins, 3, m.round);
        sqlite3_bind_int(ins, 4, m.drop_last);
        sqlite3_bind_int64(ins, 5, m.cutoff);
        rc = pdb_db_step_done(db, ins);
    }
    sqlite3_finalize(list);
    sqlite3_finalize(ins);
    return rc;
}
