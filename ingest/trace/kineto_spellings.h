/* kineto_spellings.h: today's spelling of a category or arg name that an
 * older PyTorch profiler wrote differently (the table is
 * kineto_spellings.def). */
#ifndef PDB_KINETO_SPELLINGS_H
#define PDB_KINETO_SPELLINGS_H

#include <stdbool.h>
#include <stddef.h>

/* The number of older category spellings in the table. */
int pdb_cat_spellings(void);

/* The row of the table for a category as written on an event (a flow event
 * when flow), or -1 when the category is spelt as today (or is not
 * Kineto's). */
int pdb_cat_spelling(const char *text, size_t len, bool flow);
const char *pdb_cat_spelling_written(int row);
const char *pdb_cat_spelling_canonical(int row);

/* The arg column (PDB_ARG_*) an older arg name stands for, or -1. */
int pdb_arg_spelling(const char *key, size_t len);
/* A column's older name and today's (NULL when the table has none; one
 * older name per column). */
const char *pdb_arg_spelling_written(int column);
const char *pdb_arg_spelling_canonical(int column);

#endif
