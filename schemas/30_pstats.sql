-- profdb schema, part 3: Python cProfile / pstats dumps.
--
-- A dump maps each function (file, line, name) to (cc, nc, tt, ct, callers).
-- Several dumps ingested into one run are added up the way pstats'
-- Stats.add() does, in the order given: pstats_functions and pstats_edges
-- hold the merged statistics of the run; pstats_dumps keeps each dump's
-- own totals. Times are float seconds, exactly as the dump holds them.

-- One dump file read into a run.
CREATE TABLE pstats_dumps (
    source_id    INTEGER PRIMARY KEY REFERENCES sources,
    run_id       INTEGER NOT NULL REFERENCES runs,
    path         TEXT NOT NULL,       -- as given on the command line
    mtime        REAL,                -- the file's modification time (Unix seconds), NULL for stdin
    files_line   TEXT NOT NULL,       -- pstats' first printed line: ctime(mtime) + "    " + path
    functions    INTEGER NOT NULL,    -- entries of the dump's stats dict
    edges        INTEGER NOT NULL,    -- entries of all its callers dicts
    total_calls  INTEGER NOT NULL,    -- sum of nc, as pstats computes it
    prim_calls   INTEGER NOT NULL,    -- sum of cc
    total_tt     REAL NOT NULL        -- sum of tt in dict order (seconds)
);

-- One profiled function of a run (merged over the run's dumps). Functions
-- that only appear as callers get a row with in_stats = 0 and zero counts.
CREATE TABLE pstats_functions (
    func_id    INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs,
    source_id  INTEGER NOT NULL REFERENCES sources,  -- the dump that first had it
    ord        INTEGER NOT NULL,    -- position in the merged stats dict (pstats' tie-break order)
    in_stats   INTEGER NOT NULL,    -- 1: a key of the stats dict; 0: seen only as a caller
    file       TEXT NOT NULL,       -- code file name; '~' for built-ins
    line       INTEGER NOT NULL,    -- first line number; 0 for built-ins
    name       TEXT NOT NULL,       -- function name, e.g. 'main' or '<built-in method builtins.len>'
    std_name   TEXT NOT NULL,       -- as pstats prints it: file:line(name), or {built-in ...}
    cc         INTEGER NOT NULL,    -- primitive (non-recursive) calls
    nc         INTEGER NOT NULL,    -- all calls
    tt         REAL NOT NULL,       -- tottime: seconds in the function itself
    ct         REAL NOT NULL,       -- cumtime: seconds including callees
    top_level  INTEGER NOT NULL DEFAULT 0,  -- called by ('jprofile', 0, 'profiler') (old profile module)
    UNIQUE (run_id, file, line, name)
);

-- One caller -> callee edge: the callee's callers-dict entry. The dump
-- writes (nc, cc, tt, ct), total count first; the columns name them.
CREATE TABLE pstats_edges (
    run_id     INTEGER NOT NULL REFERENCES runs,
    callee_id  INTEGER NOT NULL REFERENCES pstats_functions,
    caller_id  INTEGER NOT NULL REFERENCES pstats_functions,
    ord        INTEGER NOT NULL,    -- insertion order (callee's callers dict order)
    nc         INTEGER NOT NULL,    -- calls of the callee from this caller
    cc         INTEGER NOT NULL,    -- ... of them primitive
    tt         REAL NOT NULL,       -- callee's tottime spent under this caller
    ct         REAL NOT NULL,       -- callee's cumtime spent under this caller
    PRIMARY KEY (run_id, callee_id, caller_id)
);
CREATE INDEX pstats_edges_caller ON pstats_edges (run_id, caller_id);
