-- 015_pyspy_weighted.sql: schema version 14 -> 15 (common/db.c applies it).
--
-- pyspy_profiles.weight_unit: see 70_pyspy.sql. speedscope evented profiles
-- (open/close events) are stored as time-weighted samples; profiles stored
-- before are sample counts (NULL).

ALTER TABLE pyspy_profiles ADD COLUMN weight_unit TEXT;
