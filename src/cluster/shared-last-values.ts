import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { BackplaneEnvelope } from '../hub/backplane.js';
import type { DeviceRegistry } from '../hub/device-registry.js';
import { LogThrottle } from '../host/log-throttle.js';
import { isValidId, parseDeviceGroup, type Reading } from '../protocol/reading.js';

/**
 * Each device's last reading in Redis (one hash per tenant, and the set of tenants), so an
 * instance that starts, restarts, or gets its first subscriber of a device answers `last` and the
 * device list at once. Bounded as the registry is: the ingester writes only devices its registry
 * took (`Hub:MaxDevicesPerTenant`). Writes are fire-and-forget; a failed one is logged, throttled.
 */
export class SharedLastValues {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #registry: DeviceRegistry;
  readonly #faults: LogThrottle;
  readonly #tenantReads = new Map<string, Promise<void>>();

  constructor(redis: Redis, options: { keyPrefix: string; registry: DeviceRegistry; log: Logger }) {
    this.#redis = redis;
    this.#prefix = options.keyPrefix;
    this.#registry = options.registry;
    this.#faults = new LogThrottle(options.log);
  }

  /** Stores a reading this instance accepted as its device's last. */
  write(reading: Reading): void {
    if (this.#redis.status !== 'ready') return;
    const text = JSON.stringify({ tenantId: reading.tenantId, deviceId: reading.deviceId, seq: reading.seq, ts: reading.ts, receivedAt: reading.receivedAt, data: reading.data });
    Promise.all([this.#redis.hset(this.#tenantKey(reading.tenantId), reading.deviceId, text), this.#redis.sadd(`${this.#prefix}tenants`, reading.tenantId)]).catch((err: Error) =>
      this.#faults.warn({ err: { message: err.message } }, 'last value not stored'),
    );
  }

  /** Takes a reading another instance sent to its device group into the registry (newer only). */
  learn(envelope: BackplaneEnvelope): void {
    if (envelope.kind !== 'group' || envelope.message.kind !== 'reading') return;
    const device = parseDeviceGroup(envelope.group);
    const reading = envelope.message.data as Reading;
    if (device === null || reading?.tenantId !== device.tenantId || reading.deviceId !== device.deviceId || !Number.isSafeInteger(reading.seq)) return;
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
    if (reading?.tenantId !== tenantId || !isValidId(reading.deviceId) || !Number.isSafeInteger(reading.seq)) return false;
    return this.#registry.recordIfNewer(reading);
  }

  #tenantKey(tenantId: string): string {
    return `${this.#prefix}last:${tenantId}`;
  }
}
