/* query.c: looking up a query built in from a .sql file (see query.h). */
#include "common/query.h"

#include <assert.h>
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
