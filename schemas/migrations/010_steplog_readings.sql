-- 010_steplog_readings.sql: schema version 9 -> 10 (common/db.c applies it).
--
-- Every step-log ingest says how it read the log (issue 32): the reader, the
-- step counter and the text it came from, where step times and throughput
-- come from, the epoch structure, the share of lines used, and why the
-- reading is weak. steplog_readings keeps that per step-log source. Sources
-- ingested before have no row (`profdb runs` shows nothing for them; a
-- re-ingest with --replace records one).

CREATE TABLE steplog_readings (
    source_id     INTEGER PRIMARY KEY REFERENCES sources,
    run_id        INTEGER NOT NULL REFERENCES runs,
    reader        TEXT NOT NULL,   -- 'text' (the general reader) or the flavor
    counter       TEXT,            -- the step counter as printed ('Up. N', '"iteration": N'),
                                   -- several separated by ', '; NULL: none
    counter_line  INTEGER,         -- the first line the (main) counter was read from
    step_records  INTEGER NOT NULL,-- records that are training steps
    first_step    INTEGER,         -- the smallest and largest step of training records
    last_step     INTEGER,
    step_time     TEXT NOT NULL,   -- where step times come from: 'logged field NAME',
                                   -- 'window mean of NAME over W steps', 'cumulative clock
                                   -- NAME ...', 'timestamp deltas over W steps', 'none ...'
    step_time_agg TEXT,            -- its agg in steplog_values (what the gate reads), or NULL
    resolution    REAL,            -- seconds: the finest step time the source can show
    throughput    TEXT NOT NULL,   -- where throughput comes from: 'logged NAME (metric)', ...
    epochs        TEXT NOT NULL,   -- 'global counter', 'per-epoch counter made global: ...'
    lines         INTEGER,         -- lines of the log (NULL: a JSON document)
    lines_used    INTEGER,         -- lines that held a stored value
    warnings      TEXT,            -- why the reading is weak ('; '-separated), or NULL
    summary       TEXT NOT NULL    -- the compact form `profdb runs` shows
);

