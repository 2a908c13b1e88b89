-- profdb schema, part 1: runs and their sources. Shared by every reader.
--
-- Conventions for every table in every schema file:
--   * times are INTEGER nanoseconds unless a column name says otherwise;
--   * every data table has a run_id (or a trace_id that belongs to one run),
--     which is how `profdb ingest --replace` and run deletion find its rows;
--   * text that repeats (names, categories) is interned in `strings`.

-- One training job: traces of its ranks, pstats dumps and step logs.
-- AUTOINCREMENT: a deleted run's id is never given to a later run.
CREATE TABLE runs (
    run_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL UNIQUE,   -- --run NAME, or the input's base name
    created_at  TEXT NOT NULL           -- UTC ISO-8601 time of the ingest
);

-- Free-form key=value labels of a run (`--label gpus=8`).
CREATE TABLE run_labels (
    run_id  INTEGER NOT NULL REFERENCES runs,
    key     TEXT NOT NULL,
    value   TEXT,
    PRIMARY KEY (run_id, key)
);

-- One input file (or stdin) ingested into a run.
CREATE TABLE sources (
    source_id    INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs,
    path         TEXT NOT NULL,         -- as given on the command line
    format       TEXT NOT NULL,         -- 'kineto-json', 'legacy-json', 'pstats', 'steplog:FLAVOR'
    compressed   INTEGER NOT NULL,      -- 1 when the file was gzip
    bytes        INTEGER NOT NULL,      -- bytes read from the file
    records      INTEGER NOT NULL,      -- records stored (events, functions, metric values)
    ingested_at  TEXT NOT NULL,
    ingest_ms    INTEGER                -- wall time the ingest of this file took
);

-- Records a reader passed over, counted by reason. Nothing is skipped silently.
CREATE TABLE skips (
    run_id     INTEGER NOT NULL REFERENCES runs,
    source_id  INTEGER NOT NULL REFERENCES sources,
    reason     TEXT NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (source_id, reason)
);

-- Interned strings (event names, categories, function names).
CREATE TABLE strings (
    id     INTEGER PRIMARY KEY,
    value  TEXT NOT NULL UNIQUE
);
