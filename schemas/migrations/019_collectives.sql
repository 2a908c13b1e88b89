-- 019_collectives.sql: schema version 18 -> 19 (common/db.c applies it).
--
-- analysis_collectives (schemas/50_analysis.sql says what each column
-- means): the collectives of each rank, for the collective skew across
-- ranks (report collectives), also on a run whose events stay in shard
-- files. SQL could fill it from the slices, but a database merged without
-- --full has none, so it starts empty and profdb says to run `profdb
-- analyze` when the database holds traces (common/db.c).

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
