-- The gateway's tenant catalogue: which stamp (a pool shared by many tenants, or a tenant's own
-- silo) serves each tenant. Not tenant data: the gateway reads it before it knows whose request
-- it is, as the system (no tenant set), so it has no row-level security. `app` may only read it;
-- operators (the owner) assign and move tenants.
CREATE TABLE tenant_stamps (
  tenant_id text PRIMARY KEY,
  stamp text NOT NULL CHECK (stamp ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  updated_at timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT ON tenant_stamps TO app;
