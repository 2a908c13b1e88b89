/* gnuplot.h: writing gnuplot text safely and running gnuplot.
 *
 * Every chart profdb writes is a .gp script plus a data file. Labels that
 * come from data (kernel, op and function names) go into the data file as
 * double-quoted fields; the few strings placed in script text (titles, run
 * names) are single-quoted literals. Both writers below make sure no input
 * can end a string early or reach gnuplot's command substitution (`...`),
 * macros (@name) or system(): single-quoted strings are never expanded, and
 * data-file fields are plain text to gnuplot. Scripts select `noenhanced`
 * terminals so _ ^ @ & { } in labels print as themselves. */
#ifndef PDB_GNUPLOT_H
#define PDB_GNUPLOT_H

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdio.h>

#include "common/strbuf.h"

/* Appends s as a gnuplot single-quoted string literal: ' doubled, control
 * characters (a newline would end the command) replaced by spaces, invalid
 * UTF-8 and U+FFFE, U+FFFF (no XML character: the SVG would not parse) by
 * U+FFFD (pdb_text_plain, render/text.h). */
void pdb_gp_quote(pdb_buf *b, const char *s);
void pdb_gp_quote_file(FILE *out, const char *s);
/* The same for a tic label ('set ytics ("label" 0)'), which gnuplot also
 * reads as a format: % is doubled (a path holding "%d" failed the plot). */
void pdb_gp_quote_tic(pdb_buf *b, const char *s);

/* Appends s as a double-quoted data-file field, cut to max_width code
 * points (0: never): " becomes ', \ is doubled (gnuplot reads \\ as \),
 * control characters become spaces, text is valid as above; an empty label
 * becomes "-". */
void pdb_gp_data_label(pdb_buf *b, const char *s, size_t max_width);

/* The gnuplot executable: $PROFDB_GNUPLOT if set (empty: none), else the
 * first 'gnuplot' on PATH. Returns false when there is none. */
bool pdb_gp_find(char *path, size_t cap);

/* Runs gnuplot on script (a file name relative to dir) with dir as the
 * working directory: fork and exec with an argument vector, never a shell.
 * On failure records gnuplot's first error line and returns PDB_ERR. */
int pdb_gp_run(const char *gnuplot, const char *dir, const char *script);

/* pdb_gp_run in two halves, so that several charts render at once (and
 * beside the caller's own work): start forks gnuplot and returns; finish
 * reads its error output, waits for it and says how it went as
 * pdb_gp_run does (with report false, a failure returns PDB_ERR without
 * recording a message: the one recorded first is kept). A started job
 * must be finished. */
typedef struct {
    pid_t pid;          /* -1: nothing running */
    int fd;             /* gnuplot's stderr */
    char script[48];
} pdb_gp_job;
int pdb_gp_start(const char *gnuplot, const char *dir, const char *script, pdb_gp_job *job);
int pdb_gp_finish(const char *gnuplot, pdb_gp_job *job, bool report);

#endif
