-- trace_spread.sql: the ranks of a run as distributions (report/trace_spread.c).
-- A query starts at "-- name: NAME" and is known to C as trace_spread.NAME
-- (common/query.h).

-- fragment: spread_high
-- The per-rank measures of rank-spread (v: ord, measure, rank, value), their
-- order (o), quantiles (q) and the ranks above the others (high: ord,
-- rank, value, med, k = place from the highest), with ?1 = the run, ?2 =
-- the median absolute deviations and ?3 the percent above the median a
-- rank must be to be named.
v AS (
   SELECT 1 AS ord, 'step' AS measure, rank, avg(dur_ns) AS value FROM analysis_steps
    WHERE run_id = ?1 GROUP BY rank
   UNION ALL SELECT 2, 'step: data loading', rank, avg(dataloader_ns) FROM analysis_steps
    WHERE run_id = ?1 GROUP BY rank
   UNION ALL SELECT 3, 'step: CPU execution', rank, avg(cpu_exec_ns) FROM analysis_steps
    WHERE run_id = ?1 GROUP BY rank
   UNION ALL SELECT 4, 'step: GPU kernels', rank, avg(kernel_ns) FROM analysis_steps
    WHERE run_id = ?1 GROUP BY rank
   UNION ALL SELECT 5, 'GPU busy', rank, busy_ns FROM analysis_gpu
    WHERE run_id = ?1 AND mode = 'exact'
   UNION ALL SELECT 6, 'GPU computation', rank, compute_ns FROM analysis_gpu
    WHERE run_id = ?1 AND mode = 'exact'
   UNION ALL SELECT 7, 'GPU communication', rank, comm_ns FROM analysis_gpu
    WHERE run_id = ?1 AND mode = 'exact'
   UNION ALL SELECT 8, 'GPU idle', rank, idle_ns FROM analysis_gpu
    WHERE run_id = ?1 AND mode = 'exact'),
 o AS (SELECT ord, measure, rank, value,
   row_number() OVER (PARTITION BY ord ORDER BY value, rank) AS i,
   count(*) OVER (PARTITION BY ord) AS n FROM v),
 q AS (SELECT ord, measure, n, min(value) AS lo, max(value) AS hi,
   max(CASE WHEN i = (n + 9) / 10 THEN value END) AS p10,
   max(CASE WHEN i = (n + 1) / 2 THEN value END) AS med,
   max(CASE WHEN i = (9 * n + 9) / 10 THEN value END) AS p90
   FROM o GROUP BY ord, measure),
 d AS (SELECT o.ord, abs(o.value - q.med) AS dev, q.n,
   row_number() OVER (PARTITION BY o.ord ORDER BY abs(o.value - q.med), o.rank) AS j
   FROM o JOIN q USING (ord)),
 mad AS (SELECT ord, max(CASE WHEN j = (n + 1) / 2 THEN dev END) AS mad FROM d GROUP BY ord),
 high AS (SELECT o.ord, o.rank, o.value, q.med,
   row_number() OVER (PARTITION BY o.ord ORDER BY o.value DESC, o.rank) AS k
   FROM o JOIN q USING (ord) JOIN mad USING (ord)
   WHERE o.value > q.med + ?2 * mad.mad AND o.value >= q.med * (1 + ?3 / 100.0)
   AND o.value > q.med)

-- name: spread
-- One row per per-rank measure: over the run's ranks, its minimum, 10th
-- percentile, median, 90th percentile and maximum (nearest rank: the value
-- at position ceil(p * n) of the n ranks' values in ascending order), and
-- the ranks above the others: more than ?2 median absolute deviations
-- above the median and at least ?3 percent above it (the largest five
-- named, each with its excess over the median). Read from the analysis
-- tables only (per-rank rows written at ingest), so it answers for a run
-- whose events stay in shard files, and is as long for 1,024 ranks as for
-- two. Step measures are means over the rank's ProfilerSteps; GPU measures
-- the rank's whole trace (exact mode, the gpu report's columns).
-- A rank named on the step row is named with its cause: of data loading, CPU
-- execution, GPU computation and GPU communication, each per step (the GPU
-- times divided by the rank's steps), the one where the rank is furthest
-- above that measure's median, in ns ("617 (+15.7%: GPU computation)",
-- "3 (+9.0%: data loading)").
-- ?1 = the run.
WITH
-- include: spread_high
, per_step AS (SELECT o.ord, o.measure, o.rank, o.value / CASE WHEN o.ord >= 5
   THEN st.n ELSE 1 END AS value
   FROM o JOIN (SELECT rank, count(*) AS n FROM analysis_steps WHERE run_id = ?1
   GROUP BY rank) st USING (rank) WHERE o.ord IN (2, 3, 6, 7)),
 part_med AS (SELECT ord, max(CASE WHEN i = (n + 1) / 2 THEN value END) AS med
   FROM (SELECT ord, value, row_number() OVER (PARTITION BY ord ORDER BY value, rank) AS i,
   count(*) OVER (PARTITION BY ord) AS n FROM per_step) GROUP BY ord),
 cause AS (SELECT rank, CASE WHEN measure LIKE 'step: %' THEN substr(measure, 7)
   ELSE measure END AS measure FROM (SELECT p.rank, p.measure,
   row_number() OVER (PARTITION BY p.rank ORDER BY p.value - m.med DESC, p.ord) AS c
   FROM per_step p JOIN part_med m USING (ord) WHERE p.value > m.med) WHERE c = 1),
 named AS (SELECT ord, count(*) AS outliers,
   group_concat(CASE WHEN k <= 5 THEN rank || ' (' || CASE WHEN med > 0
     THEN printf('+%.1f%%', 100.0 * (value - med) / med) ELSE 'median 0' END
     || coalesce(': ' || cause, '') || ')' END, ', ') AS ranks
   FROM (SELECT high.*, CASE WHEN high.ord = 1 THEN cause.measure END AS cause
   FROM high LEFT JOIN cause USING (rank) ORDER BY high.ord, high.k) GROUP BY ord)
 SELECT q.measure, q.n AS ranks, q.lo AS min_ns, q.p10 AS p10_ns, q.med AS median_ns,
 q.p90 AS p90_ns, q.hi AS max_ns, coalesce(named.outliers, 0) AS high_ranks,
 coalesce(named.ranks || CASE WHEN named.outliers > 5
   THEN ', +' || (named.outliers - 5) || ' more' ELSE '' END, '') AS highest
 FROM q LEFT JOIN named USING (ord) ORDER BY q.ord

-- name: require
-- ?1 = the run: ranks with an analysis row (exact mode).
SELECT count(*) FROM analysis_gpu WHERE run_id = ?1 AND mode = 'exact'

-- name: coll_require
-- ?1 = the run: whether two ranks ran collectives (analysis_collectives).
SELECT count(DISTINCT rank) > 1 FROM analysis_collectives WHERE run_id = ?1

-- name: collectives
-- The collective skew across ranks (report/trace_spread.c), one row per
-- kind and process group. An instance is one collective on every rank
-- that ran it: the same args.Seq in the group, else (traces without it) the
-- same place in each rank's start order of that kind and group (matched_by
-- says which). A rank's arrival is measured back from the collective's
-- end on its own clock (start - end = -duration): a collective ends on
-- every rank when the last one has arrived, and the ranks' trace clocks
-- need not agree (different hosts; Kineto's per-process base times). The
-- skew of an instance is its arrivals' spread, the longest kernel minus
-- the shortest; skew_p50/p90/max are over the instances with two ranks or
-- more (nearest rank). A rank's lateness in an instance is the instance's
-- median duration (the upper one of an even count: of two ranks, the
-- longer) minus its own (how long after the median rank it arrived);
-- latest names the three ranks with the largest mean lateness, with how
-- often each arrived last of the instances it ran, when that mean is at
-- least half the median skew (a rank late by chance now and then is not
-- named).
-- ?1 = the run.
WITH c AS (SELECT kind, pg, by_seq, seq, rank, end_ns - start_ns AS d
   FROM analysis_collectives WHERE run_id = ?1),
 o AS (SELECT c.*, row_number() OVER w AS i, count(*) OVER (PARTITION BY kind, pg, by_seq, seq) AS n
   FROM c WINDOW w AS (PARTITION BY kind, pg, by_seq, seq ORDER BY d, rank)),
 inst AS (SELECT kind, pg, by_seq, seq, n, max(d) - min(d) AS skew,
   max(CASE WHEN i = n / 2 + 1 THEN d END) AS med,
   max(CASE WHEN i = 1 THEN rank END) AS last_rank
   FROM o WHERE n >= 2 GROUP BY kind, pg, by_seq, seq),
 g AS (SELECT kind, pg, by_seq, count(*) AS instances, min(n) AS lo_n, max(n) AS hi_n
   FROM inst GROUP BY kind, pg, by_seq),
 sk AS (SELECT kind, pg, by_seq, skew,
   row_number() OVER (PARTITION BY kind, pg, by_seq ORDER BY skew) AS i FROM inst),
 q AS (SELECT g.kind, g.pg, g.by_seq, g.instances, g.lo_n, g.hi_n,
   max(CASE WHEN sk.i = (g.instances + 1) / 2 THEN sk.skew END) AS p50,
   max(CASE WHEN sk.i = (9 * g.instances + 9) / 10 THEN sk.skew END) AS p90,
   max(sk.skew) AS hi
   FROM g JOIN sk USING (kind, pg, by_seq) GROUP BY g.kind, g.pg, g.by_seq),
 late AS (SELECT o.kind, o.pg, o.by_seq, o.rank, avg(inst.med - o.d) AS lateness,
   sum(o.rank = inst.last_rank) AS times_last, count(*) AS seen
   FROM o JOIN inst USING (kind, pg, by_seq, seq) GROUP BY o.kind, o.pg, o.by_seq, o.rank),
 top AS (SELECT late.*, row_number() OVER (PARTITION BY kind, pg, by_seq
   ORDER BY lateness DESC, rank) AS k FROM late JOIN q USING (kind, pg, by_seq)
   WHERE lateness > 0 AND lateness >= q.p50 / 2.0),
 named AS (SELECT kind, pg, by_seq, group_concat(rank || ' (+' || printf('%.1f', lateness / 1e3)
   || ' us, last ' || times_last || '/' || seen || ')', ', ') AS latest
   FROM (SELECT * FROM top WHERE k <= 3 ORDER BY kind, pg, by_seq, k) GROUP BY kind, pg, by_seq)
 SELECT q.kind, q.pg AS process_group,
 CASE q.by_seq WHEN 1 THEN 'Seq' ELSE 'order (no Seq in the traces)' END AS matched_by,
 q.instances, CASE WHEN q.lo_n = q.hi_n THEN CAST(q.hi_n AS TEXT)
   ELSE q.lo_n || '-' || q.hi_n END AS ranks,
 q.p50 AS skew_p50_ns, q.p90 AS skew_p90_ns, q.hi AS skew_max_ns,
 coalesce(named.latest, '') AS latest
 FROM q LEFT JOIN named USING (kind, pg, by_seq) ORDER BY q.p50 * q.instances DESC, q.kind, q.pg

-- name: rank_kernels
-- The slowest ranks' top kernels (report/trace_spread.c): the ranks
-- rank-spread names on its step row (on GPU busy when the run has no
-- ProfilerSteps), at most five, each with its top ?5 kernels (5 when ?5 is
-- not above 0) by GPU time, against the same kernel on the median rank (the
-- rank at the median of that measure, nearest rank). Read from
-- analysis_kernels_by_id (exact mode) alone, so it answers for a run whose
-- events stay in shard files. ?1 = the run, ?2 and ?3 as in spread_high,
-- ?4 = 1 for short names.
WITH
-- include: spread_high
, m AS (SELECT CASE WHEN EXISTS (SELECT 1 FROM analysis_steps WHERE run_id = ?1)
   THEN 1 ELSE 5 END AS ord),
 slow AS (SELECT h.rank, h.k, h.value, h.med, q.measure FROM high h JOIN m USING (ord)
   JOIN q USING (ord) WHERE h.k <= 5),
 medr AS (SELECT o.rank FROM o JOIN q USING (ord) JOIN m USING (ord) WHERE o.i = (q.n + 1) / 2),
 kr AS (SELECT rank, name_id, count, total_ns,
   row_number() OVER (PARTITION BY rank ORDER BY total_ns DESC, name_id) AS n
   FROM analysis_kernels_by_id WHERE run_id = ?1 AND mode = 'exact'
   AND rank IN (SELECT rank FROM slow)),
 mk AS (SELECT name_id, count, total_ns FROM analysis_kernels_by_id
   WHERE run_id = ?1 AND mode = 'exact' AND rank = (SELECT rank FROM medr))
 SELECT kr.rank, slow.measure || ' ' || CASE WHEN slow.med > 0
   THEN printf('+%.1f%%', 100.0 * (slow.value - slow.med) / slow.med) ELSE '(median 0)' END
   AS outlier, (SELECT rank FROM medr) AS median_rank,
 CASE WHEN ?4 THEN short_name(s.value) ELSE s.value END AS kernel,
 kr.count, kr.total_ns, mk.count AS median_rank_count, mk.total_ns AS median_rank_total_ns,
 kr.total_ns - coalesce(mk.total_ns, 0) AS excess_ns
 FROM kr JOIN slow USING (rank) JOIN strings s ON s.id = kr.name_id LEFT JOIN mk USING (name_id)
 WHERE kr.n <= CASE WHEN ?5 > 0 THEN ?5 ELSE 5 END
 ORDER BY slow.k, kr.n

-- name: rank_kernels_require
-- ?1, ?2, ?3 as in rank_kernels: the ranks it would name.
WITH
-- include: spread_high
 SELECT count(*) FROM high
 WHERE ord = CASE WHEN EXISTS (SELECT 1 FROM analysis_steps WHERE run_id = ?1) THEN 1 ELSE 5 END
