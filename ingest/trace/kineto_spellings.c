/* kineto_spellings.c: lookups in kineto_spellings.def. */
#include "ingest/trace/kineto_spellings.h"
#include "ingest/trace/trace_event.h"

#include <stdbool.h>
#include <string.h>

typedef struct {
    const char *written, *canonical;
    bool flows_only;
} cat_spelling;

typedef struct {
    const char *written;
    int column;
    const char *canonical;
} arg_spelling;

static const cat_spelling cats[] = {
#define PDB_CAT_SPELLING(written, canonical, flows) {written, canonical, flows},
#define PDB_ARG_SPELLING(written, column, canonical)
#include "ingest/trace/kineto_spellings.def"
#undef PDB_CAT_SPELLING
#undef PDB_ARG_SPELLING
};

static const arg_spelling args[] = {
#define PDB_CAT_SPELLING(written, canonical, flows)
#define PDB_ARG_SPELLING(written, column, canonical) {written, column, canonical},
#include "ingest/trace/kineto_spellings.def"
#undef PDB_CAT_SPELLING
#undef PDB_ARG_SPELLING
};

int pdb_cat_spellings(void)
{
    return (int)(sizeof cats / sizeof cats[0]);
}

/* Called for every event with a category: lengths first, as the key
 * matching of the parser does. */
int pdb_cat_spelling(const char *text, size_t len, bool flow)
{
    for (int i = 0; i < pdb_cat_spellings(); i++)
        if (strlen(cats[i].written) == len && memcmp(cats[i].written, text, len) == 0)
            return flow || !cats[i].flows_only ? i : -1;
    return -1;
}

const char *pdb_cat_spelling_written(int row)
{
    return cats[row].written;
}

const char *pdb_cat_spelling_canonical(int row)
{
    return cats[row].canonical;
}

int pdb_arg_spelling(const char *key, size_t len)
{
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        if (strlen(args[i].written) == len && memcmp(args[i].written, key, len) == 0)
            return args[i].column;
    return -1;
}

static const arg_spelling *arg_row(int column)
{
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        if (args[i].column == column)
            return &args[i];
    return NULL;
}

const char *pdb_arg_spelling_written(int column)
{
    const arg_spelling *a = arg_row(column);
    return a ? a->written : NULL;
}

const char *pdb_arg_spelling_canonical(int column)
{
    const arg_spelling *a = arg_row(column);
    return a ? a->canonical : NULL;
}
