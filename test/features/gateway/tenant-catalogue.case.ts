/**
 * The TenantCatalogue contract every implementation runs (in memory, the database): what the
 * gateway relies on to route a tenant. A new implementation is one factory.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TenantCatalogue } from '../../../src/features/gateway/tenant-catalogue.js';

export interface CatalogueUnderTest {
  readonly catalogue: TenantCatalogue;
  /** Puts (or moves) a tenant on a stamp, as an operator would. */
  assign(tenantId: string, stamp: string): Promise<void>;
  dispose(): Promise<void>;
}

export function tenantCatalogueContract(name: string, create: () => Promise<CatalogueUnderTest>): void {
  describe(`TenantCatalogue contract: ${name}`, () => {
    let c: CatalogueUnderTest;
    beforeEach(async () => {
      c = await create();
    });
    afterEach(async () => {
      await c.dispose();
    });

    it('knows no tenant it was not told about', async () => {
      expect(await c.catalogue.stampOf('nobody')).toBeUndefined();
    });

    it('answers each tenant’s own stamp; many tenants share a pool, a silo has one', async () => {
      await c.assign('t1', 'pool-1');
      await c.assign('t2', 'pool-1');
      await c.assign('big', 'silo-big');
      expect(await c.catalogue.stampOf('t1')).toBe('pool-1');
      expect(await c.catalogue.stampOf('t2')).toBe('pool-1');
      expect(await c.catalogue.stampOf('big')).toBe('silo-big');
    });

    it('a moved tenant is answered with its new stamp', async () => {
      await c.assign('mover', 'pool-1');
      await c.assign('mover', 'silo-mover');
      expect(await c.catalogue.stampOf('mover')).toBe('silo-mover');
    });

    it('tenant ids are exact: another spelling is another tenant', async () => {
      await c.assign('acme', 'pool-1');
      expect(await c.catalogue.stampOf('ACME')).toBeUndefined();
      expect(await c.catalogue.stampOf("acme' OR '1'='1")).toBeUndefined();
    });
  });
}
