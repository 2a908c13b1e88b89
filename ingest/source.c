/* source.c: what a reader gets from the ingest (ingest.h, pdb_source):
 * interned strings, skip counts, progress on a TTY, whether a signal
 * interrupted the ingest, and the JSON test the readers' sniffers share.
 *
 * Apart from session.c, which hands each input to its reader through the
 * reader table, so that the readers do not call back into it. */
#include "ingest/source.h"
#include "ingest/readers.h"
#include "common/bounds.h"
#include "common/db.h"
#include "common/error.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

/* ---- interruption ------------------------------------------------------ */

/* The signal number, 0 if none. Atomic (lock-free, so safe in a handler):
 * the handler may run on the trace parser's thread (trace_json.c) while
 * this thread reads it in SQLite's progress handler. */
static atomic_int interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static bool was_interrupted(void)
{
    return interrupted != 0;
}

void pdb_ingest_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* No SA_RESTART: a read blocked on a pipe or FIFO must return, so the
     * ingest can roll back. The second Ctrl-C kills. */
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    pdb_input_set_stop(was_interrupted);
}

int pdb_ingest_interrupted(void)
{
    return interrupted;
}

/* ---- strings, skips and progress --------------------------------------- */

/* Interned strings answered from memory: two generations of at most
 * STRINGS_BYTES of keys each. A trace has a few thousand names and never
 * fills one; a hostile one with millions (885 MB at 2 million names) asks
 * SQLite's unique index for the rest, so memory stays bounded. */
#define STRINGS_BYTES (4 << 20)

/* Remembers an interned string in the current generation; a full one
 * becomes the previous generation and the one before is dropped. */
static void remember_string(pdb_session *ss, const char *s, size_t len, int64_t id)
{
    size_t cost = len + 48, /* the key and its slot */
        budget = (size_t)pdb_bound(STRINGS_BYTES, 256);
    if (ss->strings_bytes + cost > budget) {
        pdb_bound_passed("interned strings: a generation dropped");
        pdb_strmap_free(ss->strings_old);
        ss->strings_old = ss->strings;
        ss->strings = pdb_strmap_new();
        ss->strings_bytes = 0;
    }
    if (cost <= budget) {
        pdb_strmap_put(ss->strings, s, len, id);
        ss->strings_bytes += cost;
    }
}

int pdb_intern(pdb_source *src, const char *s, size_t len, int64_t *id)
{
    pdb_session *ss = src->session;
    if (pdb_strmap_get(ss->strings, s, len, id))
        return PDB_OK;
    if (ss->strings_old && pdb_strmap_get(ss->strings_old, s, len, id)) {
        remember_string(ss, s, len, *id);
        return PDB_OK;
    }
    /* Not in memory: most such strings are new (a hostile trace's millions),
     * so insert first and look up only what was there already. */
    sqlite3_bind_text(ss->add_string, 1, s, (int)len, SQLITE_STATIC);
    if (pdb_db_step_done(ss->db, ss->add_string) != PDB_OK)
        return PDB_ERR;
    if (sqlite3_changes(ss->db) == 1) {
        *id = sqlite3_last_insert_rowid(ss->db);
    } else {
        sqlite3_bind_text(ss->find_string, 1, s, (int)len, SQLITE_STATIC);
        int rc = sqlite3_step(ss->find_string);
        *id = sqlite3_column_int64(ss->find_string, 0);
        sqlite3_reset(ss->find_string);
        if (rc != SQLITE_ROW)
            return pdb_db_fail(ss->db, "database error");
    }
    remember_string(ss, s, len, *id);
    return PDB_OK;
}

void pdb_skip(pdb_source *src, const char *reason)
{
    int64_t n = 0;
    size_t len = strlen(reason);
    pdb_strmap_get(src->skips, reason, len, &n);
    pdb_strmap_put(src->skips, reason, len, n + 1);
}

void pdb_progress(pdb_source *src, int64_t records)
{
    pdb_session *ss = src->session;
    if (!ss->tty || (records & 4095) != 0)
        return;
    double t = pdb_now_seconds();
    if (t - ss->last_progress < 0.25)
        return;
    ss->last_progress = t;
    ss->progress_shown = true;
    int64_t raw = src->raw_read ? atomic_load_explicit(src->raw_read, memory_order_relaxed)
                                : pdb_input_raw_bytes(src->in);
    fprintf(stderr, "\r\033[K%s: %.1f MB read, %lld records", src->path, raw / 1e6,
            (long long)records);
    fflush(stderr);
}

/* ---- sniffing ---------------------------------------------------------- */

bool pdb_sniff_json(const unsigned char *data, size_t len)
{
    size_t i = 0;
    if (len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        i = 3; /* a UTF-8 byte order mark */
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    if (i >= len || (data[i] != '{' && data[i] != '['))
        return false;
    /* No callbacks: yajl only checks the grammar. A prefix cut in the middle
     * of a document is fine (yajl waits for more); a byte that cannot
     * continue JSON ("[08/30 12:00:00] ...") is an error. */
    yajl_handle h = yajl_alloc(NULL, NULL, NULL);
    if (!h)
        return false;
    yajl_config(h, yajl_allow_multiple_values, 1);
    yajl_config(h, yajl_allow_partial_values, 1);
    bool ok = yajl_parse(h, data + i, len - i) == yajl_status_ok;
    yajl_free(h);
    return ok;
}
