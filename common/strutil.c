/* strutil.c: small string helpers (see strutil.h). */
#include "common/strutil.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool pdb_skip_prefix(const char *s, const char *prefix, const char **rest)
{
    assert(s && prefix);
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0)
        return false;
    if (rest)
        *rest = s + n;
    return true;
}

bool pdb_skip_prefix_mem(const char *s, size_t len, const char *prefix, const char **rest,
                         size_t *restlen)
{
    assert(prefix);
    size_t n = strlen(prefix);
    if (len < n || memcmp(s, prefix, n) != 0)
        return false;
    if (rest)
        *rest = s + n;
    if (restlen)
        *restlen = len - n;
    return true;
}

bool pdb_skip_prefix_icase(const char *s, size_t len, const char *prefix, const char **rest,
                           size_t *restlen)
{
    assert(prefix);
    size_t n = strlen(prefix);
    if (len < n || strncasecmp(s, prefix, n) != 0)
        return false;
    if (rest)
        *rest = s + n;
    if (restlen)
        *restlen = len - n;
    return true;
}

bool pdb_mem_is(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    return len == n && memcmp(s, word, n) == 0;
}

bool pdb_skip_suffix_mem(const char *s, size_t len, const char *suffix, size_t *restlen)
{
    size_t n = strlen(suffix);
    if (len < n || memcmp(s + len - n, suffix, n) != 0)
        return false;
    if (restlen)
        *restlen = len - n;
    return true;
}

bool pdb_ends_with_icase(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && strncasecmp(s + len - n, suffix, n) == 0;
}

size_t pdb_edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if ((la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    size_t *row = malloc((lb + 1) * sizeof *row);
    if (!row)
        return limit + 1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0], best = row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], cost = diag + (a[i - 1] != b[j - 1]);
            size_t v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = cost < v ? cost : v;
            diag = up;
            best = row[j] < best ? row[j] : best;
        }
        if (best > limit) { /* every path is already too long */
            free(row);
            return limit + 1;
        }
    }
    size_t d = row[lb];
    free(row);
    return d > limit ? limit + 1 : d;
}

const char *pdb_closest_name(const char *given, const char *const *names, size_t n)
{
    size_t limit = strlen(given) / 3 > 2 ? strlen(given) / 3 : 2;
    const char *best = NULL;
    for (size_t i = 0; i < n; i++) {
        size_t d = pdb_edit_distance(given, names[i], limit);
        if (d <= limit && strcmp(given, names[i]) != 0) {
            best = names[i];
            limit = d > 0 ? d - 1 : 0; /* the first of the closest wins */
            if (d == 0)
                break;
        }
    }
    return best;
}
