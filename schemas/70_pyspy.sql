-- profdb schema, part 7: sampled Python stacks (py-spy raw, speedscope,
-- py-spy's flame-graph SVG; ingest/pyspy/).
--
-- A sampling profiler's answer is a count of samples per call stack. Each
-- distinct frame is stored once per run (pyspy_frames), each distinct stack
-- once as a chain of nodes, every node pointing to its parent (pyspy_nodes,
-- a prefix tree: stacks that share a prefix share its nodes), and the
-- samples that ended in a node, per profile (pyspy_samples). Per-function
-- self and total samples are derived from these (report/queries/pyspy.sql):
-- "self" = samples whose leaf (deepest non-pseudo frame) is the function,
-- "total" = samples whose stack holds it at least once (recursion counted
-- once).

-- One profile: a raw file, one speedscope profile (py-spy writes one per
-- thread), or a flame-graph SVG.
CREATE TABLE pyspy_profiles (
    profile_id  INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs,
    source_id   INTEGER NOT NULL REFERENCES sources,
    format      TEXT NOT NULL,     -- 'pyspy-raw', 'speedscope', 'pyspy-svg'
    name        TEXT,              -- speedscope profile name ('Thread 117430 "MainThread"'),
                                   -- NULL for raw and SVG (their threads and processes are
                                   -- pseudo-frames of the stacks)
    rate_hz     REAL,              -- samples per second where the file says it (speedscope
                                   -- weights, the SVG's --rate); NULL: not known
    samples     INTEGER NOT NULL,  -- every sample of the profile (an SVG's total_samples)
    exact       INTEGER NOT NULL,  -- 1: every stack is present; 0: a flame-graph SVG, whose
                                   -- boxes below 0.1% are not drawn, so per-function values
                                   -- are lower bounds and a drawn box's self absorbs them
    options     TEXT,              -- the py-spy command line where the file holds it (SVG title)
    weight_unit TEXT               -- NULL: samples are sample counts; else what a "sample"
                                   -- is: a time-weighted speedscope evented profile (open/
                                   -- close events) stores the time each stack was open,
                                   -- 'nanoseconds' (rate_hz 1e9) for a time unit, or the
                                   -- file's own unit rounded to whole units ('none', 'bytes')
);

-- One distinct frame of a run, as the profiler printed it.
CREATE TABLE pyspy_frames (
    frame_id  INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES runs,
    kind      TEXT NOT NULL,     -- 'python'; 'native' (--native: a C symbol or a bare
                                 -- address in a shared object); 'process' (process PID:"CMDLINE",
                                 -- --subprocesses); 'thread' (thread (ID[: NAME]), --threads);
                                 -- 'root' (an SVG's 'all' box is not stored: never this)
    name      TEXT NOT NULL,     -- function name ('<module>', '0x1a99b5a'), or the whole
                                 -- pseudo-frame text for process and thread frames
    file      TEXT NOT NULL,     -- the path as printed ('' when none)
    line      INTEGER NOT NULL,  -- line number; 0 when the frame was printed without one
    UNIQUE (run_id, kind, name, file, line)
);

-- One node of the run's stack tree: a frame called from its parent node.
-- A stack is the chain from a node up to its root (root first in the file).
CREATE TABLE pyspy_nodes (
    node_id    INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs,
    parent_id  INTEGER NOT NULL,  -- the caller's node; 0 at a root
    frame_id   INTEGER NOT NULL REFERENCES pyspy_frames,
    depth      INTEGER NOT NULL,  -- 0 at a root
    UNIQUE (run_id, parent_id, frame_id)
);

-- Samples whose stack ended exactly at a node, per profile.
CREATE TABLE pyspy_samples (
    profile_id  INTEGER NOT NULL REFERENCES pyspy_profiles,
    node_id     INTEGER NOT NULL REFERENCES pyspy_nodes,
    run_id      INTEGER NOT NULL REFERENCES runs,
    samples     INTEGER NOT NULL,
    PRIMARY KEY (profile_id, node_id)
);
CREATE INDEX pyspy_samples_run ON pyspy_samples (run_id, node_id);
