-- 013_kineto_spellings.sql: schema version 12 -> 13 (common/db.c applies it).
--
-- traces.first_slice: see 20_trace.sql.
--
-- Older PyTorch profilers spelt categories differently (issue 37): new
-- ingests store today's spelling and record what the file wrote in
-- trace_spellings. Traces stored before are respelt here the same way (the
-- pairs of ingest/trace/kineto_spellings.def when this migration was
-- written), so every pass reads one spelling; their analyses are redone by
-- 'profdb analyze'. Arg names are not respelt here: an "external id" stays
-- in the args JSON of such traces until they are ingested again.

CREATE TABLE trace_spellings (
    trace_id   INTEGER NOT NULL REFERENCES traces,
    kind       TEXT NOT NULL,
    written    TEXT NOT NULL,
    canonical  TEXT NOT NULL,
    events     INTEGER NOT NULL,
    PRIMARY KEY (trace_id, kind, written)
);

-- The file's first event, for HTA's launch of a kernel whose launch is not
-- in the trace: not known for traces stored before (NULL).
ALTER TABLE traces ADD COLUMN first_slice INTEGER REFERENCES slices;

CREATE TEMP TABLE respell (written TEXT PRIMARY KEY, canonical TEXT NOT NULL,
                           flows_only INTEGER NOT NULL);
INSERT INTO temp.respell VALUES ('Kernel', 'kernel', 0), ('Runtime', 'cuda_runtime', 0),
    ('Memcpy', 'gpu_memcpy', 0), ('Memset', 'gpu_memset', 0), ('Operator', 'cpu_op', 0),
    ('async', 'ac2g', 1), ('async_gpu', 'ac2g', 1), ('async_cpu_to_gpu', 'ac2g', 1),
    ('forward_backward', 'fwdbwd', 1);

INSERT INTO trace_spellings
SELECT trace_id, 'cat', r.written, r.canonical, count(*)
FROM (SELECT trace_id, cat, 0 AS flow FROM slices
      UNION ALL SELECT trace_id, cat, 0 FROM instants
      UNION ALL SELECT trace_id, cat, 1 FROM flows) e
JOIN strings s ON s.id = e.cat JOIN temp.respell r ON r.written = s.value
WHERE e.flow OR NOT r.flows_only
GROUP BY trace_id, r.written;

INSERT OR IGNORE INTO strings (value)
SELECT canonical FROM temp.respell WHERE written IN (SELECT value FROM strings);

CREATE TEMP TABLE respell_ids AS
SELECT w.id AS old, c.id AS new, r.flows_only FROM temp.respell r
JOIN strings w ON w.value = r.written JOIN strings c ON c.value = r.canonical;

UPDATE slices SET cat = (SELECT new FROM temp.respell_ids WHERE old = cat)
WHERE cat IN (SELECT old FROM temp.respell_ids WHERE NOT flows_only);
UPDATE instants SET cat = (SELECT new FROM temp.respell_ids WHERE old = cat)
WHERE cat IN (SELECT old FROM temp.respell_ids WHERE NOT flows_only);
UPDATE flows SET cat = (SELECT new FROM temp.respell_ids WHERE old = cat)
WHERE cat IN (SELECT old FROM temp.respell_ids);
UPDATE trace_steps SET cat = (SELECT canonical FROM temp.respell WHERE written = cat)
WHERE cat IN (SELECT written FROM temp.respell WHERE NOT flows_only);

DROP TABLE temp.respell_ids;
DROP TABLE temp.respell;
