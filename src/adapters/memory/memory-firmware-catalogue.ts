import { checkQuota } from '../../features/firmware/firmware-quota.js';
import type { FirmwareCatalogue, FirmwareRecord, PutOptions } from '../../features/firmware/firmware-catalogue.js';

/** The in-process catalogue: one instance only; forgotten at restart (files stay on disk). */
export class MemoryFirmwareCatalogue implements FirmwareCatalogue {
  readonly #tenants = new Map<string, Map<string, FirmwareRecord>>();
  /** The tail of each tenant's puts: a put waits for the one before it (`swap` is asynchronous). */
  readonly #queues = new Map<string, Promise<unknown>>();

  async put(tenantId: string, record: FirmwareRecord, options: PutOptions = {}): Promise<void> {
    const previous = this.#queues.get(tenantId) ?? Promise.resolve();
    const turn = previous.then(() => this.#put(tenantId, record, options));
    const tail = turn.catch(() => undefined);
    this.#queues.set(tenantId, tail);
    try {
      await turn;
    } finally {
      if (this.#queues.get(tenantId) === tail) this.#queues.delete(tenantId);
    }
  }

  async #put(tenantId: string, record: FirmwareRecord, { quota, swap }: PutOptions): Promise<void> {
    const records = this.#tenants.get(tenantId) ?? new Map<string, FirmwareRecord>();
    if (quota !== undefined) {
      let bytes = record.size;
      for (const r of records.values()) if (r.name !== record.name) bytes += r.size;
      checkQuota(quota, bytes, records.size + (records.has(record.name) ? 0 : 1));
    }
    await swap?.();
    this.#tenants.set(tenantId, records);
    records.set(record.name, { ...record });
  }

  async get(tenantId: string, name: string): Promise<FirmwareRecord | undefined> {
    const record = this.#tenants.get(tenantId)?.get(name);
    return record && { ...record };
  }

  async list(tenantId: string): Promise<FirmwareRecord[]> {
    return [...(this.#tenants.get(tenantId)?.values() ?? [])]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((r) => ({ ...r }));
  }
}
