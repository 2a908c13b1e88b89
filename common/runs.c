/* runs.c: finding, deleting and forgetting runs (see runs.h). */
#include "common/runs.h"
#include "common/db.h"
#include "common/error.h"
#include "common/query.h"
#include "common/query_db.h"
#include "common/strbuf.h"
#include "common/strutil.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

int pdb_run_find(sqlite3 *db, const char *schema, const char *name, int64_t *run_id,
                 bool *found)
{
    sqlite3_stmt *st;
    if (pdb_common_prepare(db, name ? "runs.by_name" : "runs.newest", schema, &st) != PDB_OK)
        return PDB_ERR;
    if (name)
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *found = rc == SQLITE_ROW;
    if (*found)
        *run_id = sqlite3_column_int64(st, 0);
    pdb_db_release(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(db, "database error");
    return PDB_OK;
}

int pdb_run_newest(sqlite3 *db, const char *schema, int64_t *run_id, char **name)
{
    sqlite3_stmt *st;
    *name = NULL;
    if (pdb_common_prepare(db, "runs.newest", schema, &st) != PDB_OK)
        return PDB_ERR;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
        *name = pdb_xstrdup((const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(db, "database error");
    return PDB_OK;
}

int pdb_run_unknown(sqlite3 *db, const char *schema, const char *name, const char *where)
{
    sqlite3_stmt *st;
    char *close = NULL;
    if (pdb_common_prepare(db, "runs.names", schema, &st) == PDB_OK) {
        const char **names = NULL;
        size_t n = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            names = pdb_xrealloc(names, (n + 1) * sizeof *names);
            names[n++] = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
        }
        sqlite3_finalize(st);
        const char *best = pdb_closest_name(name, names, n);
        close = best ? pdb_xstrdup(best) : NULL;
        for (size_t i = 0; i < n; i++)
            free((char *)names[i]);
        free(names);
    }
    if (close) {
        pdb_fail("no run named '%s'%s (did you mean '%s'? see 'profdb runs')", name, where,
                 close);
        free(close);
        return PDB_ERR;
    }
    return pdb_fail("no run named '%s'%s (see 'profdb runs')", name, where);
}

int pdb_run_need(sqlite3 *db, const char *name, int64_t *run_id)
{
    bool found;
    if (pdb_run_find(db, "main", name, run_id, &found) != PDB_OK)
        return PDB_ERR;
    return found ? PDB_OK : pdb_run_unknown(db, "main", name, "");
}

int pdb_run_count(sqlite3 *db, int64_t *count)
{
    return pdb_db_query_int(db, pdb_common_sql("runs.count"), 0, count);
}

int pdb_run_shard_files(sqlite3 *db, const char *schema, int64_t run_id, int64_t *count)
{
    sqlite3_stmt *st;
    if (pdb_common_prepare(db, "runs.shard_files", schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    *count = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    pdb_db_release(st);
    return rc == SQLITE_ROW ? PDB_OK : pdb_db_fail(db, "database error");
}

int pdb_run_name(sqlite3 *db, const char *schema, int64_t run_id, char **name)
{
    sqlite3_stmt *st;
    *name = NULL;
    if (pdb_common_prepare(db, "runs.name", schema, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *name = pdb_xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return pdb_db_fail(db, "database error");
    return PDB_OK;
}

int pdb_run_create(sqlite3 *db, const char *name, int64_t *run_id)
{
    sqlite3_stmt *st;
    if (pdb_common_prepare(db, "runs.create", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = pdb_db_step_done(db, st);
    pdb_db_release(st);
    if (rc != PDB_OK)
        return PDB_ERR;
    *run_id = sqlite3_last_insert_rowid(db);
    return PDB_OK;
}

int pdb_run_last_id(sqlite3 *db, int64_t *run_id)
{
    return pdb_db_query_int(db, pdb_common_sql("runs.last_id"), 0, run_id);
}

int pdb_run_each(sqlite3 *db, int (*fn)(sqlite3 *db, int64_t run_id, void *arg), void *arg)
{
    sqlite3_stmt *st;
    if (pdb_common_prepare(db, "runs.all", NULL, &st) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    while (rc == PDB_OK && sqlite3_step(st) == SQLITE_ROW)
        rc = fn(db, sqlite3_column_int64(st, 0), arg);
    sqlite3_finalize(st);
    return rc;
}

/* Runs the delete query (one per table) on every table tables lists. */
static int delete_rows(sqlite3 *db, const char *tables, const char *delete, int64_t run_id)
{
    sqlite3_stmt *list;
    if (pdb_common_prepare(db, tables, NULL, &list) != PDB_OK)
        return PDB_ERR;
    int rc = PDB_OK;
    pdb_buf sql = PDB_BUF_INIT;
    while (rc == PDB_OK && sqlite3_step(list) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(list, 0);
        if (strchr(table, '"')) { /* the query quotes the name */
            rc = pdb_fail("cannot delete the run's rows of table '%s': its name has a '\"'",
                          table);
            break;
        }
        pdb_buf_reset(&sql);
        pdb_query_fill(pdb_common_sql(delete), (const char *const[]){"table", table, NULL}, &sql);
        sqlite3_stmt *del;
        rc = pdb_db_prepare(db, pdb_buf_str(&sql), &del);
        if (rc == PDB_OK) {
            sqlite3_bind_int64(del, 1, run_id);
            rc = pdb_db_step_done(db, del);
            sqlite3_finalize(del);
        }
    }
    sqlite3_finalize(list);
    pdb_buf_free(&sql);
    return rc;
}

/* Runs one of runs.sql's deletes of a run's derived rows. */
static int forget(sqlite3 *db, const char *query, int64_t run_id)
{
    sqlite3_stmt *st;
    if (pdb_common_prepare(db, query, NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = pdb_db_step_done(db, st);
    pdb_db_release(st);
    return rc;
}

/* The saved diffs with the run as BASE or TEST (schemas/80_diffs.sql). */
static int forget_diffs(sqlite3 *db, int64_t run_id)
{
    if (forget(db, "runs.forget_diff_rows", run_id) != PDB_OK)
        return PDB_ERR;
    return forget(db, "runs.forget_diffs", run_id);
}

int pdb_run_delete(sqlite3 *db, int64_t run_id)
{
    if (forget_diffs(db, run_id) != PDB_OK ||
        delete_rows(db, "runs.trace_tables", "runs.delete_by_trace", run_id) != PDB_OK ||
        delete_rows(db, "runs.run_tables", "runs.delete_by_run", run_id) != PDB_OK)
        return PDB_ERR;
    sqlite3_stmt *st;
    if (pdb_common_prepare(db, "runs.delete", NULL, &st) != PDB_OK)
        return PDB_ERR;
    sqlite3_bind_int64(st, 1, run_id);
    int rc = pdb_db_step_done(db, st);
    sqlite3_finalize(st);
    return rc;
}

int pdb_run_forget_caches(sqlite3 *db, int64_t run_id)
{
    if (forget(db, "runs.forget_caches", run_id) != PDB_OK)
        return PDB_ERR;
    return forget_diffs(db, run_id);
}
