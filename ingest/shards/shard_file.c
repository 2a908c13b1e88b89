/* shard_file.c: a shard file's identity (see shard_file.h). */
#include "ingest/shards/shard_file.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int64_t be32(const unsigned char *p)
{
    return ((int64_t)p[0] << 24) | ((int64_t)p[1] << 16) | ((int64_t)p[2] << 8) | p[3];
}

int pdb_shard_identity_read(const char *path, pdb_shard_identity *id)
{
    memset(id, 0, sizeof *id);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return pdb_fail("%s: cannot read the shard: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return pdb_fail("%s: the shard is not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return pdb_fail("%s: cannot read the shard: %s", path, strerror(errno));
    unsigned char h[100];
    size_t got = fread(h, 1, sizeof h, f);
    fclose(f);
    if (got != sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
        return pdb_fail("%s: the shard is no longer an SQLite database", path);
    id->size = (int64_t)sb.st_size;
    id->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    id->change_counter = be32(h + 24);
    id->page_count = be32(h + 28);
    char wal[4096];
    struct stat wb;
    if (snprintf(wal, sizeof wal, "%s-wal", path) < (int)sizeof wal && stat(wal, &wb) == 0 &&
        wb.st_size > 32)
        id->wal = true; /* more than a WAL header: frames not yet checkpointed */
    return PDB_OK;
}

bool pdb_shard_identity_same(const pdb_shard_identity *a, const pdb_shard_identity *b)
{
    return a->size == b->size && a->mtime_ns == b->mtime_ns &&
           a->change_counter == b->change_counter && a->page_count == b->page_count &&
           a->wal == b->wal;
}

/* The shard's run of that name: exactly the one trace of rank. */
static int shard_run_of(sqlite3 *shard, const char *path, const char *run, int64_t rank,
                        int64_t *shard_run)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(shard, "shard_file.shard_run", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, rank);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? pdb_fail("%s: the shard has no run '%s' (it is not the file "
                                            "that was merged)", path, run)
                                 : pdb_db_fail(shard, "database error");
    }
    *shard_run = sqlite3_column_int64(st, 0);
    int64_t traces = sqlite3_column_int64(st, 1);
    bool has = sqlite3_column_int(st, 2) != 0;
    sqlite3_finalize(st);
    if (!has)
        return pdb_fail("%s: the shard's run '%s' has no rank %lld (it is not the file that "
                        "was merged)", path, run, (long long)rank);
    if (traces != 1)
        return pdb_fail("%s: the shard holds %lld ranks of run '%s'; a report on one rank "
                        "reads a shard of one rank (merge with --full, or ingest one rank per "
                        "shard)", path, (long long)traces, run);
    return PDB_OK;
}

int pdb_shard_open_rank(sqlite3 *job, int64_t run_id, const char *run, int64_t rank,
                        sqlite3 **shard, int64_t *shard_run, char **path)
{
    *shard = NULL;
    *path = NULL;
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(job, "shard_file.find_rank", &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int64(st, 2, rank);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        sqlite3_finalize(st);
        return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(job, "database error");
    }
    *path = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
    pdb_shard_identity was = {
        .size = sqlite3_column_int64(st, 1), .mtime_ns = sqlite3_column_int64(st, 2),
        .change_counter = sqlite3_column_int64(st, 3), .page_count = sqlite3_column_int64(st, 4),
    };
    int64_t version = sqlite3_column_int64(st, 5);
    sqlite3_finalize(st);
    pdb_shard_identity now;
    if (pdb_shard_identity_read(*path, &now) != PDB_OK)
        return PDB_ERR;
    if (!pdb_shard_identity_same(&was, &now))
        return pdb_fail("%s: the shard of rank %lld of run '%s' has changed since it was "
                        "merged (size, modification time or SQLite header differ): merge it "
                        "again", *path, (long long)rank, run);
    if (version != PDB_SCHEMA_VERSION)
        return pdb_fail("%s: the shard was merged at schema version %lld, this profdb reads "
                        "%d: upgrade it ('profdb migrate --db %s') and merge it again", *path,
                        (long long)version, PDB_SCHEMA_VERSION, *path);
    if (pdb_db_open(*path, PDB_DB_READONLY, shard) != PDB_OK)
        return PDB_ERR;
    if (shard_run_of(*shard, *path, run, rank, shard_run) != PDB_OK) {
        pdb_db_close(*shard);
        *shard = NULL;
        return PDB_ERR;
    }
    return PDB_OK;
}
