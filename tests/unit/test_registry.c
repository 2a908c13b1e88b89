/* test_registry.c: every row of the extension-point tables is complete.
 *
 * A report (report/reports.def), a reader (ingest/readers.def) and a gate
 * metric (compare/metrics.def) are each one row carrying everything profdb
 * knows about them; whatever else lists them (help texts, the overview's
 * "reports that apply", the --out folder, the ingest's per-kind handling)
 * is made from the rows. A row that leaves a field unset (0, NULL, "") or
 * repeats another row's name or place fails here, with the row named. */
#include "check.h"
#include "ingest/readers.h"
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
                      PDB_NEEDS_STEPLOG | PDB_NEEDS_MEMORY;
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

int main(void)
{
    test_reports();
    test_readers();
    return check_report();
}
