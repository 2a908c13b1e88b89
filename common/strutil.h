/* strutil.h: small string helpers the readers share.
 *
 * pdb_skip_prefix() is git's skip_prefix(): it says whether a string starts
 * with a literal and, when it does, where the rest begins, so that no caller
 * counts the length of a literal by hand ("+ 7" for "] step="). The _mem
 * variants work on (pointer, length) strings, which is how the readers see
 * their lines. */
#ifndef PDB_STRUTIL_H
#define PDB_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the NUL-terminated s starts with prefix; if so, *rest (when not
 * NULL) points just past it. *rest is untouched otherwise. */
bool pdb_skip_prefix(const char *s, const char *prefix, const char **rest);

/* The same for s of length len: on success *rest and *restlen (either may be
 * NULL) describe what follows the prefix. */
bool pdb_skip_prefix_mem(const char *s, size_t len, const char *prefix, const char **rest,
                         size_t *restlen);

/* Like pdb_skip_prefix_mem, ignoring ASCII case. */
bool pdb_skip_prefix_icase(const char *s, size_t len, const char *prefix, const char **rest,
                           size_t *restlen);

/* Whether s of length len is exactly the NUL-terminated word (case-sensitive). */
bool pdb_mem_is(const char *s, size_t len, const char *word);

/* Whether s of length len ends with suffix; if so, *restlen (when not NULL)
 * is the length before it. */
bool pdb_skip_suffix_mem(const char *s, size_t len, const char *suffix, size_t *restlen);

/* Whether s of length len ends with suffix, ignoring ASCII case. */
/* The Levenshtein distance of a and b (insertions, deletions and
 * substitutions of bytes), at most limit + 1: names "did you mean" offers. */
size_t pdb_edit_distance(const char *a, const char *b, size_t limit);
/* The name of names[0..n) closest to given (pdb_edit_distance at most a
 * third of its length, at least 2), or NULL. */
const char *pdb_closest_name(const char *given, const char *const *names, size_t n);

bool pdb_ends_with_icase(const char *s, size_t len, const char *suffix);

#endif
