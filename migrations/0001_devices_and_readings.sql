-- The application role: every unit of work runs as `app` (SET LOCAL ROLE), which logs in never,
-- owns nothing and cannot bypass row-level security. Roles are cluster-wide on a server, so it may
-- exist already (another database of the same cluster); two migrations racing to create it are fine.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'app') THEN
    CREATE ROLE app NOLOGIN NOSUPERUSER NOBYPASSRLS;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL;
END
$$;

GRANT USAGE ON SCHEMA public TO app;

-- Tenants seen so far: a catalogue without tenant rows, so work across tenants (retention,
-- loading devices at start) can enumerate them and then run as each tenant in turn.
CREATE TABLE tenants (
  tenant_id text PRIMARY KEY,
  first_seen timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT, INSERT ON tenants TO app;

CREATE TABLE devices (
  tenant_id text NOT NULL,
  device_id text NOT NULL,
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  last_seq bigint NOT NULL,
  last_reading jsonb,
  PRIMARY KEY (tenant_id, device_id)
);

-- Retention deletes old rows in batches (not partitions): the unique key stays (tenant, device,
-- seq), with no partition to create ahead of time, and the same on PGlite as on the server.
CREATE TABLE readings (
  tenant_id text NOT NULL,
  device_id text NOT NULL,
  seq bigint NOT NULL,
  ts timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (tenant_id, device_id, seq)
);
-- Time ranges and series per device.
CREATE INDEX readings_device_ts ON readings (tenant_id, device_id, ts);
-- Retention: rows arrive in received_at order, which a BRIN index serves at a fraction of a B-tree's size.
CREATE INDEX readings_received_at ON readings USING brin (received_at);

ALTER TABLE devices ENABLE ROW LEVEL SECURITY;
ALTER TABLE devices FORCE ROW LEVEL SECURITY;
CREATE POLICY devices_tenant ON devices
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE readings ENABLE ROW LEVEL SECURITY;
ALTER TABLE readings FORCE ROW LEVEL SECURITY;
CREATE POLICY readings_tenant ON readings
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT, UPDATE, DELETE ON devices, readings TO app;
