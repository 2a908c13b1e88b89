-- coll_pass.sql: the collectives of each rank (analyze/coll_pass.c). A
-- query starts at "-- name: NAME" and is known to C as coll_pass.NAME
-- (common/query.h).

-- name: create_stage
-- The trace's communication kernels as the scan meets them, made before
-- the scan starts (a schema change would abort its running query).
CREATE TEMP TABLE IF NOT EXISTS coll_stage (slice_id INTEGER PRIMARY KEY, ts INTEGER,
 end_ INTEGER);
DELETE FROM temp.coll_stage

-- name: stage
INSERT OR IGNORE INTO temp.coll_stage VALUES (?,?,?)

-- name: write
-- analysis_collectives from the staged kernels (?1 = the run, ?2 = the
-- rank): the kind from args["Collective name"], else from the kernel name
-- as report comm names it; the group from args["Process Group Name"];
-- kernels with an integer args.Seq grouped by (kind, group, Seq), the
-- others numbered in start order per (kind, group).
INSERT INTO analysis_collectives (run_id, kind, pg, by_seq, seq, rank, start_ns, end_ns, kernels)
WITH c AS (SELECT st.slice_id AS id, st.ts, st.end_, coalesce(s.coll_name, CASE
   WHEN n.value LIKE '%AllReduce%' THEN 'allreduce' WHEN n.value LIKE '%AllGather%' THEN 'allgather'
   WHEN n.value LIKE '%ReduceScatter%' THEN 'reduce_scatter' WHEN n.value LIKE '%Broadcast%'
   THEN 'broadcast' WHEN n.value LIKE '%SendRecv%' THEN 'send_recv' WHEN n.value LIKE '%AllToAll%'
   THEN 'all_to_all' WHEN n.value LIKE '%Reduce%' THEN 'reduce' ELSE 'other' END) AS kind,
   coalesce(CASE WHEN json_valid(s.args) THEN json_extract(s.args, '$."Process Group Name"') END,
   '') AS pg,
   CASE WHEN json_valid(s.args) THEN json_extract(s.args, '$.Seq') END AS seq
   FROM temp.coll_stage st JOIN slices s ON s.id = st.slice_id
   LEFT JOIN strings n ON n.id = s.name)
SELECT ?1, kind, pg, 1, seq, ?2, min(ts), max(end_), count(*) FROM c
 WHERE typeof(seq) = 'integer' GROUP BY kind, pg, seq
UNION ALL
SELECT ?1, kind, pg, 0, row_number() OVER (PARTITION BY kind, pg ORDER BY ts, id), ?2, ts, end_, 1
 FROM c WHERE typeof(seq) <> 'integer'

-- name: clear_stage
DELETE FROM temp.coll_stage
