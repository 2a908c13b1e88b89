/* test_input.c: plain and gzip input streams, peeking, lines, errors. */
#include "common/input.h"
#include "common/error.h"
#include "check.h"

#include <stdlib.h>
#include <zlib.h>

/* gzip-compresses src into a new buffer (one member). */
static unsigned char *gz(const char *src, size_t *outlen)
{
    z_stream zs = {0};
    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&zs, strlen(src)) + 32;
    unsigned char *out = malloc(cap);
    zs.next_in = (unsigned char *)src;
    zs.avail_in = (uInt)strlen(src);
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    deflate(&zs, Z_FINISH);
    *outlen = zs.total_out;
    deflateEnd(&zs);
    return out;
}

static void read_all(pdb_input *in, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while ((r = pdb_input_read(in, (unsigned char *)buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
}

int main(void)
{
    char buf[256];
    /* Two gzip members back to back read as one stream, like zcat. */
    size_t la, lb;
    unsigned char *a = gz("hello ", &la), *b = gz("world\n", &lb);
    unsigned char both[512];
    memcpy(both, a, la);
    memcpy(both + la, b, lb);
    pdb_input *in = pdb_input_open_mem("two.gz", both, la + lb);
    CHECK(in != NULL);
    CHECK(pdb_input_is_gzip(in));
    const unsigned char *peek;
    size_t plen;
    CHECK_INT(pdb_input_peek(in, &peek, &plen), PDB_OK);
    CHECK_INT(plen, 12);
    read_all(in, buf, sizeof buf);
    CHECK_STR(buf, "hello world\n");
    CHECK_INT(pdb_input_offset(in), 12);
    pdb_input_close(in);

    /* A truncated member is an error with a byte offset, not a short read. */
    in = pdb_input_open_mem("cut.gz", a, la - 6);
    read_all(in, buf, sizeof buf);
    CHECK(strstr(pdb_errmsg(), "cut.gz: byte ") != NULL);
    CHECK(strstr(pdb_errmsg(), "gzip data ends early") != NULL);
    pdb_input_close(in);

    /* Lines: LF and CRLF endings, a last line without newline, empty lines. */
    const char *text = "one\r\ntwo\n\nthree";
    in = pdb_input_open_mem("t.txt", text, strlen(text));
    CHECK(!pdb_input_is_gzip(in));
    const char *line;
    size_t len;
    const char *want[] = {"one", "two", "", "three"};
    for (int i = 0; i < 4; i++) {
        CHECK_INT(pdb_input_getline(in, &line, &len), 1);
        CHECK_STR(line, want[i]);
    }
    CHECK_INT(pdb_input_getline(in, &line, &len), 0);
    CHECK_INT(pdb_input_lineno(in), 4);
    pdb_input_close(in);

    /* Missing files say so. */
    CHECK(pdb_input_open("/nonexistent/file.json") == NULL);
    CHECK(strstr(pdb_errmsg(), "cannot open") != NULL);
    free(a);
    free(b);
    return check_report();
}
