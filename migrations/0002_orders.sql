-- The business API: orders (aggregate root and its lines), the transactional outbox, the worker's
-- fulfilment records and user profiles. Tenant tables follow 0001: tenant_id on every row, row-level
-- security ENABLEd and FORCEd, one policy on app.tenant_id, grants to the role app.

CREATE TABLE orders (
  tenant_id text NOT NULL,
  order_id text NOT NULL,
  customer_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('draft', 'confirmed')),
  total bigint NOT NULL CHECK (total >= 0),
  version integer NOT NULL CHECK (version >= 1),
  -- Creation order over all tenants: the newest order is at the front of a page; the cursor is a position.
  position bigint GENERATED ALWAYS AS IDENTITY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, order_id)
);
CREATE INDEX orders_page ON orders (tenant_id, position DESC);

-- Lines belong to exactly one order and change only through it (the store replaces them whole).
CREATE TABLE order_lines (
  tenant_id text NOT NULL,
  order_id text NOT NULL,
  line_no integer NOT NULL,
  sku text NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price bigint NOT NULL CHECK (unit_price >= 0),
  PRIMARY KEY (tenant_id, order_id, line_no),
  FOREIGN KEY (tenant_id, order_id) REFERENCES orders (tenant_id, order_id) ON DELETE CASCADE
);

-- Messages committed with the change they announce; the relay publishes and deletes them. A tenant
-- may add its own rows and see none; only system work (no tenant: the relay) reads and deletes.
CREATE TABLE outbox (
  id uuid PRIMARY KEY,
  tenant_id text NOT NULL,
  position bigint GENERATED ALWAYS AS IDENTITY,
  body jsonb NOT NULL,
  headers jsonb NOT NULL,
  -- A relay claims rows for a while; a relay that dies leaves the claim to expire, and another publishes.
  claimed_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_pending ON outbox (position);

-- What the worker wrote, one row per message (its id): a redelivered message writes nothing new.
CREATE TABLE fulfilments (
  tenant_id text NOT NULL,
  message_id uuid NOT NULL,
  order_id text NOT NULL,
  order_version integer NOT NULL,
  status text NOT NULL,
  total bigint NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, message_id)
);
CREATE INDEX fulfilments_order ON fulfilments (tenant_id, order_id, order_version);

-- One profile per user of a tenant; version is the ETag; managed_fields maps a field to its managers.
CREATE TABLE profiles (
  tenant_id text NOT NULL,
  user_id text NOT NULL,
  email text,
  phone text,
  version integer NOT NULL,
  managed_fields jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (tenant_id, user_id)
);

ALTER TABLE orders ENABLE ROW LEVEL SECURITY;
ALTER TABLE orders FORCE ROW LEVEL SECURITY;
CREATE POLICY orders_tenant ON orders
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE order_lines ENABLE ROW LEVEL SECURITY;
ALTER TABLE order_lines FORCE ROW LEVEL SECURITY;
CREATE POLICY order_lines_tenant ON order_lines
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE fulfilments ENABLE ROW LEVEL SECURITY;
ALTER TABLE fulfilments FORCE ROW LEVEL SECURITY;
CREATE POLICY fulfilments_tenant ON fulfilments
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE profiles ENABLE ROW LEVEL SECURITY;
ALTER TABLE profiles FORCE ROW LEVEL SECURITY;
CREATE POLICY profiles_tenant ON profiles
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE outbox ENABLE ROW LEVEL SECURITY;
ALTER TABLE outbox FORCE ROW LEVEL SECURITY;
CREATE POLICY outbox_tenant_adds ON outbox FOR INSERT
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));
CREATE POLICY outbox_relay_reads ON outbox FOR SELECT
  USING (coalesce(current_setting('app.tenant_id', true), '') = '');
CREATE POLICY outbox_relay_claims ON outbox FOR UPDATE
  USING (coalesce(current_setting('app.tenant_id', true), '') = '');
CREATE POLICY outbox_relay_deletes ON outbox FOR DELETE
  USING (coalesce(current_setting('app.tenant_id', true), '') = '');

GRANT SELECT, INSERT, UPDATE, DELETE ON orders, order_lines, fulfilments, profiles TO app;
GRANT SELECT, INSERT, UPDATE, DELETE ON outbox TO app;
