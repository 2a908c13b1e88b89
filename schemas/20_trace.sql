-- profdb schema, part 2: PyTorch profiler (Kineto / Chrome trace-event) traces.
--
-- One trace file is one rank of a run. Timestamps (ts) are the trace's own
-- clock converted exactly from microseconds to INTEGER nanoseconds; pid and
-- tid keep the trace's values (integers, or text such as "CPU functions").

CREATE TABLE traces (
    trace_id    INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs,
    source_id   INTEGER NOT NULL REFERENCES sources,
    rank        INTEGER NOT NULL,
    rank_from   TEXT NOT NULL,        -- 'distributedInfo', 'filename' or 'order'
    format      TEXT NOT NULL,        -- 'kineto-json' (object) or 'legacy-json' (array)
    float_ts    INTEGER NOT NULL DEFAULT 0, -- events whose ts was written with a fraction or
                                      -- exponent, or was missing (HTA rounds such traces)
    first_slice INTEGER REFERENCES slices, -- the file's first event when it is a complete
                                      -- event with a category other than Trace: HTA's
                                      -- row 0, which HTA takes for the launch of a kernel
                                      -- whose launch is not in the trace (analysis_idle)
    UNIQUE (run_id, rank)
);

-- Trace-level keys other than traceEvents (deviceProperties, distributedInfo,
-- schemaVersion, trace_id, baseTimeNanoseconds, record_shapes, ...), as JSON.
CREATE TABLE trace_meta (
    trace_id  INTEGER NOT NULL REFERENCES traces,
    key       TEXT NOT NULL,
    value     TEXT,                   -- JSON text; read it with json_extract()
    PRIMARY KEY (trace_id, key)
);

-- Raw events per phase letter as they appear in the file (B and E counted
-- separately), plus 'gpu' = X events carrying a stream arg.
CREATE TABLE trace_counts (
    trace_id  INTEGER NOT NULL REFERENCES traces,
    ph        TEXT NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (trace_id, ph)
);

-- Durations: complete events (ph 'X') and begin/end pairs (stored once, ph 'B').
CREATE TABLE slices (
    id           INTEGER PRIMARY KEY,
    trace_id     INTEGER NOT NULL REFERENCES traces,
    ph           TEXT NOT NULL,       -- 'X', or 'B' for a paired B/E
    name         INTEGER REFERENCES strings,
    cat          INTEGER REFERENCES strings,  -- NULL when the event has none
    pid,                              -- integer or text, as in the trace
    tid,
    ts           INTEGER NOT NULL,    -- start, ns
    dur          INTEGER NOT NULL,    -- duration, ns
    stream,                           -- args.stream (GPU events), as in the trace
    device       INTEGER,             -- args.device
    context      INTEGER,             -- args.context
    correlation  INTEGER,             -- args.correlation (runtime call <-> GPU event)
    external_id  INTEGER,             -- args["External id"] (CPU op <-> runtime/GPU)
    input_dims   TEXT,                -- args["Input Dims"], JSON
    bytes        INTEGER,             -- args.bytes (memcpy/memset)
    coll_name    TEXT,                -- args["Collective name"] (NCCL)
    in_nelems    INTEGER,             -- args["In msg nelems"]
    out_nelems   INTEGER,             -- args["Out msg nelems"]
    group_size   INTEGER,             -- args["Group size"]
    dtype        TEXT,                -- args.dtype
    args         TEXT                 -- every other arg, JSON object (NULL if none)
);

-- Categories and arg names an older PyTorch profiler spelt differently
-- (Kineto's "Kernel", "Runtime", "Memcpy", "Memset", "Operator", ...;
-- "external id"): the events are stored under today's spelling
-- (ingest/trace/kineto_spellings.def), and this says what the file wrote.
CREATE TABLE trace_spellings (
    trace_id   INTEGER NOT NULL REFERENCES traces,
    kind       TEXT NOT NULL,         -- 'cat' (an event's category) or 'arg' (an args key)
    written    TEXT NOT NULL,         -- as in the file
    canonical  TEXT NOT NULL,         -- as stored ('kernel', 'cuda_runtime', 'External id', ...)
    events     INTEGER NOT NULL,      -- events that had it
    PRIMARY KEY (trace_id, kind, written)
);

-- Slices whose name contains "ProfilerStep" (copied at ingest, a handful
-- per trace), so step windows are found without scanning every slice.
CREATE TABLE trace_steps (
    trace_id  INTEGER NOT NULL REFERENCES traces,
    slice_id  INTEGER NOT NULL,       -- slices.id
    ph        TEXT NOT NULL,
    name      TEXT NOT NULL,
    cat       TEXT,
    ts        INTEGER NOT NULL,
    dur       INTEGER NOT NULL,
    stream                            -- as in slices
);

-- Instant events (ph 'i' or 'I').
CREATE TABLE instants (
    trace_id  INTEGER NOT NULL REFERENCES traces,
    name      INTEGER REFERENCES strings,
    cat       INTEGER REFERENCES strings,
    pid,
    tid,
    ts        INTEGER,
    scope     TEXT,                   -- the event's "s": 'g', 'p' or 't'
    args      TEXT
);

-- Counter samples (ph 'C'): one row per series in the event's args.
CREATE TABLE counters (
    trace_id  INTEGER NOT NULL REFERENCES traces,
    name      INTEGER REFERENCES strings,
    pid,
    ts        INTEGER,
    series    TEXT NOT NULL,
    value     REAL
);

-- Flow events (ph 's' start, 't' step, 'f' finish), linked by id.
CREATE TABLE flows (
    trace_id  INTEGER NOT NULL REFERENCES traces,
    ph        TEXT NOT NULL,
    id,                               -- flow id, integer or text
    name      INTEGER REFERENCES strings,
    cat       INTEGER REFERENCES strings,
    pid,
    tid,
    ts        INTEGER,
    bp        TEXT                    -- binding point ('e' = enclosing slice)
);

-- Metadata events (ph 'M'): process_name, thread_name, sort indexes, labels.
CREATE TABLE metadata_events (
    trace_id  INTEGER NOT NULL REFERENCES traces,
    name      TEXT NOT NULL,
    pid,
    tid,
    args      TEXT
);

-- Convenience views --------------------------------------------------------

-- Slices with names, categories, rank and run resolved: run is the run's
-- name (runs.name; schema version 14).
CREATE VIEW slice_view AS
SELECT s.id, t.run_id, r.name AS run, t.rank, s.trace_id, s.ph, n.value AS name,
       c.value AS cat, s.pid, s.tid, s.ts, s.dur, s.ts + s.dur AS end_ts, s.stream, s.device,
       s.context, s.correlation, s.external_id, s.input_dims, s.bytes,
       s.coll_name, s.in_nelems, s.out_nelems, s.group_size, s.dtype, s.args
FROM slices s
JOIN traces t USING (trace_id)
JOIN runs r ON r.run_id = t.run_id
LEFT JOIN strings n ON n.id = s.name
LEFT JOIN strings c ON c.id = s.cat;

-- GPU events: slices with a stream arg (kernels, memcpy, memset, syncs),
-- except CPU-side categories that some writers tag with a stream too (ROCm
-- runtime calls carry "stream": "0x0"). The analyses use the same rule.
-- (`profdb runs` counts every X event with a stream arg, as written.)
CREATE VIEW gpu_events AS SELECT * FROM slice_view WHERE stream IS NOT NULL
    AND coalesce(cat, '') NOT IN ('cuda_runtime', 'cuda_driver', 'hip_runtime', 'cpu_op',
                                  'user_annotation', 'python_function');

-- Process and thread names (metadata events), then the trace's run_id, the
-- run's name and the rank (schema version 17).
CREATE VIEW process_names AS
SELECT m.trace_id, m.pid, json_extract(m.args, '$.name') AS name, t.run_id,
       (SELECT name FROM runs WHERE run_id = t.run_id) AS run, t.rank
FROM metadata_events m JOIN traces t ON t.trace_id = m.trace_id WHERE m.name = 'process_name';

CREATE VIEW thread_names AS
SELECT m.trace_id, m.pid, m.tid, json_extract(m.args, '$.name') AS name, t.run_id,
       (SELECT name FROM runs WHERE run_id = t.run_id) AS run, t.rank
FROM metadata_events m JOIN traces t ON t.trace_id = m.trace_id WHERE m.name = 'thread_name';

-- Indexes named bulk_* are dropped at the start of an ingest whose inputs
-- are large next to what the database holds, and rebuilt at its end (inside
-- the same transaction): bulk loads stay fast and queries still find them.
-- Start order, longest first on ties: the order the analysis scan reads.
CREATE INDEX bulk_slices_trace_ts ON slices (trace_id, ts, dur DESC);
-- Runtime call <-> GPU event lookups (launch delays, idle time, HTA's filter,
-- attribution). Covering: a correlation's rows are told apart (CPU side or
-- GPU event, earliest first) without reading the table.
CREATE INDEX bulk_slices_correlation ON slices (trace_id, correlation, ts, cat, stream)
    WHERE correlation IS NOT NULL;
CREATE INDEX bulk_flows_trace ON flows (trace_id, id);
CREATE INDEX bulk_counters_trace ON counters (trace_id, ts);
