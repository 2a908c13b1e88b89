/* html.h: a folder's index.md as a page for the browser (index.html).
 *
 * The page is written from the same Markdown as index.md, fed line by line
 * as it is made, so both say the same. Only the Markdown profdb writes is
 * understood: headings, paragraphs, "- " lists, pipe tables, images, links,
 * code spans, **bold** and backslash escapes (render/text.h's pdb_text_md).
 * Every text lands HTML-escaped; a link or image keeps its target only when
 * it is a file of the folder (letters, digits, '.', '-', '_'), else its text
 * shows alone. The page needs no network and no server: its style and its
 * one script (click a table's column header to sort it) are inline, charts
 * are <img> of the PNG and SVG files beside it.
 *
 * Table cells longer than PDB_HTML_CELL code points are shortened together
 * with the column's other long cells, keeping where they differ
 * (render/shorten.h), and carry the whole text in a title attribute (shown
 * on hover); columns of sentences (evidence, why, advice, ...) wrap
 * instead. A table is held until it ends (index.md's tables are cut to
 * their first rows): at most PDB_HTML_ROWS rows, then written in parts. */
#ifndef PDB_HTML_H
#define PDB_HTML_H

#include <stdio.h>

#define PDB_HTML_CELL 60
#define PDB_HTML_ROWS 500

typedef struct pdb_html pdb_html;

/* Starts the page on out (title: plain text, escaped here). */
pdb_html *pdb_html_open(FILE *out, const char *title);

/* Converts md: whole lines of Markdown (a last line without '\n' waits for
 * the rest of it). */
void pdb_html_md(pdb_html *h, const char *md);

/* Ends every open block and the page, frees h. out stays open. */
void pdb_html_close(pdb_html *h);

/* DIR/index.html from DIR/index.md as it was written (`diff --out`,
 * `trend --out`: their tables are the Markdown's). PDB_OK or PDB_ERR. */
int pdb_html_page(const char *dir, const char *title);

#endif
