/* cmd_runs.c: `profdb runs`: what the database holds, one row per run. */
#include "cli/cli.h"
#include "common/db.h"
#include "common/error.h"
#include "common/runs.h"
#include "common/strbuf.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>

static const pdb_cmd_help help = {
    "profdb runs [--db FILE] [--format FMT] [--sources | --reading] [RUN...]",
    "Lists runs: ranks, sources and their formats, records stored, trace events per\n"
    "phase (raw counts from the files: X, B, E, i, I, C, s, t, f, M and other_phases),\n"
    "GPU events (X\n"
    "events with a stream arg), records skipped with the reasons, and how each step\n"
    "log was read (reading: reader; step counter; step records; the agg of the step\n"
    "time; WEAK when the ingest warned).\n"
    "With --sources, lists every ingested file instead. With --reading, the reading\n"
    "of every step log: the counter and the line it was first read from, step\n"
    "records, where step times come from and their resolution, where throughput\n"
    "comes from, the epoch structure, lines used, and why the reading is weak (the\n"
    "table format prints one 'column = value' line each, as sqlite3's .mode line).",
    NULL,
};

/* One aggregate per table, grouped by run and joined once: correlated
 * subqueries over tables without a run_id index made the listing quadratic
 * in runs (4.2 s at 5000 runs). */
static const char *const runs_sql =
    "WITH c AS (SELECT t.run_id, %s FROM trace_counts c JOIN traces t USING (trace_id)"
    "           GROUP BY t.run_id),"
    " tr AS (SELECT run_id, count(*) AS ranks FROM traces GROUP BY run_id),"
    " src AS (SELECT run_id, count(*) AS sources, group_concat(DISTINCT format) AS formats,"
    "   coalesce(sum(records), 0) AS records, sum(ingest_ms) AS ingest_ms FROM sources"
    "   GROUP BY run_id),"
    " sk AS (SELECT run_id, sum(n) AS skipped, group_concat(reason || ': ' || n, '; ')"
    "   AS skip_reasons FROM (SELECT run_id, reason, sum(count) AS n FROM skips"
    "   GROUP BY run_id, reason ORDER BY run_id, reason) GROUP BY run_id),"
    " rd AS (SELECT run_id, group_concat(summary, ' | ') AS reading FROM"
    "   (SELECT run_id, summary FROM steplog_readings ORDER BY source_id) GROUP BY run_id)"
    " SELECT r.name AS run, coalesce(tr.ranks, 0) AS ranks, coalesce(src.sources, 0) AS sources,"
    "  src.formats, coalesce(src.records, 0) AS records, %s"
    "  coalesce(sk.skipped, 0) AS skipped, sk.skip_reasons, r.created_at AS ingested_at,"
    "  src.ingest_ms, rd.reading"
    " FROM runs r LEFT JOIN c USING (run_id) LEFT JOIN tr USING (run_id)"
    " LEFT JOIN src USING (run_id) LEFT JOIN sk USING (run_id) LEFT JOIN rd USING (run_id)"
    " WHERE (%s) ORDER BY r.run_id";

static const char *const sources_sql =
    "SELECT r.name AS run, s.path, s.format, t.rank, t.rank_from, s.compressed, s.bytes,"
    " s.records, (SELECT coalesce(sum(count), 0) FROM skips k WHERE k.source_id = s.source_id)"
    " AS skipped, s.ingested_at, s.ingest_ms"
    " FROM sources s JOIN runs r USING (run_id) LEFT JOIN traces t USING (source_id)"
    " WHERE (%s) ORDER BY s.source_id";

/* "r.name IN (?,?,?)" for the runs named on the command line, else "1". */
static void run_filter(pdb_buf *b, int nruns)
{
    if (nruns == 0) {
        pdb_buf_adds(b, "1");
        return;
    }
    pdb_buf_adds(b, "r.name IN (");
    for (int i = 0; i < nruns; i++)
        pdb_buf_adds(b, i ? ",?" : "?");
    pdb_buf_adds(b, ")");
}

static void build_sql(pdb_buf *sql, bool sources, int nruns)
{
    static const char *const phases[] = {"X", "B", "E", "i", "I", "C", "s", "t", "f", "M"};
    pdb_buf filter = PDB_BUF_INIT, sums = PDB_BUF_INIT, cols = PDB_BUF_INIT;
    run_filter(&filter, nruns);
    pdb_buf_adds(&sums, "1 AS dummy");
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        /* Numbered: SQL names are case-blind, and 'i' and 'I' are two phases. */
        pdb_buf_addf(&sums, ", sum(c.count) FILTER (WHERE c.ph = '%s') AS ph%zu", phases[i], i);
        pdb_buf_addf(&cols, "coalesce(c.ph%zu, 0) AS \"%s\",", i, phases[i]);
    }
    /* Phases outside the list above (async 'b'/'e', objects, samples...). */
    pdb_buf_adds(&sums, ", sum(c.count) FILTER (WHERE c.ph NOT IN"
                        " ('X','B','E','i','I','C','s','t','f','M','gpu')) AS other_phases");
    pdb_buf_adds(&sums, ", sum(c.count) FILTER (WHERE c.ph = 'gpu') AS gpu_events");
    pdb_buf_adds(&cols, "coalesce(c.other_phases, 0) AS other_phases,"
                        " coalesce(c.gpu_events, 0) AS gpu_events,");
    if (sources)
        pdb_buf_addf(sql, sources_sql, filter.p);
    else
        pdb_buf_addf(sql, runs_sql, sums.p, cols.p, filter.p);
    pdb_buf_free(&filter);
    pdb_buf_free(&sums);
    pdb_buf_free(&cols);
}

int cmd_runs(int argc, char **argv, pdb_cli *cli)
{
    const char *format = NULL;
    bool sources = false, reading = false;
    long width = 60;
    const pdb_opt opts[] = {
        PDB_OPT_DB(cli), PDB_OPT_FORMAT(format), PDB_OPT_WIDTH(width),
        {PDB_OPT_FLAG, "sources", 0, &sources, NULL, "list ingested files instead of runs"},
        {PDB_OPT_FLAG, "reading", 0, &reading, NULL,
         "how each step log was read, in full (one source a block)"},
        {0},
    };
    int npos;
    int early = pdb_cli_parse(argc, argv, opts, &help, &npos);
    if (early >= 0)
        return early;
    pdb_render_opts ro;
    if (pdb_cli_render_opts(format, NULL, width, &ro) != PDB_OK)
        return pdb_cli_fail();
    sqlite3 *db;
    if (pdb_cli_open_db(cli, PDB_DB_READONLY, &db) != PDB_OK)
        return pdb_cli_fail();
    int rc = PDB_OK;
    if (sources && reading)
        rc = pdb_fail("--sources and --reading are two listings: give one");
    int64_t *ids = pdb_xcalloc((size_t)npos + 1, sizeof *ids);
    for (int i = 1; i <= npos && rc == PDB_OK; i++) {
        rc = pdb_run_need(db, argv[i], &ids[i - 1]);
    }
    if (rc == PDB_OK && reading)
        rc = pdb_cli_runs_reading(db, ids, npos, &ro);
    free(ids);
    if (rc != PDB_OK || reading) {
        pdb_db_close(db);
        return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
    }
    pdb_buf sql = PDB_BUF_INIT;
    build_sql(&sql, sources, npos);
    rc = pdb_render_query(db, sql.p, (const char *const *)argv + 1, npos, &ro, stdout);
    pdb_buf_free(&sql);
    pdb_db_close(db);
    return rc == PDB_OK ? PDB_EXIT_OK : pdb_cli_fail();
}
