-- bw_pass.sql: the memory bandwidth of copies and sets, on demand
-- (analyze/bw_pass.c). A query starts at "-- name: NAME" and is known to C
-- as bw_pass.NAME (common/query.h).

-- name: events
-- ?1 = the run, ?2 the rank: its memcpy, memset and DMA events, from the
-- attribution's (run, name) index, in the scan's start order, with what
-- the two modes need: bytes, the bandwidth arg, whether HTA keeps the
-- event, the launch's start (HTA's drop of the last step), the stream and
-- the correlation.
SELECT s.id, s.ts, s.dur, n.value, s.bytes,
 json_extract(s.args, '$."memory bandwidth (GB/s)"'),
 s.ph = 'X' AND s.cat IS NOT NULL AND s.cat NOT IN (SELECT id FROM strings WHERE value = 'Trace'),
 (SELECT ts FROM slices l WHERE l.id = a.launch_id), s.stream, s.correlation
 FROM strings n JOIN analysis_gpu_attribution a ON a.run_id = ?1 AND a.name = n.id
 JOIN slices s ON s.id = a.slice_id
 WHERE a.rank = ?2 AND (n.value GLOB 'Memcpy*' OR n.value GLOB 'Memset*' OR n.value GLOB 'dma*'
  OR n.value GLOB 'hipMemcpy*' OR n.value GLOB 'hipMemset*')
 ORDER BY s.ts, s.dur DESC, s.id
