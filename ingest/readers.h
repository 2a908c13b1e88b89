/* readers.h: the table of input formats.
 *
 * Each reader sniffs a prefix of the decompressed input and returns how sure
 * it is (0 = not mine; the highest score wins), then reads the whole input.
 * Adding a format is adding a reader file and one row in readers.def. */
#ifndef PDB_READERS_H
#define PDB_READERS_H

#include <stdbool.h>
#include <stddef.h>
#include "ingest/ingest.h"

#define PDB_SNIFF_NO 0
#define PDB_SNIFF_MAYBE 10   /* plausible text, e.g. a log */
#define PDB_SNIFF_LIKELY 50
#define PDB_SNIFF_SURE 100   /* magic bytes or a defining key */

/* How an ingest treats an input beyond reading it (a row's KIND), so that
 * nothing outside the table tests a reader's name. */
typedef enum {
    PDB_INPUT_RANK = 1, /* one rank of its run (a trace): numbered in input order among
                           the run's traces, its rank when the trace names none */
    PDB_INPUT_SUMMED,   /* added up with the run's other inputs of its format, in order
                           (pstats dumps): one --jobs worker reads them all */
    PDB_INPUT_ALONE,    /* read on its own (a step log) */
} pdb_input_kind;

/* One row of readers.def. */
typedef struct pdb_reader {
    const char *name;        /* what --format names it */
    int (*sniff)(const unsigned char *data, size_t len);
    int (*read)(pdb_source *src);
    pdb_input_kind kind;
} pdb_reader;

/* The rows of readers.def in order, then a row whose name is NULL. */
extern const pdb_reader pdb_readers[];

/* The best reader for a peeked prefix, or NULL when none claims it; *score
 * gets its sniff score. Files found in a directory are only ingested when the
 * score is at least PDB_SNIFF_LIKELY (a stray README is not a step log). */
const pdb_reader *pdb_reader_sniff(const unsigned char *data, size_t len, int *score);
/* The reader named by --format (the part before ':'), or NULL. */
const pdb_reader *pdb_reader_named(const char *format);

/* Whether a prefix parses as JSON from its first byte (after blanks and a
 * byte order mark), allowing it to be cut off or to hold several values
 * (JSON Lines). NaN and Infinity tokens fail, as in strict JSON. (source.c,
 * beside the other services a reader gets.) */
bool pdb_sniff_json(const unsigned char *data, size_t len);

/* Readers: the two functions of each row of readers.def. */
#define PDB_READER(name, id, kind)                                             \
    int pdb_sniff_##id(const unsigned char *data, size_t len);                 \
    int pdb_read_##id(pdb_source *src);
#include "ingest/readers.def"
#undef PDB_READER

#endif
