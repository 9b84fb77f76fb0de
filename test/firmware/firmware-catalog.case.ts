/**
 * The FirmwareCatalog contract (memory, embedded PGlite, PostgreSQL): records per tenant, replaced
 * by name, listed by name, and never visible to another tenant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FirmwareCatalog, FirmwareRecord } from '../../src/firmware/firmware-catalog.js';

export interface CatalogUnderTest {
  catalog: FirmwareCatalog;
  dispose(): Promise<void>;
}

const record = (name: string, size = 10, updatedAt = 1_764_000_000_123): FirmwareRecord => ({ name, size, sha256: 'ab'.repeat(32), updatedAt });

export function runFirmwareCatalogContract(name: string, create: () => Promise<CatalogUnderTest>): void {
  describe(`${name} (FirmwareCatalog contract)`, () => {
    let sut: CatalogUnderTest;
    let catalog: FirmwareCatalog;
    beforeAll(async () => {
      sut = await create();
      catalog = sut.catalog;
    });
    afterAll(async () => sut?.dispose());

    it('gives back a record as put, to the millisecond; undefined for a name never put', async () => {
      await catalog.put('acme', record('a.bin', 3_000_000_000));
      expect(await catalog.get('acme', 'a.bin')).toEqual(record('a.bin', 3_000_000_000));
      expect(await catalog.get('acme', 'none.bin')).toBeUndefined();
    });

    it('replaces the record of a name put again', async () => {
      await catalog.put('acme', record('r.bin', 1));
      await catalog.put('acme', { ...record('r.bin', 2), sha256: 'cd'.repeat(32), updatedAt: 1_764_000_009_999 });
      expect(await catalog.get('acme', 'r.bin')).toEqual({ name: 'r.bin', size: 2, sha256: 'cd'.repeat(32), updatedAt: 1_764_000_009_999 });
    });

    it('lists a tenant’s records by name, in byte order', async () => {
      for (const n of ['b.bin', 'A.bin', 'a-2.bin']) await catalog.put('lister', record(n));
      expect((await catalog.list('lister')).map((r) => r.name)).toEqual(['A.bin', 'a-2.bin', 'b.bin']);
    });

    it('keeps tenants apart: another tenant neither gets nor lists them, and has its own of the same name', async () => {
      await catalog.put('t1', record('same.bin', 1));
      await catalog.put('t2', record('same.bin', 2));
      expect((await catalog.get('t1', 'same.bin'))?.size).toBe(1);
      expect((await catalog.get('t2', 'same.bin'))?.size).toBe(2);
      expect(await catalog.get('t3', 'same.bin')).toBeUndefined();
      expect(await catalog.list('t3')).toEqual([]);
    });
  });
}
