-- Per device, minute and numeric field: count, min, max and sum of the readings stored, kept by
-- the history writer in the same statement as the readings it inserts, so a series at whole-minute
-- buckets reads a few thousand rollup rows instead of aggregating every reading's jsonb.
-- `field` NULL is the minute's reading count (readings without numeric fields count too), so no
-- JSON key, not even "", can collide with it; NULLS NOT DISTINCT lets that row be upserted.
CREATE TABLE reading_rollups (
  tenant_id text NOT NULL,
  device_id text NOT NULL,
  minute timestamptz NOT NULL,
  field text,
  count bigint NOT NULL,
  min float8,
  max float8,
  sum float8,
  CONSTRAINT reading_rollups_key UNIQUE NULLS NOT DISTINCT (tenant_id, device_id, minute, field)
);
-- Retention deletes whole minutes by age.
CREATE INDEX reading_rollups_minute ON reading_rollups USING brin (minute);

-- Readings stored before this migration get their rollups once, here, before row-level security
-- applies to the new table.
INSERT INTO reading_rollups (tenant_id, device_id, minute, field, count, min, max, sum)
SELECT tenant_id, device_id, timestamptz 'epoch' + floor(extract(epoch from ts) / 60) * interval '1 minute', NULL, count(*), NULL, NULL, NULL
FROM readings GROUP BY 1, 2, 3;
INSERT INTO reading_rollups (tenant_id, device_id, minute, field, count, min, max, sum)
SELECT r.tenant_id, r.device_id, timestamptz 'epoch' + floor(extract(epoch from r.ts) / 60) * interval '1 minute', kv.key,
       count(*), min(kv.value::float8), max(kv.value::float8), sum(kv.value::float8)
FROM readings r CROSS JOIN LATERAL jsonb_each(r.data) AS kv
WHERE jsonb_typeof(kv.value) = 'number' AND abs(kv.value::numeric) < 1e308
GROUP BY 1, 2, 3, 4;

ALTER TABLE reading_rollups ENABLE ROW LEVEL SECURITY;
ALTER TABLE reading_rollups FORCE ROW LEVEL SECURITY;
CREATE POLICY reading_rollups_tenant ON reading_rollups
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT, UPDATE, DELETE ON reading_rollups TO app;
