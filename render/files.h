/* files.h: the files of an output folder (`report --out DIR`, `diff --out DIR`).
 *
 * File names come from profdb (report and chart names), never from data, and
 * are reduced to letters, digits, '-' and '_' whatever a caller passes, so no
 * name can leave the folder. A file already there is replaced, never written
 * through: a symbolic link planted in DIR (index.md -> ~/.bashrc) is removed,
 * not followed. */
#ifndef PDB_FILES_H
#define PDB_FILES_H

#include <stdio.h>

#include "common/strbuf.h"

/* Creates dir (and no parents) unless it is already a directory. */
int pdb_out_dir(const char *dir);
/* Sets b to DIR/NAME.EXT with NAME reduced as above. */
void pdb_out_path(pdb_buf *b, const char *dir, const char *name, const char *ext);
/* Removes DIR/NAME.EXT if present (a file another program will write, such as
 * the images gnuplot draws), so that program cannot follow a planted link. */
int pdb_out_clear(const char *dir, const char *name, const char *ext);
/* Opens a new DIR/NAME.EXT for writing, replacing what was there (see above).
 * NULL with the error recorded on failure. */
FILE *pdb_out_create(const char *dir, const char *name, const char *ext);
/* Closes f and reports any write error on it; name is for the message. */
int pdb_out_close(FILE *f, const char *name);

#endif
