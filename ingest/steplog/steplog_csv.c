/* steplog_csv.c: step logs as CSV/TSV tables with a header row.
 *
 * PyTorch Lightning's CSVLogger writes a wide, sparse table (each row fills
 * only its own keys, CRLF line ends, a rewritten header when keys appear);
 * `nvidia-smi --query-gpu=... --format=csv` writes ", "-separated rows with
 * units in the header ("[MiB]") and in the values ("446 MiB"), repeats the
 * header when restarted and prints "[N/A]" for missing values. One row is one
 * record; step/epoch/timestamp/index columns give its context. */
#include "ingest/steplog/steplog.h"
#include "common/error.h"
#include "ingest/steplog/steplog_units.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The most cells a row may have: Lightning's metrics.csv of a model with
 * per-layer metrics has thousands of columns. Cells grow geometrically up to
 * it; a wider row refuses the file (its memory would grow with one line). */
#define MAX_CELLS 65536

typedef struct {
    const char **p;
    size_t *len;
    int n, cap;
    char *store; /* unquoted copies */
    size_t store_cap;
} cells;

typedef enum { CELLS_OK, CELLS_OPEN_QUOTE, CELLS_TOO_MANY } cells_status;

static void free_cells(cells *c)
{
    free(c->p);
    free(c->len);
    free(c->store);
}

/* Splits one line into cells at sep; "quoted, cells" keep their separators
 * and "" stands for one quote. */
static cells_status split_cells(const char *s, size_t len, char sep, cells *c)
{
    if (c->store_cap < len + 1) {
        c->store_cap = len + 1 > 2 * c->store_cap ? len + 1 : 2 * c->store_cap;
        free(c->store);
        c->store = pdb_xmalloc(c->store_cap);
    }
    size_t o = 0, i = 0;
    c->n = 0;
    for (;;) {
        if (c->n == MAX_CELLS)
            return CELLS_TOO_MANY;
        if (c->n == c->cap) {
            c->cap = c->cap ? 2 * c->cap : 64;
            c->p = pdb_xrealloc(c->p, (size_t)c->cap * sizeof *c->p);
            c->len = pdb_xrealloc(c->len, (size_t)c->cap * sizeof *c->len);
        }
        while (i < len && s[i] == ' ' && sep != ' ')
            i++;
        size_t start = o;
        if (i < len && s[i] == '"') {
            i++;
            for (;;) {
                if (i >= len)
                    return CELLS_OPEN_QUOTE;
                if (s[i] == '"' && i + 1 < len && s[i + 1] == '"') {
                    c->store[o++] = '"';
                    i += 2;
                } else if (s[i] == '"') {
                    i++;
                    break;
                } else
                    c->store[o++] = s[i++];
            }
            while (i < len && s[i] != sep)
                i++;
        } else {
            while (i < len && s[i] != sep)
                c->store[o++] = s[i++];
        }
        while (o > start && isspace((unsigned char)c->store[o - 1]))
            o--;
        c->p[c->n] = c->store + start;
        c->len[c->n++] = o - start;
        if (i >= len)
            return CELLS_OK;
        i++; /* the separator */
    }
}

/* One column of the header. */
typedef struct {
    char *name;          /* the metric name without the "[unit]" part */
    const char *unit;    /* canonical unit from "[unit]", or NULL */
    double factor;       /* to that unit */
    bool not_step;       /* a validation or epoch-level column (val_loss, epoch_time) */
} column;

typedef struct {
    column *col;
    int n;
    int step_col, epoch_col, time_col, index_col;
    bool per_step;       /* some value column is neither validation nor epoch-level */
} header;

static void free_header(header *h)
{
    for (int i = 0; i < h->n; i++)
        free(h->col[i].name);
    free(h->col);
    memset(h, 0, sizeof *h);
}

static bool name_is(const char *n, const char *const *set)
{
    for (int i = 0; set[i]; i++)
        if (strcmp(n, set[i]) == 0)
            return true;
    return false;
}

/* Reads header cells: "memory.used [MiB]" -> name memory.used, unit bytes. */
static void set_header(header *h, const cells *c)
{
    static const char *const steps[] = {"step", "iteration", "global_step", "iter", "Step", NULL};
    static const char *const epochs[] = {"epoch", "Epoch", NULL};
    static const char *const times[] = {"timestamp", "time_stamp", "wall_time", NULL};
    static const char *const index[] = {"index", "gpu_index", "gpu", NULL};
    free_header(h);
    h->n = c->n;
    h->col = pdb_xcalloc((size_t)c->n, sizeof *h->col);
    h->step_col = h->epoch_col = h->time_col = h->index_col = -1;
    for (int i = 0; i < c->n; i++) {
        column *col = &h->col[i];
        size_t l = c->len[i];
        const char *br = memchr(c->p[i], '[', l);
        col->factor = 1;
        if (br && c->p[i][l - 1] == ']') {
            col->unit = pdb_units_canon(br + 1, (size_t)(c->p[i] + l - 1 - (br + 1)),
                                        &col->factor);
            l = (size_t)(br - c->p[i]);
            while (l && c->p[i][l - 1] == ' ')
                l--;
        }
        col->name = pdb_xstrndup(c->p[i], l);
        col->not_step = pdb_steplog_val_name(col->name, l) ||
                        pdb_steplog_name_has_word(col->name, l, "epoch");
        if (h->step_col < 0 && name_is(col->name, steps))
            h->step_col = i;
        else if (h->epoch_col < 0 && name_is(col->name, epochs))
            h->epoch_col = i;
        else if (h->time_col < 0 && name_is(col->name, times))
            h->time_col = i;
        else if (h->index_col < 0 && name_is(col->name, index))
            h->index_col = i;
    }
    for (int i = 0; i < h->n; i++)
        h->per_step |= i != h->step_col && i != h->epoch_col && i != h->time_col &&
                       i != h->index_col && !h->col[i].not_step;
}

/* Whether a row is a training step: in a sparse wide file (Lightning's
 * CSVLogger) the rows that fill only validation or epoch-level columns are
 * the validation and epoch-end records that share the last batch's step,
 * not steps of their own. A file of only such columns keeps every row. */
static bool step_row(const header *h, const cells *c)
{
    if (!h->per_step)
        return true;
    for (int i = 0; i < c->n && i < h->n; i++)
        if (c->len[i] && i != h->step_col && i != h->epoch_col && i != h->time_col &&
            i != h->index_col && !h->col[i].not_step)
            return true;
    return false;
}

/* A row is a header when no cell is a number (a repeated or rewritten one). */
static bool looks_like_header(const cells *c)
{
    for (int i = 0; i < c->n; i++) {
        double x;
        const char *u;
        if (c->len[i] == 0 || pdb_units_quantity(c->p[i], c->len[i], &x, &u) ||
            pdb_steplog_timestamp(c->p[i], c->len[i], &x))
            return false;
    }
    return c->n >= 2;
}

static bool unavailable(const char *s, size_t len)
{
    return len >= 2 && s[0] == '[' && s[len - 1] == ']'; /* [N/A], [Not Supported] */
}

static int number_cell(const cells *c, int col, double *out)
{
    const char *u;
    return col >= 0 && col < c->n && c->len[col] &&
           pdb_units_quantity(c->p[col], c->len[col], out, &u);
}

/* A cell that names its unit before the number: tf_cnn_benchmarks' "images/sec:
 * 140.0 +/- 0.0 (jitter = 0.0)" under a header "Img/sec" is 140.0 samples/s. */
static bool labelled_cell(const char *s, size_t len, double *v, const char **unit)
{
    const char *co = memchr(s, ':', len);
    double f;
    if (!co || co == s || co + 2 > s + len || co[1] != ' ')
        return false;
    const char *u = pdb_units_canon(s, (size_t)(co - s), &f);
    const char *num = co + 2;
    size_t n = pdb_units_number(num, (size_t)(s + len - num), v);
    if (!u || !u[0] || n == 0 || (num + n < s + len && num[n] != ' '))
        return false;
    *v *= f;
    *unit = u;
    return true;
}

/* Stores one data row; the GPU index falls back to the row's position among
 * rows with the same timestamp (multi-GPU queries without an index column). */
static int data_row(pdb_steplog *w, const header *h, const cells *c, int64_t lineno,
                    double *last_ts, int64_t *same_ts)
{
    bool nvsmi = strcmp(w->flavor, "nvidia-smi") == 0;
    pdb_steplog_record(w, nvsmi ? "nvidia-smi" : "csv", lineno);
    w->is_step = step_row(h, c);
    double x;
    if (number_cell(c, h->step_col, &x)) {
        w->has_step = pdb_steplog_to_int(x, &w->step);
        pdb_steplog_saw_counter_named(w, "column %.*s", h->col[h->step_col].name,
                                      strlen(h->col[h->step_col].name));
    }
    if (number_cell(c, h->epoch_col, &x)) {
        w->has_epoch = true;
        w->epoch = x;
    }
    if (h->time_col >= 0 && pdb_steplog_timestamp(c->p[h->time_col], c->len[h->time_col], &x)) {
        w->has_wall = true;
        w->wall = x;
    }
    if (number_cell(c, h->index_col, &x) && pdb_steplog_to_int(x, &w->rank)) {
        w->has_rank = true;
    } else if (nvsmi && w->has_wall) {
        *same_ts = w->wall == *last_ts ? *same_ts + 1 : 0;
        *last_ts = w->wall;
        w->has_rank = true;
        w->rank = *same_ts;
    }
    for (int i = 0; i < c->n; i++) {
        if (i == h->step_col || i == h->epoch_col || i == h->time_col || i == h->index_col ||
            c->len[i] == 0)
            continue;
        if (unavailable(c->p[i], c->len[i])) {
            pdb_skip(w->src, "value not available ([N/A])");
            continue;
        }
        const char *name = h->col[i].name;
        const char *unit;
        double v;
        if (!pdb_units_quantity(c->p[i], c->len[i], &v, &unit) &&
            !labelled_cell(c->p[i], c->len[i], &v, &unit)) {
            pdb_skip(w->src, "non-numeric cell");
            continue;
        }
        if (strcmp(unit, "samples/s") == 0 || strcmp(unit, "tokens/s") == 0) {
            /* a rate the metric rules know by this ending (as the text reader names it) */
            char rate[256];
            snprintf(rate, sizeof rate, "%s%s", name,
                     unit[0] == 's' ? "/samples_per_second" : "/tokens_per_sec");
            if (pdb_steplog_value(w, rate, strlen(rate), v, unit, "point", 0) != PDB_OK)
                return PDB_ERR;
            continue;
        }
        if (unit[0] == '\0' && h->col[i].unit) {
            v *= h->col[i].factor;
            unit = h->col[i].unit;
        } else if (unit[0] == '\0')
            unit = NULL; /* the column name may say it */
        if (pdb_steplog_value(w, name, strlen(name), v, unit, "point", 0) != PDB_OK)
            return PDB_ERR;
    }
    return PDB_OK;
}

int pdb_steplog_read_csv(pdb_steplog *w)
{
    cells c = {0};
    header h = {0};
    const char *line;
    size_t len;
    int r, rc = PDB_OK;
    char sep = 0;
    double last_ts = -1;
    int64_t same_ts = 0;
    while (rc == PDB_OK && (r = pdb_steplog_getline(w, &line, &len)) == 1) {
        int64_t lineno = w->lineno;
        const char *t = line;
        if (pdb_steplog_trim(&t, len) == 0) {
            pdb_skip(w->src, "blank line");
            continue;
        }
        if (!sep)
            sep = memchr(line, '\t', len) ? '\t' : ',';
        cells_status cs = split_cells(line, len, sep, &c);
        if (cs == CELLS_TOO_MANY) {
            rc = pdb_fail_line(w->src->path, lineno, "too many cells: more than %d columns, the "
                               "most the CSV reader reads; expected a CSV header or row",
                               MAX_CELLS);
            break;
        }
        if (cs == CELLS_OPEN_QUOTE) {
            pdb_steplog_malformed(w, lineno, "expected a CSV row (a quote is left open)");
            continue;
        }
        if (h.n == 0 || (looks_like_header(&c) && c.n == h.n)) {
            if (h.n)
                pdb_skip(w->src, "repeated header");
            set_header(&h, &c);
            continue;
        }
        if (looks_like_header(&c)) {
            set_header(&h, &c); /* Lightning rewrote its header with new keys */
            pdb_skip(w->src, "new header");
            continue;
        }
        if (c.n != h.n) {
            pdb_steplog_malformed(w, lineno, "row has a different number of cells than the header");
            continue;
        }
        rc = data_row(w, &h, &c, lineno, &last_ts, &same_ts);
    }
    free_cells(&c);
    free_header(&h);
    if (rc == PDB_OK && r < 0)
        rc = PDB_ERR;
    return rc;
}
