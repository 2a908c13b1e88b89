/* input.c: files, stdin and gzip as one decompressed byte stream. */
#include "common/input.h"
#include "common/error.h"
#include "common/inflate.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RAW_CHUNK (256 * 1024)
/* A step-log line longer than this is not a log line; the same bound as the
 * longest JSON token a trace may hold (ingest/trace/trace_json.c). */
#define MAX_LINE (16 * 1024 * 1024)

struct pdb_input {
    char *name;
    int fd; /* -1 for memory input */
    bool own_fd;
    int64_t size;

    /* Raw (possibly compressed) bytes. */
    unsigned char *raw;
    size_t raw_len, raw_pos;
    int64_t raw_total;   /* bytes read from the file so far */
    const unsigned char *mem;
    bool raw_eof;

    bool gzip;
    pdb_inflater *z;     /* inside a gzip member: its inflater (common/inflate.h) */

    /* Decompressed prefix kept for sniffing. */
    unsigned char *peek;
    size_t peek_len, peek_pos;
    bool peeked;
    int64_t offset;      /* decompressed bytes handed out */

    /* Line reading. */
    unsigned char *lbuf;
    size_t lbuf_len, lbuf_pos;
    bool lbuf_eof;
    pdb_buf line;
    int64_t lineno;
};

static pdb_input *input_new(const char *name)
{
    pdb_input *in = pdb_xcalloc(1, sizeof *in);
    in->name = pdb_xstrdup(name);
    in->fd = -1;
    in->size = -1;
    return in;
}

/* Set by the ingest: a signal that should end a blocking read (a FIFO
 * with no writer, a stalled pipe) instead of waiting for more input. */
static bool (*stop_requested)(void);

void pdb_input_set_stop(bool (*stop)(void))
{
    stop_requested = stop;
}

/* After EINTR: whether to give up (with the error recorded). */
static bool stopped(const char *name)
{
    if (!stop_requested || !stop_requested())
        return false;
    pdb_fail("%s: reading interrupted", name);
    return true;
}

/* Refills the raw buffer; returns bytes available, 0 at end, -1 on error. */
static ssize_t fill_raw(pdb_input *in)
{
    if (in->raw_pos < in->raw_len)
        return (ssize_t)(in->raw_len - in->raw_pos);
    if (in->raw_eof || in->fd < 0)
        return 0;
    ssize_t n;
    do
        n = read(in->fd, in->raw, RAW_CHUNK);
    while (n < 0 && errno == EINTR && !stopped(in->name));
    if (n < 0 && errno == EINTR)
        return -1;
    if (n < 0) {
        pdb_fail("%s: read error: %s", in->name, strerror(errno));
        return -1;
    }
    if (n == 0)
        in->raw_eof = true;
    in->raw_len = (size_t)n;
    in->raw_pos = 0;
    in->raw_total += n;
    return n;
}

static int64_t raw_offset(const pdb_input *in)
{
    return in->raw_total - (int64_t)(in->raw_len - in->raw_pos);
}

static ssize_t read_plain(pdb_input *in, unsigned char *buf, size_t cap)
{
    ssize_t avail = fill_raw(in);
    if (avail <= 0)
        return avail;
    size_t n = (size_t)avail < cap ? (size_t)avail : cap;
    memcpy(buf, in->raw + in->raw_pos, n);
    in->raw_pos += n;
    return (ssize_t)n;
}

static int start_member(pdb_input *in)
{
    in->z = pdb_inflater_new();
    if (!in->z)
        return pdb_fail("%s: cannot initialise %s", in->name, pdb_inflate_backend());
    return PDB_OK;
}

/* After a member ends: another member may follow (as in `cat a.gz b.gz`). */
static int next_member_or_end(pdb_input *in, bool *more)
{
    pdb_inflater_free(in->z);
    in->z = NULL;
    *more = false;
    ssize_t avail = fill_raw(in);
    if (avail < 0)
        return PDB_ERR;
    if (avail == 0)
        return PDB_OK;
    if (avail >= 1 && in->raw[in->raw_pos] == 0x1f) {
        *more = true;
        return start_member(in);
    }
    return pdb_fail_compressed(in->name, raw_offset(in),
                       "unexpected data after the end of the gzip stream");
}

static ssize_t read_gzip(pdb_input *in, unsigned char *buf, size_t cap)
{
    for (;;) {
        if (!in->z)
            return 0;
        ssize_t avail = fill_raw(in);
        if (avail < 0)
            return -1;
        if (avail == 0)
            return pdb_fail_compressed(in->name, raw_offset(in),
                               "gzip data ends early (truncated file?)"),
                   -1;
        const unsigned char *next = in->raw + in->raw_pos;
        size_t left = (size_t)avail, produced;
        pdb_inflate_status st = pdb_inflater_run(in->z, &next, &left, buf, cap, &produced);
        in->raw_pos = in->raw_len - left;
        if (st == PDB_INFLATE_END) {
            bool more;
            if (next_member_or_end(in, &more) != PDB_OK)
                return -1;
        } else if (st == PDB_INFLATE_ERROR) {
            return pdb_fail_compressed(in->name, raw_offset(in), "corrupt gzip data (%s)",
                                       pdb_inflater_error(in->z)),
                   -1;
        }
        if (produced > 0)
            return (ssize_t)produced;
    }
}

static ssize_t read_decompressed(pdb_input *in, unsigned char *buf, size_t cap)
{
    return in->gzip ? read_gzip(in, buf, cap) : read_plain(in, buf, cap);
}

static int detect_gzip(pdb_input *in)
{
    ssize_t avail = fill_raw(in);
    if (avail < 0)
        return PDB_ERR;
    /* A short first read can split the magic; get a second byte if needed. */
    if (avail == 1 && in->fd >= 0 && !in->raw_eof) {
        unsigned char first = in->raw[in->raw_pos];
        in->raw_pos = in->raw_len;
        if (fill_raw(in) < 0)
            return PDB_ERR;
        memmove(in->raw + 1, in->raw, in->raw_len);
        in->raw[0] = first;
        in->raw_len++;
        in->raw_pos = 0;
        avail = (ssize_t)in->raw_len;
    }
    if (avail >= 2 && in->raw[in->raw_pos] == 0x1f && in->raw[in->raw_pos + 1] == 0x8b) {
        in->gzip = true;
        pdb_error_gzip_input(in->name);
        return start_member(in);
    }
    return PDB_OK;
}

static pdb_input *finish_open(pdb_input *in)
{
    if (detect_gzip(in) != PDB_OK) {
        pdb_input_close(in);
        return NULL;
    }
    return in;
}

pdb_input *pdb_input_open(const char *path)
{
    pdb_input *in = input_new(path);
    if (strcmp(path, "-") == 0) {
        free(in->name);
        in->name = pdb_xstrdup("<stdin>");
        in->fd = STDIN_FILENO;
    } else {
        /* Opening a FIFO blocks until a writer comes; a signal ends that. */
        do
            in->fd = open(path, O_RDONLY | O_CLOEXEC);
        while (in->fd < 0 && errno == EINTR && !stopped(path));
        if (in->fd < 0 && errno == EINTR) {
            pdb_input_close(in);
            return NULL;
        }
        if (in->fd < 0) {
            pdb_fail("%s: cannot open: %s", path, strerror(errno));
            pdb_input_close(in);
            return NULL;
        }
        in->own_fd = true;
        struct stat st;
        if (fstat(in->fd, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                pdb_fail("%s: is a directory", path);
                pdb_input_close(in);
                return NULL;
            }
            if (S_ISREG(st.st_mode))
                in->size = st.st_size;
        }
    }
    in->raw = pdb_xmalloc(RAW_CHUNK + 1);
    return finish_open(in);
}

pdb_input *pdb_input_open_mem(const char *name, const void *data, size_t len)
{
    pdb_input *in = input_new(name);
    in->mem = data;
    in->raw = (unsigned char *)data; /* never written: fill_raw skips fd < 0 */
    in->raw_len = len;
    in->raw_total = (int64_t)len;
    in->raw_eof = true;
    in->size = (int64_t)len;
    return finish_open(in);
}

void pdb_input_close(pdb_input *in)
{
    if (!in)
        return;
    if (in->gzip)
        pdb_error_gzip_input(NULL);
    pdb_inflater_free(in->z);
    if (in->own_fd)
        close(in->fd);
    if (!in->mem)
        free(in->raw);
    free(in->peek);
    free(in->lbuf);
    pdb_buf_free(&in->line);
    free(in->name);
    free(in);
}

int pdb_input_peek(pdb_input *in, const unsigned char **data, size_t *len)
{
    if (!in->peeked) {
        in->peeked = true;
        in->peek = pdb_xmalloc(PDB_INPUT_PEEK);
        while (in->peek_len < PDB_INPUT_PEEK) {
            ssize_t n = read_decompressed(in, in->peek + in->peek_len,
                                          PDB_INPUT_PEEK - in->peek_len);
            if (n < 0)
                return PDB_ERR;
            if (n == 0)
                break;
            in->peek_len += (size_t)n;
        }
    }
    *data = in->peek + in->peek_pos;
    *len = in->peek_len - in->peek_pos;
    return PDB_OK;
}

ssize_t pdb_input_read(pdb_input *in, unsigned char *buf, size_t cap)
{
    ssize_t n;
    if (in->peek_pos < in->peek_len) {
        size_t avail = in->peek_len - in->peek_pos;
        n = (ssize_t)(avail < cap ? avail : cap);
        memcpy(buf, in->peek + in->peek_pos, (size_t)n);
        in->peek_pos += (size_t)n;
    } else {
        n = read_decompressed(in, buf, cap);
    }
    if (n > 0)
        in->offset += n;
    return n;
}

int pdb_input_getline(pdb_input *in, const char **line, size_t *len)
{
    if (!in->lbuf)
        in->lbuf = pdb_xmalloc(RAW_CHUNK);
    pdb_buf_reset(&in->line);
    for (;;) {
        if (in->lbuf_pos == in->lbuf_len) {
            if (in->lbuf_eof)
                break;
            ssize_t n = pdb_input_read(in, in->lbuf, RAW_CHUNK);
            if (n < 0)
                return -1;
            if (n == 0) {
                in->lbuf_eof = true;
                break;
            }
            in->lbuf_len = (size_t)n;
            in->lbuf_pos = 0;
        }
        unsigned char *start = in->lbuf + in->lbuf_pos;
        size_t avail = in->lbuf_len - in->lbuf_pos;
        unsigned char *nl = memchr(start, '\n', avail);
        size_t take = nl ? (size_t)(nl - start) : avail;
        if (in->line.len + take > MAX_LINE)
            return pdb_fail_line(in->name, in->lineno + 1,
                                 "line longer than %d bytes", MAX_LINE), -1;
        pdb_buf_add(&in->line, start, take);
        in->lbuf_pos += take + (nl ? 1 : 0);
        if (nl)
            goto got_line;
    }
    if (in->line.len == 0)
        return 0;
got_line:
    in->lineno++;
    if (in->line.len && in->line.p[in->line.len - 1] == '\r')
        in->line.p[--in->line.len] = '\0';
    *line = pdb_buf_str(&in->line);
    *len = in->line.len;
    return 1;
}

const char *pdb_input_name(const pdb_input *in) { return in->name; }
bool pdb_input_is_gzip(const pdb_input *in) { return in->gzip; }
int64_t pdb_input_offset(const pdb_input *in) { return in->offset; }
int64_t pdb_input_raw_bytes(const pdb_input *in) { return in->raw_total; }
int64_t pdb_input_lineno(const pdb_input *in) { return in->lineno; }
int64_t pdb_input_size(const pdb_input *in) { return in->size; }
