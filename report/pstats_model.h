/* pstats_model.h: a run's pstats statistics in memory, sorted and
 * restricted the way pstats.Stats.sort_stats() / print_stats(...) do it.
 *
 * The pstats reports (text, callers/callees, DOT, chart) all start from
 * the same list: the run's functions in dict order, stably sorted by
 * pstats' sort keys, then cut by --limit/--match restrictions in the order
 * they were given. The messages pstats prints about that ("Ordered by:",
 * "List reduced from ...") are produced here too. */
#ifndef PDB_PSTATS_MODEL_H
#define PDB_PSTATS_MODEL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "report/reports.h"

typedef struct pdb_pfunc {
    int64_t id, ord;
    char *file, *name, *std;
    size_t file_len, name_len, std_len;
    int64_t line, cc, nc;
    double tt, ct;
    size_t width;               /* len(func_std_string(func)) in code points */
    bool top_level;
} pdb_pfunc;

typedef struct pdb_pstats {
    pdb_pfunc *f;               /* stats keys, in dict order */
    size_t n;
    int64_t total_calls, prim_calls;
    double total_tt;
    pdb_buf files;              /* pstats' file lines, '\n'-terminated */
    size_t nfiles;
    size_t max_name_len;
    bool has_edges;
    /* The print list: indexes into f after sorting and restricting. */
    size_t *list;
    size_t nlist;
    pdb_buf msg;                /* "   Ordered by: ...\n" + reductions */
    bool sorted;
} pdb_pstats;

/* Loads the run's statistics; fails when the run holds no pstats dump. */
int pdb_pstats_load(sqlite3 *db, int64_t run_id, pdb_pstats *ps);
void pdb_pstats_free(pdb_pstats *ps);

/* sort_stats(KEY, ...): keys separated by commas, pstats names or their
 * unique prefixes; NULL or "" keeps dict order ("Random listing order"). */
int pdb_pstats_sort(pdb_pstats *ps, const char *keys);
/* print_stats(*amount): applies the context's --limit and --match values in
 * command-line order to the list, appending pstats' messages. */
int pdb_pstats_restrict(pdb_pstats *ps, const pdb_report_ctx *ctx);
/* Both, from the context (--sort, --limit, --match). */
int pdb_pstats_select(pdb_pstats *ps, const pdb_report_ctx *ctx);

/* Python's repr() of a str (for pstats' "<'regex'>" messages). */
void pdb_py_repr_str(const char *s, pdb_buf *out);

#endif
