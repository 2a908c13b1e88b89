/* readers.c: the format table (the rows of readers.def) and sniffing (see
 * readers.h). */
#include "ingest/readers.h"

#include <string.h>

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
