/* test_registry.c: every row of the extension-point tables is complete.
 *
 * A report (report/reports.def), a reader (ingest/readers.def) and a gate
 * metric (compare/metrics.def) are each one row carrying everything profdb
 * knows about them; whatever else lists them (help texts, the overview's
 * "reports that apply", the --out folder, the ingest's per-kind handling)
 * is made from the rows (and Kineto's spellings, kineto_spellings.def, are
 * each found by their text). A row that leaves a field unset (0, NULL, "") or
 * repeats another row's name or place fails here, with the row named. */
#include "check.h"
#include "compare/metrics.h"
#include "ingest/readers.h"
#include "ingest/trace/kineto_spellings.h"
#include "ingest/trace/trace_event.h"
#include "report/reports.h"

#include <stdbool.h>
#include <string.h>

/* A name as the command line spells it: lower case, digits and '-'. */
static bool plain_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
            return false;
    return true;
}

/* One line of help text: set, no line break, no closing period (the
 * folder adds one). */
static bool help_line(const char *s)
{
    return s && *s && !strchr(s, '\n') && s[strlen(s) - 1] != '.';
}

#define ROW_CHECK(cond, name)                                                  \
    do {                                                                       \
        CHECK(cond);                                                           \
        if (!(cond))                                                           \
            fprintf(stderr, "  in the row of '%s'\n", (name) ? (name) : "(null)"); \
    } while (0)

static void test_reports(void)
{
    int n = 0;
    const int known = PDB_NEEDS_TRACE | PDB_NEEDS_GPU | PDB_NEEDS_STEPS | PDB_NEEDS_PSTATS |
                      PDB_NEEDS_STEPLOG | PDB_NEEDS_MEMORY | PDB_NEEDS_PYSPY;
    for (const pdb_report *r = pdb_reports; r->name; r++, n++) {
        const char *name = r->name;
        ROW_CHECK(plain_name(name), name);
        ROW_CHECK(pdb_report_find(name) == r, name); /* no other row has its name */
        ROW_CHECK(r->run != NULL, name);
        ROW_CHECK(help_line(r->summary), name);
        /* needs: known bits, or PDB_NEEDS_NOTHING alone */
        ROW_CHECK(r->needs == PDB_NEEDS_NOTHING || (r->needs && !(r->needs & ~known)), name);
        ROW_CHECK(r->folder == PDB_NOT_IN_FOLDER || r->folder > 0, name);
        ROW_CHECK(r->folder_top == PDB_TOP_ALL || r->folder_top > 0, name);
        for (const pdb_report *o = pdb_reports; o != r; o++)
            ROW_CHECK(r->folder == PDB_NOT_IN_FOLDER || o->folder != r->folder, name);
    }
    CHECK(n > 0);
    /* The overview and the folder need summary: it applies to every run. */
    const pdb_report *summary = pdb_report_find("summary");
    CHECK(summary && summary->needs == PDB_NEEDS_NOTHING && summary->folder > 0);
}

static void test_readers(void)
{
    int n = 0;
    for (const pdb_reader *r = pdb_readers; r->name; r++, n++) {
        const char *name = r->name;
        ROW_CHECK(plain_name(name), name);
        ROW_CHECK(pdb_reader_named(name) == r, name); /* no other row has its name */
        ROW_CHECK(r->sniff != NULL && r->read != NULL, name);
        ROW_CHECK(r->kind == PDB_INPUT_RANK || r->kind == PDB_INPUT_SUMMED ||
                      r->kind == PDB_INPUT_ALONE,
                  name);
        /* nothing to look at is nobody's format */
        ROW_CHECK(r->sniff((const unsigned char *)"", 0) == PDB_SNIFF_NO, name);
    }
    CHECK(n > 0);
}

/* Lines of a metric's help: set, none empty, none over 62 characters
 * (check --help puts them after a 21-character column). */
static bool help_lines(const char *s)
{
    if (!s || !*s)
        return false;
    for (const char *line = s; *line;) {
        size_t len = strcspn(line, "\n");
        if (len == 0 || len > 62)
            return false;
        line += len + (line[len] == '\n');
    }
    return s[strlen(s) - 1] != '\n';
}

static void test_metrics(void)
{
    for (int k = 0; k < PDB_METRIC_KINDS; k++) {
        const pdb_metric_row *row = &pdb_metric_rows[k];
        const char *name = row->spec;
        ROW_CHECK(row->kind == (pdb_metric_kind)k, name);
        ROW_CHECK(name && *name, name);
        if (!name || !*name)
            continue;
        bool prefix = name[strlen(name) - 1] == ':';
        ROW_CHECK(prefix == (row->arg && *row->arg), name); /* a prefix has a placeholder */
        ROW_CHECK(row->worse == PDB_WORSE_HIGHER || row->worse == PDB_WORSE_LOWER ||
                      row->worse == PDB_WORSE_BY_NAME,
                  name);
        ROW_CHECK((row->unit != NULL) == (row->worse != PDB_WORSE_BY_NAME), name);
        ROW_CHECK(row->samples != NULL, name);
        for (int o = 0; o < k; o++)
            ROW_CHECK(!pdb_metric_rows[o].spec || strcmp(pdb_metric_rows[o].spec, name) != 0,
                      name);
        /* The row parses its own name (a prefix with a name after it). */
        char spec[64];
        snprintf(spec, sizeof spec, "%s%s", name, prefix ? "x" : "");
        pdb_metric m;
        ROW_CHECK(pdb_metric_parse(spec, &m) == 0 && m.kind == (pdb_metric_kind)k, name);
        if (row->worse != PDB_WORSE_BY_NAME)
            ROW_CHECK(m.higher_is_worse == (row->worse == PDB_WORSE_HIGHER), name);
        /* Help: its own, or (a companion) in the help of the metric that brings it. */
        const pdb_metric_row *parent = NULL;
        for (int o = 0; o < PDB_METRIC_KINDS; o++)
            if (pdb_metric_rows[o].companion && strcmp(pdb_metric_rows[o].companion, name) == 0)
                parent = &pdb_metric_rows[o];
        if (row->help) {
            ROW_CHECK(help_lines(row->help), name);
        } else {
            char mention[64];
            snprintf(mention, sizeof mention, "%s%s", name, row->arg ? row->arg : "");
            ROW_CHECK(parent && parent->help && strstr(parent->help, mention), name);
        }
        /* A companion is a prefixed metric of its own row. */
        if (row->companion) {
            bool found = false;
            for (int o = 0; o < PDB_METRIC_KINDS; o++)
                found |= pdb_metric_rows[o].spec && prefix &&
                         strcmp(pdb_metric_rows[o].spec, row->companion) == 0;
            ROW_CHECK(found, name);
        }
    }
    /* A bare name no row names is a step-log metric. */
    pdb_metric m;
    CHECK(pdb_metric_parse("loss", &m) == 0 && m.kind == PDB_METRIC_STEPLOG);
}

/* Kineto's spellings (ingest/trace/kineto_spellings.def): each older
 * spelling once, found by its own text, rewritten into another one that the
 * table does not rewrite again; a flow-only row is not found on other events. */
static void test_spellings(void)
{
    int n = pdb_cat_spellings();
    for (int row = 0; row < n; row++) {
        const char *w = pdb_cat_spelling_written(row), *c = pdb_cat_spelling_canonical(row);
        ROW_CHECK(w && *w && c && *c && strcmp(w, c) != 0, w);
        ROW_CHECK(pdb_cat_spelling(w, strlen(w), true) == row, w); /* first row of its text */
        ROW_CHECK(pdb_cat_spelling(c, strlen(c), true) < 0, w);    /* today's stays */
    }
    CHECK(n > 0);
    CHECK(pdb_cat_spelling("Kernel", 6, false) >= 0);
    CHECK(pdb_cat_spelling("async", 5, false) < 0 && pdb_cat_spelling("async", 5, true) >= 0);
    int columns = 0;
    for (int col = 0; col < PDB_ARG_COUNT; col++) {
        const char *w = pdb_arg_spelling_written(col);
        if (!w)
            continue;
        columns++;
        ROW_CHECK(pdb_arg_spelling(w, strlen(w)) == col, w);
        ROW_CHECK(pdb_arg_spelling_canonical(col) && strcmp(pdb_arg_spelling_canonical(col), w),
                  w);
    }
    CHECK(columns > 0 && pdb_arg_spelling("External id", 11) < 0);
}

int main(void)
{
    test_reports();
    test_readers();
    test_metrics();
    test_spellings();
    return check_report();
}
