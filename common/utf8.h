/* utf8.h: UTF-8 text: counting code points (as SQL's length() does) and
 * making text safe to print.
 *
 * Names in traces and logs are data from anywhere: they may hold invalid
 * UTF-8 (overlong forms, lone surrogates, stray bytes) or control
 * characters (ESC sequences that retitle a terminal or clear it).
 * pdb_utf8_clean turns such text into valid, printable UTF-8 for every
 * output and message, and counts what it had to replace. */
#ifndef PDB_UTF8_H
#define PDB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

/* Code points in s[0..len) (one column each when printed). */
size_t pdb_utf8_width(const char *s, size_t len);

/* The length of the valid UTF-8 sequence at s[0..len) and its code point,
 * or 0 when it is not one (a stray continuation byte, a truncated sequence,
 * an overlong form, a surrogate, beyond U+10FFFF). */
size_t pdb_utf8_decode(const char *s, size_t len, uint32_t *cp);

enum {
    PDB_UTF8_CONTROLS = 1,   /* escape C0 controls, DEL and C1 controls as \xNN / \u00NN */
    PDB_UTF8_KEEP_WS = 2,    /* ...but keep tab, newline and carriage return */
};

/* Appends s[0..len) to out as valid UTF-8: each invalid sequence becomes
 * U+FFFD; with PDB_UTF8_CONTROLS, control characters become visible
 * escapes. Returns the number of invalid sequences replaced. */
size_t pdb_utf8_clean(pdb_buf *out, const char *s, size_t len, int flags);

/* True when s[0..len) needs pdb_utf8_clean (fast path for clean text). */
bool pdb_utf8_needs_clean(const char *s, size_t len, int flags);

/* Bytes of s[0..len) that are not part of a UTF-8 sequence by their shape
 * (a loose check for sniffing text from binary: a stray byte, a lead byte
 * without its continuations). A sequence cut off by the end of s is not
 * counted (s may be a prefix). */
size_t pdb_utf8_invalid(const unsigned char *s, size_t len);

#endif
