/* merge_check.c: is a file a shard merge may read (see merge.h)?
 *
 * Merge copies a shard with INSERT ... SELECT from each of its tables, so
 * what it reads is whatever the shard calls by those names. A shard is
 * anybody's file: a table replaced by a view would run the view's SQL
 * (rows made up, or a recursive query that never ends), and a table with
 * other columns fails halfway with SQLite's words. So before anything is
 * read, the shard's schema is held against this profdb's own, made afresh
 * in memory: the same tables with the same columns, and no view or trigger
 * but profdb's own (by name; merge reads neither). Comments and spacing of
 * the SQL may differ (a migrated database), so tables are compared by
 * their columns, the way tests/corpus/test_migrate.py compares them. */
#include "ingest/shards/merge.h"
#include "ingest/queries.h"
#include "common/db.h"
#include "common/error.h"
#include "common/strbuf.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int read_shape(sqlite3 *db, pdb_buf *out)
{
    sqlite3_stmt *st;
    if (pdb_ingest_prepare(db, "merge.shape", &st) != PDB_OK)
        return PDB_ERR;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        pdb_buf_adds(out, (const char *)sqlite3_column_text(st, 0));
        pdb_buf_adds(out, "\n");
    }
    sqlite3_finalize(st);
    return step == SQLITE_DONE ? PDB_OK : pdb_db_fail(db, "database error");
}

/* The length of the first two words of a shape line ("table slices"). */
static int object_len(const char *line)
{
    const char *sp = strchr(line, ' ');
    return (int)(sp ? strcspn(sp + 1, " \n") + (size_t)(sp + 1 - line) : strcspn(line, "\n"));
}

/* The first line where the two sorted shapes differ, as a message. */
static int shape_differs(const char *path, const char *got, const char *want)
{
    for (;;) {
        size_t g = strcspn(got, "\n"), w = strcspn(want, "\n");
        if (g != w || memcmp(got, want, g) != 0 || !*got)
            break;
        got += g + 1;
        want += w + 1;
    }
    char what[512];
    int gn = object_len(got), wn = object_len(want);
    if (*got && *want && gn == wn && memcmp(got, want, (size_t)gn) == 0)
        snprintf(what, sizeof what, "has a %.*s with other columns than profdb's", gn, got);
    else if (*got && (!*want || strcmp(got, want) < 0))
        snprintf(what, sizeof what, "has a %.*s that profdb's schema does not (merge reads "
                 "a shard's own tables only)", gn, got);
    else
        snprintf(what, sizeof what, "lacks profdb's %.*s", wn, want);
    return pdb_fail("%s: not a database as profdb writes it: it %s", path, what);
}

/* This profdb's own shape, made once per process: building the schema in
 * memory for every shard cost a merge of 128 shards a second. */
static int own_shape(const char **shape)
{
    static pdb_buf want = PDB_BUF_INIT;
    static bool made;
    if (!made) {
        sqlite3 *ref = NULL;
        pdb_buf_reset(&want);
        int rc = pdb_db_open(":memory:", PDB_DB_CREATE, &ref);
        if (rc == PDB_OK)
            rc = read_shape(ref, &want);
        pdb_db_close(ref);
        if (rc != PDB_OK)
            return PDB_ERR;
        made = true;
    }
    *shape = pdb_buf_str(&want);
    return PDB_OK;
}

static int check_shape(sqlite3 *shard, const char *path)
{
    pdb_buf got = PDB_BUF_INIT;
    const char *want;
    int rc = read_shape(shard, &got);
    if (rc != PDB_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", pdb_errmsg());
        rc = pdb_fail("%s: %s", path, msg);
    }
    if (rc == PDB_OK)
        rc = own_shape(&want);
    if (rc == PDB_OK && strcmp(pdb_buf_str(&got), want) != 0)
        rc = shape_differs(path, pdb_buf_str(&got), want);
    pdb_buf_free(&got);
    return rc;
}

int pdb_merge_check(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return pdb_fail("%s: is a folder, not a profdb database", path);
    sqlite3 *db;
    if (pdb_db_open(path, PDB_DB_READONLY, &db) != PDB_OK)
        return PDB_ERR;
    int rc = check_shape(db, path);
    pdb_db_close(db);
    return rc;
}
