-- Firmware metadata per tenant; the bytes live in the storage directory (Storage:Path/{tenant}/{name}).
-- Numbered 0003: 0002 is the orders migration.
CREATE TABLE firmware (
  tenant_id text NOT NULL,
  name text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, name)
);

ALTER TABLE firmware ENABLE ROW LEVEL SECURITY;
ALTER TABLE firmware FORCE ROW LEVEL SECURITY;
CREATE POLICY firmware_tenant ON firmware
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT, UPDATE ON firmware TO app;
