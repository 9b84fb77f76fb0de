import type { Clock } from '../host/clock.js';
import { LogThrottle } from '../host/log-throttle.js';
import type { DeviceListItem, DeviceRegistry } from '../hub/device-registry.js';
import type { Reading } from '../protocol/reading.js';
import { DeviceThrottle } from './device-throttle.js';
import { emptyDropCounts, type DropReason } from './drop-reason.js';
import type { RawReading, ReadingSink, SinkResult } from './source.js';
import { localSeq, type SeqAllocator } from './seq-allocator.js';
import { readingOf } from './validate-reading.js';
import type { WarnLogger } from './warn-logger.js';

export interface ReadingPipelineOptions {
  registry: DeviceRegistry;
  /**
   * Receives throttled readings (the hub's publishReading), handed on by the throttle itself, so a
   * reading leaves ingestion without coming back here. Errors are logged, never thrown back.
   */
  publish(reading: Reading): void;
  logger: WarnLogger;
  /** Wall time for `receivedAt` and a missing `ts`; monotonic time and timers for the throttle. */
  clock: Clock;
  /** Contract `Throttle:MaxPerSecondPerDevice`; Infinity turns throttling off. Default 5. */
  maxPerSecond?: number;
  /** At most one drop warning per reason per this many ms. Default 10 000. */
  warnIntervalMs?: number;
  /** Where `seq` comes from when the transport does not number readings. Default: counted here. */
  seq?: SeqAllocator;
  /** Readings waiting for their `seq` at most; more are dropped (`backlog`). Default 10 000. */
  maxPendingSeq?: number;
  /**
   * Receives every accepted reading, after validation and `seq` and before the throttle (history:
   * the throttle limits what browsers see, not what is kept). Must not throw or wait.
   */
  accepted?(reading: Reading): void;
}

/** An accepted reading waiting for its `seq` behind earlier ones. */
interface Pending {
  readonly raw: RawReading;
  /** Valid; its `seq` is set when it leaves the queue. */
  readonly reading: Reading;
  /** Set once known; `failed` when the allocator could not answer (the seq is counted here). */
  seq: number | 'failed' | undefined;
}

/** The answer to every accepted reading: one shared object, none allocated per reading. */
const ACCEPTED: SinkResult = Object.freeze({ accepted: true });

export interface PipelineStats {
  accepted: number;
  dropped: Record<DropReason, number>;
  conflated: number;
  emitted: number;
}

/**
 * The ingestion sink: validate → assign `seq` → record in the registry → throttle → publish.
 * A bad reading, or one of a new device the registry has no room for, is counted by reason and dropped; nothing a device sends throws out of offer().
 */
export class ReadingPipeline implements ReadingSink {
  readonly #registry: DeviceRegistry;
  readonly #logger: WarnLogger;
  readonly #now: () => number;
  /** Keyed by the registry's entry for the device: one lookup per reading, no key string built. */
  readonly #throttle: DeviceThrottle<Reading, DeviceListItem>;
  readonly #warnIntervalMs: number;
  readonly #seq: SeqAllocator;
  readonly #maxPending: number;
  /** In arrival order: a reading leaves only after every earlier one, whatever order answers come in. */
  readonly #pending: Pending[] = [];
  readonly #settledWaiters: (() => void)[] = [];
  /** A seq source that is down fails every reading: a few lines, not one each. */
  readonly #seqFaults: LogThrottle;
  readonly #onAccepted: ((reading: Reading) => void) | undefined;
  #accepted = 0;
  readonly #dropped = emptyDropCounts();
  /** Per reason: when the last warning went out and how many drops it has not told about. */
  readonly #warned = new Map<DropReason, { at: number; suppressed: number }>();

  constructor(options: ReadingPipelineOptions) {
    this.#registry = options.registry;
    this.#logger = options.logger;
    this.#now = () => options.clock.now();
    this.#warnIntervalMs = options.warnIntervalMs ?? 10_000;
    this.#seq = options.seq ?? localSeq;
    this.#maxPending = options.maxPendingSeq ?? 10_000;
    this.#seqFaults = new LogThrottle(options.logger, this.#warnIntervalMs, this.#now);
    this.#onAccepted = options.accepted?.bind(options);
    this.#throttle = new DeviceThrottle<Reading, DeviceListItem>({
      maxPerSecond: options.maxPerSecond,
      clock: options.clock,
      emit: options.publish,
      onEmitError: (err, reading) => this.#logger.warn({ err, tenantId: reading.tenantId, deviceId: reading.deviceId }, 'publish failed'),
    });
  }

  offer(raw: RawReading): SinkResult {
    const now = this.#now();
    const reading = readingOf(raw, now);
    if (typeof reading === 'string') {
      this.#drop(reading, raw, now);
      return { accepted: false, reason: reading };
    }
    // The device's one lookup on the way in: its seq floor, the duplicate check and the record.
    const known = this.#registry.entry(reading.tenantId, reading.deviceId);
    if (known === undefined) {
      if (!this.#registry.accepts(reading.tenantId, reading.deviceId)) {
        this.#drop('device_limit', raw, now);
        return { accepted: false, reason: 'device_limit' };
      }
    } else {
      // The ids the device's entry already holds: kept readings (last value, history) then share
      // them, and the strings cut from this message's topic die young instead of being copied by GC.
      reading.tenantId = known.last.tenantId;
      reading.deviceId = known.deviceId;
    }
    const waiting = this.#pending.length > 0;
    if (raw.sequence !== undefined && !waiting) return this.#accept(raw, reading, raw.sequence, known, now);
    if (waiting && this.#pending.length >= this.#maxPending) {
      this.#drop('backlog', raw, now);
      return { accepted: false, reason: 'backlog' };
    }
    // The registry keeps each device's last reading, so seq survives the throttle forgetting it.
    const seq = raw.sequence ?? this.#seq.next(reading.tenantId, reading.deviceId, known?.last.seq ?? 0);
    if (typeof seq === 'number' && !waiting) return this.#accept(raw, reading, seq, known, now);
    const entry: Pending = { raw, reading, seq: typeof seq === 'number' ? seq : undefined };
    this.#pending.push(entry);
    if (typeof seq !== 'number') {
      seq.then(
        (n) => (entry.seq = n),
        (err: unknown) => {
          entry.seq = 'failed';
          this.#seqFaults.warn({ err: { message: (err as Error).message } }, 'seq not allocated; counted locally');
        },
      ).finally(() => this.#release());
    }
    return ACCEPTED;
  }

  /** Hands on the readings at the head of the queue whose seq is known. */
  #release(): void {
    while (this.#pending.length > 0 && this.#pending[0]!.seq !== undefined) {
      const { raw, reading, seq } = this.#pending.shift() as Pending & { seq: number | 'failed' };
      // Looked up now: earlier readings of the device left the queue since this one arrived.
      const known = this.#registry.entry(reading.tenantId, reading.deviceId);
      const local = (known?.last.seq ?? 0) + 1;
      // Never below what this instance handed out: a counter that fell behind (Redis lost its
      // data) must not repeat a seq subscribers have seen.
      this.#accept(raw, reading, seq === 'failed' ? local : raw.sequence !== undefined ? seq : Math.max(seq, local), known, this.#now());
    }
    if (this.#pending.length === 0) for (const wake of this.#settledWaiters.splice(0)) wake();
  }

  /** `known`: the device's registry entry, looked up once by the caller (undefined: a new device). */
  #accept(raw: RawReading, reading: Reading, seq: number, known: DeviceListItem | undefined, now: number): SinkResult {
    if (raw.sequence !== undefined && raw.sequence <= (known?.last.seq ?? 0)) {
      this.#drop('duplicate', raw, now);
      return { accepted: false, reason: 'duplicate' };
    }
    reading.seq = seq;
    const entry = this.#registry.recordEntry(reading, known);
    if (entry === undefined) {
      this.#drop('device_limit', raw, now);
      return { accepted: false, reason: 'device_limit' };
    }
    // The device's trace id beside the hub's seq: its logs and the hub's can be joined.
    if (reading.traceparent !== undefined) {
      this.#logger.debug?.({ tenantId: reading.tenantId, deviceId: reading.deviceId, seq, traceparent: reading.traceparent }, 'reading accepted');
    }
    this.#accepted++;
    this.#onAccepted?.(reading);
    this.#throttle.offer(entry, reading);
    return ACCEPTED;
  }

  refused(reason: DropReason, raw: RawReading): void {
    this.#drop(reason, raw, this.#now());
  }

  /** Resolves once no reading waits for its seq (each wait is bounded by the allocator's timeout). */
  async settled(): Promise<void> {
    while (this.#pending.length > 0) await new Promise<void>((resolve) => this.#settledWaiters.push(resolve));
  }

  /** Publishes every reading the throttle still holds; call at shutdown after sources stopped. */
  flush(): void {
    this.#throttle.flush();
  }

  stats(): PipelineStats {
    return {
      accepted: this.#accepted,
      dropped: { ...this.#dropped },
      conflated: this.#throttle.conflated,
      emitted: this.#throttle.emitted,
    };
  }

  #drop(reason: DropReason, raw: RawReading, now: number): void {
    this.#dropped[reason]++;
    const warned = this.#warned.get(reason);
    if (warned !== undefined && now - warned.at < this.#warnIntervalMs) {
      warned.suppressed++;
      return;
    }
    this.#logger.warn(
      {
        reason,
        tenantId: clip(raw.tenantId),
        deviceId: clip(raw.deviceId),
        bytes: raw.payload.byteLength,
        suppressed: warned?.suppressed ?? 0,
      },
      'reading dropped',
    );
    this.#warned.set(reason, { at: now, suppressed: 0 });
  }
}

/** Ids of dropped readings are untrusted: keep log lines short. */
function clip(id: string | undefined): string | undefined {
  if (typeof id !== 'string') return undefined;
  return id.length <= 64 ? id : `${id.slice(0, 64)}…`;
}
