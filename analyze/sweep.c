/* sweep.c: one pass over start-sorted intervals giving, for every set of
 * kernel types, the time during which exactly that set is active.
 *
 * Each category keeps only its current merged interval. When an interval starting
 * at x arrives, nothing before x can change any more (every later interval
 * starts at or after x), so the sweep first accounts for [t, x) and then
 * extends or replaces the type's interval: O(n) after SQLite's sort, O(1)
 * memory. */
#include "analyze/analyze.h"

#include <assert.h>
#include <string.h>

void pdb_sweep_init(pdb_sweep *w, int ncat)
{
    assert(ncat >= 1 && ncat <= PDB_SWEEP_MAX);
    memset(w, 0, sizeof *w);
    w->ncat = ncat;
}

/* Accounts for time from w->t up to x (x = INT64_MAX: until all end). */
static void advance(pdb_sweep *w, int64_t x)
{
    while (w->t < x) {
        unsigned mask = 0;
        int64_t next = x;
        for (int k = 0; k < w->ncat; k++) {
            if (!w->open[k])
                continue;
            if (w->s[k] <= w->t && w->t < w->e[k])
                mask |= 1u << k;
            if (w->s[k] > w->t && w->s[k] < next)
                next = w->s[k];
            if (w->e[k] > w->t && w->e[k] < next)
                next = w->e[k];
        }
        if (next == INT64_MAX)
            break; /* nothing active and nothing ahead */
        assert(next > w->t); /* every boundary chosen lies ahead: the loop ends */
        w->mask_time[mask] += next - w->t;
        w->t = next;
    }
}

void pdb_sweep_add(pdb_sweep *w, int cat, int64_t start, int64_t end)
{
    if (end < start)
        end = start;
    /* Start order is what lets the sweep forget everything before start. */
    assert(!w->any || start >= w->t);
    if (!w->any) {
        w->any = true;
        w->first_start = w->t = start;
        w->last_end = end;
    }
    advance(w, start);
    if (end > w->last_end)
        w->last_end = end;
    int k = cat;
    if (k < 0 || k >= w->ncat)
        return;
    if (!w->open[k] || start > w->e[k]) {
        w->open[k] = true;
        w->s[k] = start;
        w->e[k] = end;
    } else if (end > w->e[k]) {
        w->e[k] = end;
    }
}

void pdb_sweep_finish(pdb_sweep *w)
{
    if (w->any)
        advance(w, INT64_MAX);
    w->mask_time[0] = 0; /* gaps are idle time, reported separately */
}

int64_t pdb_sweep_union(const pdb_sweep *w, unsigned mask)
{
    int64_t sum = 0;
    for (unsigned m = 1; m < (1u << w->ncat); m++)
        if (m & mask)
            sum += w->mask_time[m];
    return sum;
}

int64_t pdb_sweep_together(const pdb_sweep *w, unsigned mask)
{
    int64_t sum = 0;
    for (unsigned m = 1; m < (1u << w->ncat); m++)
        if ((m & mask) == mask)
            sum += w->mask_time[m];
    return sum;
}

void pdb_sweep_by_priority(const pdb_sweep *w, int64_t *out)
{
    memset(out, 0, (size_t)w->ncat * sizeof *out);
    for (unsigned m = 1; m < (1u << w->ncat); m++)
        if (w->mask_time[m])
            out[__builtin_ctz(m)] += w->mask_time[m];
}
