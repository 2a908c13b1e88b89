/* shorten.h: names cut to a width so that what tells them apart stays.
 *
 * A middle cut ("void split_embedding_backward_…float, long)") makes names
 * that differ only in the middle (a template argument 2ul against 5ul) print
 * the same. These functions cut a column of names together: for each name,
 * the part where it differs from the names closest to it (the longest
 * prefix and the longest suffix it shares with any other name of the
 * column) is kept first, then its first words, then its last words; what
 * is left out shows as "…". Cuts fall between words (a word: letters,
 * digits, '_', and any non-ASCII character), never inside one, unless a
 * single word is wider than the width. Widths count code points, as
 * pdb_utf8_width does; the text must be one line (pdb_text_term's). */
#ifndef PDB_SHORTEN_H
#define PDB_SHORTEN_H

#include <stddef.h>

/* out[i] (malloc'd) is names[i] in at most width columns (names that fit
 * are copied as they are). n names, width >= 1. */
void pdb_shorten_column(const char *const *names, size_t n, size_t width, char **out);

/* One name alone: its first and last words around a "…". malloc'd. */
char *pdb_shorten_one(const char *name, size_t width);

#endif
