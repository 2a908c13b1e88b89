/* input.h: the byte stream every reader consumes.
 *
 * Opens a file or stdin ("-"), recognises gzip by its magic bytes and
 * inflates it transparently (also multi-member files, as `zcat` does), and
 * hands out decompressed data in chunks or lines. The first bytes can be
 * peeked for format sniffing without seeking, so pipes work. Offsets in
 * error messages are offsets into the decompressed data. */
#ifndef PDB_INPUT_H
#define PDB_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PDB_INPUT_PEEK 65536

typedef struct pdb_input pdb_input;

/* Opens path ("-" for stdin). On failure records an error and returns NULL. */
pdb_input *pdb_input_open(const char *path);
/* Wraps a memory buffer (not copied; must outlive the input). */
pdb_input *pdb_input_open_mem(const char *name, const void *data, size_t len);
void pdb_input_close(pdb_input *in);

/* The first decompressed bytes (up to PDB_INPUT_PEEK), without consuming. */
int pdb_input_peek(pdb_input *in, const unsigned char **data, size_t *len);
/* Reads up to cap decompressed bytes: returns the count, 0 at end, -1 on error. */
ssize_t pdb_input_read(pdb_input *in, unsigned char *buf, size_t cap);
/* Reads one line without its "\n" or "\r\n": returns 1, 0 at end, -1 on error.
 * The line stays valid until the next call. */
int pdb_input_getline(pdb_input *in, const char **line, size_t *len);

const char *pdb_input_name(const pdb_input *in);
bool pdb_input_is_gzip(const pdb_input *in);
int64_t pdb_input_offset(const pdb_input *in);      /* decompressed bytes consumed */
int64_t pdb_input_raw_bytes(const pdb_input *in);   /* bytes read from the file */
int64_t pdb_input_lineno(const pdb_input *in);      /* lines returned so far */
int64_t pdb_input_size(const pdb_input *in);        /* file size, or -1 (pipe) */

/* stop() is asked after a blocking open or read was interrupted by a
 * signal; true ends it with an error ("reading interrupted"). The caller
 * installs its signal handlers without SA_RESTART so that reads do return. */
void pdb_input_set_stop(bool (*stop)(void));

#endif
