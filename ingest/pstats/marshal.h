/* marshal.h: a decoder for CPython's marshal format (versions 0-4).
 *
 * cProfile and pstats write their dumps with marshal.dump(); this module
 * turns such bytes into a small tree of values that the pstats reader
 * walks. It decodes what data (not code) can hold: None/bools/ellipsis,
 * ints and longs (up to 64 bits), text and binary floats, every string kind
 * (bytes, unicode, interned, ASCII, short ASCII), tuples (also small tuples),
 * lists, dicts, sets and frozensets, and back-references (FLAG_REF objects
 * referred to by TYPE_REF). As in CPython, a flagged object gets its
 * reference index when it starts, before its contents are read.
 *
 * Every read is bounds-checked, sizes are checked against the bytes left
 * before anything is allocated and nesting is limited, so any byte string
 * either decodes or fails with the byte offset and what was expected. */
#ifndef PDB_MARSHAL_H
#define PDB_MARSHAL_H

#include <stddef.h>
#include <stdint.h>

#define PDB_MARSHAL_MAX_DEPTH 64

typedef enum {
    PDB_MV_NONE, PDB_MV_BOOL, PDB_MV_ELLIPSIS, PDB_MV_STOPITER,
    PDB_MV_INT, PDB_MV_FLOAT, PDB_MV_STR, PDB_MV_BYTES,
    PDB_MV_TUPLE, PDB_MV_LIST, PDB_MV_SET, PDB_MV_DICT,
} pdb_mtype;

/* One decoded value. Strings are UTF-8 (as CPython writes them; latin-1
 * bytes of the ASCII kinds are converted). A dict's items alternate key,
 * value; n counts the items (twice the number of entries). */
typedef struct pdb_mval {
    pdb_mtype type;
    int64_t offset;             /* byte offset of the value's type code */
    union {
        int64_t i;              /* INT, BOOL */
        double f;               /* FLOAT */
        struct { const char *p; size_t len; } s;       /* STR, BYTES */
        struct { struct pdb_mval **v; size_t n; } seq; /* TUPLE ... DICT */
    } u;
} pdb_mval;

/* Byte-level facts about one decoded input (for tests and `--verbose`). */
typedef struct pdb_marshal_stats {
    int64_t plain[128];         /* type code counts without FLAG_REF */
    int64_t flagged[128];       /* ... with FLAG_REF */
    int64_t refs;               /* size of the reference table */
    int64_t backrefs;           /* TYPE_REF occurrences */
    int max_depth;              /* deepest container nesting (a top dict is 1) */
} pdb_marshal_stats;

typedef struct pdb_marshal pdb_marshal;

/* Decodes one value from data[0..len). The tree lives until
 * pdb_marshal_free(); strings may point into data, which must outlive it.
 * Unless allow_trailing, bytes after the value are an error. On failure
 * records "PATH: byte N: ..." and returns PDB_ERR. */
pdb_marshal *pdb_marshal_new(void);
int pdb_marshal_load(pdb_marshal *m, const char *path, const unsigned char *data, size_t len,
                     int allow_trailing, const pdb_mval **out);
const pdb_marshal_stats *pdb_marshal_get_stats(const pdb_marshal *m);
void pdb_marshal_free(pdb_marshal *m);

/* Name of a value's type as Python spells it ("tuple", "str", ...). */
const char *pdb_mval_type_name(pdb_mtype t);

#endif
