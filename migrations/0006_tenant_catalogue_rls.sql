-- The tenant catalogues, `tenants` (0001) and `tenant_stamps` (0004), had no row-level security: any
-- tenant's unit of work could list every other tenant and the stamp serving it. Now only system
-- work (no tenant set: retention, loading devices at start, the gateway finding a tenant's stamp)
-- reads them whole. A tenant's unit of work sees and adds its own `tenants` row only (the history
-- writer records a tenant the first time it stores its readings), and no `tenant_stamps` row at all.
-- FORCEd like every tenant table, so the owner is held to the policies too: with no tenant set it is
-- system work, which is how operators assign stamps.

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenants FORCE ROW LEVEL SECURITY;
CREATE POLICY tenants_system ON tenants
  USING (coalesce(current_setting('app.tenant_id', true), '') = '')
  WITH CHECK (coalesce(current_setting('app.tenant_id', true), '') = '');
CREATE POLICY tenants_own ON tenants
  USING (tenant_id = current_setting('app.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('app.tenant_id', true));

ALTER TABLE tenant_stamps ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_stamps FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_stamps_system ON tenant_stamps
  USING (coalesce(current_setting('app.tenant_id', true), '') = '')
  WITH CHECK (coalesce(current_setting('app.tenant_id', true), '') = '');
