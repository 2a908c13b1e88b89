/* error.c: records the current error message (see error.h). */
#include "common/error.h"
#include "common/utf8.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One message per thread: a trace's parser thread (ingest/trace/trace_json.c)
 * records its own, which the thread that reports copies. */
static _Thread_local char errbuf[2048];

/* Formats into a scratch buffer first: callers may pass pdb_errmsg() itself
 * as an argument ("cannot store event: %s"), which must not overlap the
 * buffer being written. */
static int record(const char *prefix, const char *fmt, va_list ap)
{
    char msg[sizeof errbuf];
    size_t n = (size_t)snprintf(msg, sizeof msg, "%s", prefix);
    if (n >= sizeof msg)
        n = sizeof msg - 1;
    vsnprintf(msg + n, sizeof msg - n, fmt, ap);
    /* Keep the message on one line, valid UTF-8 and free of terminal
     * escapes, whatever the input put into it (a file or kernel name). */
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (pdb_utf8_needs_clean(msg, strlen(msg), PDB_UTF8_CONTROLS)) {
        pdb_buf b = PDB_BUF_INIT;
        pdb_utf8_clean(&b, msg, strlen(msg), PDB_UTF8_CONTROLS);
        snprintf(msg, sizeof msg, "%s", pdb_buf_str(&b));
        pdb_buf_free(&b);
    }
    memcpy(errbuf, msg, sizeof errbuf);
    return PDB_ERR;
}

int pdb_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record("", fmt, ap);
    va_end(ap);
    return PDB_ERR;
}

/* The gzip input being read: offsets readers give for it count
 * decompressed bytes, while its gzip errors count bytes of the file. */
static const char *gzip_input;

void pdb_error_gzip_input(const char *file)
{
    gzip_input = file;
}

int pdb_fail_at(const char *file, int64_t offset, const char *fmt, ...)
{
    char prefix[1024];
    bool gz = gzip_input && strcmp(file, gzip_input) == 0;
    snprintf(prefix, sizeof prefix, "%s: byte %" PRId64 "%s: ", file, offset,
             gz ? " (decompressed)" : "");
    va_list ap;
    va_start(ap, fmt);
    record(prefix, fmt, ap);
    va_end(ap);
    return PDB_ERR;
}

int pdb_fail_compressed(const char *file, int64_t offset, const char *fmt, ...)
{
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s: byte %" PRId64 " (compressed): ", file, offset);
    va_list ap;
    va_start(ap, fmt);
    record(prefix, fmt, ap);
    va_end(ap);
    return PDB_ERR;
}

int pdb_fail_line(const char *file, int64_t line, const char *fmt, ...)
{
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s: line %" PRId64 ": ", file, line);
    va_list ap;
    va_start(ap, fmt);
    record(prefix, fmt, ap);
    va_end(ap);
    return PDB_ERR;
}

const char *pdb_errmsg(void)
{
    return errbuf[0] ? errbuf : "unknown error";
}

void pdb_clear_error(void)
{
    errbuf[0] = '\0';
}

void pdb_warn(const char *fmt, ...)
{
    char msg[sizeof errbuf];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pdb_buf b = PDB_BUF_INIT;
    pdb_utf8_clean(&b, msg, strlen(msg), PDB_UTF8_CONTROLS);
    fprintf(stderr, "profdb: warning: %s\n", pdb_buf_str(&b));
    pdb_buf_free(&b);
}
