/* steplog_units.h: numbers and units as training logs print them.
 *
 * Step logs write the same quantity many ways: "5,970" (thousands
 * separators), "11.5K" (SI suffix), "123.4ms", "75.25GiB", "83.14%",
 * "1 day, 0:03:02" (a Python timedelta), "16:19:16" (tqdm). These helpers
 * turn such text into a double in a canonical unit, so every reader
 * stores times in seconds, sizes in bytes and shares in percent. */
#ifndef PDB_STEPLOG_UNITS_H
#define PDB_STEPLOG_UNITS_H

#include <stdbool.h>
#include <stddef.h>

/* Canonical unit names stored in the database. */
#define PDB_UNIT_SECONDS "s"
#define PDB_UNIT_BYTES "B"
#define PDB_UNIT_PERCENT "%"

/* Parses a number at s: sign, digits (optionally grouped by commas in threes,
 * "1,234,567"), fraction, exponent, or nan/inf. Returns the characters
 * consumed, 0 when s does not start with a number. */
size_t pdb_units_number(const char *s, size_t len, double *out);

/* Looks up a unit name ("ms", "GiB", "%", "s/it", ...). On success returns the
 * canonical unit (a static string, "" for plain counts) and sets *factor so
 * that value * factor is in that unit; returns NULL when unknown. */
const char *pdb_units_canon(const char *unit, size_t len, double *factor);

/* Parses a whole quantity: a number, an optional SI suffix (K, M, G, T) and an
 * optional unit, with blanks allowed around. Durations like
 * "1 day, 0:03:02" and "12:34" are accepted too (as seconds). Sets *value in
 * the canonical unit and *unit (static, "" when none). Returns true when
 * all of the text was understood. */
bool pdb_units_quantity(const char *s, size_t len, double *value, const char **unit);

/* Parses "[D day[s], ]H:MM:SS[.f]" or "MM:SS" into seconds. */
bool pdb_units_clock(const char *s, size_t len, double *seconds);

/* Parses a span written in parts, largest first and one part per word,
 * "43s", "3m 53s", "1h 2m 3s", "2d 3h" (ms-swift's elapsed_time), into
 * seconds. */
bool pdb_units_span(const char *s, size_t len, double *seconds);

/* One part of such a span: "1h", "23m", "02s", "2d". Returns its rank (the
 * unit letter: s 1, m 2, h 3, d 4) with its seconds, or 0 when it is not
 * one. */
int pdb_units_span_part(const char *t, size_t n, double *seconds);

/* The unit a metric's name implies ("time_forward_ms" -> ms, factor 0.001
 * to seconds; "epoch_time" -> s; "mem_gb" -> bytes), or NULL. */
const char *pdb_units_from_name(const char *name, size_t len, double *factor);
/* The length of name without the unit that ends it, when its unit comes
 * from that ending ("data_time_ms" -> "data_time", "fwd (s)" -> "fwd ");
 * else len. */
size_t pdb_units_name_stem(const char *name, size_t len);

#endif
