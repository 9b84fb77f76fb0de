/** What the hub records about a stored firmware file. `sha256` is lowercase hex; `updatedAt` epoch ms. */
export interface FirmwareRecord {
  name: string;
  size: number;
  sha256: string;
  updatedAt: number;
}

/** Firmware metadata per tenant: in the database (row-level security per tenant), or in memory. */
export interface FirmwareCatalog {
  /** Records `record`, replacing the tenant's record of the same name. */
  put(tenantId: string, record: FirmwareRecord): Promise<void>;
  get(tenantId: string, name: string): Promise<FirmwareRecord | undefined>;
  /** The tenant's records by name, ascending. */
  list(tenantId: string): Promise<FirmwareRecord[]>;
}

/** The in-process catalogue: one instance only; forgotten at restart (files stay on disk). */
export class MemoryFirmwareCatalog implements FirmwareCatalog {
  readonly #tenants = new Map<string, Map<string, FirmwareRecord>>();

  async put(tenantId: string, record: FirmwareRecord): Promise<void> {
    let records = this.#tenants.get(tenantId);
    if (records === undefined) this.#tenants.set(tenantId, (records = new Map()));
    records.set(record.name, { ...record });
  }

  async get(tenantId: string, name: string): Promise<FirmwareRecord | undefined> {
    const record = this.#tenants.get(tenantId)?.get(name);
    return record && { ...record };
  }

  async list(tenantId: string): Promise<FirmwareRecord[]> {
    return [...(this.#tenants.get(tenantId)?.values() ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1)).map((r) => ({ ...r }));
  }
}
