import type { FirmwareQuota } from './firmware-quota.js';

/** What the hub records about a stored firmware file. `sha256` is lowercase hex; `updatedAt` epoch ms. */
export interface FirmwareRecord {
  name: string;
  size: number;
  sha256: string;
  updatedAt: number;
}

export interface PutOptions {
  /** Refuse (FirmwareQuotaExceededError, nothing recorded, `swap` not run) when the tenant's firmware would pass it. */
  quota?: FirmwareQuota;
  /** Makes the file's bytes visible (storage's commit): after the quota check, before the record is written. */
  swap?: () => Promise<void>;
}

/** Firmware metadata per tenant: in the database (row-level security per tenant), or in memory (adapters/memory). */
export interface FirmwareCatalogue {
  /**
   * Records `record`, replacing the tenant's record of the same name. Puts of one tenant run one at
   * a time (on every instance sharing the catalogue), so two cannot both pass the quota on the same totals.
   */
  put(tenantId: string, record: FirmwareRecord, options?: PutOptions): Promise<void>;
  get(tenantId: string, name: string): Promise<FirmwareRecord | undefined>;
  /** The tenant's records by name, ascending. */
  list(tenantId: string): Promise<FirmwareRecord[]>;
}
