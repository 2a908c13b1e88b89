/* np_argsort.c: numpy's argsort(kind='quicksort') (see np_argsort.h), kept
 * step for step as numpy writes it: the order of equal keys is the point. */
#include "analyze/np_argsort.h"

#include <stdbool.h>

#define SMALL_QUICKSORT 15 /* numpy's npysort_common.h */
#define PYA_QS_STACK 128   /* NPY_MAX_PIVOT_STACK: 2 * bits of npy_intp */

static void swap(int64_t *a, int64_t *b)
{
    int64_t t = *a;
    *a = *b;
    *b = t;
}

/* numpy's npy_get_msb: floor(log2 n). */
static int msb(size_t n)
{
    int d = 0;
    while (n >>= 1)
        d++;
    return d;
}

/* numpy's aheapsort_: the fallback when the partitions go too deep. */
static void aheapsort(const int64_t *v, int64_t *tosort, int64_t n)
{
    int64_t *a = tosort - 1; /* heap indexes from 1 */
    int64_t i, j, l, tmp;
    for (l = n >> 1; l > 0; --l) {
        tmp = a[l];
        for (i = l, j = l << 1; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]])
                j += 1;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else
                break;
        }
        a[i] = tmp;
    }
    for (; n > 1;) {
        tmp = a[n];
        a[n] = a[1];
        n -= 1;
        for (i = 1, j = 2; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]])
                j++;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else
                break;
        }
        a[i] = tmp;
    }
}

void pdb_np_argsort(const int64_t *v, int64_t *idx, size_t n)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = (int64_t)i;
    if (n < 2)
        return;
    int64_t *pl = idx, *pr = idx + n - 1;
    int64_t *stack[PYA_QS_STACK], **sptr = stack;
    int depth[PYA_QS_STACK], *psdepth = depth;
    int cdepth = msb(n) * 2;
    for (;;) {
        if (cdepth < 0) {
            aheapsort(v, pl, pr - pl + 1);
            goto stack_pop;
        }
        while ((pr - pl) > SMALL_QUICKSORT) {
            int64_t *pm = pl + ((pr - pl) >> 1);
            if (v[*pm] < v[*pl])
                swap(pm, pl);
            if (v[*pr] < v[*pm])
                swap(pr, pm);
            if (v[*pm] < v[*pl])
                swap(pm, pl);
            int64_t vp = v[*pm];
            int64_t *pi = pl, *pj = pr - 1;
            swap(pm, pj);
            for (;;) {
                do
                    ++pi;
                while (v[*pi] < vp);
                do
                    --pj;
                while (vp < v[*pj]);
                if (pi >= pj)
                    break;
                swap(pi, pj);
            }
            swap(pi, pr - 1);
            /* the larger partition waits on the stack */
            if (pi - pl < pr - pi) {
                *sptr++ = pi + 1;
                *sptr++ = pr;
                pr = pi - 1;
            } else {
                *sptr++ = pl;
                *sptr++ = pi - 1;
                pl = pi + 1;
            }
            *psdepth++ = --cdepth;
        }
        /* insertion sort */
        for (int64_t *pi = pl + 1; pi <= pr; ++pi) {
            int64_t vi = *pi, vp = v[vi];
            int64_t *pj = pi, *pk = pi - 1;
            while (pj > pl && vp < v[*pk])
                *pj-- = *pk--;
            *pj = vi;
        }
    stack_pop:
        if (sptr == stack)
            break;
        pr = *(--sptr);
        pl = *(--sptr);
        cdepth = *(--psdepth);
    }
}
