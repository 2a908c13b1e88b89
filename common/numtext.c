/* numtext.c: exact decimal-text conversions (see numtext.h). */
#include "common/numtext.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Splits number text into its significant digits and a power of ten:
 * value = sign * digits * 10^exp10. Leading zeros are dropped. */
typedef struct {
    char digits[64];
    int ndigits;   /* significant digits kept (at most 64) */
    int64_t exp10;
    bool negative;
} decimal;

static int split_decimal(const char *s, size_t len, decimal *d)
{
    size_t i = 0;
    memset(d, 0, sizeof *d);
    if (i < len && (s[i] == '-' || s[i] == '+'))
        d->negative = s[i++] == '-';
    bool any = false, in_frac = false;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '.' && !in_frac) {
            in_frac = true;
            continue;
        }
        if (c < '0' || c > '9')
            break;
        any = true;
        if (in_frac)
            d->exp10--;
        if (c == '0' && d->ndigits == 0)
            continue;
        if (d->ndigits < (int)sizeof d->digits)
            d->digits[d->ndigits++] = c;
        else
            d->exp10++; /* an int64 keeps 19 digits and rounding reads only the first dropped one, so later digits never matter */
    }
    if (!any)
        return PDB_NUM_INVALID;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '-' || s[i] == '+'))
            eneg = s[i++] == '-';
        if (i >= len)
            return PDB_NUM_INVALID;
        int64_t e = 0;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            if (e < 100000)
                e = e * 10 + (s[i] - '0');
        d->exp10 += eneg ? -e : e;
    }
    return i == len ? PDB_NUM_OK : PDB_NUM_INVALID;
}

/* The common case, "123" or "123.456" with at most `scale` fractional
 * digits and no exponent, without the general machinery: at most 18
 * digits once scaled, which always fit an int64. Kineto's timestamps
 * ("1700000000000.100" microseconds, 16 digits, scale 3) are the reason it
 * counts digits rather than characters. Returns false to fall back. */
static bool fast_scaled(const char *s, size_t len, int scale, int64_t *out)
{
    if (len == 0 || len > 19 || scale < 0 || scale > 9)
        return false;
    int64_t v = 0;
    int frac = -1, digits = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 18 || (frac >= 0 && ++frac > scale))
                return false;
            v = v * 10 + (c - '0');
        } else if (c == '.' && frac < 0 && i > 0) {
            frac = 0;
        } else {
            return false;
        }
    }
    int pad = scale - (frac < 0 ? 0 : frac);
    if (frac == 0 || digits + pad > 18)
        return false; /* "12.", or maybe too large for an int64 */
    for (int k = 0; k < pad; k++)
        v *= 10;
    *out = v;
    return true;
}

int pdb_decimal_scaled(const char *s, size_t len, int scale, int64_t *out)
{
    if (fast_scaled(s, len, scale, out))
        return PDB_NUM_OK;
    decimal d;
    if (split_decimal(s, len, &d) != PDB_NUM_OK)
        return PDB_NUM_INVALID;
    int64_t shift = d.exp10 + scale;
    int keep = d.ndigits;
    bool round_up = false;
    if (shift < 0) {
        /* Drop -shift digits from the right, rounding half away from zero. */
        int64_t drop = -shift;
        if (drop > d.ndigits) {
            keep = 0;
            round_up = false;
        } else {
            keep = d.ndigits - (int)drop;
            round_up = d.digits[keep] >= '5';
        }
        shift = 0;
    }
    uint64_t v = 0;
    const uint64_t limit = (uint64_t)INT64_MAX;
    for (int k = 0; k < keep; k++) {
        unsigned digit = (unsigned)(d.digits[k] - '0');
        if (v > (limit - digit) / 10)
            return PDB_NUM_RANGE;
        v = v * 10 + digit;
    }
    for (int64_t k = 0; k < shift && v != 0; k++) {
        if (v > limit / 10)
            return PDB_NUM_RANGE;
        v *= 10;
    }
    if (round_up) {
        if (v == limit)
            return PDB_NUM_RANGE;
        v++;
    }
    *out = d.negative ? -(int64_t)v : (int64_t)v;
    return PDB_NUM_OK;
}

bool pdb_number_is_integer(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.' || s[i] == 'e' || s[i] == 'E')
            return false;
    return true;
}

int pdb_number_to_double(const char *s, size_t len, double *out)
{
    char tmp[128];
    if (len == 0 || len >= sizeof tmp)
        return PDB_NUM_INVALID;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (end != tmp + len)
        return PDB_NUM_INVALID;
    if (errno == ERANGE && isinf(v))
        return PDB_NUM_RANGE;
    *out = v;
    return PDB_NUM_OK;
}
