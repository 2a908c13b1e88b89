-- runs.sql: what the database holds, for `profdb runs` (cli/cmd_runs.c):
-- one row per run, or with --sources one row per ingested file. A query
-- starts at "-- name: NAME" and is known to C as runs.NAME
-- (common/query.h); how each step log was read (--reading) is
-- cli/runs_reading.c's. ?1 is a JSON array of the ids of the runs named on
-- the command line ("[3,7,12]": each name was looked up first), or NULL
-- for every run.

-- name: list
-- One aggregate per table, grouped by run and joined once: correlated
-- subqueries over tables without a run_id index made the listing quadratic
-- in runs (4.2 s at 5000 runs). Trace events are counted per phase (raw
-- counts from the files), numbered ph0..ph9 inside (SQL names are
-- case-blind, and 'i' and 'I' are two phases); other_phases are the phases
-- outside the list (async 'b'/'e', objects, samples...).
WITH c AS (SELECT t.run_id,
   sum(c.count) FILTER (WHERE c.ph = 'X') AS ph0,
   sum(c.count) FILTER (WHERE c.ph = 'B') AS ph1,
   sum(c.count) FILTER (WHERE c.ph = 'E') AS ph2,
   sum(c.count) FILTER (WHERE c.ph = 'i') AS ph3,
   sum(c.count) FILTER (WHERE c.ph = 'I') AS ph4,
   sum(c.count) FILTER (WHERE c.ph = 'C') AS ph5,
   sum(c.count) FILTER (WHERE c.ph = 's') AS ph6,
   sum(c.count) FILTER (WHERE c.ph = 't') AS ph7,
   sum(c.count) FILTER (WHERE c.ph = 'f') AS ph8,
   sum(c.count) FILTER (WHERE c.ph = 'M') AS ph9,
   sum(c.count) FILTER (WHERE c.ph NOT IN ('X','B','E','i','I','C','s','t','f','M','gpu'))
    AS other_phases,
   sum(c.count) FILTER (WHERE c.ph = 'gpu') AS gpu_events
   FROM trace_counts c JOIN traces t USING (trace_id) GROUP BY t.run_id),
 tr AS (SELECT run_id, count(*) AS ranks FROM traces GROUP BY run_id),
 src AS (SELECT run_id, count(*) AS sources, group_concat(DISTINCT format) AS formats,
   coalesce(sum(records), 0) AS records, sum(ingest_ms) AS ingest_ms FROM sources
   GROUP BY run_id),
 sk AS (SELECT run_id, sum(n) AS skipped, group_concat(reason || ': ' || n, '; ')
   AS skip_reasons FROM (SELECT run_id, reason, sum(count) AS n FROM skips
   GROUP BY run_id, reason ORDER BY run_id, reason) GROUP BY run_id),
 rd AS (SELECT run_id, group_concat(summary, ' | ') AS reading FROM
   (SELECT run_id, summary FROM steplog_readings ORDER BY source_id) GROUP BY run_id)
SELECT r.name AS run, coalesce(tr.ranks, 0) AS ranks, coalesce(src.sources, 0) AS sources,
 src.formats, coalesce(src.records, 0) AS records,
 coalesce(c.ph0, 0) AS "X", coalesce(c.ph1, 0) AS "B", coalesce(c.ph2, 0) AS "E",
 coalesce(c.ph3, 0) AS "i", coalesce(c.ph4, 0) AS "I", coalesce(c.ph5, 0) AS "C",
 coalesce(c.ph6, 0) AS "s", coalesce(c.ph7, 0) AS "t", coalesce(c.ph8, 0) AS "f",
 coalesce(c.ph9, 0) AS "M", coalesce(c.other_phases, 0) AS other_phases,
 coalesce(c.gpu_events, 0) AS gpu_events,
 coalesce(sk.skipped, 0) AS skipped, sk.skip_reasons, r.created_at AS ingested_at,
 src.ingest_ms, rd.reading
FROM runs r LEFT JOIN c USING (run_id) LEFT JOIN tr USING (run_id)
 LEFT JOIN src USING (run_id) LEFT JOIN sk USING (run_id) LEFT JOIN rd USING (run_id)
WHERE ?1 IS NULL OR r.run_id IN (SELECT value FROM json_each(?1))
ORDER BY r.run_id

-- name: sources
-- Every ingested file of the runs.
SELECT r.name AS run, s.path, s.format, t.rank, t.rank_from, s.compressed, s.bytes,
 s.records, (SELECT coalesce(sum(count), 0) FROM skips k WHERE k.source_id = s.source_id)
 AS skipped, s.ingested_at, s.ingest_ms
FROM sources s JOIN runs r USING (run_id) LEFT JOIN traces t USING (source_id)
WHERE ?1 IS NULL OR r.run_id IN (SELECT value FROM json_each(?1))
ORDER BY s.source_id
