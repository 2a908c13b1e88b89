/* trace_event.h: one trace event as the JSON parser hands it to the store.
 *
 * The parser (trace_json.c) fills this from yajl callbacks; the store
 * (trace_store.c) pairs, interns and inserts it. Text fields point into the
 * event's arena and are valid until the next event. */
#ifndef PDB_TRACE_EVENT_H
#define PDB_TRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

typedef enum { PDB_V_NONE, PDB_V_INT, PDB_V_REAL, PDB_V_TEXT } pdb_vtype;

/* A scalar JSON value; text is an (offset, length) into the arena. */
typedef struct {
    pdb_vtype type;
    int64_t i;
    double d;
    size_t off, len;
} pdb_val;

/* Args that analyses need, kept as columns. */
enum {
    PDB_ARG_STREAM, PDB_ARG_DEVICE, PDB_ARG_CONTEXT, PDB_ARG_CORRELATION,
    PDB_ARG_EXTERNAL_ID, PDB_ARG_INPUT_DIMS, PDB_ARG_BYTES, PDB_ARG_COLL_NAME,
    PDB_ARG_IN_NELEMS, PDB_ARG_OUT_NELEMS, PDB_ARG_GROUP_SIZE, PDB_ARG_DTYPE,
    PDB_ARG_COUNT
};

#define PDB_MAX_COUNTER_SERIES 64

/* Times the store accepts, in ns: |t| < 2^62 (4.6e15 us, 146 years from the
 * epoch), for ts and for ts + dur. Then the difference of any two accepted
 * times fits in int64, so the analysis can subtract times (gaps, delays,
 * offsets) without overflow. Events beyond are skipped and counted. */
#define PDB_TIME_LIMIT_NS (INT64_C(1) << 62)

typedef struct {
    size_t key_off, key_len;
    double value;
} pdb_series;

typedef struct pdb_trace_event {
    pdb_buf arena;
    int64_t offset;             /* byte offset of the event in the input */
    pdb_val ph, name, cat, pid, tid, id, bp, scope;
    bool has_ts, has_dur;
    bool float_ts;              /* ts written with a fraction or exponent */
    int64_t ts, dur;            /* nanoseconds */
    const char *skip;           /* why the event cannot be stored (a time out of range, a
                                   fractional stream), counted as a skip; else NULL */
    pdb_val arg[PDB_ARG_COUNT]; /* columns; Input Dims is JSON text */
    bool has_args;
    unsigned respelled_args;    /* bit per column filled from an older spelling of its
                                   name (kineto_spellings.def) */
    size_t args_off, args_len;  /* remaining args as a JSON object, or len 0 */
    int nseries;                /* numeric args, for counter events */
    pdb_series series[PDB_MAX_COUNTER_SERIES];
} pdb_trace_event;

static inline const char *pdb_ev_text(const pdb_trace_event *ev, size_t off)
{
    return ev->arena.p + off;
}

/* The store: receives events and trace-level keys from the parser. */
typedef struct pdb_trace_store pdb_trace_store;
struct pdb_source;

pdb_trace_store *pdb_trace_store_new(struct pdb_source *src, const char *format);
int pdb_trace_store_event(pdb_trace_store *s, pdb_trace_event *ev);
/* A top-level key other than traceEvents; value is JSON text. */
int pdb_trace_store_meta(pdb_trace_store *s, const char *key, size_t klen,
                         const char *json, size_t jlen);
/* Lets the store keep the X events it is given, unstored, until
 * pdb_trace_store_flush: the caller keeps each event's memory unchanged
 * until then (the pipeline's queue does, batch by batch). Off by default:
 * each event is stored before pdb_trace_store_event returns. */
void pdb_trace_store_hold(pdb_trace_store *s);
/* Stores the events held (see pdb_trace_store_hold); on an error the
 * message names the first of them. */
int pdb_trace_store_flush(pdb_trace_store *s);
/* Finishes the trace (unmatched B events, counts, rank) and frees the store. */
int pdb_trace_store_finish(pdb_trace_store *s);
void pdb_trace_store_free(pdb_trace_store *s);

#endif
