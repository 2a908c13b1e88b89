/* pyspy_speedscope.c: the reader for speedscope JSON files (py-spy's
 * `--format speedscope`, and other samplers' files) -> pyspy_* tables.
 *
 * Read by the speedscope file-format specification
 * (https://www.speedscope.app/file-format-schema.json): `shared.frames`
 * ({name, file, line, col}), `profiles[]`; a "sampled" profile has
 * `samples` (frame-index arrays, root first) and `weights` (one per sample,
 * in the profile's `unit`). py-spy writes one sampled profile per thread,
 * each weight 1/rate seconds, and shared.frames AFTER the profiles. So the
 * file is streamed with yajl, each sample's stack walked into a staged
 * prefix tree over frame indexes (temp tables, pyspy.sql), and resolved
 * once the whole file is read: frames that print alike (same name, file,
 * line: py-spy keys its frames by more than it writes) become one frame,
 * and their stacks one node. One pyspy_profiles row per sampled profile;
 * its rate is 1/weight when every weight is equal and the unit a time.
 *
 * An evented profile (`events`: {type "O"|"C", frame, at}, in time order)
 * holds a stack open between two events: each such interval is staged as a
 * sample of the stack with the interval's length as its weight, so the
 * profile is stored as time-weighted samples (nanoseconds for a time unit,
 * else the file's unit rounded: pyspy_profiles.weight_unit). The open
 * stack is the staged node itself (a close moves to its staged parent, one
 * lookup), so a deep stack costs no memory. A close that is not of the
 * innermost open frame, a frame left open at the profile's end or an event
 * earlier than the one before is refused with its byte offset. A file that
 * also holds sampled profiles keeps its sample counts and skips its evented
 * ones (time and counts do not add up); a run holds one kind or the other. */
#define _GNU_SOURCE /* memmem */
#include "ingest/readers.h"
#include "ingest/pyspy/pyspy_store.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define CHUNK (1 << 16)
#define MAX_DEPTH 16
/* A JSON token this long is no speedscope value; yajl would buffer it. */
#define MAX_TOKEN_BYTES (64 << 20)
#define STAGE_CACHE (1 << 16)

/* Containers the reader descends into. */
typedef enum { C_TOP, C_SHARED, C_FRAMES, C_FRAME, C_PROFILES, C_PROFILE, C_SAMPLES, C_STACK,
               C_WEIGHTS, C_EVENTS, C_EVENT } ctx;

/* What the next value is. */
typedef enum {
    V_NONE, V_ROOT, V_SHARED, V_FRAMES, V_FRAME, V_NAME, V_FILE, V_LINE, V_PROFILES, V_PROFILE,
    V_TYPE, V_PNAME, V_UNIT, V_SAMPLES, V_STACK, V_INDEX, V_WEIGHTS, V_WEIGHT, V_EVENTS, V_EVENT,
    V_ETYPE, V_EFRAME, V_EAT,
} want;

typedef struct {
    int64_t parent, idx, node;
} stage_slot;

typedef struct {
    pdb_source *src;
    pdb_pyspy_store *store;
    yajl_handle h;
    int64_t chunk_base;
    ctx stack[MAX_DEPTH];
    int depth;
    int64_t skip;          /* depth inside a value nobody reads */
    want pending;          /* the value after a key */
    bool failed;
    int64_t tokens;
    /* shared.frames */
    bool saw_frames, saw_profiles;
    int64_t nframes;
    pdb_buf name, file;
    int64_t line;
    bool has_name;
    /* the profile being read */
    int64_t profile;
    pdb_buf type, pname, unit;
    bool has_type, has_pname;
    int64_t nsamples, nweights;
    double weight0, weight_sum;
    bool weights_equal, weights_integral;
    /* the stack being staged */
    int64_t node, sdepth;
    int64_t max_index, max_index_at;
    int64_t profiles, evented;
    /* an evented profile: the event being read, the last event's time */
    bool has_events, has_eat, has_eframe;
    char etype;
    int64_t eframe;
    double eat, last_at;
    int64_t events_read, unknown;
    stage_slot *cache;
    sqlite3_stmt *find_node, *add_node, *add_frame, *add_sample, *add_weight, *parent_of;
} reader;

/* ---- sniffing ----------------------------------------------------------- */

/* The schema URL, or both of the format's defining keys near the start. */
int pdb_sniff_speedscope(const unsigned char *d, size_t len)
{
    size_t i = 0;
    if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF)
        i = 3;
    while (i < len && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r'))
        i++;
    if (i >= len || d[i] != '{')
        return PDB_SNIFF_NO;
    const char *t = (const char *)d;
    /* A prefix that is no JSON but has the format's keys is a broken
     * speedscope file: the reader says where (as the trace sniffer does). */
    if (!pdb_sniff_json(d, len))
        return memmem(t, len, "speedscope.app/file-format-schema", 33) ||
                       (memmem(t, len, "\"profiles\"", 10) && memmem(t, len, "\"samples\"", 9))
                   ? PDB_SNIFF_LIKELY
                   : PDB_SNIFF_NO;
    if (memmem(t, len, "speedscope.app/file-format-schema", 33))
        return PDB_SNIFF_SURE;
    bool shared = memmem(t, len, "\"shared\"", 8) != NULL,
         profiles = memmem(t, len, "\"profiles\"", 10) != NULL,
         sampled = memmem(t, len, "\"sampled\"", 9) != NULL ||
                   memmem(t, len, "\"evented\"", 9) != NULL;
    if (profiles && sampled)
        return PDB_SNIFF_SURE;
    return profiles && shared ? PDB_SNIFF_LIKELY : PDB_SNIFF_NO;
}

/* ---- helpers -------------------------------------------------------------- */

static int64_t offset_now(const reader *r)
{
    return r->chunk_base + (int64_t)yajl_get_bytes_consumed(r->h);
}

static int fail(reader *r, const char *what)
{
    r->failed = true;
    pdb_fail_at(r->src->path, offset_now(r), "%s", what);
    return 0;
}

static want next_value(const reader *r)
{
    if (r->depth == 0)
        return V_ROOT;
    switch (r->stack[r->depth - 1]) {
    case C_PROFILES: return V_PROFILE;
    case C_FRAMES: return V_FRAME;
    case C_SAMPLES: return V_STACK;
    case C_STACK: return V_INDEX;
    case C_WEIGHTS: return V_WEIGHT;
    case C_EVENTS: return V_EVENT;
    default: return r->pending;
    }
}

static const char *what_of(want v)
{
    switch (v) {
    case V_ROOT: return "a speedscope object";
    case V_SHARED: return "an object for \"shared\"";
    case V_FRAMES: return "an array for \"frames\"";
    case V_FRAME: return "a frame object in shared.frames";
    case V_NAME: case V_FILE: return "a string for a frame's name or file";
    case V_LINE: return "a line number (integer or null)";
    case V_PROFILES: return "an array for \"profiles\"";
    case V_PROFILE: return "a profile object";
    case V_TYPE: case V_PNAME: case V_UNIT: return "a string for a profile's type, name or unit";
    case V_SAMPLES: return "an array of stacks for \"samples\"";
    case V_STACK: return "a stack (an array of frame indexes)";
    case V_INDEX: return "a frame index (a non-negative integer)";
    case V_WEIGHTS: return "an array of numbers for \"weights\"";
    case V_WEIGHT: return "a number (a sample's weight)";
    case V_EVENTS: return "an array of events for \"events\"";
    case V_EVENT: return "an event object";
    case V_ETYPE: return "\"O\" or \"C\" for an event's type";
    case V_EFRAME: return "a frame index for an event's frame";
    case V_EAT: return "a number for an event's time (\"at\")";
    default: return "a value";
    }
}

static int wrong(reader *r, want v)
{
    char msg[160];
    snprintf(msg, sizeof msg, "expected %s (not a speedscope file?)", what_of(v));
    return fail(r, msg);
}

static int push(reader *r, ctx c)
{
    if (r->depth == MAX_DEPTH)
        return fail(r, "JSON nested too deep for a speedscope file");
    r->stack[r->depth++] = c;
    r->pending = V_NONE;
    return 1;
}

/* ---- staging ------------------------------------------------------------ */

static size_t slot_of(int64_t parent, int64_t idx)
{
    uint64_t h = (uint64_t)parent * 0x9E3779B97F4A7C15u ^ (uint64_t)idx * 0xC2B2AE3D27D4EB4Fu;
    h ^= h >> 29;
    return (size_t)(h & (STAGE_CACHE - 1));
}

/* The staged node of frame index idx under the current one. */
static int stage_index(reader *r, int64_t idx)
{
    if (idx < 0)
        return wrong(r, V_INDEX);
    if (idx > r->max_index) {
        r->max_index = idx;
        r->max_index_at = offset_now(r);
    }
    stage_slot *slot = &r->cache[slot_of(r->node, idx)];
    if (slot->node && slot->parent == r->node && slot->idx == idx) {
        r->node = slot->node;
        r->sdepth++;
        return 1;
    }
    sqlite3_stmt *st = r->find_node;
    sqlite3_bind_int64(st, 1, r->node);
    sqlite3_bind_int64(st, 2, idx);
    int rc = sqlite3_step(st);
    int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(r->src->db, "database error"), r->failed = true, 0;
    if (!id) {
        st = r->add_node;
        sqlite3_bind_int64(st, 1, r->node);
        sqlite3_bind_int64(st, 2, idx);
        sqlite3_bind_int64(st, 3, r->sdepth);
        if (pdb_db_step_done(r->src->db, st) != PDB_OK)
            return r->failed = true, 0;
        id = sqlite3_last_insert_rowid(r->src->db);
    }
    *slot = (stage_slot){r->node, idx, id};
    r->node = id;
    r->sdepth++;
    return 1;
}

static int stage_sample(reader *r)
{
    r->src->records++;
    pdb_progress(r->src, r->src->records);
    if (r->sdepth == 0) { /* no frame: counts in the profile's samples only */
        r->nsamples++;
        return 1;
    }
    sqlite3_stmt *st = r->add_sample;
    sqlite3_bind_int64(st, 1, r->profile);
    sqlite3_bind_int64(st, 2, r->nsamples++);
    sqlite3_bind_int64(st, 3, r->node);
    if (pdb_db_step_done(r->src->db, st) != PDB_OK)
        return r->failed = true, 0;
    return 1;
}

static int stage_weight(reader *r, double w)
{
    if (!isfinite(w) || w < 0)
        return fail(r, "a sample weight that is negative or not finite");
    if (r->nweights == 0)
        r->weight0 = w;
    else if (w != r->weight0)
        r->weights_equal = false;
    if (w != floor(w) || w > 9e15)
        r->weights_integral = false;
    r->weight_sum += w;
    sqlite3_stmt *st = r->add_weight;
    sqlite3_bind_int64(st, 1, r->profile);
    sqlite3_bind_int64(st, 2, r->nweights++);
    sqlite3_bind_double(st, 3, w);
    if (pdb_db_step_done(r->src->db, st) != PDB_OK)
        return r->failed = true, 0;
    return 1;
}

/* ---- evented profiles ---------------------------------------------------- */

/* The interval since the last event, when a frame is open: a sample of the
 * open stack weighted by its length. */
static int stage_interval(reader *r, double at)
{
    if (r->sdepth == 0 || at <= r->last_at)
        return 1;
    if (!stage_sample(r))
        return 0;
    sqlite3_stmt *st = r->add_weight;
    sqlite3_bind_int64(st, 1, r->profile);
    sqlite3_bind_int64(st, 2, r->nsamples - 1);
    sqlite3_bind_double(st, 3, at - r->last_at);
    if (pdb_db_step_done(r->src->db, st) != PDB_OK)
        return r->failed = true, 0;
    return 1;
}

static int event_begin(reader *r)
{
    if (!r->has_events) {
        r->has_events = true;
        r->node = 0;
        r->sdepth = 0;
    }
    r->has_eat = r->has_eframe = false;
    r->etype = 0;
    return 1;
}

/* An open moves to the child staged for its frame, a close to the parent,
 * after the interval before the event went to the stack that was open. */
static int event_end(reader *r)
{
    char msg[200];
    if (!r->etype || !r->has_eat || !r->has_eframe)
        return fail(r, "an event without \"type\", \"frame\" and \"at\"");
    if (r->events_read++ > 0 && r->eat < r->last_at) {
        snprintf(msg, sizeof msg, "an event at %.17g before the one before it (at %.17g): "
                 "events must be in time order", r->eat, r->last_at);
        return fail(r, msg);
    }
    if (!stage_interval(r, r->eat))
        return 0;
    r->last_at = r->eat;
    if (r->etype == 'O')
        return stage_index(r, r->eframe);
    if (r->sdepth == 0) {
        snprintf(msg, sizeof msg, "unbalanced open/close: a close of frame %lld with no frame "
                 "open", (long long)r->eframe);
        return fail(r, msg);
    }
    sqlite3_stmt *st = r->parent_of;
    sqlite3_bind_int64(st, 1, r->node);
    int rc = sqlite3_step(st);
    int64_t parent = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    int64_t idx = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : -1;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW)
        return pdb_db_fail(r->src->db, "database error"), r->failed = true, 0;
    if (idx != r->eframe) {
        snprintf(msg, sizeof msg, "unbalanced open/close: a close of frame %lld while frame "
                 "%lld is the innermost open one", (long long)r->eframe, (long long)idx);
        return fail(r, msg);
    }
    r->node = parent;
    r->sdepth--;
    return 1;
}

/* ---- frames and profiles ------------------------------------------------ */

static void frame_begin(reader *r)
{
    pdb_buf_reset(&r->name);
    pdb_buf_reset(&r->file);
    r->line = 0;
    r->has_name = false;
}

static int frame_end(reader *r)
{
    if (!r->has_name)
        return fail(r, "a frame without a \"name\" in shared.frames");
    int64_t id;
    if (pdb_pyspy_frame(r->store, PDB_PYSPY_PYTHON, pdb_buf_str(&r->name), r->name.len,
                        pdb_buf_str(&r->file), r->file.len, r->line, &id) != PDB_OK)
        return r->failed = true, 0;
    sqlite3_stmt *st = r->add_frame;
    sqlite3_bind_int64(st, 1, r->nframes++);
    sqlite3_bind_int64(st, 2, id);
    if (pdb_db_step_done(r->src->db, st) != PDB_OK)
        return r->failed = true, 0;
    return 1;
}

static int profile_begin(reader *r)
{
    pdb_buf_reset(&r->type);
    pdb_buf_reset(&r->pname);
    pdb_buf_reset(&r->unit);
    r->has_type = r->has_pname = false;
    r->nsamples = r->nweights = 0;
    r->weight_sum = 0;
    r->weights_equal = r->weights_integral = true;
    r->has_events = false;
    r->events_read = 0;
    r->last_at = 0;
    r->node = 0;
    r->sdepth = 0;
    /* the row now, as samples refer to it; its name and totals at the end */
    if (pdb_pyspy_profile(r->store, "speedscope", NULL, 0, true, &r->profile) != PDB_OK)
        return r->failed = true, 0;
    return 1;
}

/* Seconds per unit of a time unit, or 0. */
static double unit_seconds(const char *u)
{
    static const struct {
        const char *name;
        double s;
    } units[] = {{"seconds", 1}, {"milliseconds", 1e-3}, {"microseconds", 1e-6},
                 {"nanoseconds", 1e-9}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(u, units[i].name) == 0)
            return units[i].s;
    return 0;
}

static int run_stmt(reader *r, const char *name, int64_t a, int64_t b, int nargs)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(r->src->db, name, &st) != PDB_OK)
        return r->failed = true, 0;
    sqlite3_bind_int64(st, 1, a);
    if (nargs > 1)
        sqlite3_bind_int64(st, 2, b);
    int rc = pdb_db_step_done(r->src->db, st);
    pdb_db_release(st);
    return rc == PDB_OK ? 1 : (r->failed = true, 0);
}

/* An evented profile: its stacks' times, in nanoseconds for a time unit
 * (rate 1e9, so that seconds are samples / rate as for a sampled profile),
 * else in the file's unit rounded (no rate). Its samples are set once the
 * stacks are stored (stage_weighted_totals). */
static int evented_end(reader *r)
{
    if (r->sdepth > 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "unbalanced open/close: the profile ends with %lld frame%s "
                 "still open", (long long)r->sdepth, r->sdepth == 1 ? "" : "s");
        return fail(r, msg);
    }
    const char *unit = r->unit.len ? pdb_buf_str(&r->unit) : "none";
    double secs = unit_seconds(unit);
    if (secs == 0 && strcmp(unit, "none") != 0 && strcmp(unit, "bytes") != 0)
        return fail(r, "an evented profile whose \"unit\" is none of the specification's "
                       "(none, nanoseconds, microseconds, milliseconds, seconds, bytes)");
    if (pdb_pyspy_profile_done(r->store, r->profile, 0, secs > 0 ? 1e9 : 0, NULL,
                               r->has_pname ? pdb_buf_str(&r->pname) : NULL, r->pname.len) !=
        PDB_OK)
        return r->failed = true, 0;
    r->evented++;
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(r->src->db, "pyspy.stage_add_profile", &st) != PDB_OK)
        return r->failed = true, 0;
    sqlite3_bind_int64(st, 1, r->profile);
    sqlite3_bind_int(st, 2, 2);
    sqlite3_bind_double(st, 3, secs > 0 ? secs * 1e9 : 1);
    sqlite3_bind_text(st, 4, secs > 0 ? "nanoseconds" : unit, -1, SQLITE_TRANSIENT);
    int rc = pdb_db_step_done(r->src->db, st);
    pdb_db_release(st);
    return rc == PDB_OK ? 1 : (r->failed = true, 0);
}

/* A sampled profile gets its name, samples and rate; an evented one its
 * times (evented_end); any other type is dropped and counted. */
static int profile_end(reader *r)
{
    const char *type = r->has_type ? pdb_buf_str(&r->type) : r->has_events ? "evented"
                                                                           : "sampled";
    if (strcmp(type, "evented") == 0)
        return evented_end(r);
    if (r->has_events)
        return fail(r, "a profile with \"events\" whose type is not \"evented\"");
    if (strcmp(type, "sampled") != 0) {
        pdb_skip(r->src, "speedscope: a profile of unknown type");
        r->unknown++;
        return run_stmt(r, "pyspy.drop_profile", r->profile, 0, 1);
    }
    if (r->nweights && r->nweights != r->nsamples)
        return fail(r, "a profile whose \"weights\" do not match its \"samples\" one for one");
    const char *unit = pdb_buf_str(&r->unit);
    bool counts = strcmp(unit, "none") == 0 && r->nweights && r->weights_integral;
    double secs = unit_seconds(unit), rate = 0;
    if (secs > 0 && r->nweights && r->weights_equal && r->weight0 > 0)
        rate = 1.0 / (r->weight0 * secs);
    int64_t total = counts ? (int64_t)r->weight_sum : r->nsamples;
    if (pdb_pyspy_profile_done(r->store, r->profile, total, rate, NULL,
                               r->has_pname ? pdb_buf_str(&r->pname) : NULL, r->pname.len) !=
        PDB_OK)
        return r->failed = true, 0;
    r->profiles++;
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(r->src->db, "pyspy.stage_add_profile", &st) != PDB_OK)
        return r->failed = true, 0;
    sqlite3_bind_int64(st, 1, r->profile);
    sqlite3_bind_int(st, 2, counts);
    sqlite3_bind_double(st, 3, 1);
    sqlite3_bind_null(st, 4);
    int rc = pdb_db_step_done(r->src->db, st);
    pdb_db_release(st);
    return rc == PDB_OK ? 1 : (r->failed = true, 0);
}

/* ---- yajl callbacks ------------------------------------------------------ */

static int on_start_map(void *ctx_)
{
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return r->skip++, 1;
    want v = next_value(r);
    switch (v) {
    case V_ROOT: return push(r, C_TOP);
    case V_SHARED: return push(r, C_SHARED);
    case V_FRAME: frame_begin(r); return push(r, C_FRAME);
    case V_PROFILE: return profile_begin(r) && push(r, C_PROFILE);
    case V_EVENT: return event_begin(r) && push(r, C_EVENT);
    case V_NONE: r->skip = 1; r->pending = V_NONE; return 1;
    default: return wrong(r, v);
    }
}

static int on_start_array(void *ctx_)
{
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return r->skip++, 1;
    want v = next_value(r);
    switch (v) {
    case V_FRAMES: r->saw_frames = true; return push(r, C_FRAMES);
    case V_PROFILES: r->saw_profiles = true; return push(r, C_PROFILES);
    case V_SAMPLES: return push(r, C_SAMPLES);
    case V_STACK: r->node = 0; r->sdepth = 0; return push(r, C_STACK);
    case V_WEIGHTS: return push(r, C_WEIGHTS);
    case V_EVENTS:
        if (!r->has_events) { /* an empty array: no stack was ever open */
            r->has_events = true;
            r->node = 0;
            r->sdepth = 0;
        }
        return push(r, C_EVENTS);
    case V_NONE: r->skip = 1; r->pending = V_NONE; return 1;
    default: return wrong(r, v);
    }
}

static int on_end(void *ctx_)
{
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return r->skip--, 1;
    ctx c = r->stack[--r->depth];
    r->pending = V_NONE;
    switch (c) {
    case C_FRAME: return frame_end(r);
    case C_PROFILE: return profile_end(r);
    case C_STACK: return stage_sample(r);
    case C_EVENT: return event_end(r);
    default: return 1;
    }
}

static want key_of(ctx c, const unsigned char *k, size_t len)
{
    static const struct {
        ctx c;
        const char *key;
        want v;
    } keys[] = {
        {C_TOP, "shared", V_SHARED},     {C_TOP, "profiles", V_PROFILES},
        {C_SHARED, "frames", V_FRAMES},  {C_FRAME, "name", V_NAME},
        {C_FRAME, "file", V_FILE},       {C_FRAME, "line", V_LINE},
        {C_PROFILE, "type", V_TYPE},     {C_PROFILE, "name", V_PNAME},
        {C_PROFILE, "unit", V_UNIT},     {C_PROFILE, "samples", V_SAMPLES},
        {C_PROFILE, "weights", V_WEIGHTS},  {C_PROFILE, "events", V_EVENTS},
        {C_EVENT, "type", V_ETYPE},        {C_EVENT, "frame", V_EFRAME},
        {C_EVENT, "at", V_EAT},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (keys[i].c == c && strlen(keys[i].key) == len && memcmp(keys[i].key, k, len) == 0)
            return keys[i].v;
    return V_NONE;
}

static int on_key(void *ctx_, const unsigned char *k, size_t len)
{
    reader *r = ctx_;
    r->tokens++;
    if (!r->skip)
        r->pending = key_of(r->stack[r->depth - 1], k, len);
    return 1;
}

static int on_string(void *ctx_, const unsigned char *s, size_t len)
{
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return 1;
    want v = next_value(r);
    pdb_buf *b = v == V_NAME ? &r->name : v == V_FILE ? &r->file : v == V_TYPE ? &r->type
                 : v == V_PNAME ? &r->pname : v == V_UNIT ? &r->unit : NULL;
    if (v == V_NONE)
        return 1;
    if (v == V_ETYPE) {
        if (len != 1 || (s[0] != 'O' && s[0] != 'C'))
            return wrong(r, v);
        r->etype = (char)s[0];
        r->pending = V_NONE;
        return 1;
    }
    if (!b)
        return wrong(r, v);
    pdb_buf_reset(b);
    pdb_buf_add(b, s, len);
    r->has_name |= v == V_NAME;
    r->has_type |= v == V_TYPE;
    r->has_pname |= v == V_PNAME;
    r->pending = V_NONE;
    return 1;
}

static int on_integer(void *ctx_, long long n)
{
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return 1;
    want v = next_value(r);
    switch (v) {
    case V_NONE: return 1;
    case V_INDEX: return stage_index(r, n);
    case V_WEIGHT: return stage_weight(r, (double)n);
    case V_LINE: r->line = n; r->pending = V_NONE; return 1;
    case V_EFRAME:
        if (n < 0)
            return wrong(r, v);
        r->eframe = n;
        r->has_eframe = true;
        r->pending = V_NONE;
        return 1;
    case V_EAT: r->eat = (double)n; r->has_eat = true; r->pending = V_NONE; return 1;
    default: return wrong(r, v);
    }
}

static int on_double(void *ctx_, double d)
{
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return 1;
    want v = next_value(r);
    if (v == V_NONE)
        return 1;
    if (v == V_WEIGHT)
        return stage_weight(r, d);
    if (v == V_EAT && isfinite(d)) {
        r->eat = d;
        r->has_eat = true;
        r->pending = V_NONE;
        return 1;
    }
    if (v == V_EFRAME && d == floor(d) && d >= 0 && d < 9e15) {
        r->eframe = (int64_t)d;
        r->has_eframe = true;
        r->pending = V_NONE;
        return 1;
    }
    if (v == V_LINE && d == floor(d) && fabs(d) < 1e15) {
        r->line = (int64_t)d;
        r->pending = V_NONE;
        return 1;
    }
    return wrong(r, v);
}

static int on_null(void *ctx_)
{
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return 1;
    want v = next_value(r);
    /* a null line or file: printed without one */
    if (v == V_NONE || v == V_LINE || v == V_FILE || v == V_TYPE || v == V_PNAME || v == V_UNIT) {
        r->pending = V_NONE;
        return 1;
    }
    return wrong(r, v);
}

static int on_boolean(void *ctx_, int b)
{
    (void)b;
    reader *r = ctx_;
    r->tokens++;
    if (r->skip)
        return 1;
    want v = next_value(r);
    return v == V_NONE ? 1 : wrong(r, v);
}

static const yajl_callbacks callbacks = {
    on_null, on_boolean, on_integer, on_double, NULL, on_string,
    on_start_map, on_key, on_end, on_start_array, on_end,
};

/* ---- resolving the staged stacks --------------------------------------- */

static int prepare_all(reader *r)
{
    static const char *const names[] = {"pyspy.stage_find_node", "pyspy.stage_add_node",
                                        "pyspy.stage_add_frame", "pyspy.stage_add_sample",
                                        "pyspy.stage_add_weight", "pyspy.stage_parent"};
    sqlite3_stmt **sts[] = {&r->find_node, &r->add_node, &r->add_frame, &r->add_sample,
                            &r->add_weight, &r->parent_of};
    for (size_t i = 0; i < sizeof sts / sizeof *sts; i++)
        if (pdb_ingest_prepare(r->src->db, names[i], sts[i]) != PDB_OK)
            return PDB_ERR;
    return PDB_OK;
}

static void release_all(reader *r)
{
    sqlite3_stmt *sts[] = {r->find_node, r->add_node, r->add_frame, r->add_sample,
                           r->add_weight, r->parent_of};
    for (size_t i = 0; i < sizeof sts / sizeof *sts; i++)
        pdb_db_release(sts[i]);
}

static int one_int(sqlite3_stmt *st, int64_t arg, int64_t *out)
{
    sqlite3_bind_int64(st, 1, arg);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? PDB_OK : pdb_db_fail(sqlite3_db_handle(st),
                                                                        "database error");
}

/* Each staged node, parents first, becomes a node of the run's tree. */
static int resolve_nodes(reader *r)
{
    sqlite3 *db = r->src->db;
    sqlite3_stmt *all = NULL, *real = NULL, *frame = NULL, *set = NULL;
    int rc = pdb_ingest_prepare(db, "pyspy.stage_nodes", &all);
    if (rc == PDB_OK)
        rc = pdb_ingest_prepare(db, "pyspy.stage_real", &real);
    if (rc == PDB_OK)
        rc = pdb_ingest_prepare(db, "pyspy.stage_frame", &frame);
    if (rc == PDB_OK)
        rc = pdb_ingest_prepare(db, "pyspy.stage_set_real", &set);
    int step = SQLITE_DONE;
    while (rc == PDB_OK && (step = sqlite3_step(all)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(all, 0), parent = sqlite3_column_int64(all, 1),
                idx = sqlite3_column_int64(all, 2), depth = sqlite3_column_int64(all, 3);
        int64_t parent_real = 0, frame_id = 0, node;
        if (parent)
            rc = one_int(real, parent, &parent_real);
        if (rc == PDB_OK)
            rc = one_int(frame, idx, &frame_id);
        if (rc == PDB_OK)
            rc = pdb_pyspy_node(r->store, parent_real, frame_id, depth, &node);
        if (rc == PDB_OK) {
            sqlite3_bind_int64(set, 1, id);
            sqlite3_bind_int64(set, 2, node);
            rc = pdb_db_step_done(db, set);
        }
    }
    if (rc == PDB_OK && step != SQLITE_DONE)
        rc = pdb_db_fail(db, "database error");
    pdb_db_release(all);
    pdb_db_release(real);
    pdb_db_release(frame);
    pdb_db_release(set);
    return rc;
}

/* A run holds sample counts or time-weighted profiles, not both. */
static int check_units(reader *r)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(r->src->db, "pyspy.stage_units", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, r->src->run_id);
    int rc = sqlite3_step(st);
    int kinds = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
    char units[200];
    snprintf(units, sizeof units, "%s",
             rc == SQLITE_ROW && sqlite3_column_text(st, 1)
                 ? (const char *)sqlite3_column_text(st, 1) : "");
    pdb_db_release(st);
    if (rc != SQLITE_ROW)
        return pdb_db_fail(r->src->db, "database error");
    if (kinds > 1)
        return pdb_fail("%s: the run would hold py-spy profiles of different units (%s): sample "
                        "counts and the times of evented profiles do not add up; ingest them "
                        "into separate runs (--run)",
                        r->src->path, units);
    return PDB_OK;
}

/* Every staged stack, now that shared.frames is known. */
static int resolve(reader *r)
{
    if (!r->saw_profiles)
        return pdb_fail("%s: no \"profiles\" array (not a speedscope file?)", r->src->path);
    if (r->profiles == 0 && r->evented == 0)
        return pdb_fail("%s: no sampled or evented profile in \"profiles\"%s", r->src->path,
                        r->unknown ? " (only profiles of unknown types)" : "");
    /* sample counts and times do not add up: a file with both keeps its
     * sampled profiles */
    if (r->profiles > 0 && r->evented > 0) {
        for (int64_t i = 0; i < r->evented; i++)
            pdb_skip(r->src, "speedscope: an evented profile beside sampled ones");
        if (pdb_ingest_exec(r->src->db, "pyspy.stage_drop_evented") != PDB_OK)
            return PDB_ERR;
        r->evented = 0;
    }
    if (r->max_index >= r->nframes)
        return pdb_fail_at(r->src->path, r->max_index_at,
                           "a sample refers to frame %lld; shared.frames has %lld",
                           (long long)r->max_index, (long long)r->nframes);
    if (resolve_nodes(r) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(r->src->db, "pyspy.stage_samples", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, r->src->run_id);
    int rc = pdb_db_step_done(r->src->db, st);
    pdb_db_release(st);
    if (rc == PDB_OK && r->evented)
        rc = pdb_ingest_exec(r->src->db, "pyspy.stage_weighted_totals");
    return rc == PDB_OK ? check_units(r) : rc;
}

/* ---- the reader -------------------------------------------------------- */

static int yajl_failure(reader *r, const unsigned char *chunk, size_t len)
{
    unsigned char *msg = yajl_get_error(r->h, 0, chunk, len);
    const char *m = (const char *)msg;
    const char *colon = strstr(m, ": ");
    if (colon && colon - m < 20)
        m = colon + 2;
    char text[256];
    snprintf(text, sizeof text, "invalid JSON: %s", m);
    text[strcspn(text, "\n")] = '\0';
    pdb_fail_at(r->src->path, offset_now(r), "%s", text);
    yajl_free_error(r->h, msg);
    return PDB_ERR;
}

static int parse(reader *r)
{
    unsigned char *buf = pdb_xmalloc(CHUNK);
    int rc = PDB_OK;
    int64_t quiet = 0, tokens_before = 0;
    for (;;) {
        r->chunk_base = pdb_input_offset(r->src->in);
        ssize_t n = pdb_input_read(r->src->in, buf, CHUNK);
        if (n < 0) {
            rc = PDB_ERR;
            break;
        }
        if (n == 0)
            break;
        size_t skip = 0;
        if (r->chunk_base == 0 && n >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF)
            skip = 3; /* a UTF-8 byte order mark, which yajl does not accept */
        r->chunk_base += (int64_t)skip;
        yajl_status s = yajl_parse(r->h, buf + skip, (size_t)n - skip);
        if (s == yajl_status_client_canceled || r->failed) {
            rc = PDB_ERR;
            break;
        }
        if (s != yajl_status_ok) {
            rc = yajl_failure(r, buf + skip, (size_t)n - skip);
            break;
        }
        quiet = r->tokens == tokens_before ? quiet + n : 0;
        tokens_before = r->tokens;
        if (quiet > MAX_TOKEN_BYTES) {
            rc = pdb_fail_at(r->src->path, pdb_input_offset(r->src->in),
                             "no complete JSON value in %d MiB (a string or number this long "
                             "is not speedscope); refusing to buffer it", MAX_TOKEN_BYTES >> 20);
            break;
        }
    }
    free(buf);
    if (rc != PDB_OK)
        return rc;
    r->chunk_base = pdb_input_offset(r->src->in);
    if (yajl_complete_parse(r->h) != yajl_status_ok) {
        if (r->failed)
            return PDB_ERR;
        if (r->depth == 0)
            return pdb_fail("%s: empty input: expected JSON", r->src->path);
        return pdb_fail_at(r->src->path, r->chunk_base,
                           "unexpected end of data (truncated file?)");
    }
    return PDB_OK;
}

int pdb_read_speedscope(pdb_source *src)
{
    src->format = "speedscope";
    reader r = {.src = src, .max_index = -1};
    r.store = pdb_pyspy_store_open(src);
    if (!r.store)
        return PDB_ERR;
    r.cache = pdb_xcalloc(STAGE_CACHE, sizeof *r.cache);
    int rc = pdb_ingest_exec(src->db, "pyspy.create_stage");
    if (rc == PDB_OK)
        rc = pdb_ingest_exec(src->db, "pyspy.clear_stage");
    if (rc == PDB_OK)
        rc = prepare_all(&r);
    if (rc == PDB_OK) {
        r.h = yajl_alloc(&callbacks, NULL, &r);
        rc = parse(&r);
        yajl_free(r.h);
    }
    if (rc == PDB_OK)
        rc = resolve(&r);
    release_all(&r);
    /* the staged rows go whatever happened (the transaction may go on) */
    if (pdb_ingest_exec(src->db, "pyspy.clear_stage") != PDB_OK)
        rc = PDB_ERR;
    pdb_pyspy_store_close(r.store);
    pdb_buf_free(&r.name);
    pdb_buf_free(&r.file);
    pdb_buf_free(&r.type);
    pdb_buf_free(&r.pname);
    pdb_buf_free(&r.unit);
    free(r.cache);
    return rc;
}
