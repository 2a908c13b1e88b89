-- profdb schema, part 5: results of the analysis passes (`profdb analyze`,
-- run by `profdb ingest` unless --no-analyze). Each pass replaces its rows
-- for a run, so reports are cheap and repeatable.
--
-- mode: 'exact' analyses the trace as written (nanoseconds, every event with
-- a stream arg is a GPU event). 'hta' applies Holistic Trace Analysis's
-- (0.6) conventions so its users get the numbers they know:
--  * only X events with a category (not 'Trace');
--  * a GPU event is one whose stream arg, read as pandas' to_numeric does
--    (numbers and decimal text; anything else is -1), is not -1: the
--    device-wide 'Event Sync' and 'Context Sync' events (stream -1) and
--    AMD's "0x0" runtime calls are not GPU events;
--  * when the trace writes fractional (or missing) timestamps, each event is
--    rounded inward to whole microseconds in float64 as pandas does it:
--    start = ceil(float(ts)), end = floor(float(ts) + float(dur)); at
--    today's clock (1.7e15 us) float64 steps by 0.25 us, so this is not
--    exact decimal rounding, and a sub-microsecond event can end 1 us
--    before it starts (its duration is then -1 us, as in HTA);
--  * the last ProfilerStep is dropped when there are two or more (CPU
--    events from its start on, GPU events launched from then on);
--  * HTA's kernel types (below) and its interval arithmetic: each type's
--    intervals are merged (a new group where ts exceeds every earlier end),
--    times are sum(end) - sum(start) over the groups, and the kernel-type
--    split is a running sum over group boundaries (+1/+2/+4 at a group's
--    start, minus at its end). On well-formed intervals that is the union
--    arithmetic of exact mode; a -1 us group subtracts a microsecond and can
--    name a combination that is not there (MTIA traces show 1 us of
--    "COMPUTATION overlapping COMMUNICATION" without any communication).
-- Kernel types, exact mode: MEMORY (names starting Memcpy, Memset, dma,
-- optionally after 'hip'), COMMUNICATION (starting nccl, hccl or hip, or
-- containing ncclKernel), OTHER (containing Sync, or starting 'Stream
-- Wait'), COMPUTATION (every other GPU event). hta mode, as HTA's
-- get_kernel_type: COMMUNICATION first (so hipMemcpy is communication),
-- then MEMORY (starting Memcpy, Memset, dma), then OTHER for names HTA's
-- compute pattern excludes (containing Memcpy, Memset, dma or Sync;
-- starting 'Stream Wait Event', runFunction, job_exe, packet, pe_exe,
-- cpum_exe_subgraph, collective_subgraph_execution, or cuda...LaunchKernel),
-- COMPUTATION for the rest. OTHER is busy time but neither computation nor
-- part of the kernel-type breakdown.

-- GPU temporal breakdown per rank.
CREATE TABLE analysis_gpu (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,     -- 'exact' or 'hta'
    rank            INTEGER NOT NULL,
    gpu_events      INTEGER NOT NULL,  -- GPU events analysed
    kernel_time_ns  INTEGER NOT NULL,  -- the span: last GPU event end - first GPU event
                                       -- start (HTA's name; the gpu report says span_ns)
    busy_ns         INTEGER NOT NULL,  -- length of the union of all GPU events
    idle_ns         INTEGER NOT NULL,  -- kernel_time_ns - busy_ns
    compute_ns      INTEGER NOT NULL,  -- union of COMPUTATION events
    non_compute_ns  INTEGER NOT NULL,  -- busy_ns - compute_ns
    comm_ns         INTEGER NOT NULL,  -- union of COMMUNICATION events
    comm_comp_overlap_ns INTEGER NOT NULL, -- union(COMMUNICATION) ∩ union(COMPUTATION)
    PRIMARY KEY (run_id, mode, rank)
);

-- Time per kernel type alone and per overlapping combination
-- ("COMPUTATION overlapping COMMUNICATION"), from one sweep per rank.
CREATE TABLE analysis_kernel_types (
    run_id       INTEGER NOT NULL REFERENCES runs,
    mode         TEXT NOT NULL,
    rank         INTEGER NOT NULL,
    kernel_type  TEXT NOT NULL,
    time_ns      INTEGER NOT NULL,
    PRIMARY KEY (run_id, mode, rank, kernel_type)
);

-- Per rank and GPU event name. Stored with the name's string id only
-- (schema version 8: every name once, in strings; a trace of distinct 400-
-- character names wrote each again into three of these tables), and read
-- through the view of the table's name, which adds the text. The keys of
-- the *_by_id tables put the name before the mode: one analysis writes a
-- name's rows together, in that order, so each row goes next to the last
-- and a key comparison stops at the name.
CREATE TABLE analysis_kernels_by_id (
    run_id       INTEGER NOT NULL REFERENCES runs,
    mode         TEXT NOT NULL,
    rank         INTEGER NOT NULL,
    name_id      INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    kernel_type  TEXT NOT NULL,
    count        INTEGER NOT NULL,
    total_ns     INTEGER NOT NULL,
    min_ns       INTEGER NOT NULL,
    max_ns       INTEGER NOT NULL,
    mean_ns      REAL NOT NULL,
    std_ns       REAL,                -- sample standard deviation; NULL for one event
    PRIMARY KEY (run_id, rank, name_id, mode)
) WITHOUT ROWID;

-- The views of the analysis tables below (analysis_kernels, analysis_ops,
-- analysis_op_steps, gpu_attribution, analysis_annotations) add the names
-- as text and, last, run: the run's name (schema version 17; last, so
-- that the columns of analysis_kernels and analysis_ops, tables before
-- version 8, keep their places).
CREATE VIEW analysis_kernels AS
SELECT k.run_id, k.mode, k.rank, s.value AS name, k.kernel_type, k.count, k.total_ns,
       k.min_ns, k.max_ns, k.mean_ns, k.std_ns, k.name_id,
       (SELECT name FROM runs WHERE run_id = k.run_id) AS run
FROM analysis_kernels_by_id k JOIN strings s ON s.id = k.name_id;

-- CPU operators (slices without a stream arg) per rank, name and input shape.
-- self = duration minus the durations of direct children on the same thread.
-- GPU time (see analysis_gpu_attribution for how a GPU event finds the ops
-- around its launch) is kept for ops (cpu_op; events without a category in
-- legacy traces), annotations (user_annotation) and modules (python_function
-- "nn.Module: ..."): gpu_self_ns is the GPU time of events whose innermost
-- enclosing op (annotation, module: of the same kind) is this one;
-- gpu_total_ns the GPU time of events with this one anywhere around their
-- launch, counted once under recursion. Other rows (runtime calls, plain
-- python frames, ProfilerStep) have 0. Over the ops of a rank, the
-- gpu_self_ns add up to the attributed GPU time; gpu_total_ns do not add up
-- (a parent's includes its children's).
CREATE TABLE analysis_ops_by_id (
    run_id      INTEGER NOT NULL REFERENCES runs,
    rank        INTEGER NOT NULL,
    name_id     INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    cat_id      INTEGER REFERENCES strings, -- the category (strings.id), NULL: none
    input_dims  TEXT NOT NULL,        -- args["Input Dims"] as JSON, '' when absent
    count       INTEGER NOT NULL,
    self_ns     INTEGER NOT NULL,
    total_ns    INTEGER NOT NULL,
    gpu_self_ns  INTEGER NOT NULL,
    gpu_total_ns INTEGER NOT NULL,
    PRIMARY KEY (run_id, rank, name_id, input_dims)
) WITHOUT ROWID;

CREATE VIEW analysis_ops AS
SELECT o.run_id, o.rank, s.value AS name, c.value AS cat, o.input_dims, o.count, o.self_ns,
       o.total_ns, o.gpu_self_ns, o.gpu_total_ns, o.name_id,
       (SELECT name FROM runs WHERE run_id = o.run_id) AS run
FROM analysis_ops_by_id o JOIN strings s ON s.id = o.name_id
LEFT JOIN strings c ON c.id = o.cat_id;

-- CPU operators per rank, ProfilerStep and name (all shapes): the step is
-- the one whose window holds the op's start (NULL: outside every step).
-- calls, total_ns and self_ns as in analysis_ops; summed over steps they
-- equal analysis_ops summed over shapes. One row per (rank, step, name, cat),
-- unless ProfilerStep windows overlap (then sum the rows).
CREATE TABLE analysis_op_steps_by_id (
    run_id     INTEGER NOT NULL REFERENCES runs,
    rank       INTEGER NOT NULL,
    step       INTEGER,               -- N of ProfilerStep#N, NULL outside steps
    name_id    INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    cat_id     INTEGER REFERENCES strings, -- the category (strings.id), NULL: none
    calls      INTEGER NOT NULL,
    total_ns   INTEGER NOT NULL,
    self_ns    INTEGER NOT NULL
);

CREATE VIEW analysis_op_steps AS
SELECT o.run_id, o.rank, o.step, s.value AS name, c.value AS cat, o.calls, o.total_ns,
       o.self_ns, o.name_id, (SELECT name FROM runs WHERE run_id = o.run_id) AS run
FROM analysis_op_steps_by_id o JOIN strings s ON s.id = o.name_id
LEFT JOIN strings c ON c.id = o.cat_id;

-- One row per GPU event (exact mode: every slice with a stream arg outside
-- the CPU-side categories), saying where it came from. Names are string ids
-- (strings.id); the gpu_attribution view shows them as text.
--   launch: the runtime call (cudaLaunchKernel, cudaMemcpyAsync, ...) with
--     the same correlation; the earliest CPU-side one when there are several.
--     NULL when no CPU-side event has the correlation (launched before the
--     trace began, or a trace without CPU events).
--   op / op_id / top_op: the innermost op (cpu_op; events without a category
--     in legacy traces) enclosing the launch on its thread, that op's slice,
--     and the outermost op on that stack. NULL when the launch is in no op.
--   annotation: the innermost user_annotation (record_function) enclosing
--     the launch, ProfilerStep#N excepted (that is step).
--   module: the nn.Module path ("Model_0/Linear_1") of the python_function
--     "nn.Module: ..." events enclosing the launch (traces recorded with
--     with_modules or with_stack); NULL otherwise.
--   step: N of the ProfilerStep#N whose window holds the launch's start.
--   gpu_annotation: the gpu_user_annotation range on the event's pid and tid
--     whose [ts, end) overlaps the event's, the shortest one when several do
--     (HTA's get_gpu_kernels_with_user_annotations); the later one on a tie.
-- Over a rank, sum(dur_ns) is the GPU events' total time; rows with op NULL
-- are the time no op accounts for.
CREATE TABLE analysis_gpu_attribution (
    slice_id        INTEGER NOT NULL,  -- the GPU event (slices.id)
    run_id          INTEGER NOT NULL REFERENCES runs,
    rank            INTEGER NOT NULL,
    name            INTEGER NOT NULL,  -- kernel name (strings.id)
    dur_ns          INTEGER NOT NULL,  -- (its start is slices.ts)
    step            INTEGER,           -- ProfilerStep number of the launch
    launch_id       INTEGER,           -- the launching runtime call (slices.id)
    op_id           INTEGER,           -- the innermost op around it (slices.id)
    op              INTEGER,           -- its name (strings.id)
    top_op          INTEGER,           -- the outermost op around the launch (strings.id)
    annotation      INTEGER,           -- innermost user_annotation (strings.id)
    gpu_annotation  INTEGER,           -- gpu_user_annotation range (strings.id)
    module          INTEGER,           -- nn.Module path (strings.id)
    -- Stored by run (schema version 5): a run's rows are read and deleted
    -- together, and one analysis writes them nearly in this order.
    PRIMARY KEY (run_id, slice_id)
) WITHOUT ROWID;

-- analysis_gpu_attribution with names as text, the event's start, and the
-- kernel type of analysis_kernels (exact mode).
CREATE VIEW gpu_attribution AS
SELECT a.run_id, a.rank, a.slice_id, k.value AS kernel,
       (SELECT kernel_type FROM analysis_kernels_by_id x WHERE x.run_id = a.run_id
        AND x.mode = 'exact' AND x.rank = a.rank AND x.name_id = a.name) AS kernel_type,
       (SELECT ts FROM slices WHERE id = a.slice_id) AS ts, a.dur_ns,
       a.step, a.launch_id, (SELECT n.value FROM slices l JOIN strings n ON n.id = l.name
                             WHERE l.id = a.launch_id) AS launch,
       a.op_id, o.value AS op, t.value AS top_op, u.value AS annotation,
       g.value AS gpu_annotation, m.value AS module,
       (SELECT name FROM runs WHERE run_id = a.run_id) AS run
FROM analysis_gpu_attribution a
JOIN strings k ON k.id = a.name
LEFT JOIN strings o ON o.id = a.op
LEFT JOIN strings t ON t.id = a.top_op
LEFT JOIN strings u ON u.id = a.annotation
LEFT JOIN strings g ON g.id = a.gpu_annotation
LEFT JOIN strings m ON m.id = a.module;

-- record_function ranges per rank and name: kind 'cpu' = user_annotation
-- events (ProfilerStep#N included, as HTA counts them), 'gpu' =
-- gpu_user_annotation events (the same ranges as the GPU ran them). Per mode
-- ('hta': HTA's kept, rounded events, for get_gpu_user_annotation_breakdown).
-- std_ns is the sample standard deviation, 0 for a single range (as HTA).
-- kernel_ns: for 'cpu' (exact mode), the GPU time launched inside the range
-- (analysis_ops.gpu_total_ns) and kernel_self_ns where it is the innermost
-- annotation; for 'gpu', the GPU time and count (kernels) of the events the
-- range claims by the overlap rule of analysis_gpu_attribution.gpu_annotation.
CREATE TABLE analysis_annotations_by_id (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,
    rank            INTEGER NOT NULL,
    kind            TEXT NOT NULL,     -- 'cpu' or 'gpu'
    name_id         INTEGER NOT NULL REFERENCES strings, -- the name (strings.id)
    count           INTEGER NOT NULL,
    total_ns        INTEGER NOT NULL,
    min_ns          INTEGER NOT NULL,
    max_ns          INTEGER NOT NULL,
    mean_ns         REAL NOT NULL,
    std_ns          REAL NOT NULL,
    kernel_ns       INTEGER,
    kernel_self_ns  INTEGER,
    kernels         INTEGER,
    PRIMARY KEY (run_id, rank, name_id, mode, kind)
) WITHOUT ROWID;

CREATE VIEW analysis_annotations AS
SELECT a.run_id, a.mode, a.rank, a.kind, s.value AS name, a.count, a.total_ns, a.min_ns,
       a.max_ns, a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels, a.name_id,
       (SELECT name FROM runs WHERE run_id = a.run_id) AS run
FROM analysis_annotations_by_id a JOIN strings s ON s.id = a.name_id;

-- Per rank and ProfilerStep: the step's wall time split into TensorBoard
-- profiler's overview categories. Everything active inside the step window
-- (clipped to it) counts; where categories overlap, the time goes to the
-- first in this order: kernel, memcpy, memset, runtime, dataloader, cpu_exec;
-- other = the rest of the step. The columns kernel_ns ... other_ns add up to
-- dur_ns. copy_ns and sync_ns (not part of that split) measure two op
-- families by their outermost calls starting in the step, so a call inside
-- another of its family is not counted twice: copies (aten::to,
-- aten::_to_copy, aten::copy_) and device-to-host syncs (aten::item,
-- aten::_local_scalar_dense, cuda/hip Stream/Device/Event Synchronize,
-- cudaMemcpy, hipMemcpy). Summed over threads.
CREATE TABLE analysis_steps (
    run_id         INTEGER NOT NULL REFERENCES runs,
    rank           INTEGER NOT NULL,
    step           TEXT NOT NULL,       -- 'ProfilerStep#12'
    step_num       INTEGER,             -- 12
    ts             INTEGER NOT NULL,    -- step start, trace clock, ns
    dur_ns         INTEGER NOT NULL,
    kernel_ns      INTEGER NOT NULL,    -- GPU kernels (computation, communication)
    memcpy_ns      INTEGER NOT NULL,
    memset_ns      INTEGER NOT NULL,
    runtime_ns     INTEGER NOT NULL,    -- CUDA/HIP runtime and driver calls
    dataloader_ns  INTEGER NOT NULL,    -- slices whose name mentions DataLoader
    cpu_exec_ns    INTEGER NOT NULL,    -- other CPU slices
    other_ns       INTEGER NOT NULL,
    copy_ns        INTEGER NOT NULL DEFAULT 0, -- outermost copy calls (defaults: as migration 002)
    sync_ns        INTEGER NOT NULL DEFAULT 0, -- outermost device-to-host sync calls
    PRIMARY KEY (run_id, rank, step)
);

-- GPU idle time per rank and stream, split the way HTA splits it: a gap
-- before an event whose launching runtime call (same correlation) started
-- after the previous event ended is host_wait; otherwise a gap shorter than
-- 30 us is kernel_wait; the rest is other. In exact mode a gap is measured
-- from the latest end so far (overlapping events leave no gap); HTA measures
-- from the previous event's end, which can make waits negative. A kernel
-- whose launch is not in the trace: exact counts it as queued (no host
-- wait); hta takes the start of HTA's row 0 for its launch (traces.first_slice,
-- docs/reports.md).
CREATE TABLE analysis_idle (
    run_id          INTEGER NOT NULL REFERENCES runs,
    mode            TEXT NOT NULL,
    rank            INTEGER NOT NULL,
    stream          NOT NULL,
    events          INTEGER NOT NULL,
    host_wait_ns    INTEGER NOT NULL,
    kernel_wait_ns  INTEGER NOT NULL,
    other_ns        INTEGER NOT NULL,
    PRIMARY KEY (run_id, mode, rank, stream)
);

-- CUDA launch queue length per rank and stream (analyze/queue_pass.c): the
-- number of operations the CPU has issued to a stream that the GPU has not
-- yet started. The series: each GPU event with a launch adds +1 at the
-- launch's start and -1 at its own start; points are ordered by time,
-- launches before GPU events at equal times; the running sum is the queue
-- length. A point lasts until the stream's next point (the last one: 0).
-- The table is the series' histogram: per value, how many points take it
-- and how long. From it: the summary (count = sum(points), mean, quartiles
-- of the points' values) and the time at or above a limit M (sum of
-- duration_ns where queue_length >= M: the time the CPU would block on a
-- full queue, CUDA's limit being 1024 per stream).
--   exact: kernels, memcpys and memsets (categories kernel, gpu_memcpy,
--     gpu_memset, mtia_ccp_events, or none) whose correlation has a CPU-side
--     event (the launch of analysis_gpu_attribution), per device (the GPU
--     event's pid) and stream, at the trace's times.
--   hta: HTA's get_queue_length_time_series: launches named
--     cudaLaunchKernel(ExC), cuLaunchKernel(Ex), cudaMemcpyAsync,
--     cudaMemsetAsync, hipLaunchKernel, hipExtModuleLaunchKernel,
--     hipMemcpyAsync, hipMemsetAsync, hipMemcpyWithStream or MTIA's
--     runFunction, and every GPU event (stream not -1) they launched, on
--     HTA's event set and rounded times, by stream number alone (device
--     NULL). HTA sorts the series with pandas' default sort, which is not
--     stable: rows with equal times come in an unspecified order, which can
--     change the values there (means by ~0.01 on three corpus traces).
--     profdb takes the order a stable sort gives (launches first, each in
--     trace order), which HTA gives with sort_values(kind='mergesort').
CREATE TABLE analysis_queue (
    run_id        INTEGER NOT NULL REFERENCES runs,
    mode          TEXT NOT NULL,
    rank          INTEGER NOT NULL,
    device,                           -- pid of the stream's GPU events (exact); NULL (hta)
    stream        NOT NULL,           -- as written (exact); HTA's stream number (hta)
    queue_length  INTEGER NOT NULL,   -- a value of the series
    points        INTEGER NOT NULL,   -- points with this value
    duration_ns   INTEGER NOT NULL    -- time from those points to their stream's next point
);

-- Per rank and mode: the span the queue's relative durations are taken of
-- (HTA's get_trace_duration: the first and last start of any event HTA
-- keeps; exact: of any slice), and launches the queue pass stopped waiting
-- for (in flight behind more than a million others: their points are added
-- where the stream's series has got to; 0 on every trace seen so far).
CREATE TABLE analysis_queue_ranks (
    run_id         INTEGER NOT NULL REFERENCES runs,
    mode           TEXT NOT NULL,
    rank           INTEGER NOT NULL,
    first_start    INTEGER NOT NULL,  -- ns, the trace's clock (hta: rounded)
    last_start     INTEGER NOT NULL,
    late_launches  INTEGER NOT NULL,
    PRIMARY KEY (run_id, mode, rank)
);

-- Analyses computed on demand, when a report asks (their SQL and temp
-- tables are in report/queries/trace_series.sql, trace_critical.sql and
-- trace_launch.sql): memory bandwidth (memory-bw), the critical path
-- (critical-path), per-op kernel delays (launch --by op) and kernel
-- sequences (kernel-sequences). They are not stored: each costs a sort or a
-- graph, and the ingest-time analysis budget (0.3x of ingest) is spent;
-- reading them on demand uses the indexes ingest builds (correlation,
-- (trace, ts), the attribution's (run, name)).
--
-- Memory bandwidth over time (analyze/ondemand/bw_pass.c, temp.memory_bw): HTA's
-- get_memory_bw_time_series, one row per point. Each memcpy or memset GPU
-- event adds its bandwidth at its start and subtracts it at its end; per
-- kind (name: 'Memset', else the first 11 characters of a name starting
-- 'Memcpy' - 'Memcpy HtoD', 'Memcpy DtoH', 'Memcpy DtoD', ... - else
-- 'Memcpy Unknown') the bandwidth is the running sum after the point.
-- exact: points are ordered by time, starts before ends at equal times,
-- each in trace order. hta: in HTA's order, that of pandas' default sort
-- of its table (every start in trace order, then every end) by time:
-- numpy's unstable quicksort, reproduced (docs/reports.md, memory-bw).
--   exact: bandwidth = bytes / duration (1 byte per ns = 1 GB/s), the
--     trace's "memory bandwidth (GB/s)" arg where bytes are missing; events
--     of zero duration or with neither are left out; the trace's times.
--   hta: the "memory bandwidth (GB/s)" arg (missing: 0, as HTA; AMD and
--     MTIA copies have none), HTA's memory kernel type and event set,
--     rounded times, a duration of 0 us counted as 1 us.
-- The summary (report memory-bw) is pandas' describe() of the points with a
-- bandwidth above 0, per rank and kind.
--
-- Backward ops linked to their forward ops (analyze/ondemand/fwd_bwd.c,
-- analyze/queries/fwd_bwd.sql; report attribution): temp.fb_links (bwd_id,
-- fwd_id: slices.id of a backward op and of its forward op; via 'flow' for
-- a fwdbwd flow, ph f on the backward op and s on the forward op, each
-- bound to the innermost slice of its thread starting at the flow's time,
-- or 'seq' for an op with args "Sequence number" N and "Fwd thread id" > 0
-- linked to the op of its trace with number N and "Fwd thread id" 0 that
-- starts last, PyTorch's own rule for those flows, where all such forward
-- ops are on one thread); temp.fb_fwd (fwd_id, op, top_op, annotation:
-- strings.id of its name, the outermost op around it (itself if none) and
-- the innermost user_annotation around it (ProfilerStep excepted); module:
-- its nn.Module path as text); temp.fb_launch (launch_id: an
-- analysis_gpu_attribution launch inside a linked backward op, bwd_id: the
-- innermost one). A GPU event's forward op:
--   SELECT a.slice_id, f.* FROM analysis_gpu_attribution a
--   JOIN temp.fb_launch l ON l.launch_id = a.launch_id
--   JOIN temp.fb_links k ON k.bwd_id = l.bwd_id JOIN temp.fb_fwd f ON f.fwd_id = k.fwd_id
-- (the tables exist in the connection that ran report attribution).


-- Memory of traces recorded with profile_memory=True, from their
-- "[memory]" instant events (args Bytes: + allocated / - freed, Addr, Total
-- Allocated, Total Reserved, Device Type (c10: 0 CPU, 1 CUDA, ...), Device
-- Id); analyze/memory_pass.c. Empty for traces without them.
--
-- Per rank and event name, as torch's key_averages() counts memory
-- (cpu_memory_usage, self_cpu_memory_usage, device_memory_usage,
-- self_device_memory_usage): an event's memory is the sum of Bytes of the
-- memory events whose time lies in [start, end] (both ends, any thread);
-- its self memory is that minus its children's, a child being an event
-- nested in it on its thread by torch's rule (sorted by start, longest
-- first; a child starts before the parent ends and ends no later). Events
-- are the CPU-side slices (ops, record_function ranges, runtime calls) other
-- than python_function frames, the profiler's Trace span and the utility
-- ops key_averages leaves out (profiler::_record_function_enter(_new),
-- _exit, aten::is_leaf, aten::output_nr, aten::_version). Memory events
-- inside no event are the row "[memory]" (calls = those events), as in
-- key_averages(). cpu_* count CPU memory (device types CPU, MKLDNN, IDEEP),
-- device_* the rest (CUDA, HIP, ...). Bytes are signed: frees subtract.
CREATE TABLE analysis_memory_ops (
    run_id             INTEGER NOT NULL REFERENCES runs,
    rank               INTEGER NOT NULL,
    name               TEXT NOT NULL,
    calls              INTEGER NOT NULL,  -- events of this name
    cpu_bytes          INTEGER NOT NULL,  -- key_averages' cpu_memory_usage
    self_cpu_bytes     INTEGER NOT NULL,
    device_bytes       INTEGER NOT NULL,  -- cuda/device_memory_usage
    self_device_bytes  INTEGER NOT NULL
);

-- Per rank and device: the peak of Total Allocated over the trace (step
-- NULL) and within each ProfilerStep (memory events in [step start, step
-- end]): its value, the first memory event reaching it (time, and its
-- position seq among the trace's memory events in time order), the largest
-- Total Reserved, and the innermost event around the peak on its thread.
CREATE TABLE analysis_memory_peaks (
    run_id                INTEGER NOT NULL REFERENCES runs,
    rank                  INTEGER NOT NULL,
    device_type           INTEGER NOT NULL,  -- c10::DeviceType: 0 CPU, 1 CUDA, ...
    device_id             INTEGER NOT NULL,  -- -1 for the CPU
    step                  INTEGER,           -- N of ProfilerStep#N; NULL: the whole trace
    peak_allocated_bytes  INTEGER NOT NULL,
    peak_ts               INTEGER NOT NULL,  -- ns, the trace's clock
    peak_seq              INTEGER NOT NULL,
    max_reserved_bytes    INTEGER NOT NULL,
    op                    TEXT,              -- innermost event around the peak (NULL: none)
    events                INTEGER NOT NULL   -- memory events counted
);

-- Every allocation made in the trace (a positive Bytes record) with its
-- lifetime: until the next negative record of the same Addr on that device
-- (free NULL: still alive at the end). seq orders the memory events (time,
-- then trace order), so the allocations alive at a peak are those with
-- alloc_seq <= peak_seq < free_seq (or free_seq NULL). Memory allocated
-- before the trace began has no record: it is in Total Allocated but not
-- here.
CREATE TABLE analysis_memory_allocs (
    run_id       INTEGER NOT NULL REFERENCES runs,
    rank         INTEGER NOT NULL,
    device_type  INTEGER NOT NULL,
    device_id    INTEGER NOT NULL,
    addr         INTEGER NOT NULL,
    bytes        INTEGER NOT NULL,
    alloc_ts     INTEGER NOT NULL,   -- ns
    alloc_seq    INTEGER NOT NULL,
    free_ts      INTEGER,
    free_seq     INTEGER,
    op           TEXT                -- innermost event around the allocation on its thread
);

-- Collectives per rank (schema version 19): one row per collective a rank
-- ran (NCCL or HCCL kernels, the communication kernel type), so that the
-- same collective can be found on every rank of a job without its events
-- (report collectives; a run merged without --full keeps this table and
-- not the events). An instance is named by its kind (args["Collective
-- name"], else the kernel name's: allreduce, allgather, reduce_scatter,
-- broadcast, send_recv, all_to_all, reduce, other), its process group
-- (args["Process Group Name"], '' when the trace has none) and seq: with
-- by_seq 1 the collective's own sequence number in its group (args.Seq,
-- PyTorch 2.4 and later: every kernel of that number is one instance, from
-- the first one's start to the last one's end); with by_seq 0 (traces
-- without it) the instance's place, from 1, among the rank's collectives
-- of that kind and group in start order. Times are the rank's trace clock
-- in ns, like slices.ts; clocks of different hosts need not agree, which
-- is why the report measures a rank's arrival back from the collective's
-- end (docs/reports.md, "collectives").
CREATE TABLE analysis_collectives (
    run_id    INTEGER NOT NULL REFERENCES runs,
    kind      TEXT NOT NULL,
    pg        TEXT NOT NULL,       -- process group name, '' when absent
    by_seq    INTEGER NOT NULL,    -- 1: seq is args.Seq; 0: seq is the place in start order
    seq       INTEGER NOT NULL,
    rank      INTEGER NOT NULL,
    start_ns  INTEGER NOT NULL,    -- the first kernel's start
    end_ns    INTEGER NOT NULL,    -- the last kernel's end
    kernels   INTEGER NOT NULL,    -- GPU kernels of the instance (1 with by_seq 0)
    PRIMARY KEY (run_id, kind, pg, by_seq, seq, rank)
) WITHOUT ROWID;

-- Reports, the gate and trends read one run's rows; re-analysis deletes
-- them. analysis_op_steps is indexed by run only, and
-- analysis_gpu_attribution stored by run (schema version 5): the rows of
-- one analysis arrive with one run_id, so they go to the end, where an
-- index by (run_id, name, rank, step) took a random place per row (10% of
-- the analysis instructions); the gate's one kernel or op per step reads
-- the run's rows instead of one name's (a few ms per 100,000 rows).
CREATE INDEX analysis_op_steps_run ON analysis_op_steps_by_id (run_id);

-- Per-mode views (schema version 14). The tables above with a mode column
-- (analysis_gpu, analysis_kernel_types, analysis_kernels, analysis_annotations,
-- analysis_idle, analysis_queue, analysis_queue_ranks) hold every trace run
-- twice, once per mode ('exact' and 'hta'), so a plain SUM over a run's rows
-- counts each event twice. Each view below holds one mode, named in the view's
-- name, with the run's name (run) beside run_id and the mode column left out:
-- its sums are the numbers the reports print (exact: by default; hta: with
-- --compat hta). For example, the GPU time of each kernel of a run:
--   SELECT short_name(name), sum(total_ns) FROM kernels_exact WHERE run = 'before'
--   GROUP BY name ORDER BY 2 DESC LIMIT 10
-- short_name() is the short form the report tables print (README: profdb sql).
--   gpu_exact, gpu_hta                  analysis_gpu
--   kernel_types_exact, kernel_types_hta analysis_kernel_types
--   kernels_exact, kernels_hta          analysis_kernels
--   annotations_exact, annotations_hta  analysis_annotations
--   idle_exact, idle_hta                analysis_idle
--   queue_exact, queue_hta              analysis_queue
--   queue_ranks_exact, queue_ranks_hta  analysis_queue_ranks
CREATE VIEW gpu_exact AS
SELECT g.run_id, r.name AS run, g.rank, g.gpu_events, g.kernel_time_ns, g.busy_ns, g.idle_ns,
       g.compute_ns, g.non_compute_ns, g.comm_ns, g.comm_comp_overlap_ns
FROM analysis_gpu g JOIN runs r ON r.run_id = g.run_id WHERE g.mode = 'exact';
CREATE VIEW gpu_hta AS
SELECT g.run_id, r.name AS run, g.rank, g.gpu_events, g.kernel_time_ns, g.busy_ns, g.idle_ns,
       g.compute_ns, g.non_compute_ns, g.comm_ns, g.comm_comp_overlap_ns
FROM analysis_gpu g JOIN runs r ON r.run_id = g.run_id WHERE g.mode = 'hta';

CREATE VIEW kernel_types_exact AS
SELECT k.run_id, r.name AS run, k.rank, k.kernel_type, k.time_ns
FROM analysis_kernel_types k JOIN runs r ON r.run_id = k.run_id WHERE k.mode = 'exact';
CREATE VIEW kernel_types_hta AS
SELECT k.run_id, r.name AS run, k.rank, k.kernel_type, k.time_ns
FROM analysis_kernel_types k JOIN runs r ON r.run_id = k.run_id WHERE k.mode = 'hta';

CREATE VIEW kernels_exact AS
SELECT k.run_id, r.name AS run, k.rank, s.value AS name, k.kernel_type, k.count, k.total_ns,
       k.min_ns, k.max_ns, k.mean_ns, k.std_ns, k.name_id
FROM analysis_kernels_by_id k JOIN runs r ON r.run_id = k.run_id
JOIN strings s ON s.id = k.name_id WHERE k.mode = 'exact';
CREATE VIEW kernels_hta AS
SELECT k.run_id, r.name AS run, k.rank, s.value AS name, k.kernel_type, k.count, k.total_ns,
       k.min_ns, k.max_ns, k.mean_ns, k.std_ns, k.name_id
FROM analysis_kernels_by_id k JOIN runs r ON r.run_id = k.run_id
JOIN strings s ON s.id = k.name_id WHERE k.mode = 'hta';

CREATE VIEW annotations_exact AS
SELECT a.run_id, r.name AS run, a.rank, a.kind, s.value AS name, a.count, a.total_ns,
       a.min_ns, a.max_ns, a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels,
       a.name_id
FROM analysis_annotations_by_id a JOIN runs r ON r.run_id = a.run_id
JOIN strings s ON s.id = a.name_id WHERE a.mode = 'exact';
CREATE VIEW annotations_hta AS
SELECT a.run_id, r.name AS run, a.rank, a.kind, s.value AS name, a.count, a.total_ns,
       a.min_ns, a.max_ns, a.mean_ns, a.std_ns, a.kernel_ns, a.kernel_self_ns, a.kernels,
       a.name_id
FROM analysis_annotations_by_id a JOIN runs r ON r.run_id = a.run_id
JOIN strings s ON s.id = a.name_id WHERE a.mode = 'hta';

CREATE VIEW idle_exact AS
SELECT i.run_id, r.name AS run, i.rank, i.stream, i.events, i.host_wait_ns,
       i.kernel_wait_ns, i.other_ns
FROM analysis_idle i JOIN runs r ON r.run_id = i.run_id WHERE i.mode = 'exact';
CREATE VIEW idle_hta AS
SELECT i.run_id, r.name AS run, i.rank, i.stream, i.events, i.host_wait_ns,
       i.kernel_wait_ns, i.other_ns
FROM analysis_idle i JOIN runs r ON r.run_id = i.run_id WHERE i.mode = 'hta';

CREATE VIEW queue_exact AS
SELECT q.run_id, r.name AS run, q.rank, q.device, q.stream, q.queue_length, q.points,
       q.duration_ns
FROM analysis_queue q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'exact';
CREATE VIEW queue_hta AS
SELECT q.run_id, r.name AS run, q.rank, q.device, q.stream, q.queue_length, q.points,
       q.duration_ns
FROM analysis_queue q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'hta';

CREATE VIEW queue_ranks_exact AS
SELECT q.run_id, r.name AS run, q.rank, q.first_start, q.last_start, q.late_launches
FROM analysis_queue_ranks q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'exact';
CREATE VIEW queue_ranks_hta AS
SELECT q.run_id, r.name AS run, q.rank, q.first_start, q.last_start, q.late_launches
FROM analysis_queue_ranks q JOIN runs r ON r.run_id = q.run_id WHERE q.mode = 'hta';
