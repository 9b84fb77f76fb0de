-- Cursor pages of orders ran on `position`, one identity over all tenants, so the gap between two of
-- a tenant's cursors told it how many orders the other tenants had created meanwhile. `seq` numbers
-- each tenant's orders on their own (1, 2, 3 …), and pages run on it. A trigger takes it from the
-- tenant's counter row, whose lock it holds until commit: orders of one tenant commit in `seq` order,
-- so a page never misses an order that commits after it was read. `position` and its index stay for
-- instances not yet upgraded; nothing new reads them.

CREATE TABLE order_sequences (
  tenant_id text PRIMARY KEY,
  last_seq bigint NOT NULL
);

ALTER TABLE orders ADD COLUMN seq bigint;

-- The migration runs as the owner, whom FORCEd row-level security would show no rows: numbering
-- the orders there are, in creation order, needs it off for this while.
ALTER TABLE orders NO FORCE ROW LEVEL SECURITY;
UPDATE orders o SET seq = n.seq
FROM (SELECT tenant_id, order_id, row_number() OVER (PARTITION BY tenant_id ORDER BY position) AS seq FROM orders) n
WHERE o.tenant_id = n.tenant_id AND o.order_id = n.order_id;
INSERT INTO order_sequences (tenant_id, last_seq) SELECT tenant_id, max(seq) FROM orders GROUP BY tenant_id;
ALTER TABLE orders FORCE ROW LEVEL SECURITY;

ALTER TABLE orders ALTER COLUMN seq SET NOT NULL;
CREATE UNIQUE INDEX orders_tenant_seq ON orders (tenant_id, seq DESC);

CREATE FUNCTION orders_next_seq() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_sequences AS s (tenant_id, last_seq) VALUES (NEW.tenant_id, 1)
  ON CONFLICT (tenant_id) DO UPDATE SET last_seq = s.last_seq + 1
  RETURNING s.last_seq INTO NEW.seq;
  RETURN NEW;
END
$$;
CREATE TRIGGER orders_seq BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION orders_next_seq();

ALTER TABLE order_sequences ENABLE ROW LEVEL SECURITY;
ALTER TABLE order_sequences FORCE ROW LEVEL SECURITY;
CREATE POLICY order_sequences_tenant ON order_sequences
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

GRANT SELECT, INSERT, UPDATE ON order_sequences TO app;
