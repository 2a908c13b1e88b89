/* steplog_reading.h: what a step-log ingest understood (internal to ingest/).
 *
 * A reader that guesses silently lets a user gate on nothing: issue 32 saw a
 * 1,010-step log ingest with exit 0 and zero steps. So every step-log ingest
 * says how it read the log (the reading): the reader, the step counter and
 * the text it came from, the step records, where step times and throughput
 * come from and how fine they are, the epoch structure and the share of
 * lines used; it warns (exit 0) when that reading is weak, and stores it in
 * steplog_readings for `profdb runs`. The readers feed it through the hooks
 * below while they read; pdb_sl_reading_finish() works out the rest from the
 * values the source stored, after the writer's passes. */
#ifndef PDB_STEPLOG_READING_H
#define PDB_STEPLOG_READING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pdb_steplog pdb_steplog;
typedef struct pdb_sl_reading pdb_sl_reading;

/* A step record's counter as the general reader (or a user pattern) found
 * it. */
typedef struct {
    const char *name;     /* the step counter's name as printed ("Up.", "Step");
                           * NULL or nl 0: a bare N/M */
    size_t nl;
    bool progress;        /* printed as N/M */
    const char *epoch;    /* the epoch counter's name when the step counts within
                           * epochs, else NULL */
    size_t el;
    int64_t printed;      /* the counter as printed */
    int64_t step;         /* the global step it became */
    int64_t per_epoch;    /* M when the step became epoch x M + N, else 0 */
    bool from_one;        /* ... as (epoch - 1) x M + N: epochs counted from 1 */
    bool epoch_first;     /* printed "E/N": the epoch, then the step (the count
                           * stays while the "total" grows) */
} pdb_sl_counter;

/* The counter of the current step record (once per record). */
void pdb_steplog_saw_counter(pdb_steplog *w, const pdb_sl_counter *c);
/* The same for readers whose counter is a key or a column: text says where
 * it was read ("\"iteration\": N", "column step"). */
void pdb_steplog_saw_counter_text(pdb_steplog *w, const char *text, size_t len);
/* The same for a counter named by a key or column: fmt is a literal with
 * one "%.*s" for the name ("key \"%.*s\"", "column %.*s"); the text is
 * formatted only when it differs from the last record's. */
void pdb_steplog_saw_counter_named(pdb_steplog *w, const char *fmt, const char *name, size_t nl);
/* The same with a string literal. */
#define PDB_SL_SAW_COUNTER(w, lit) pdb_steplog_saw_counter_text((w), (lit), sizeof(lit) - 1)
/* Lines joined to the record being assembled (continuation lines), which
 * hold values but are not a record's first line. */
void pdb_steplog_saw_lines(pdb_steplog *w, int64_t n);
/* The writer calls this for every value read from the file (not derived),
 * after counting the record, with the value's split and raw name: lines
 * used, and the steps of training records (a counter that goes back). */
void pdb_sl_reading_value(pdb_steplog *w, const char *split, const char *raw, size_t rawlen);

/* After pdb_steplog_finish(): works out the step-time and throughput
 * sources from the stored values, prints the reading to stderr (unless
 * quiet), warns when it is weak, and stores it (steplog_readings). lines:
 * whether the log has lines (not a JSON document). */
int pdb_sl_reading_finish(pdb_steplog *w, bool lines, bool quiet);
void pdb_sl_reading_free(pdb_sl_reading *r);

#endif
