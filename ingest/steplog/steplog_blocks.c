/* steplog_blocks.c: multi-line summary blocks printed by training profilers.
 *
 * The rectified-flow profiler prints
 *     === Profiling Report (Step 50) ===          (or Final Profiling Summary (N steps))
 *     Detailed Breakdown:
 *     data_loading: count=50, total=2.341s, avg=0.0468s, min=0.0421s, max=0.0512s
 *     Time Distribution:
 *     data_loading: 10.2%
 *     Performance Insights:
 *     - Slowest component: forward_pass (0.3047s avg)
 * and the MAE profiler prints per-epoch summaries
 *     === Epoch 1 Profiling Summary ===
 *     Total time: 45.23s / Avg batch time: 0.142s / Throughput: 2547.3 batches/hour
 *     Time Breakdown:   forward_pass : 45.2% (20.45s) ...   ====...
 * A block is one record; its lines are read while they match its shapes. */
#include "ingest/steplog/steplog.h"
#include "common/error.h"
#include "common/strutil.h"
#include "ingest/steplog/steplog_units.h"

#include <ctype.h>
#include <string.h>

enum { BLK_NONE, BLK_RECTFLOW, BLK_MAE };
enum { SEC_NONE, SEC_BREAKDOWN, SEC_DISTRIBUTION, SEC_INSIGHTS, SEC_MAE_BREAKDOWN };

static bool has(const char *s, size_t len, const char *needle)
{
    return pdb_steplog_find(s, len, needle) != NULL;
}

/* The first integer after position p, if any. */
static bool int_after(const char *s, size_t len, const char *p, int64_t *out)
{
    while (p < s + len && !isdigit((unsigned char)*p))
        p++;
    if (p >= s + len)
        return false;
    int64_t v = 0;
    while (p < s + len && isdigit((unsigned char)*p) && v < INT64_MAX / 10)
        v = v * 10 + (*p++ - '0');
    *out = v;
    return true;
}

/* Starts a block at a header line; returns true when it was one. */
static int header(pdb_steplog *w, const char *t, size_t tl, int64_t lineno)
{
    bool rf = has(t, tl, "=== Profiling Report") || has(t, tl, "=== Final Profiling Summary");
    bool mae = !rf && pdb_skip_prefix_mem(t, tl, "=== Epoch ", NULL, NULL) &&
               has(t, tl, "Profiling Summary");
    if (!rf && !mae)
        return 0;
    const char *title = t;
    size_t n = tl;
    while (n && (*title == '=' || *title == ' ')) {
        title++;
        n--;
    }
    while (n && (title[n - 1] == '=' || title[n - 1] == ' '))
        n--;
    int64_t num = 0;   /* read only when has_num */
    bool has_num = int_after(title, n, title, &num);
    w->blk_mode = rf ? BLK_RECTFLOW : BLK_MAE;
    w->blk_section = SEC_NONE;
    pdb_steplog_record(w, rf ? (has(t, tl, "Final") ? "rf_summary" : "rf_report") : "mae_epoch",
                       lineno);
    if (rf && has_num) {
        w->has_step = true;
        w->step = num;
    } else if (mae && has_num) {
        w->has_epoch = true;
        w->epoch = (double)num;
    }
    w->blk_record = w->record;
    return pdb_steplog_block(w, title, n, has_num, num) == PDB_OK ? 1 : PDB_ERR;
}

/* "name: count=50, total=2.341s, avg=0.0468s, min=0.0421s, max=0.0512s" */
static int breakdown_line(pdb_steplog *w, const char *t, size_t tl, int64_t lineno)
{
    const char *colon = memchr(t, ':', tl);
    if (!colon || !has(t, tl, "count=") || !has(t, tl, "total="))
        return 0;
    size_t nl = (size_t)(colon - t);
    /* each field: its key, the agg it is stored as, and what the line says */
    struct {
        const char *key, *agg;
        double value;
        const char *unit;
    } f[] = {
        {"total=", "total", 0, NULL}, {"avg=", "mean", 0, NULL},
        {"min=", "min", 0, NULL}, {"max=", "max", 0, NULL},
    };
    int64_t count;
    const char *c = pdb_steplog_after(t, tl, "count=");
    if (!int_after(t, tl, c, &count))
        goto bad;
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        const char *p = pdb_steplog_after(colon, (size_t)(t + tl - colon), f[k].key);
        if (!p)
            goto bad;
        size_t n = strcspn(p, ",");
        if (p + n > t + tl)
            n = (size_t)(t + tl - p);
        if (!pdb_units_quantity(p, n, &f[k].value, &f[k].unit))
            goto bad;
    }
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (pdb_steplog_value(w, t, nl, f[k].value, f[k].unit[0] ? f[k].unit : PDB_UNIT_SECONDS,
                              f[k].agg, count) != PDB_OK)
            return PDB_ERR;
    return 1;
bad:
    pdb_steplog_malformed(w, lineno, "expected 'name: count=N, total=Xs, avg=Xs, min=Xs, max=Xs'");
    return 1;
}

/* "name: 10.2%" (rectified flow) or "  forward_pass : 45.2% (20.45s)" (MAE). */
static int share_line(pdb_steplog *w, const char *t, size_t tl, int64_t lineno, bool mae)
{
    const char *colon = NULL;
    for (size_t i = tl; i > 0; i--)
        if (t[i - 1] == ':') {
            colon = t + i - 1;
            break;
        }
    if (!colon)
        return 0;
    const char *name = t;
    size_t nl = pdb_steplog_trim(&name, (size_t)(colon - t));
    const char *v = colon + 1;
    size_t vl = (size_t)(t + tl - v);
    const char *paren = mae ? memchr(v, '(', vl) : NULL;
    double pct, secs;
    const char *u;
    size_t pl = paren ? (size_t)(paren - v) : vl;
    if (!pdb_units_quantity(v, pl, &pct, &u) || strcmp(u, "%") != 0)
        return 0;
    if (paren) {
        const char *close = memchr(paren, ')', (size_t)(v + vl - paren));
        if (!close || !pdb_units_quantity(paren + 1, (size_t)(close - paren - 1), &secs, &u)) {
            pdb_steplog_malformed(w, lineno, "expected 'name: P% (Xs)'");
            return 1;
        }
        if (pdb_steplog_value(w, name, nl, secs, u[0] ? u : PDB_UNIT_SECONDS, "epoch_total", 0) !=
            PDB_OK)
            return PDB_ERR;
    }
    return pdb_steplog_value(w, name, nl, pct, PDB_UNIT_PERCENT, "share", 0) == PDB_OK ? 1
                                                                                       : PDB_ERR;
}

/* MAE header values: "Total time: 45.23s", "Avg batch time: 0.142s",
 * "Throughput: 2547.3 batches/hour". */
static int mae_value(pdb_steplog *w, const char *t, size_t tl)
{
    const char *colon = memchr(t, ':', tl);
    if (!colon)
        return 0;
    size_t nl = (size_t)(colon - t);
    const char *v = colon + 1;
    size_t vl = pdb_steplog_trim(&v, (size_t)(t + tl - v));
    double x;
    const char *u;
    size_t numlen;
    if (pdb_skip_suffix_mem(v, vl, " batches/hour", &numlen) && numlen > 0) {
        if (!pdb_units_quantity(v, numlen, &x, &u))
            return 0;
        return pdb_steplog_value(w, "batches_per_s", strlen("batches_per_s"), x / 3600, "1/s",
                                 "mean", 0) == PDB_OK
                   ? 1 : PDB_ERR;
    }
    if (!pdb_units_quantity(v, vl, &x, &u))
        return 0;
    const char *agg = pdb_skip_prefix_mem(t, nl, "Avg", NULL, NULL) ? "mean" : "total";
    return pdb_steplog_value(w, t, nl, x, u[0] ? u : NULL, agg, 0) == PDB_OK ? 1 : PDB_ERR;
}

/* Lines inside a block; returns 0 when the line ends the block. */
static int in_block(pdb_steplog *w, const char *t, size_t tl, int64_t lineno)
{
    if (tl == 0) {
        pdb_skip(w->src, "blank line");
        return 1;
    }
    w->record = w->blk_record; /* values belong to the block's record */
    if (has(t, tl, "Detailed Breakdown:"))
        w->blk_section = SEC_BREAKDOWN;
    else if (has(t, tl, "Time Distribution:"))
        w->blk_section = SEC_DISTRIBUTION;
    else if (has(t, tl, "Performance Insights:"))
        w->blk_section = SEC_INSIGHTS;
    else if (has(t, tl, "Time Breakdown:"))
        w->blk_section = SEC_MAE_BREAKDOWN;
    else if (tl >= 3 && strspn(t, "=") == tl && w->blk_mode == BLK_MAE) {
        w->blk_mode = BLK_NONE;
        pdb_skip(w->src, "block end");
    } else if (pdb_mem_is(t, tl, "..."))
        pdb_skip(w->src, "elided lines");
    else if (w->blk_section == SEC_INSIGHTS && t[0] == '-') {
        const char *n = t + 1;
        size_t nlen = pdb_steplog_trim(&n, tl - 1);
        return pdb_steplog_note(w, "Performance Insights", n, nlen) == PDB_OK ? 1 : PDB_ERR;
    } else if (w->blk_section == SEC_BREAKDOWN)
        return breakdown_line(w, t, tl, lineno) ? 1 : 0;
    else if (w->blk_section == SEC_DISTRIBUTION)
        return share_line(w, t, tl, lineno, false);
    else if (w->blk_section == SEC_MAE_BREAKDOWN && share_line(w, t, tl, lineno, true))
        return 1;
    else if (w->blk_mode == BLK_MAE && w->blk_section == SEC_NONE)
        return mae_value(w, t, tl);
    else if (w->blk_mode == BLK_MAE && (has(t, tl, "bottleneck") || has(t, tl, "High ")))
        return pdb_steplog_note(w, "Bottleneck Warnings", t, tl) == PDB_OK ? 1 : PDB_ERR;
    else
        return 0;
    return 1;
}

int pdb_steplog_block_line(pdb_steplog *w, const char *s, size_t len, int64_t lineno)
{
    const char *t = s;
    size_t tl = pdb_steplog_trim(&t, len);
    int r = header(w, t, tl, lineno);
    if (r != 0)
        return r;
    if (w->blk_mode == BLK_NONE)
        return 0;
    int64_t saved = w->record;
    r = in_block(w, t, tl, lineno);
    if (r == 0) {
        w->record = saved;
        w->blk_mode = BLK_NONE; /* other output: the block is over */
    }
    return r;
}
