-- op_kernels.sql: the kernels each op launches, on demand: launch delays
-- (launch --by op) and kernel sequences (analyze/op_kernels.c). A query
-- starts at "-- name: NAME" and is known to C as op_kernels.NAME
-- (common/query.h). ?1 is the trace unless a query says otherwise.

-- name: exact
-- Exact mode: ?1 = the run, ?2 the rank: each GPU kernel, copy or set with
-- its op, from the attribution, in op and launch order.
SELECT a.op_id, a.op, o.ts, l.ts, g.ts, a.name FROM analysis_gpu_attribution a
 JOIN slices l ON l.id = a.launch_id JOIN slices o ON o.id = a.op_id
 JOIN slices g ON g.id = a.slice_id
 WHERE a.run_id = ?1 AND a.rank = ?2 AND a.op_id IS NOT NULL
 AND coalesce(g.cat, 0) IN (SELECT id FROM strings WHERE value IN
   ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events') UNION ALL SELECT 0)
 ORDER BY a.op_id, l.ts, l.id, g.ts, g.id

-- name: delays_scan
-- HTA mode's launch delays: the trace's events in start order.
SELECT id, name, cat, ph, tid, ts, dur, stream, correlation FROM slices
 WHERE trace_id = ?1 ORDER BY ts, dur DESC, id

-- name: trace_category
-- The string id of the category 'Trace' (-1: none), which HTA drops.
SELECT coalesce((SELECT id FROM strings WHERE value = 'Trace'), -1)

-- name: delays_by_correlation
SELECT id, name, cat, ph, stream, ts FROM slices
 WHERE trace_id = ?1 AND correlation = ?2 ORDER BY id

-- name: threads
-- HTA's main (a ProfilerStep# event) and backward (an autograd:: event)
-- threads. ?2 = the string id of 'Trace'.
SELECT pid, tid, max(n.value GLOB 'ProfilerStep#*'), max(instr(n.value, 'autograd::') > 0)
 FROM slices s JOIN strings n ON n.id = s.name WHERE s.trace_id = ?1 AND s.ph = 'X'
 AND s.cat IS NOT NULL AND s.cat <> ?2 GROUP BY pid, tid

-- name: has_backward_ranges
-- Whether the main thread has "## backward ##" ranges.
SELECT EXISTS (SELECT 1 FROM slices WHERE trace_id = ?1 AND name IN
 (SELECT id FROM strings WHERE value GLOB '## backward ##*'))

-- name: sequences_by_correlation
SELECT id, name, cat, ph, stream, ts, dur FROM slices
 WHERE trace_id = ?1 AND correlation = ?2 ORDER BY id

-- name: sequences_scan
-- Kernel sequences: the trace's events in start order.
SELECT id, name, cat, ph, pid, tid, ts, dur, stream, correlation FROM slices
 WHERE trace_id = ?1 ORDER BY ts, dur DESC, id
