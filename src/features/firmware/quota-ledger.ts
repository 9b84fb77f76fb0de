import { checkQuota, type FirmwareQuota } from './firmware-quota.js';

/** One upload in flight, holding its bytes against its tenant's quota until released. */
export interface QuotaReservation {
  /**
   * The upload has reached `totalBytes` (or announced them, as a Content-Length): throws
   * FirmwareQuotaExceededError when the tenant's firmware would pass the quota with it, and the
   * reservation ends there.
   */
  reach(totalBytes: number): void;
  /** The upload was stored at `size`: later checks here count it without asking the catalogue. */
  stored(size: number): void;
  /** Ends the reservation; safe to call more than once. */
  release(): void;
}

interface TenantUploads {
  /** The tenant's stored files by name, as the catalogue listed them when its first upload began. */
  stored: Promise<Map<string, number>>;
  uploads: Set<Upload>;
}

interface Upload {
  readonly name: string;
  bytes: number;
}

/**
 * Uploads in flight on this instance, per tenant, so a streamed upload is refused at the very chunk
 * that takes its tenant past the quota, counting what the tenant's other uploads hold at that moment:
 * two uploads cannot each fit alone and together pass. A name being uploaded counts at the largest
 * size an upload of it has reached, its stored file not at all (a replaced file's old size is freed).
 * The catalogue is asked once per burst of uploads (while any is in flight the tenant's entry stays);
 * instances do not see each other's uploads, so the catalogue checks the quota again at commit.
 */
export class QuotaLedger {
  readonly #tenants = new Map<string, TenantUploads>();

  constructor(
    readonly quota: FirmwareQuota,
    private readonly storedSizes: (tenantId: string) => Promise<Map<string, number>>,
  ) {}

  /** A reservation for an upload of `name`; refuses one that would take the tenant past its number of files. */
  async reserve(tenantId: string, name: string): Promise<QuotaReservation> {
    let tenant = this.#tenants.get(tenantId);
    if (tenant === undefined) {
      tenant = { stored: this.storedSizes(tenantId), uploads: new Set() };
      this.#tenants.set(tenantId, tenant);
    }
    const entry = tenant;
    const upload: Upload = { name, bytes: 0 };
    entry.uploads.add(upload);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      entry.uploads.delete(upload);
      if (entry.uploads.size === 0 && this.#tenants.get(tenantId) === entry) this.#tenants.delete(tenantId);
    };
    try {
      const stored = await entry.stored;
      const reservation: QuotaReservation = {
        reach: (totalBytes) => {
          upload.bytes = Math.max(upload.bytes, totalBytes);
          try {
            this.#check(stored, entry.uploads);
          } catch (err) {
            // A refused upload is over: its bytes stop counting now, not once its partial file is gone.
            release();
            throw err;
          }
        },
        stored: (size) => void stored.set(name, size),
        release,
      };
      reservation.reach(0);
      return reservation;
    } catch (err) {
      release();
      throw err;
    }
  }

  #check(stored: Map<string, number>, uploads: Set<Upload>): void {
    const sizes = new Map(stored);
    const uploading = new Map<string, number>();
    for (const u of uploads) uploading.set(u.name, Math.max(uploading.get(u.name) ?? 0, u.bytes));
    for (const [name, bytes] of uploading) sizes.set(name, bytes);
    let bytes = 0;
    for (const size of sizes.values()) bytes += size;
    checkQuota(this.quota, bytes, sizes.size);
  }
}
