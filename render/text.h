/* text.h: the one way text from data reaches each output format.
 *
 * Names in outputs (run names, labels, metric, kernel, op, function and file
 * names, SQL column names) come from anywhere: they may hold invalid UTF-8,
 * control characters (an ESC sequence that retitles or clears a terminal, a
 * BEL, an 8-bit CSI), line breaks, Markdown and HTML. Each output format has
 * one function here, and every writer that prints such a name calls the one
 * of its format, never printf on the name itself:
 *
 *   terminal   pdb_text_term: valid UTF-8 (each invalid sequence a U+FFFD),
 *              control characters (C0, DEL, C1) as visible \xNN or \u00NN
 *              escapes, line breaks and tabs as spaces: one line of text
 *   Markdown   pdb_text_md: pdb_text_term, then every character Markdown
 *              would act on backslash-escaped (| \ * < [ ] ! ` & ~ $ and a
 *              word-edge _): no HTML, link, image, emphasis, code span, table
 *              cell or line of its own; it shows as written
 *   XML        pdb_text_xml: valid XML 1.0 characters (invalid UTF-8 and
 *              U+FFFE, U+FFFF as U+FFFD; other controls as \xNN escapes),
 *              & < > " ' as entities, tab and line breaks as references
 *   gnuplot    pdb_text_plain, under gnuplot.h's quoting: valid UTF-8 and
 *              XML characters (the SVG terminal writes XML), every control
 *              character a space
 *   CSV, TSV, JSON and table cells: render.c, per cell (pdb_render_stmt)
 *
 * Error messages and warnings are cleaned by common/error.c the way
 * pdb_text_term cleans. Each function appends to b and returns the number
 * of invalid UTF-8 sequences it replaced; the pdb_fput_* variants write to a
 * FILE. */
#ifndef PDB_TEXT_H
#define PDB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/strbuf.h"

size_t pdb_text_term(pdb_buf *b, const char *s);
size_t pdb_text_md(pdb_buf *b, const char *s);
size_t pdb_text_xml(pdb_buf *b, const char *s);
size_t pdb_text_plain(pdb_buf *b, const char *s);
/* The same for s[0..len), which may hold NUL (shown as \x00, or a space). */
size_t pdb_text_term_mem(pdb_buf *b, const char *s, size_t len);
size_t pdb_text_plain_mem(pdb_buf *b, const char *s, size_t len);
/* s as a Markdown code span in prose (`name`): pdb_text_term's text between
 * backtick fences longer than any run of backticks in it, so nothing in it
 * acts and no escape shows. Not for table cells: GFM splits a cell at a '|'
 * in a code span too (pdb_text_md is for cells). */
size_t pdb_text_md_code(pdb_buf *b, const char *s);

void pdb_fput_term(FILE *out, const char *s);
void pdb_fput_md(FILE *out, const char *s);
void pdb_fput_md_code(FILE *out, const char *s);
void pdb_fput_xml(FILE *out, const char *s);
/* Markdown when md, else terminal text: the lines a report prints around
 * its tables, which show in the terminal or in a Markdown page. */
void pdb_fput_text(FILE *out, const char *s, bool md);

#endif
