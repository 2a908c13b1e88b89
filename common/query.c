/* query.c: looking up a query built in from a .sql file, filling in its
 * placeholders, repeating its row of values (see query.h). */
#include "common/query.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pdb_query_sql(const pdb_query *table, const char *name)
{
    for (const pdb_query *q = table; q->name; q++)
        if (strcmp(q->name, name) == 0)
            return q->sql;
    fprintf(stderr, "profdb: internal error: no query named '%s' in the built-in .sql files\n",
            name);
    assert(!"unknown query name");
    abort();
}

size_t pdb_query_count(const pdb_query *table)
{
    size_t n = 0;
    while (table[n].name)
        n++;
    return n;
}

/* A caller broke the contract of query.h: a programming error. */
static _Noreturn void misuse(const char *what, const char *sql)
{
    fprintf(stderr, "profdb: internal error: %s in the query: %.120s\n", what, sql);
    assert(!"query misuse");
    abort();
}

/* Length of the placeholder {NAME} at p, or 0 when p starts none. */
static size_t placeholder(const char *p)
{
    if (*p != '{')
        return 0;
    size_t n = 1;
    while (islower((unsigned char)p[n]) || p[n] == '_')
        n++;
    return n > 1 && p[n] == '}' ? n + 1 : 0;
}

void pdb_query_fill(const char *sql, const char *const *fill, pdb_buf *out)
{
    const char *p = sql;
    for (const char *brace; (brace = strchr(p, '{'));) {
        size_t n = placeholder(brace);
        pdb_buf_add(out, p, (size_t)(brace + (n ? 0 : 1) - p));
        p = brace + (n ? n : 1);
        if (!n)
            continue;
        const char *const *f = fill;
        while (f && f[0] && (strncmp(f[0], brace + 1, n - 2) != 0 || f[0][n - 2]))
            f += 2;
        if (!f || !f[0])
            misuse("a placeholder without a value", brace);
        pdb_buf_adds(out, f[1]);
    }
    pdb_buf_adds(out, p);
}

int pdb_query_identifier(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Where the last row of values starts: the last '(' at the statement's
 * top level (comments, quotes and nested parentheses skipped). */
static size_t last_row(const char *sql)
{
    size_t at = 0;
    int depth = 0;
    for (size_t i = 0; sql[i]; i++) {
        char c = sql[i];
        if (c == '-' && sql[i + 1] == '-') {
            const char *end = strchr(sql + i, '\n');
            if (!end)
                break;
            i = (size_t)(end - sql);
        } else if (c == '\'' || c == '"') {
            const char *end = strchr(sql + i + 1, c);
            if (!end)
                break;
            i = (size_t)(end - sql);
        } else if (c == '(') {
            if (depth++ == 0)
                at = i;
        } else if (c == ')') {
            depth--;
        }
    }
    if (!at || depth != 0)
        misuse("no row of values at the end", sql);
    return at;
}

void pdb_query_rows(const char *sql, int n, pdb_buf *out)
{
    assert(n >= 1);
    size_t len = strlen(sql);
    while (len && isspace((unsigned char)sql[len - 1]))
        len--;
    size_t row = last_row(sql);
    if (sql[len - 1] != ')')
        misuse("no row of values at the end", sql);
    pdb_buf_add(out, sql, len);
    for (int i = 1; i < n; i++) {
        pdb_buf_addc(out, ',');
        pdb_buf_add(out, sql + row, len - row);
    }
}

const char *pdb_common_sql(const char *name)
{
    return pdb_query_sql(pdb_common_queries, name);
}

