/* inflate.c: a gzip member inflated by ISA-L or zlib (see inflate.h). */
#include "common/inflate.h"
#include "common/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef PDB_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

struct pdb_inflater {
    bool isal;
    bool started;     /* a run has seen the member's first bytes */
    const char *error;
    z_stream zs;
#ifdef PDB_HAVE_ISAL
    struct inflate_state *is;
#endif
};

const char *pdb_inflate_backend(void)
{
#ifdef PDB_HAVE_ISAL
    const char *want = getenv("PROFDB_INFLATE");
    if (!want || strcmp(want, "zlib") != 0)
        return "isa-l";
#endif
    return "zlib";
}

/* ---- zlib ------------------------------------------------------------------ */

static pdb_inflate_status run_zlib(pdb_inflater *z, const unsigned char **in, size_t *in_len,
                                   unsigned char *out, size_t cap, size_t *produced)
{
    /* zlib counts in uInt: hand it at most 1 GiB of either at a time. */
    uInt in_now = *in_len > (1u << 30) ? 1u << 30 : (uInt)*in_len;
    uInt out_now = cap > (1u << 30) ? 1u << 30 : (uInt)cap;
    z->zs.next_in = (Bytef *)*in;
    z->zs.avail_in = in_now;
    z->zs.next_out = out;
    z->zs.avail_out = out_now;
    int rc = inflate(&z->zs, Z_NO_FLUSH);
    size_t used = in_now - z->zs.avail_in;
    *in += used;
    *in_len -= used;
    *produced = out_now - z->zs.avail_out;
    if (rc == Z_STREAM_END)
        return PDB_INFLATE_END;
    if (rc == Z_OK || rc == Z_BUF_ERROR)
        return PDB_INFLATE_MORE;
    z->error = z->zs.msg ? z->zs.msg : "invalid data";
    return PDB_INFLATE_ERROR;
}

/* ---- ISA-L ----------------------------------------------------------------- */

#ifdef PDB_HAVE_ISAL
/* ISA-L's errors in zlib's words, so that messages do not depend on the build. */
static const char *isal_error(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    default: return "invalid data";
    }
}

static pdb_inflate_status run_isal(pdb_inflater *z, const unsigned char **in, size_t *in_len,
                                   unsigned char *out, size_t cap, size_t *produced)
{
    struct inflate_state *s = z->is;
    uint32_t in_now = *in_len > (1u << 30) ? 1u << 30 : (uint32_t)*in_len;
    uint32_t out_now = cap > (1u << 30) ? 1u << 30 : (uint32_t)cap;
    s->next_in = (uint8_t *)*in;
    s->avail_in = in_now;
    s->next_out = out;
    s->avail_out = out_now;
    int rc = isal_inflate(s);
    size_t used = in_now - s->avail_in;
    *in += used;
    *in_len -= used;
    *produced = out_now - s->avail_out;
    if (rc < 0) {
        z->error = isal_error(rc);
        return PDB_INFLATE_ERROR;
    }
    return s->block_state == ISAL_BLOCK_FINISH ? PDB_INFLATE_END : PDB_INFLATE_MORE;
}
#endif

/* ---- either ---------------------------------------------------------------- */

pdb_inflater *pdb_inflater_new(void)
{
    pdb_inflater *z = pdb_xcalloc(1, sizeof *z);
#ifdef PDB_HAVE_ISAL
    if (strcmp(pdb_inflate_backend(), "isa-l") == 0) {
        z->isal = true;
        z->is = pdb_xmalloc(sizeof *z->is);
        isal_inflate_init(z->is);
        z->is->crc_flag = ISAL_GZIP; /* header, trailer and CRC-32 checked by ISA-L */
        return z;
    }
#endif
    if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK) {
        free(z);
        return NULL;
    }
    return z;
}

#ifdef PDB_HAVE_ISAL
/* ISA-L 2.30 rejects a correct header CRC (FHCRC) when the header arrives in
 * pieces (tests/unit/test_inflate.c found it with 3-byte reads). gzip never
 * writes that field, but a member with it, or whose first read is shorter
 * than a header, is inflated by zlib. */
static void choose_for_member(pdb_inflater *z, const unsigned char *in, size_t in_len)
{
    z->started = true;
    if (in_len >= 10 && !(in[3] & 0x02))
        return;
    free(z->is);
    z->is = NULL;
    z->isal = false;
    if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK)
        z->error = "cannot initialise zlib";
}
#endif

pdb_inflate_status pdb_inflater_run(pdb_inflater *z, const unsigned char **in, size_t *in_len,
                                    unsigned char *out, size_t cap, size_t *produced)
{
#ifdef PDB_HAVE_ISAL
    if (z->isal && !z->started)
        choose_for_member(z, *in, *in_len);
    if (z->error) {
        *produced = 0;
        return PDB_INFLATE_ERROR;
    }
    if (z->isal)
        return run_isal(z, in, in_len, out, cap, produced);
#endif
    return run_zlib(z, in, in_len, out, cap, produced);
}

const char *pdb_inflater_error(const pdb_inflater *z)
{
    return z->error ? z->error : "invalid data";
}

void pdb_inflater_free(pdb_inflater *z)
{
    if (!z)
        return;
#ifdef PDB_HAVE_ISAL
    if (z->isal)
        free(z->is);
    else
#endif
        inflateEnd(&z->zs);
    free(z);
}
