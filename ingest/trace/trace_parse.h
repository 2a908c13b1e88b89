/* trace_parse.h: what the two readers of trace JSON share.
 *
 * trace_json.c turns a stream of JSON tokens into events (a state machine
 * behind yajl's callbacks); trace_fast.c is a tokenizer specialised for
 * trace-event JSON that calls the same callbacks (handed to it as yajl's
 * callback table) for the same tokens, in the same order, and hands the
 * rest of the input to yajl when it meets anything it does not handle.
 * Private to ingest/trace. */
#ifndef PDB_TRACE_PARSE_H
#define PDB_TRACE_PARSE_H

#include "ingest/readers.h"
#include "ingest/trace/trace_event.h"
#include "ingest/trace/trace_queue.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

#define CHUNK (256 * 1024)
#define MAX_DEPTH 1000
/* Captured values (args, metadata) are re-serialised with yajl_gen, which
 * holds at most 128 levels (YAJL_MAX_DEPTH) and reads past its state array
 * when asked for more (found by valgrind). args_gen adds one level. */
#define MAX_CAPTURE_DEPTH 100
/* yajl buffers an unfinished token (a string, a number) whole; a file whose
 * next token never ends would make it buffer everything. */
#define MAX_TOKEN_BYTES (16 * 1024 * 1024)

typedef enum { S_ROOT, S_TOP, S_EVENTS, S_EVENT, S_ARGS, S_DONE } state;
typedef enum { CAP_NONE, CAP_META, CAP_ARGCOL, CAP_ARGREST, CAP_DISCARD } capture;

/* Event-level keys we understand. */
typedef enum { F_OTHER, F_PH, F_NAME, F_CAT, F_PID, F_TID, F_TS, F_DUR, F_ID, F_BP, F_S,
               F_ARGS } field;

typedef struct parser {
    pdb_source *src;
    yajl_handle h;
    pdb_trace_store *store;
    state st;
    bool legacy;
    bool saw_events;
    int64_t chunk_base;
    pdb_trace_event *ev;    /* being filled: own_ev, or a slot of the queue */
    pdb_trace_event own_ev;
    pdb_buf key;
    field key_field;
    int key_arg;            /* PDB_ARG_* for a column key in args, else -1 */
    bool key_respelled;     /* key_arg comes from an older spelling of its name */
    capture cap;
    int cap_depth;
    yajl_gen cap_gen;       /* meta values and args columns */
    yajl_gen args_gen;      /* the rest of args */
    bool args_open;
    bool failed;            /* an error was recorded by a callback */
    uint64_t tokens;        /* callbacks so far: progress within the JSON */
    bool in_string;         /* the escape scanner (fix_surrogates) is inside a string */
    pdb_buf clean;          /* scratch for text made valid */
    /* Pipelined (see read_pipelined): events go into the queue instead of
     * the store, and what the parser thread ends with waits here. */
    pdb_trace_queue *q;
    atomic_llong raw_read;  /* input bytes read so far, for progress */
    bool unclosed;          /* legacy array without its ']' (a skip) */
    int rc;
    char errmsg[2048];
    /* The tokenizer (trace_fast.c) drives the callbacks below instead of
     * yajl: while fast, offset_now is fast_off (just past the token the
     * callback is for). While replay, callbacks do nothing: yajl is being
     * brought to the tokenizer's place (see pdb_trace_resume). */
    bool fast;
    bool replay;
    int64_t fast_off;
} parser;

/* Where the tokenizer stopped, for the yajl loop to go on from: the input
 * bytes it has not parsed, the state of the read loop (so yajl sees the
 * same reads, and the check for a token that never ends counts as it
 * would have), and JSON text that brings a fresh yajl handle to the
 * tokenizer's place in the structure (fed with the callbacks off). */
typedef struct {
    unsigned char *buf;     /* malloc'd, cap bytes; the yajl loop takes it */
    size_t cap;
    size_t start, end;      /* buf[start..end): not parsed yet, from input offset base */
    size_t window;          /* buf[window..start): parsed bytes of the same read,
                               which yajl_failure may look at (NaN hint) */
    int64_t base;
    ssize_t n;              /* size of the read these bytes end (0: input ended) */
    uint64_t tokens_before; /* the read loop's count before that read */
    size_t quiet;
    pdb_buf replay;
} pdb_trace_resume;

/* The read loop's check after each chunk (a token that never ends) and its
 * progress line; both readers call it for each chunk they read. */
int pdb_trace_quiet(parser *p, size_t n, uint64_t *tokens_before, size_t *quiet);

/* Runs the tokenizer from the start of the input, calling cb (trace_json.c's
 * callbacks, with p as their context) for each token. PDB_OK: it stopped (at
 * the end of the input or at something it leaves to yajl) and filled r;
 * PDB_ERR: an error was reported (a callback's, a read's, a token that
 * never ends). */
int pdb_trace_fast(parser *p, const yajl_callbacks *cb, pdb_trace_resume *r);

#endif
