/* strutil.c: small string helpers (see strutil.h). */
#include "common/strutil.h"

#include <assert.h>
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
