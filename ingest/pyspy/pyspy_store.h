/* pyspy_store.h: the writer the py-spy readers share (raw, speedscope,
 * flame-graph SVG) -> pyspy_profiles, pyspy_frames, pyspy_nodes,
 * pyspy_samples (schemas/70_pyspy.sql).
 *
 * A reader walks each stack root first, one frame at a time: it asks for
 * the frame's id, then for the child node of the current node with that
 * frame, and keeps only the current node. Frames and nodes are looked up
 * through their UNIQUE indexes behind bounded caches, so neither a stack
 * of 10^5 frames nor 10^6 distinct frames is held in memory. */
#ifndef PDB_PYSPY_STORE_H
#define PDB_PYSPY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"

typedef enum {
    PDB_PYSPY_PYTHON,
    PDB_PYSPY_NATIVE,
    PDB_PYSPY_PROCESS, /* process PID:"CMDLINE" (--subprocesses) */
    PDB_PYSPY_THREAD,  /* thread (ID) or thread (ID): NAME (--threads) */
} pdb_pyspy_kind;

typedef struct pdb_pyspy_store pdb_pyspy_store;

/* Prepares the statements for src's run; NULL on a database error. */
pdb_pyspy_store *pdb_pyspy_store_open(pdb_source *src);
void pdb_pyspy_store_close(pdb_pyspy_store *s);

/* A new profile of format ('pyspy-raw', 'speedscope', 'pyspy-svg');
 * name may be NULL; exact 0 for an SVG. */
int pdb_pyspy_profile(pdb_pyspy_store *s, const char *format, const char *name, size_t name_len,
                      bool exact, int64_t *profile_id);
/* Its samples, rate (<= 0: not known), options (NULL: none) and name
 * (NULL: as given to pdb_pyspy_profile), at the end. */
int pdb_pyspy_profile_done(pdb_pyspy_store *s, int64_t profile_id, int64_t samples,
                           double rate_hz, const char *options, const char *name,
                           size_t name_len);

/* A frame as py-spy prints it in raw and SVG files: "name (file:line)",
 * "name (file)" (line 0) or "name"; file and line come from the LAST
 * parenthesised group. kind PROCESS or THREAD stores the text whole; for
 * PYTHON the writer tells native frames by their shape. */
int pdb_pyspy_frame_printed(pdb_pyspy_store *s, pdb_pyspy_kind kind, const char *text,
                            size_t len, int64_t *frame_id);
/* A frame given in parts (speedscope). */
int pdb_pyspy_frame(pdb_pyspy_store *s, pdb_pyspy_kind kind, const char *name, size_t nlen,
                    const char *file, size_t flen, int64_t line, int64_t *frame_id);

/* The node of frame called from parent (0: a root) at depth. */
int pdb_pyspy_node(pdb_pyspy_store *s, int64_t parent, int64_t frame_id, int64_t depth,
                   int64_t *node_id);
/* count samples whose stack ends at node, in profile (added up). */
int pdb_pyspy_samples(pdb_pyspy_store *s, int64_t profile_id, int64_t node_id, int64_t count);

/* Whether a printed frame is a thread pseudo-frame: "thread (0xHEX)",
 * "thread (DIGITS)", either followed by ": NAME". */
bool pdb_pyspy_is_thread(const char *text, size_t len);
/* Whether text starts like a process pseudo-frame: process DIGITS:" */
bool pdb_pyspy_is_process(const char *text, size_t len);

#endif
