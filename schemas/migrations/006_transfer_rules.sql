-- 006_transfer_rules.sql: schema version 5 -> 6 (common/db.c applies it).
--
-- Two built-in step-log metric rules (schemas/40_steplog.sql holds them for
-- new databases): the host-to-device copy of a batch, as public training
-- and data-loader scripts name it (host_to_device_time_ms,
-- host_to_device_time_s, to_device_time, copy_to_device_time), is the
-- phase 'transfer', like *h2d* and *data_transfer* already were. Logs
-- ingested before keep the names they got (lower-cased raw names); as for
-- any rule, `profdb ingest --replace` applies it to them.

INSERT OR IGNORE INTO steplog_metric_rules VALUES
 (87, '*host_to_device*', 'transfer', 1), (87, '*to_device_time*', 'transfer', 1);
