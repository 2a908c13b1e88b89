/* test_inflate.c: the two gzip backends of common/inflate.c give the same
 * bytes and the same verdicts (differential test: ISA-L against zlib, the
 * library it replaces, when profdb is built with ISA-L; zlib alone
 * otherwise, against the input written here).
 *
 * Inputs are made here with zlib's own gzip writer (gzopen-free: deflate
 * with a gzip wrapper): trace-like text and random bytes at levels 0, 1, 6
 * and 9, in buffers of several sizes, members concatenated, a header with
 * FNAME, FEXTRA, FCOMMENT and FHCRC, then each cut short at many lengths
 * and with single bytes changed at many offsets. For each input both
 * backends must end the same way (the member's end, corrupt data, or input
 * ending early) and, when they end, with the same bytes; corrupt checksums
 * must read "incorrect data check" from both. */
#include "common/inflate.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct {
    unsigned char *data;
    size_t len;
} blob;

static blob gzip_of(const unsigned char *src, size_t len, int level)
{
    z_stream zs = {0};
    deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    blob b = {malloc(deflateBound(&zs, len) + 64), 0};
    zs.next_in = (Bytef *)src;
    zs.avail_in = (uInt)len;
    zs.next_out = b.data;
    zs.avail_out = (uInt)(deflateBound(&zs, len) + 64);
    deflate(&zs, Z_FINISH);
    b.len = zs.total_out;
    deflateEnd(&zs);
    return b;
}

/* A gzip member with every optional header field (RFC 1952), by hand. */
static blob gzip_with_header_fields(const unsigned char *src, size_t len)
{
    blob raw = gzip_of(src, len, 6);
    static const unsigned char extra[] = {'A', 'B', 2, 0, 'x', 'y'};
    unsigned char head[64];
    size_t h = 0;
    memcpy(head, raw.data, 10);
    head[3] = 0x02 | 0x04 | 0x08 | 0x10; /* FHCRC FEXTRA FNAME FCOMMENT */
    h = 10;
    head[h++] = sizeof extra;
    head[h++] = 0;
    memcpy(head + h, extra, sizeof extra);
    h += sizeof extra;
    memcpy(head + h, "trace.json", 11);
    h += 11;
    memcpy(head + h, "a comment", 10);
    h += 10;
    uLong crc = crc32(0, head, (uInt)h);
    head[h++] = (unsigned char)(crc & 0xff);
    head[h++] = (unsigned char)((crc >> 8) & 0xff);
    blob b = {malloc(raw.len + h), 0};
    memcpy(b.data, head, h);
    memcpy(b.data + h, raw.data + 10, raw.len - 10);
    b.len = h + raw.len - 10;
    free(raw.data);
    return b;
}

typedef enum { ENDED, CORRUPT, SHORT } outcome;

/* Inflates every member of in (as input.c does) with buffers of `step`
 * bytes; returns how it ended, the bytes in *out and the error text. */
static outcome inflate_all(const blob *in, size_t step, blob *out, const char **why)
{
    out->data = NULL;
    out->len = 0;
    size_t cap = 0, pos = 0;
    *why = "";
    while (pos < in->len) {
        pdb_inflater *z = pdb_inflater_new();
        pdb_inflate_status st = PDB_INFLATE_MORE;
        while (st == PDB_INFLATE_MORE) {
            if (pos == in->len) {
                pdb_inflater_free(z);
                return SHORT;
            }
            size_t avail = in->len - pos < step ? in->len - pos : step;
            const unsigned char *next = in->data + pos;
            size_t left = avail;
            if (cap - out->len < step) {
                cap = (cap + step) * 2;
                out->data = realloc(out->data, cap);
            }
            size_t produced;
            st = pdb_inflater_run(z, &next, &left, out->data + out->len, step, &produced);
            out->len += produced;
            pos += avail - left;
            if (st == PDB_INFLATE_ERROR) {
                *why = pdb_inflater_error(z);
                pdb_inflater_free(z);
                return CORRUPT;
            }
        }
        pdb_inflater_free(z);
    }
    return ENDED;
}

static int cases, agreed;

/* Both backends on one input: the same outcome, and the same bytes when
 * they end (or, with one backend, the expected bytes). */
static void compare(const blob *in, size_t step, const blob *expect)
{
    blob a, b;
    const char *wa, *wb;
    setenv("PROFDB_INFLATE", "zlib", 1);
    outcome oa = inflate_all(in, step, &a, &wa);
    unsetenv("PROFDB_INFLATE");
    outcome ob = inflate_all(in, step, &b, &wb);
    cases++;
    bool same = oa == ob && (oa != ENDED || (a.len == b.len && !memcmp(a.data, b.data, a.len)));
    if (expect && oa == ENDED)
        same = same && a.len == expect->len && !memcmp(a.data, expect->data, a.len);
    agreed += same;
    if (!same)
        fprintf(stderr, "differ (%s): zlib %d (%zu bytes, %s), %s %d (%zu bytes, %s), step %zu\n",
                pdb_inflate_backend(), oa, a.len, wa, pdb_inflate_backend(), ob, b.len, wb,
                step);
    if (oa == CORRUPT && ob == CORRUPT && !strcmp(wa, "incorrect data check"))
        CHECK_STR(wb, "incorrect data check");
    free(a.data);
    free(b.data);
}

static blob text_input(size_t len)
{
    blob t = {malloc(len), len};
    size_t o = 0;
    for (int i = 0; o < len; i++) {
        char line[160];
        int n = snprintf(line, sizeof line,
                         "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_%d\", "
                         "\"ts\": %d.%03d, \"dur\": %d},\n", i % 37, 1000 + i * 7, i % 1000,
                         i % 91);
        size_t k = (size_t)n < len - o ? (size_t)n : len - o;
        memcpy(t.data + o, line, k);
        o += k;
    }
    return t;
}

static blob random_input(size_t len, uint32_t seed)
{
    blob r = {malloc(len), len};
    for (size_t i = 0; i < len; i++) {
        seed = seed * 1103515245u + 12345u;
        r.data[i] = (unsigned char)(seed >> 16);
    }
    return r;
}

static void damaged_copies(const blob *g, const blob *plain)
{
    /* cut short at many lengths */
    for (size_t cut = 1; cut < g->len; cut += g->len / 97 + 1) {
        blob c = {g->data, cut};
        compare(&c, 4096, NULL);
    }
    /* one byte changed at many offsets (header, data, trailer) */
    blob d = {malloc(g->len), g->len};
    for (size_t at = 0; at < g->len; at += g->len / 89 + 1) {
        memcpy(d.data, g->data, g->len);
        d.data[at] ^= 0x5a;
        compare(&d, 4096, NULL);
    }
    /* the CRC-32 of the trailer wrong */
    memcpy(d.data, g->data, g->len);
    d.data[g->len - 6] ^= 1;
    compare(&d, 65536, NULL);
    free(d.data);
    (void)plain;
}

int main(void)
{
    blob inputs[] = {text_input(300000), random_input(70000, 7), text_input(0), text_input(1)};
    static const int levels[] = {0, 1, 6, 9};
    static const size_t steps[] = {1, 7, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++)
        for (size_t l = 0; l < 4; l++) {
            blob g = gzip_of(inputs[i].data, inputs[i].len, levels[l]);
            for (size_t s = 0; s < 4; s++)
                if (steps[s] > 1 || g.len < 5000)
                    compare(&g, steps[s], &inputs[i]);
            if (l == 2 && inputs[i].len > 1000)
                damaged_copies(&g, &inputs[i]);
            free(g.data);
        }
    /* members concatenated (cat a.gz b.gz) decompress to the texts joined */
    blob g1 = gzip_of(inputs[0].data, inputs[0].len, 6), g2 = gzip_of(inputs[1].data, 5000, 1);
    blob both = {malloc(g1.len + g2.len), g1.len + g2.len};
    memcpy(both.data, g1.data, g1.len);
    memcpy(both.data + g1.len, g2.data, g2.len);
    blob joined = {malloc(inputs[0].len + 5000), inputs[0].len + 5000};
    memcpy(joined.data, inputs[0].data, inputs[0].len);
    memcpy(joined.data + inputs[0].len, inputs[1].data, 5000);
    compare(&both, 4096, &joined);
    compare(&both, 1 << 20, &joined);
    blob h = gzip_with_header_fields(inputs[0].data, 20000);
    blob h_plain = {inputs[0].data, 20000};
    compare(&h, 4096, &h_plain);
    compare(&h, 3, &h_plain);
    printf("%d inputs, %d agreed (%s against zlib)\n", cases, agreed, pdb_inflate_backend());
    CHECK(cases > 300);
    CHECK_INT(agreed, cases);
    free(g1.data);
    free(g2.data);
    free(both.data);
    free(joined.data);
    free(h.data);
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++)
        free(inputs[i].data);
    return check_report();
}
