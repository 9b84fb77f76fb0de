import type { Readable } from 'node:stream';
import type { DataCache } from '../cache/data-cache.js';
import type { Clock } from '../host/clock.js';
import type { FirmwareCatalog, FirmwareRecord } from './firmware-catalog.js';
import type { ByteRange, FirmwareStorage } from './firmware-storage.js';

export interface FirmwareServiceOptions {
  storage: FirmwareStorage;
  catalog: FirmwareCatalog;
  /** Holds records between reads: a download's metadata lookup skips the database on a hit. */
  cache: DataCache;
  clock: Pick<Clock, 'now'>;
  /** Told after a tenant's firmware changed (evicts the output-cached list). */
  onChanged?: (tenantId: string) => Promise<void>;
}

/** How long a record stays in the data cache; every upload evicts it at once anyway. */
const RECORD_TTL_MS = 5 * 60_000;

const recordKey = (tenantId: string, name: string) => `${tenantId}:firmware:${name}`;
export const firmwareTag = (tenantId: string) => `firmware:${tenantId}`;

/**
 * Firmware of each tenant: bytes in storage, size and SHA-256 in the catalogue. A store writes
 * each chunk as it comes (the caller's iterable decides how much arrives at once), and on any
 * failure, a 413 mid-upload included, removes what it wrote: nothing of a failed upload stays.
 */
export class FirmwareService {
  constructor(private readonly options: FirmwareServiceOptions) {}

  async store(tenantId: string, name: string, chunks: AsyncIterable<Buffer>): Promise<FirmwareRecord> {
    const { storage, catalog, cache, clock } = this.options;
    const writer = await storage.begin(tenantId, name);
    let record: FirmwareRecord;
    try {
      for await (const chunk of chunks) await writer.write(chunk);
      const stored = await writer.commit();
      record = { name, size: stored.size, sha256: stored.sha256, updatedAt: clock.now() };
    } catch (err) {
      await writer.abort();
      throw err;
    }
    await catalog.put(tenantId, record);
    await cache.evict(recordKey(tenantId, name));
    await this.options.onChanged?.(tenantId);
    return record;
  }

  /** The record of a tenant's firmware, from the data cache when it holds it. */
  describe(tenantId: string, name: string): Promise<FirmwareRecord | undefined> {
    return this.options.cache.getOrLoad(recordKey(tenantId, name), () => this.options.catalog.get(tenantId, name), {
      ttlMs: RECORD_TTL_MS,
      tags: [firmwareTag(tenantId)],
    });
  }

  list(tenantId: string): Promise<FirmwareRecord[]> {
    return this.options.catalog.list(tenantId);
  }

  open(tenantId: string, name: string, range?: ByteRange): Promise<Readable | undefined> {
    return this.options.storage.open(tenantId, name, range);
  }
}
