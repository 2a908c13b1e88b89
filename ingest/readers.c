/* readers.c: the format table (the rows of readers.def) and sniffing (see
 * readers.h). */
#include "ingest/readers.h"

#include <string.h>
#include <yajl/yajl_parse.h>

const pdb_reader pdb_readers[] = {
#define PDB_READER(name, id, kind) {name, pdb_sniff_##id, pdb_read_##id, kind},
#include "ingest/readers.def"
#undef PDB_READER
    {NULL, NULL, NULL, 0},
};

const pdb_reader *pdb_reader_sniff(const unsigned char *data, size_t len, int *score)
{
    const pdb_reader *best = NULL;
    int best_score = PDB_SNIFF_NO;
    for (const pdb_reader *r = pdb_readers; r->name; r++) {
        int s = r->sniff(data, len);
        if (s > best_score) {
            best = r;
            best_score = s;
        }
    }
    *score = best_score;
    return best;
}

const pdb_reader *pdb_reader_named(const char *format)
{
    size_t n = strcspn(format, ":");
    for (const pdb_reader *r = pdb_readers; r->name; r++)
        if (strlen(r->name) == n && strncmp(r->name, format, n) == 0)
            return r;
    return NULL;
}

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
