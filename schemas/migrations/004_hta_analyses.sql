-- 004_hta_analyses.sql: schema version 3 -> 4 (common/db.c applies it).
--
-- What schema version 4 adds to version 3 (schemas/50_analysis.sql holds the
-- same statements for new databases; its comments say what each column
-- means): the tables of the ingest-time analyses behind the reports
-- queue-length and memory,
--  * analysis_queue, analysis_queue_ranks: the CUDA launch queue length per
--    stream (report queue-length);
--  * analysis_memory_ops, analysis_memory_peaks, analysis_memory_allocs: the
--    memory of traces recorded with profile_memory=True (report memory).
-- SQL cannot fill them from what a version 3 database stores (the queue
-- needs the analysis scan, memory the [memory] events' args): they start
-- empty, and profdb says to run `profdb analyze` when the database holds
-- traces (common/db.c). The analyses computed on demand (memory-bw,
-- critical-path, launch --by op, kernel-sequences) need nothing stored.

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

CREATE TABLE analysis_queue_ranks (
    run_id         INTEGER NOT NULL REFERENCES runs,
    mode           TEXT NOT NULL,
    rank           INTEGER NOT NULL,
    first_start    INTEGER NOT NULL,  -- ns, the trace's clock (hta: rounded)
    last_start     INTEGER NOT NULL,
    late_launches  INTEGER NOT NULL,
    PRIMARY KEY (run_id, mode, rank)
);

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
