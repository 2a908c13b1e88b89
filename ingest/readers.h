/* readers.h: the table of input formats.
 *
 * Each reader sniffs a prefix of the decompressed input and returns how sure
 * it is (0 = not mine; the highest score wins), then reads the whole input.
 * Adding a format is adding a reader file and one row in readers.c. */
#ifndef PDB_READERS_H
#define PDB_READERS_H

#include <stdbool.h>
#include <stddef.h>
#include "ingest/ingest.h"

#define PDB_SNIFF_NO 0
#define PDB_SNIFF_MAYBE 10   /* plausible text, e.g. a log */
#define PDB_SNIFF_LIKELY 50
#define PDB_SNIFF_SURE 100   /* magic bytes or a defining key */

typedef struct pdb_reader {
    const char *name;        /* what --format names it */
    int (*sniff)(const unsigned char *data, size_t len);
    int (*read)(pdb_source *src);
} pdb_reader;

extern const pdb_reader pdb_readers[];

/* The best reader for a peeked prefix, or NULL when none claims it; *score
 * gets its sniff score. Files found in a directory are only ingested when the
 * score is at least PDB_SNIFF_LIKELY (a stray README is not a step log). */
const pdb_reader *pdb_reader_sniff(const unsigned char *data, size_t len, int *score);
/* The reader named by --format (the part before ':'), or NULL. */
const pdb_reader *pdb_reader_named(const char *format);

/* Whether a prefix parses as JSON from its first byte (after blanks and a
 * byte order mark), allowing it to be cut off or to hold several values
 * (JSON Lines). NaN and Infinity tokens fail, as in strict JSON. */
bool pdb_sniff_json(const unsigned char *data, size_t len);

/* Readers. */
int pdb_sniff_trace(const unsigned char *data, size_t len);
int pdb_read_trace(pdb_source *src);
int pdb_sniff_steplog(const unsigned char *data, size_t len);
int pdb_read_steplog(pdb_source *src);
int pdb_sniff_pstats(const unsigned char *data, size_t len);
int pdb_read_pstats(pdb_source *src);

#endif
