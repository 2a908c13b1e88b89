/* error.h: one error path for the whole program.
 *
 * A failing function records a one-line message with pdb_fail*() and returns
 * PDB_ERR; callers pass the failure up unchanged and the CLI prints
 * "profdb: MESSAGE" once, the way sqlite3_errmsg() works for SQLite. */
#ifndef PDB_ERROR_H
#define PDB_ERROR_H

#include <stdint.h>

#define PDB_OK 0
#define PDB_ERR (-1)

/* Process exit codes, stable across releases. */
#define PDB_EXIT_OK 0
#define PDB_EXIT_FAILED 1   /* a check failed or a regression was found */
#define PDB_EXIT_ERROR 2    /* usage error, bad input, or any other error */

#if defined(__GNUC__)
#define PDB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PDB_PRINTF(a, b)
#endif

int pdb_fail(const char *fmt, ...) PDB_PRINTF(1, 2);
/* "FILE: byte N: what": N counts the bytes readers see, which for a gzip
 * input are its decompressed bytes; the message then says so
 * ("byte N (decompressed)"), see pdb_error_gzip_input. */
int pdb_fail_at(const char *file, int64_t offset, const char *fmt, ...) PDB_PRINTF(3, 4);
/* "FILE: byte N (compressed): what", for errors of the gzip layer itself. */
int pdb_fail_compressed(const char *file, int64_t offset, const char *fmt, ...)
    PDB_PRINTF(3, 4);
/* The gzip input now open under this name (NULL: none): pdb_fail_at marks
 * its offsets as decompressed. common/input.c calls it; the name must live
 * until it is cleared. */
void pdb_error_gzip_input(const char *file);
int pdb_fail_line(const char *file, int64_t line, const char *fmt, ...) PDB_PRINTF(3, 4);
const char *pdb_errmsg(void);
void pdb_clear_error(void);
void pdb_warn(const char *fmt, ...) PDB_PRINTF(1, 2);

#endif
