import type { Clock } from '../host/clock.js';
import type { DeviceRegistry } from '../hub/device-registry.js';
import type { Reading } from '../protocol/reading.js';
import { DeviceThrottle } from './device-throttle.js';
import { emptyDropCounts, type DropReason } from './drop-reason.js';
import type { RawReading, ReadingSink, SinkResult } from './source.js';
import { validateReading } from './validate-reading.js';
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
  /**
   * Receives every accepted reading, after validation and `seq` and before the throttle (history:
   * the throttle limits what browsers see, not what is kept). Must not throw or wait.
   */
  accepted?(reading: Reading): void;
}

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
  readonly #throttle: DeviceThrottle<Reading>;
  readonly #warnIntervalMs: number;
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
    this.#onAccepted = options.accepted?.bind(options);
    this.#throttle = new DeviceThrottle<Reading>({
      maxPerSecond: options.maxPerSecond,
      clock: options.clock,
      emit: options.publish,
      onEmitError: (err, reading) => this.#logger.warn({ err, tenantId: reading.tenantId, deviceId: reading.deviceId }, 'publish failed'),
    });
  }

  offer(raw: RawReading): SinkResult {
    const now = this.#now();
    const result = validateReading(raw, now);
    if (!result.ok) {
      this.#drop(result.reason, raw, now);
      return { accepted: false, reason: result.reason };
    }
    const valid = result.value;
    // The registry keeps each device's last reading, so seq survives the throttle forgetting it.
    const last = this.#registry.last(valid.tenantId, valid.deviceId)?.seq ?? 0;
    if (raw.sequence !== undefined && raw.sequence <= last) {
      this.#drop('duplicate', raw, now);
      return { accepted: false, reason: 'duplicate' };
    }
    const seq = raw.sequence ?? last + 1;
    // Spelled out, not spread: one object shape for every reading keeps this hot path monomorphic.
    const reading: Reading = { tenantId: valid.tenantId, deviceId: valid.deviceId, seq, ts: valid.ts, receivedAt: valid.receivedAt, data: valid.data };
    if (valid.traceparent !== undefined) reading.traceparent = valid.traceparent;
    if (!this.#registry.record(reading)) {
      this.#drop('device_limit', raw, now);
      return { accepted: false, reason: 'device_limit' };
    }
    // The device's trace id beside the hub's seq: its logs and the hub's can be joined.
    if (reading.traceparent !== undefined) {
      this.#logger.debug?.({ tenantId: reading.tenantId, deviceId: reading.deviceId, seq, traceparent: reading.traceparent }, 'reading accepted');
    }
    this.#accepted++;
    this.#onAccepted?.(reading);
    this.#throttle.offer(`${valid.tenantId}\u0000${valid.deviceId}`, reading);
    return { accepted: true };
  }

  refused(reason: DropReason, raw: RawReading): void {
    this.#drop(reason, raw, this.#now());
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
