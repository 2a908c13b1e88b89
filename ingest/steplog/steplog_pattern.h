/* steplog_pattern.h: step logs read with patterns the user teaches
 * (internal to ingest/; the syntax is in docs/steplogs.md, "Teaching a
 * format").
 *
 * A pattern is a POSIX extended regular expression in which {NAME} and
 * {NAME:DECL:...} stand for the fields of a record: the counters {step},
 * {epoch}, {epoch_step}, {epoch_steps}, {rank}, {timestamp}, and values
 * named as the metric rules know them ({loss}, {step_time:ms},
 * {Time:s:window}). Rules are lines "step: PATTERN", "val: PATTERN",
 * "epoch: PATTERN", "summary: PATTERN" ('#' comments), and the
 * declarations "counter: records|none" (a log without a step counter) and
 * "rank: N"; --pattern P is the rule "step: P".
 * Each line of the log is tried against the rules in order, and the first
 * that matches makes a record; lines no rule matches are counted as
 * skipped. Rules an ingest used are stored in steplog_patterns and tried
 * on later ingests of text logs (see pdb_sl_patterns_claim). */
#ifndef PDB_STEPLOG_PATTERN_H
#define PDB_STEPLOG_PATTERN_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct pdb_steplog pdb_steplog;
typedef struct pdb_sl_patterns pdb_sl_patterns;

/* Compiles rules (the text of a rules file, or "step: P" lines made from
 * --pattern). origin names them in messages ("--pattern", a file's path).
 * On a bad rule: NULL and a one-line error naming origin, the line and what
 * is wrong. */
pdb_sl_patterns *pdb_sl_patterns_compile(const char *rules, const char *origin);
void pdb_sl_patterns_free(pdb_sl_patterns *p);
/* The rules' text and origin, as given. */
const char *pdb_sl_patterns_rules(const pdb_sl_patterns *p);
const char *pdb_sl_patterns_origin(const pdb_sl_patterns *p);

/* Reads the log (w->src->in) to the end with the rules. */
int pdb_steplog_read_pattern(pdb_steplog *w, pdb_sl_patterns *p);

/* Stores the rules in steplog_patterns (once: the text is the key). */
int pdb_sl_patterns_store(sqlite3 *db, const pdb_sl_patterns *p);
/* The stored rules, newest first (at most 100), as pairs (rules, origin)
 * in *out (2 * *n strings, the caller frees them and the array). */
int pdb_sl_patterns_load(sqlite3 *db, char ***out, int *n);
/* Of stored rules (pairs (rules, origin), n of them), the ones that best
 * read the first bytes d[0..len) of a text log (eol ends its lines): whose
 * step rules match most lines, when they match at least 3 (or every
 * non-blank line of a shorter log) and at least half of the lines the
 * general reader would take for step records. *out is NULL when none does. */
void pdb_sl_patterns_claim(const char *const *stored, int n, const char *d, size_t len,
                           char eol, pdb_sl_patterns **out);

#endif
