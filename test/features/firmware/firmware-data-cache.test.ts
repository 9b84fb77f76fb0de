import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataCache } from '../../../src/features/cache/data-cache.js';
import { MemoryCacheStore } from '../../../src/adapters/memory/memory-cache-store.js';
import type { Database } from '../../../src/features/storage/database.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { DatabaseFirmwareCatalogue } from '../../../src/features/firmware/database-firmware-catalogue.js';
import { DirectoryStorage } from '../../../src/adapters/disk/directory-storage.js';
import { FirmwareService } from '../../../src/features/firmware/firmware-service.js';
import { systemClock } from '../../../src/host/clock.js';
import { freshDataDirectory } from '../../support/embedded-database.js';

/** The real database, counting the statements that reach it. */
function counting(db: Database): { db: Database; queries: () => number } {
  let queries = 0;
  return {
    queries: () => queries,
    db: {
      engine: db.engine,
      withTenant: (tenantId, work) =>
        db.withTenant(tenantId, (sql) => work({ query: (text, params) => (queries++, sql.query(text, params)) })),
      withSystem: (work) =>
        db.withSystem((sql) => work({ query: (text, params) => (queries++, sql.query(text, params)) })),
      close: () => db.close(),
    },
  };
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

describe('firmware records through the data cache (embedded database, statements counted)', () => {
  let connector: PgliteConnector;
  let data: { path: string; remove(): void };
  let storage: string;
  let service: FirmwareService;
  let queries: () => number;

  beforeAll(async () => {
    data = freshDataDirectory();
    connector = await PgliteConnector.open(data.path);
    const db = counting(new TenantDatabase(connector));
    queries = db.queries;
    storage = mkdtempSync(join(tmpdir(), 'fw-dc-'));
    service = new FirmwareService({
      storage: new DirectoryStorage(storage),
      catalogue: new DatabaseFirmwareCatalogue(db.db),
      cache: new DataCache(new MemoryCacheStore({ maxEntries: 100, maxEntryBytes: 16 * 1024 }, systemClock)),
      clock: systemClock,
      quota: { maxBytes: 1024 * 1024, maxFiles: 100 },
    });
  });
  afterAll(async () => {
    await connector?.close();
    data?.remove();
    if (storage) rmSync(storage, { recursive: true, force: true });
  });

  it('reads a record from the database once; further lookups skip it until an upload evicts the record', async () => {
    await service.store('acme', 'fw.bin', once(Buffer.from('one')));
    const afterStore = queries();
    const first = await service.describe('acme', 'fw.bin');
    expect(first?.size).toBe(3);
    expect(queries()).toBe(afterStore + 1);
    for (let i = 0; i < 5; i++) expect(await service.describe('acme', 'fw.bin')).toEqual(first);
    expect(queries()).toBe(afterStore + 1);

    await service.store('acme', 'fw.bin', once(Buffer.from('second')));
    const afterReplace = queries();
    expect((await service.describe('acme', 'fw.bin'))?.size).toBe(6);
    expect(queries()).toBe(afterReplace + 1);
  });

  it('runs one query for many concurrent lookups of a record not cached yet', async () => {
    await service.store('acme', 'burst.bin', once(Buffer.from('xx')));
    const before = queries();
    const records = await Promise.all(Array.from({ length: 25 }, () => service.describe('acme', 'burst.bin')));
    expect(records.every((r) => r?.size === 2)).toBe(true);
    expect(queries()).toBe(before + 1);
  });

  it('caches per tenant: another tenant’s lookup of the same name goes to the database and finds nothing', async () => {
    await service.describe('acme', 'fw.bin');
    const before = queries();
    expect(await service.describe('globex', 'fw.bin')).toBeUndefined();
    expect(queries()).toBe(before + 1);
  });
});
