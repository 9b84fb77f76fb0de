import type { Reading } from '../../../src/wire/reading';
import type { DeviceSummary } from '../api/devices-api';
import { DeviceWindow, numericMetrics } from './device-window';
import { FixedRing } from './fixed-ring';
import { SeqGuard } from './seq-guard';

/** Points per sparkline. */
export const SPARK_POINTS = 60;

/** What the list knows about one device. */
export interface DeviceEntry {
  readonly id: string;
  /** Hub time (epoch ms) of the newest reading; null when never seen. */
  lastSeen: number | null;
  last: Reading | null;
  /** Recent values of `sparkMetric`, the first numeric metric the device reported. */
  readonly spark: FixedRing;
  sparkMetric: string | null;
  readonly guard: SeqGuard;
}

/**
 * All devices of the tenant, plus a sliding window for each followed one. Readings land here and nowhere
 * else; views pull what changed once per frame (`takeDirty`), never per reading.
 */
export class DeviceStore {
  private readonly entries = new Map<string, DeviceEntry>();
  private readonly windowsById = new Map<string, DeviceWindow>();
  private dirty = new Set<string>();
  /** Called once per device the first time it is known (REST page or a live reading). */
  onAdded: (entry: DeviceEntry) => void = () => {};

  constructor(private windowMs: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(id: string): DeviceEntry | undefined {
    return this.entries.get(id);
  }

  ids(): IterableIterator<string> {
    return this.entries.keys();
  }

  window(id: string): DeviceWindow | undefined {
    return this.windowsById.get(id);
  }

  /** Merges a `GET /v1/devices` item; never moves a device backwards in time. */
  upsertSummary(s: DeviceSummary): void {
    const e = this.ensure(s.deviceId);
    if (s.lastSeen !== null && (e.lastSeen === null || s.lastSeen > e.lastSeen)) {
      e.lastSeen = s.lastSeen;
      this.dirty.add(e.id);
    }
    if (s.last) this.ingest(s.last);
  }

  /** Takes a reading from any source. Returns false for a duplicate or stale one (seq ≤ last seen). */
  ingest(r: Reading): boolean {
    const e = this.ensure(r.deviceId);
    if (!e.guard.accept(r.seq, r.receivedAt)) return false;
    e.last = r;
    const seen = Number.isFinite(r.receivedAt) ? r.receivedAt : r.ts;
    if (e.lastSeen === null || seen > e.lastSeen) e.lastSeen = seen;
    const values = numericMetrics(r.data);
    e.sparkMetric ??= values.keys().next().value ?? null;
    const v = e.sparkMetric === null ? undefined : values.get(e.sparkMetric);
    if (v !== undefined) e.spark.push(v);
    this.windowsById.get(r.deviceId)?.push(r, values);
    this.dirty.add(e.id);
    return true;
  }

  /** Starts a chart window, seeded with the newest reading already known. */
  follow(id: string): DeviceWindow {
    let w = this.windowsById.get(id);
    if (!w) {
      w = new DeviceWindow(this.windowMs);
      const last = this.ensure(id).last;
      if (last) w.push(last);
      this.windowsById.set(id, w);
    }
    return w;
  }

  unfollow(id: string): void {
    this.windowsById.delete(id);
  }

  setWindowMs(ms: number, hubNow: number): void {
    this.windowMs = ms;
    for (const w of this.windowsById.values()) {
      w.windowMs = ms;
      w.evict(hubNow);
      w.version++;
    }
  }

  /** After any new connection (reconnect or mode switch): arms seq-restart detection and gap marking. */
  markReconnect(): void {
    for (const e of this.entries.values()) e.guard.markReconnect();
    for (const w of this.windowsById.values()) w.markReconnect();
  }

  /** Ids changed since the last call. */
  takeDirty(): Set<string> {
    const d = this.dirty;
    this.dirty = new Set();
    return d;
  }

  private ensure(id: string): DeviceEntry {
    let e = this.entries.get(id);
    if (!e) {
      e = {
        id,
        lastSeen: null,
        last: null,
        spark: new FixedRing(SPARK_POINTS),
        sparkMetric: null,
        guard: new SeqGuard(),
      };
      this.entries.set(id, e);
      this.dirty.add(id);
      this.onAdded(e);
    }
    return e;
  }
}
