import type { RedisClient } from './redis-connection.js';
import type { Logger } from 'pino';
import type { BackplaneEnvelope } from '../../wire/backplane-codec.js';
import type { DeviceRegistry } from '../../realtime/device-registry.js';
import { LogThrottle } from '../../host/log-throttle.js';
import { parseDeviceGroup, type Reading } from '../../wire/reading.js';
import { isValidId } from '../../host/ids.js';
import type { FenceKeyOf } from './redis-ingest-lease.js';

/**
 * A tenant's last values (ARGV[3…]: device, reading, …) and the tenant (ARGV[2]) in the set of
 * tenants, stored only while KEYS[3] still holds fencing token ARGV[1] ('' for unfenced readings).
 */
const WRITE = `if ARGV[1] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('SADD', KEYS[2], ARGV[2])
return 1`;

type WithLastValues = RedisClient & {
  storeLastValues(
    key: string,
    tenants: string,
    fenceKey: string,
    fence: string,
    tenantId: string,
    ...deviceAndText: string[]
  ): Promise<number>;
};

/**
 * Each device's last reading in Redis (one hash per tenant, and the set of tenants), so an
 * instance that starts, restarts, or gets its first subscriber of a device answers `last` and the
 * device list at once. Bounded as the registry is: the ingester writes only devices its registry
 * took (`Hub:MaxDevicesPerTenant`). Writes are fire-and-forget; a failed one is logged, throttled.
 * They are gathered for one turn of the event loop (the newest per device) and stored in one call
 * per tenant, so the ingester pays one round trip per turn, not one per reading. A reading of an
 * ingest lease holding (`fence`) is stored only while that holding lasts.
 */
export class SharedLastValues {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #registry: DeviceRegistry;
  readonly #faults: LogThrottle;
  readonly #tenantReads = new Map<string, Promise<void>>();
  readonly #fenceKeyOf: FenceKeyOf;
  /** This turn's writes: per fencing token ('' unfenced; one per ingest partition held), per tenant, per device, the reading's text. */
  #batch = new Map<string, Map<string, Map<string, string>>>();
  #flushing = false;

  constructor(
    redis: RedisClient,
    options: { keyPrefix: string; fenceKeyOf: FenceKeyOf; registry: DeviceRegistry; log: Logger },
  ) {
    if (!('storeLastValues' in redis)) redis.defineCommand('storeLastValues', { numberOfKeys: 3, lua: WRITE });
    this.#redis = redis;
    this.#fenceKeyOf = options.fenceKeyOf;
    this.#prefix = options.keyPrefix;
    this.#registry = options.registry;
    this.#faults = new LogThrottle(options.log);
  }

  /** Stores a reading this instance accepted as its device's last. */
  write(reading: Reading): void {
    if (this.#redis.status !== 'ready') return;
    const text = JSON.stringify({
      tenantId: reading.tenantId,
      deviceId: reading.deviceId,
      seq: reading.seq,
      ts: reading.ts,
      receivedAt: reading.receivedAt,
      data: reading.data,
    });
    const fence = reading.fence === undefined ? '' : String(reading.fence);
    // A device already waiting under another fence (a management-API reading, then a leased one):
    // that batch goes first, so the device's values are written in the order they came.
    // Looked for only when the turn has batches under other fences (rare: a leased and an
    // unfenced reading, or two partitions, in one turn), not for every reading.
    if (this.#batch.size > 1 || (this.#batch.size === 1 && !this.#batch.has(fence)))
      for (const [other, waiting] of this.#batch)
        if (other !== fence && waiting.get(reading.tenantId)?.has(reading.deviceId)) {
          this.#flush();
          break;
        }
    let tenants = this.#batch.get(fence);
    if (tenants === undefined) this.#batch.set(fence, (tenants = new Map()));
    let devices = tenants.get(reading.tenantId);
    if (devices === undefined) tenants.set(reading.tenantId, (devices = new Map()));
    devices.set(reading.deviceId, text);
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushing = false;
    if (this.#batch.size === 0) return;
    const batch = this.#batch;
    this.#batch = new Map();
    for (const [fence, tenants] of batch) {
      const fenceKey = this.#fenceKeyOf(fence === '' ? 0 : Number(fence));
      for (const [tenantId, devices] of tenants) {
        const args: string[] = [];
        for (const [deviceId, text] of devices) args.push(deviceId, text);
        (this.#redis as WithLastValues)
          .storeLastValues(this.#tenantKey(tenantId), `${this.#prefix}tenants`, fenceKey, fence, tenantId, ...args)
          .catch((err: Error) => this.#faults.warn({ err: { message: err.message } }, 'last value not stored'));
      }
    }
  }

  /** Takes a reading another instance sent to its device group into the registry (newer only). */
  learn(envelope: BackplaneEnvelope): void {
    if (envelope.kind !== 'group' || envelope.message.kind !== 'reading') return;
    const device = parseDeviceGroup(envelope.group);
    const reading = envelope.message.data as Reading;
    if (
      device === null ||
      reading?.tenantId !== device.tenantId ||
      reading.deviceId !== device.deviceId ||
      !Number.isSafeInteger(reading.seq)
    )
      return;
    this.#registry.recordIfNewer(reading);
  }

  /** Takes every tenant's devices into the registry (newer local readings win). Never rejects. */
  async load(): Promise<number> {
    let loaded = 0;
    try {
      for (const tenantId of await this.#redis.smembers(`${this.#prefix}tenants`)) {
        if (!isValidId(tenantId)) continue;
        const devices = await this.#redis.hgetall(this.#tenantKey(tenantId));
        for (const text of Object.values(devices)) if (this.#take(tenantId, text)) loaded++;
      }
    } catch (err) {
      this.#faults.warn({ err: { message: (err as Error).message } }, 'last values not loaded');
    }
    return loaded;
  }

  /**
   * Takes a tenant's devices into the registry (for its device list). At most one read per tenant
   * is in flight; callers meanwhile share it. Never rejects.
   */
  refreshTenant(tenantId: string): Promise<void> {
    const running = this.#tenantReads.get(tenantId);
    if (running !== undefined) return running;
    if (this.#redis.status !== 'ready') return Promise.resolve();
    const read = this.#redis
      .hgetall(this.#tenantKey(tenantId))
      .then(
        (devices) => {
          for (const text of Object.values(devices)) this.#take(tenantId, text);
        },
        (err: Error) => this.#faults.warn({ err: { message: err.message } }, 'last values not read'),
      )
      .finally(() => this.#tenantReads.delete(tenantId));
    this.#tenantReads.set(tenantId, read);
    return read;
  }

  /** Takes one device group's last reading into the registry. Never rejects. */
  async refresh(group: string): Promise<void> {
    const device = parseDeviceGroup(group);
    if (device === null || this.#redis.status !== 'ready') return;
    try {
      const text = await this.#redis.hget(this.#tenantKey(device.tenantId), device.deviceId);
      if (text !== null) this.#take(device.tenantId, text);
    } catch (err) {
      this.#faults.warn({ err: { message: (err as Error).message } }, 'last value not read');
    }
  }

  #take(tenantId: string, text: string): boolean {
    let reading: Reading;
    try {
      reading = JSON.parse(text) as Reading;
    } catch {
      return false;
    }
    if (reading?.tenantId !== tenantId || !isValidId(reading.deviceId) || !Number.isSafeInteger(reading.seq))
      return false;
    return this.#registry.recordIfNewer(reading);
  }

  #tenantKey(tenantId: string): string {
    return `${this.#prefix}last:${tenantId}`;
  }
}
