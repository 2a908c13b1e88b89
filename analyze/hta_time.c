/* hta_time.c: HTA's GPU time arithmetic, step by step, for --compat hta.
 *
 * HTA does not measure unions of intervals; it merges each kernel type's
 * intervals with merge_kernel_intervals (sort by ts; a new group starts when
 * ts > the running maximum of earlier ends; a group spans [min ts, max end])
 * and then:
 *   kernel time   = last group's end - first group's start (all GPU events)
 *   busy time     = sum(end) - sum(ts) over the groups of all GPU events
 *   compute time  = the same over COMPUTATION groups
 *   kernel types  = a running sum over the groups' boundaries (+v at ts, -v
 *                   at end; COMPUTATION 1, COMMUNICATION 2, MEMORY 4), each
 *                   stretch to the next boundary named by the bits of the sum
 *   overlap       = stretches where COMMUNICATION*1 + COMPUTATION*2 == 3
 * On well-formed intervals this is the union arithmetic of sweep.c. It
 * differs when HTA's inward rounding turns a sub-microsecond event into
 * [t, t-1] (MTIA traces have hundreds): such a group subtracts a microsecond,
 * and its -v boundary lies before its +v, so the running sum can name
 * "COMPUTATION overlapping COMMUNICATION" on a trace without communication.
 * profdb reproduces that rather than correcting it: --compat hta promises
 * HTA's numbers.
 *
 * Streaming: events arrive by start S (whole microseconds, nondecreasing). A
 * type's open group whose running maximum end is below S can take no more
 * members, so it is closed and its end boundary queued. Every boundary still
 * to come lies at or after S - 1 (a rounded event ends at least one
 * microsecond before it starts), so boundaries before S - 1 are final and
 * are swept. The queue holds a few boundaries; memory is O(1). */
#include "analyze/hta.h"
#include "common/xalloc.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { T_COMP, T_COMM, T_MEM }; /* HTA's breakdown values 1, 2, 4 */

static void point(pdb_hta_time *h, int64_t t, int type, int delta);

static void merge_close(pdb_hta_time *h, pdb_hta_merge *m, int type)
{
    assert(m->open);
    m->open = false;
    m->total += m->end - m->start;
    m->last_end = m->end;
    if (type >= 0)
        point(h, m->end, type, -1);
}

static void merge_add(pdb_hta_time *h, pdb_hta_merge *m, int type, int64_t s, int64_t e)
{
    if (m->open && s > m->cummax)
        merge_close(h, m, type);
    if (!m->open) {
        if (!m->any)
            m->first_start = s;
        m->any = m->open = true;
        m->start = s;
        m->end = m->cummax = e;
        if (type >= 0)
            point(h, s, type, +1);
        return;
    }
    if (e > m->end)
        m->end = e;
    if (e > m->cummax)
        m->cummax = e;
}

/* Accounts for the stretch [h->t, t) at the current running sums. */
static void stretch(pdb_hta_time *h, int64_t t)
{
    if (!h->swept_any) {
        h->swept_any = true;
        h->t = t;
        return;
    }
    int64_t len = t - h->t;
    if (len <= 0)
        return;
    int64_t r = h->run[T_COMP] + 2 * h->run[T_COMM] + 4 * h->run[T_MEM];
    if (r > 0)
        h->type_time[r & 7] += len; /* r & 7 == 0 (sums of 8 or more): no name, dropped */
    if (h->run[T_COMM] + 2 * h->run[T_COMP] == 3)
        h->overlap += len;
    h->t = t;
}

static void sweep_to(pdb_hta_time *h, int64_t limit)
{
    int i = 0;
    for (; i < h->npending && h->pending[i].t < limit; i++) {
        stretch(h, h->pending[i].t);
        for (int k = 0; k < 3; k++)
            h->run[k] += h->pending[i].d[k];
    }
    if (i > 0 && i < h->npending) /* memmove of a NULL array is undefined, even for 0 bytes */
        memmove(h->pending, h->pending + i, (size_t)(h->npending - i) * sizeof *h->pending);
    h->npending -= i;
}

/* Queues a boundary, kept sorted by time (ties merge). A boundary before the
 * swept time can only come from a negative duration in the file; it is
 * placed at the swept time. */
static void point(pdb_hta_time *h, int64_t t, int type, int delta)
{
    if (h->swept_any && t < h->t)
        t = h->t;
    int i = h->npending;
    while (i > 0 && h->pending[i - 1].t > t)
        i--;
    if (i > 0 && h->pending[i - 1].t == t) {
        h->pending[i - 1].d[type] += delta;
        return;
    }
    if (h->npending == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 16;
        h->pending = pdb_xrealloc(h->pending, (size_t)h->cap * sizeof *h->pending);
    }
    memmove(h->pending + i + 1, h->pending + i, (size_t)(h->npending - i) * sizeof *h->pending);
    h->pending[i] = (pdb_hta_point){t, {0, 0, 0}};
    h->pending[i].d[type] = delta;
    h->npending++;
}

static int type_index(pdb_kernel_type kt)
{
    switch (kt) {
    case PDB_KT_COMPUTATION: return T_COMP;
    case PDB_KT_COMMUNICATION: return T_COMM;
    case PDB_KT_MEMORY: return T_MEM;
    default: return -1;
    }
}

void pdb_hta_time_add(pdb_hta_time *h, pdb_kernel_type kt, int64_t start, int64_t end)
{
    for (int k = 0; k < 3; k++)
        if (h->type[k].open && start > h->type[k].cummax)
            merge_close(h, &h->type[k], k);
    sweep_to(h, start - PDB_HTA_US);
    merge_add(h, &h->all, -1, start, end);
    int k = type_index(kt);
    if (k >= 0)
        merge_add(h, &h->type[k], k, start, end);
}

void pdb_hta_time_finish(pdb_hta_time *h)
{
    if (h->all.open)
        merge_close(h, &h->all, -1);
    for (int k = 0; k < 3; k++)
        if (h->type[k].open)
            merge_close(h, &h->type[k], k);
    sweep_to(h, INT64_MAX);
    assert(h->run[0] == 0 && h->run[1] == 0 && h->run[2] == 0);
}

void pdb_hta_time_results(const pdb_hta_time *h, pdb_hta_gpu_time *out)
{
    *out = (pdb_hta_gpu_time){0};
    if (!h->all.any)
        return;
    out->kernel_time = h->all.last_end - h->all.first_start;
    out->busy = h->all.total;
    out->compute = h->type[T_COMP].total;
    out->comm = h->type[T_COMM].total;
    out->overlap = h->overlap;
    /* HTA's values 1, 2, 4 are profdb's kernel-type bits 0, 1, 2 (pdb_kernel_mask_name). */
    for (int m = 0; m < 8; m++)
        out->type_time[m] = h->type_time[m];
}

void pdb_hta_time_free(pdb_hta_time *h)
{
    free(h->pending);
    memset(h, 0, sizeof *h);
}
