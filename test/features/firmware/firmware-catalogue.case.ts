/**
 * The FirmwareCatalogue contract (memory, embedded PGlite, PostgreSQL): records per tenant, replaced
 * by name, listed by name, never visible to another tenant, and kept within a tenant's quota.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FirmwareCatalogue, FirmwareRecord } from '../../../src/features/firmware/firmware-catalogue.js';
import { FirmwareQuotaExceededError } from '../../../src/features/firmware/firmware-quota.js';

export interface CatalogueUnderTest {
  catalogue: FirmwareCatalogue;
  dispose(): Promise<void>;
}

const record = (name: string, size = 10, updatedAt = 1_764_000_000_123): FirmwareRecord => ({
  name,
  size,
  sha256: 'ab'.repeat(32),
  updatedAt,
});

export function runFirmwareCatalogueContract(name: string, create: () => Promise<CatalogueUnderTest>): void {
  describe(`${name} (FirmwareCatalogue contract)`, () => {
    let sut: CatalogueUnderTest;
    let catalogue: FirmwareCatalogue;
    beforeAll(async () => {
      sut = await create();
      catalogue = sut.catalogue;
    });
    afterAll(async () => sut?.dispose());

    it('gives back a record as put, to the millisecond; undefined for a name never put', async () => {
      await catalogue.put('acme', record('a.bin', 3_000_000_000));
      expect(await catalogue.get('acme', 'a.bin')).toEqual(record('a.bin', 3_000_000_000));
      expect(await catalogue.get('acme', 'none.bin')).toBeUndefined();
    });

    it('replaces the record of a name put again', async () => {
      await catalogue.put('acme', record('r.bin', 1));
      await catalogue.put('acme', { ...record('r.bin', 2), sha256: 'cd'.repeat(32), updatedAt: 1_764_000_009_999 });
      expect(await catalogue.get('acme', 'r.bin')).toEqual({
        name: 'r.bin',
        size: 2,
        sha256: 'cd'.repeat(32),
        updatedAt: 1_764_000_009_999,
      });
    });

    it('lists a tenant’s records by name, in byte order', async () => {
      for (const n of ['b.bin', 'A.bin', 'a-2.bin']) await catalogue.put('lister', record(n));
      expect((await catalogue.list('lister')).map((r) => r.name)).toEqual(['A.bin', 'a-2.bin', 'b.bin']);
    });

    it('keeps tenants apart: another tenant neither gets nor lists them, and has its own of the same name', async () => {
      await catalogue.put('t1', record('same.bin', 1));
      await catalogue.put('t2', record('same.bin', 2));
      expect((await catalogue.get('t1', 'same.bin'))?.size).toBe(1);
      expect((await catalogue.get('t2', 'same.bin'))?.size).toBe(2);
      expect(await catalogue.get('t3', 'same.bin')).toBeUndefined();
      expect(await catalogue.list('t3')).toEqual([]);
    });

    it('refuses a put that would take the tenant past its quota: nothing recorded, the bytes never made visible', async () => {
      const quota = { maxBytes: 100, maxFiles: 2 };
      let swaps = 0;
      const swap = async () => void swaps++;
      await catalogue.put('quota', record('a.bin', 60), { quota, swap });
      await expect(catalogue.put('quota', record('b.bin', 41), { quota, swap })).rejects.toThrow(
        FirmwareQuotaExceededError,
      );
      await catalogue.put('quota', record('b.bin', 40), { quota, swap });
      await expect(catalogue.put('quota', record('c.bin', 0), { quota, swap })).rejects.toThrow(/quota of 2 files/);
      expect(swaps).toBe(2);
      expect((await catalogue.list('quota')).map((r) => [r.name, r.size])).toEqual([
        ['a.bin', 60],
        ['b.bin', 40],
      ]);
      // Another tenant's files count for it alone.
      await catalogue.put('quota-other', record('a.bin', 100), { quota });
    });

    it('counts a replaced file at its new size only', async () => {
      const quota = { maxBytes: 100, maxFiles: 2 };
      await catalogue.put('replace', record('a.bin', 90), { quota });
      await catalogue.put('replace', record('a.bin', 100), { quota });
      await catalogue.put('replace', record('a.bin', 10), { quota });
      await catalogue.put('replace', record('b.bin', 90), { quota });
      expect((await catalogue.list('replace')).map((r) => r.size)).toEqual([10, 90]);
    });

    it("runs one tenant's puts one at a time: two that each fit alone cannot both pass together", async () => {
      const quota = { maxBytes: 100, maxFiles: 10 };
      // A slow swap (a rename on a busy disk) holds the window open: without one put at a time, the
      // other would read the totals inside it and pass too.
      const swap = () => new Promise<void>((resolve) => setTimeout(resolve, 150));
      const results = await Promise.allSettled([
        catalogue.put('race', record('x.bin', 60), { quota, swap }),
        catalogue.put('race', record('y.bin', 60), { quota, swap }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((await catalogue.list('race')).map((r) => r.size)).toEqual([60]);
    });
  });
}
