/* numtext.h: exact conversions of number text (as JSON and logs write it).
 *
 * Trace timestamps are microseconds with up to three (sometimes more)
 * fractional digits. Going through a double loses the last digit of values
 * like 4458676416789.123, so they are converted from their text instead. */
#ifndef PDB_NUMTEXT_H
#define PDB_NUMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PDB_NUM_OK 0
#define PDB_NUM_INVALID (-1)
#define PDB_NUM_RANGE (-2)

/* Parses a decimal number (sign, digits, fraction, exponent) and stores
 * round(value * 10^scale) in *out, rounding halves away from zero.
 * Returns PDB_NUM_OK, PDB_NUM_INVALID or PDB_NUM_RANGE. */
int pdb_decimal_scaled(const char *s, size_t len, int scale, int64_t *out);

/* True when the number text is a plain integer (no fraction or exponent). */
bool pdb_number_is_integer(const char *s, size_t len);

/* Parses number text as a double (strtod on a bounded copy). */
int pdb_number_to_double(const char *s, size_t len, double *out);

#endif
