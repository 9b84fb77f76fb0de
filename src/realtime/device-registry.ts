import type { Reading } from '../wire/reading.js';
import { isValidId } from '../host/ids.js';
import { InvalidCursorError } from './invalid-cursor-error.js';

export interface DeviceListItem {
  deviceId: string;
  /** `receivedAt` of the device's last accepted reading. */
  lastSeen: number;
  last: Reading;
}

export interface DevicePage {
  items: DeviceListItem[];
  /** Pass back to continue after the last item; null when nothing followed it. */
  nextCursor: string | null;
}

export interface ListOptions {
  /** Default 100; a positive integer (the HTTP layer enforces its own upper bound). */
  limit?: number;
  /** From a previous page's `nextCursor`; absent for the first page. */
  cursor?: string | null;
}

interface TenantDevices {
  /** Device ids in ascending order: the pagination order. */
  readonly ids: string[];
  readonly byId: Map<string, DeviceListItem>;
}

export interface DeviceRegistryOptions {
  /**
   * At most this many devices over all tenants (default 100 000): a bound on memory whatever the
   * tenants do. A new device beyond it is refused.
   */
  maxDevices?: number;
  /**
   * At most this many devices per tenant (default 10 000). A tenant's new device beyond it is
   * refused: its devices already known keep their last value and `seq`, and no tenant can push
   * another's devices out, however many ids it invents.
   */
  maxDevicesPerTenant?: number;
}

/**
 * The devices each tenant has, ordered by id, with their last accepted reading. Cursors name
 * the last id returned, so a page continues strictly after it: devices appearing between
 * requests are neither repeated nor skipped. One entry per device; nothing else is kept.
 */
export class DeviceRegistry {
  readonly #tenants = new Map<string, TenantDevices>();
  readonly #maxDevices: number;
  readonly #maxPerTenant: number;
  #size = 0;

  constructor(options: DeviceRegistryOptions = {}) {
    this.#maxDevices = options.maxDevices ?? 100_000;
    this.#maxPerTenant = options.maxDevicesPerTenant ?? 10_000;
  }

  /** Devices over all tenants. */
  get size(): number {
    return this.#size;
  }

  /**
   * Remembers an accepted reading as its device's last. False, and nothing remembered, for a new
   * device with no room: its tenant is at `maxDevicesPerTenant` or the hub at `maxDevices`.
   */
  record(reading: Reading): boolean {
    return this.recordEntry(reading) !== undefined;
  }

  /**
   * `record`, returning the device's entry (the same object for the device's whole life: callers
   * may key per-device state by it), undefined when refused. `known`: the device's entry from
   * `entry()`, which saves the lookup.
   */
  recordEntry(reading: Reading, known?: DeviceListItem): DeviceListItem | undefined {
    if (known !== undefined) {
      known.last = reading;
      known.lastSeen = reading.receivedAt;
      return known;
    }
    const tenant = this.#tenants.get(reading.tenantId);
    const entry = tenant?.byId.get(reading.deviceId);
    if (entry !== undefined) {
      entry.last = reading;
      entry.lastSeen = reading.receivedAt;
      return entry;
    }
    if (this.#size >= this.#maxDevices || (tenant?.ids.length ?? 0) >= this.#maxPerTenant) return undefined;
    let devices = tenant;
    if (devices === undefined) {
      devices = { ids: [], byId: new Map() };
      this.#tenants.set(reading.tenantId, devices);
    }
    const created: DeviceListItem = { deviceId: reading.deviceId, lastSeen: reading.receivedAt, last: reading };
    devices.byId.set(reading.deviceId, created);
    devices.ids.splice(upperBound(devices.ids, reading.deviceId), 0, reading.deviceId);
    this.#size++;
    return created;
  }

  /** The device's entry (its last reading), or undefined for a device never seen. Not a copy: read it, do not keep it. */
  entry(tenantId: string, deviceId: string): DeviceListItem | undefined {
    return this.#tenants.get(tenantId)?.byId.get(deviceId);
  }

  /**
   * Records a reading learnt from elsewhere (another instance, shared state) unless this registry
   * has the device's same or a newer `seq` already. False when older or with no room.
   */
  recordIfNewer(reading: Reading): boolean {
    const last = this.last(reading.tenantId, reading.deviceId);
    if (last !== undefined && last.seq >= reading.seq) return false;
    return this.record(reading);
  }

  /** Whether `record` would keep a reading of this device: it is known, or there is room for it. */
  accepts(tenantId: string, deviceId: string): boolean {
    const tenant = this.#tenants.get(tenantId);
    if (tenant?.byId.has(deviceId)) return true;
    return this.#size < this.#maxDevices && (tenant?.ids.length ?? 0) < this.#maxPerTenant;
  }

  /** The device's last accepted reading, or undefined for a device never seen. */
  last(tenantId: string, deviceId: string): Reading | undefined {
    return this.#tenants.get(tenantId)?.byId.get(deviceId)?.last;
  }

  /** Number of devices a tenant has. */
  count(tenantId: string): number {
    return this.#tenants.get(tenantId)?.ids.length ?? 0;
  }

  /**
   * One page of a tenant's devices in id order. Throws InvalidCursorError for a cursor this
   * registry could not have issued and RangeError for a limit that is not a positive integer.
   */
  list(tenantId: string, options: ListOptions = {}): DevicePage {
    const limit = options.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    const after = options.cursor == null ? undefined : decodeCursor(options.cursor);
    const tenant = this.#tenants.get(tenantId);
    if (tenant === undefined) return { items: [], nextCursor: null };

    const start = after === undefined ? 0 : upperBound(tenant.ids, after);
    const ids = tenant.ids.slice(start, start + limit);
    const items = ids.map((id) => ({ ...tenant.byId.get(id)! }));
    const more = start + limit < tenant.ids.length;
    const lastId = ids[ids.length - 1];
    return { items, nextCursor: more && lastId !== undefined ? encodeCursor(lastId) : null };
  }
}

/** Index of the first id greater than `id`: where `id` goes, and where a page after it starts. */
function upperBound(ids: readonly string[], id: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function encodeCursor(deviceId: string): string {
  return Buffer.from(deviceId, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  // Buffer's decoder skips characters it does not know; the round trip makes it strict.
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isValidId(id) || encodeCursor(id) !== cursor) throw new InvalidCursorError();
  return id;
}
