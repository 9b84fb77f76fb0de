import type { Readable } from 'node:stream';
import type { DataCache } from '../cache/data-cache.js';
import type { Clock } from '../../host/clock.js';
import type { FirmwareCatalogue, FirmwareRecord } from './firmware-catalogue.js';
import type { FirmwareQuota } from './firmware-quota.js';
import type { ByteRange, FirmwareStorage } from './firmware-storage.js';
import { QuotaLedger, type QuotaReservation } from './quota-ledger.js';

export interface FirmwareServiceOptions {
  storage: FirmwareStorage;
  catalogue: FirmwareCatalogue;
  /** Holds records between reads: a download's metadata lookup skips the database on a hit. */
  cache: DataCache;
  clock: Pick<Clock, 'now'>;
  /** How much each tenant may keep. */
  quota: FirmwareQuota;
  /** Told after a tenant's firmware changed (evicts the output-cached list). */
  onChanged?: (tenantId: string) => Promise<void>;
}

export interface StoreOptions {
  /** The upload's reservation when the caller took it already (the buffered path, while reading the form); the caller releases it. */
  reservation?: QuotaReservation;
  /** The size the client announced (Content-Length): refused at once when it cannot fit, held against the quota otherwise. */
  declaredBytes?: number;
}

/** How long a record stays in the data cache; every upload evicts it at once anyway. */
const RECORD_TTL_MS = 5 * 60_000;

const recordKey = (tenantId: string, name: string) => `${tenantId}:firmware:${name}`;
export const firmwareTag = (tenantId: string) => `firmware:${tenantId}`;

/**
 * Firmware of each tenant: bytes in storage, size and SHA-256 in the catalogue. A store writes
 * each chunk as it comes (the caller's iterable decides how much arrives at once), checking the
 * tenant's quota on each, and on any failure, a 413 mid-upload included, removes what it wrote:
 * nothing of a failed upload stays. The catalogue checks the quota once more when it records the
 * file, under a lock per tenant, before the file is made visible.
 */
export class FirmwareService {
  readonly #ledger: QuotaLedger;

  constructor(private readonly options: FirmwareServiceOptions) {
    this.#ledger = new QuotaLedger(
      options.quota,
      async (tenantId) => new Map((await options.catalogue.list(tenantId)).map((r) => [r.name, r.size])),
    );
  }

  /** Holds an upload of `name` against the tenant's quota; refuses one more file than the quota allows. */
  reserve(tenantId: string, name: string): Promise<QuotaReservation> {
    return this.#ledger.reserve(tenantId, name);
  }

  async store(
    tenantId: string,
    name: string,
    chunks: AsyncIterable<Buffer>,
    options: StoreOptions = {},
  ): Promise<FirmwareRecord> {
    const { storage, catalogue, cache, clock, quota } = this.options;
    const reservation = options.reservation ?? (await this.reserve(tenantId, name));
    let record: FirmwareRecord;
    try {
      if (options.declaredBytes !== undefined) reservation.reach(options.declaredBytes);
      const writer = await storage.begin(tenantId, name);
      try {
        let size = 0;
        for await (const chunk of chunks) {
          size += chunk.length;
          reservation.reach(size);
          await writer.write(chunk);
        }
        const sealed = await writer.seal();
        record = { name, size: sealed.size, sha256: sealed.sha256, updatedAt: clock.now() };
        await catalogue.put(tenantId, record, { quota, swap: async () => void (await writer.commit()) });
      } catch (err) {
        await writer.abort();
        throw err;
      }
      reservation.stored(record.size);
    } finally {
      if (options.reservation === undefined) reservation.release();
    }
    await cache.evict(recordKey(tenantId, name));
    await this.options.onChanged?.(tenantId);
    return record;
  }

  /** The record of a tenant's firmware, from the data cache when it holds it. */
  describe(tenantId: string, name: string): Promise<FirmwareRecord | undefined> {
    return this.options.cache.getOrLoad(recordKey(tenantId, name), () => this.options.catalogue.get(tenantId, name), {
      ttlMs: RECORD_TTL_MS,
      tags: [firmwareTag(tenantId)],
    });
  }

  list(tenantId: string): Promise<FirmwareRecord[]> {
    return this.options.catalogue.list(tenantId);
  }

  open(tenantId: string, name: string, range?: ByteRange): Promise<Readable | undefined> {
    return this.options.storage.open(tenantId, name, range);
  }
}
