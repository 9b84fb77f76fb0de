import type { Clock } from '../host/clock.js';
import { LogThrottle } from '../host/log-throttle.js';
import type { DeviceListItem, DeviceRegistry } from './device-registry.js';
import type { Reading } from '../wire/reading.js';
import { DeviceThrottle } from './device-throttle.js';
import { emptyDropCounts, type DropReason } from '../wire/drop-reason.js';
import type { ReadingSink, SinkResult } from './ingestion-source.js';
import type { RawReading } from '../wire/raw-reading.js';
import type { SeqAllocator } from './seq-allocator.js';
import { SeqRefused } from '../wire/seq-refused.js';
import { readingOf } from '../wire/validate-reading.js';
import { readingIdentity } from '../wire/reading-identity.js';
import { deviceGroup } from '../wire/reading.js';
import type { RedeliveryWindow } from './redelivery-window.js';
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
  /**
   * Whether `accepted` can take `reserved + 1` more readings now (undefined) or when to ask again
   * (the history writer's room). Sources that acknowledge readings wait on it (`ReadingSink.ready`).
   */
  room?(reserved: number): Promise<void> | undefined;
  /**
   * Recognises a resendable reading (`RawReading.resendable`) delivered again (`redelivered`),
   * which then keeps its first `seq`. Default: none (every delivery is a new reading).
   */
  redelivery?: RedeliveryWindow;
  /**
   * Takes the device's last reading accepted anywhere in the cluster into the registry (the shared
   * last values). Asked before a transport-numbered reading (`sequence`) that may have been accepted
   * elsewhere (`redelivered`: an Event Hubs partition's new owner reading past its checkpoint), so a
   * copy the previous owner accepted is dropped as `duplicate`. Must not reject. Default: none.
   */
  recall?(tenantId: string, deviceId: string): Promise<void>;
  /**
   * Whether the ingest lease holding `fence` (`RawReading.fence`) still lasts, read when a reading
   * that waited for its seq or its identity is handed on. One whose holding lapsed meanwhile (the
   * process was stopped while Redis answered) is dropped as `fenced`, stored and delivered nowhere:
   * its successor, given it again by the broker, numbers it for the whole cluster. Default: lasts.
   */
  holds?(fence: number): boolean;
}

/** What a redelivered reading's seq promise resolves to: no seq, dropped. */
const REDELIVERED = -1;

/** An accepted reading waiting for its `seq` behind earlier ones. */
interface Pending {
  readonly raw: RawReading;
  /** Valid; its `seq` is set when it leaves the queue. */
  readonly reading: Reading;
  /**
   * Set once known; `failed` when the allocator could not answer (the seq is counted here),
   * `fenced` when it refused (the reading's lease holding is over: dropped), `redelivered` when
   * the redelivery window knew the reading (dropped).
   */
  seq: number | 'failed' | 'fenced' | 'redelivered' | undefined;
  /** What the redelivery window remembered of it, taken back if it is dropped as `fenced`. */
  readonly identity: string | undefined;
  /** When it reached the hub (monotonic ms): the throttle spaces readings by it, not by when their seq came. */
  readonly arrivedAt: number;
  /** Answers `SinkResult.settled`. */
  settle: ((result: SinkResult) => void) | undefined;
}

/** The answer to every accepted reading: one shared object, none allocated per reading. */
const ACCEPTED: SinkResult = Object.freeze({ accepted: true });
const FENCED: SinkResult = Object.freeze({ accepted: false, reason: 'fenced' });
const REDELIVERED_RESULT: SinkResult = Object.freeze({ accepted: false, reason: 'redelivered' });

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
  readonly #monotonicNow: () => number;
  /** Keyed by the registry's entry for the device: one lookup per reading, no key string built. */
  readonly #throttle: DeviceThrottle<Reading, DeviceListItem>;
  readonly #warnIntervalMs: number;
  /** Undefined: this instance counts alone, the next number after the last it knows. */
  readonly #seq: SeqAllocator | undefined;
  readonly #maxPending: number;
  /** In arrival order: a reading leaves only after every earlier one, whatever order answers come in. */
  readonly #pending: Pending[] = [];
  readonly #settledWaiters: (() => void)[] = [];
  /** A seq source that is down fails every reading: a few lines, not one each. */
  readonly #seqFaults: LogThrottle;
  readonly #onAccepted: ((reading: Reading) => void) | undefined;
  readonly #room: ((reserved: number) => Promise<void> | undefined) | undefined;
  readonly #redelivery: RedeliveryWindow | undefined;
  readonly #recall: ((tenantId: string, deviceId: string) => Promise<void>) | undefined;
  readonly #holds: ((fence: number) => boolean) | undefined;
  #accepted = 0;
  readonly #dropped = emptyDropCounts();
  /** Drops are warned about per reason: a flood of one reason cannot hide another. */
  readonly #dropWarnings: LogThrottle;

  constructor(options: ReadingPipelineOptions) {
    this.#registry = options.registry;
    this.#logger = options.logger;
    this.#now = () => options.clock.now();
    this.#monotonicNow = () => options.clock.monotonicNow();
    this.#warnIntervalMs = options.warnIntervalMs ?? 10_000;
    this.#seq = options.seq;
    this.#maxPending = options.maxPendingSeq ?? 10_000;
    this.#seqFaults = new LogThrottle(options.logger, this.#warnIntervalMs, this.#now);
    this.#dropWarnings = new LogThrottle(options.logger, this.#warnIntervalMs, this.#now);
    this.#onAccepted = options.accepted?.bind(options);
    this.#room = options.room?.bind(options);
    this.#redelivery = options.redelivery;
    this.#recall = options.recall?.bind(options);
    this.#holds = options.holds?.bind(options);
    this.#throttle = new DeviceThrottle<Reading, DeviceListItem>({
      maxPerSecond: options.maxPerSecond,
      clock: options.clock,
      emit: options.publish,
      onEmitError: (err, reading) =>
        this.#logger.warn({ err, tenantId: reading.tenantId, deviceId: reading.deviceId }, 'publish failed'),
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
    const recall = raw.sequence !== undefined && raw.redelivered === true ? this.#recall : undefined;
    if (raw.sequence !== undefined && !waiting && recall === undefined)
      return this.#accept(raw, reading, raw.sequence, known, now);
    if (waiting && this.#pending.length >= this.#maxPending) {
      this.#drop('backlog', raw, now);
      return { accepted: false, reason: 'backlog' };
    }
    // The registry keeps each device's last reading, so seq survives the throttle forgetting it.
    let seq: number | Promise<number>;
    let identity: string | undefined;
    try {
      if (raw.sequence !== undefined) {
        const sequence = raw.sequence;
        // The duplicate check in #accept then compares with what the cluster last accepted.
        seq = recall === undefined ? sequence : recall(reading.tenantId, reading.deviceId).then(() => sequence);
      } else {
        const window = this.#redelivery;
        identity = window === undefined || raw.resendable !== true ? undefined : readingIdentity(raw, reading);
        const seen = identity === undefined ? false : window!.seen(identity, raw.redelivered === true, raw.fence);
        if (seen === true) {
          this.#drop('redelivered', raw, now);
          return REDELIVERED_RESULT;
        }
        seq =
          seen === false
            ? this.#nextSeq(reading.tenantId, reading.deviceId, known?.last.seq ?? 0, raw.fence)
            : // Asked when the answer comes, with the floor then: earlier readings may have left the queue.
              seen.then((again) =>
                again
                  ? REDELIVERED
                  : this.#nextSeq(
                      reading.tenantId,
                      reading.deviceId,
                      this.#registry.entry(reading.tenantId, reading.deviceId)?.last.seq ?? 0,
                      raw.fence,
                    ),
              );
        // A lease holding's reading: once its seq is settled, the cluster's window remembers it under
        // the holding before it is handed on (or refuses it: the holding is over).
        const fence = raw.fence;
        if (identity !== undefined && fence !== undefined && window!.confirm !== undefined) {
          const id = identity;
          const group = deviceGroup(reading.tenantId, reading.deviceId);
          seq =
            typeof seq === 'number'
              ? this.#confirmed(seq, id, fence, group)
              : seq.then((n) => (n === REDELIVERED ? n : this.#confirmed(n, id, fence, group)));
        }
      }
    } catch (err) {
      if (!(err instanceof SeqRefused)) throw err;
      // Not taken: the broker's next delivery of it must count as new.
      if (identity !== undefined) this.#redelivery!.forget(identity);
      this.#drop('fenced', raw, now);
      return FENCED;
    }
    if (typeof seq === 'number' && !waiting) return this.#accept(raw, reading, seq, known, now);
    const entry: Pending = {
      raw,
      reading,
      seq: typeof seq === 'number' ? seq : undefined,
      identity,
      arrivedAt: this.#monotonicNow(),
      settle: undefined,
    };
    this.#pending.push(entry);
    if (typeof seq !== 'number') {
      seq
        .then(
          (n) => (entry.seq = n === REDELIVERED ? 'redelivered' : n),
          (err: unknown) => {
            if (err instanceof SeqRefused) return void (entry.seq = 'fenced');
            entry.seq = 'failed';
            this.#seqFaults.warn({ err: { message: (err as Error).message } }, 'seq not allocated; counted locally');
          },
        )
        .finally(() => this.#release());
    }
    // Its outcome is not known yet: a source that acknowledges waits for it.
    return { accepted: true, settled: new Promise<SinkResult>((resolve) => (entry.settle = resolve)) };
  }

  /** `seq` once the window remembered the reading for the cluster; REDELIVERED when it knew it. */
  #confirmed(seq: number, identity: string, fence: number, group: string): number | Promise<number> {
    const asked = this.#redelivery!.confirm!(identity, fence, seq, group);
    return asked === undefined ? seq : asked.then((again) => (again ? REDELIVERED : seq));
  }

  /** Hands on the readings at the head of the queue whose seq is known. */
  #release(): void {
    while (this.#pending.length > 0 && this.#pending[0]!.seq !== undefined) {
      const { raw, reading, identity, settle, seq: settled, arrivedAt } = this.#pending.shift()!;
      let seq = settled!;
      // Counted locally ('failed': Redis away) or not, a lapsed holding hands nothing on.
      if (seq !== 'fenced' && seq !== 'redelivered' && raw.fence !== undefined && this.#holds?.(raw.fence) === false)
        seq = 'fenced';
      if (seq === 'fenced' || seq === 'redelivered') {
        // A fenced reading was not taken: the broker's next delivery of it must count as new.
        if (seq === 'fenced' && identity !== undefined) this.#redelivery!.forget(identity);
        this.#drop(seq, raw, this.#now());
        settle?.(seq === 'fenced' ? FENCED : REDELIVERED_RESULT);
        continue;
      }
      // Looked up now: earlier readings of the device left the queue since this one arrived.
      const known = this.#registry.entry(reading.tenantId, reading.deviceId);
      const local = (known?.last.seq ?? 0) + 1;
      // Never below what this instance handed out: a counter that fell behind (Redis lost its
      // data) must not repeat a seq subscribers have seen.
      const result = this.#accept(
        raw,
        reading,
        raw.sequence !== undefined ? raw.sequence : seq === 'failed' ? local : Math.max(seq, local),
        known,
        this.#now(),
        arrivedAt,
      );
      settle?.(result);
    }
    if (this.#pending.length === 0) for (const wake of this.#settledWaiters.splice(0)) wake();
  }

  /** `known`: the device's registry entry, looked up once by the caller (undefined: a new device). */
  /** The next seq from the allocator, or counted here on the registry's floor when there is none. */
  #nextSeq(tenantId: string, deviceId: string, floor: number, fence: number | undefined): number | Promise<number> {
    return this.#seq === undefined ? floor + 1 : this.#seq.next(tenantId, deviceId, floor, fence);
  }

  /** `arrivedAt`: when a reading that waited for its seq reached the hub (monotonic ms); unset: now. */
  #accept(
    raw: RawReading,
    reading: Reading,
    seq: number,
    known: DeviceListItem | undefined,
    now: number,
    arrivedAt?: number,
  ): SinkResult {
    if (raw.sequence !== undefined && raw.sequence <= (known?.last.seq ?? 0)) {
      this.#drop('duplicate', raw, now);
      return { accepted: false, reason: 'duplicate' };
    }
    reading.seq = seq;
    if (raw.fence !== undefined) reading.fence = raw.fence;
    const entry = this.#registry.recordEntry(reading, known);
    if (entry === undefined) {
      this.#drop('device_limit', raw, now);
      return { accepted: false, reason: 'device_limit' };
    }
    // The device's trace id beside the hub's seq: its logs and the hub's can be joined.
    if (reading.traceparent !== undefined) {
      this.#logger.debug?.(
        { tenantId: reading.tenantId, deviceId: reading.deviceId, seq, traceparent: reading.traceparent },
        'reading accepted',
      );
    }
    this.#accepted++;
    this.#onAccepted?.(reading);
    this.#throttle.offer(entry, reading, arrivedAt);
    return ACCEPTED;
  }

  /** Readings waiting for their `seq` have counted on the room already: they reach `accepted` later. */
  ready(): Promise<void> | undefined {
    return this.#room?.(this.#pending.length);
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
    this.#dropWarnings.warn(
      { reason, tenantId: clip(raw.tenantId), deviceId: clip(raw.deviceId), bytes: raw.payload.byteLength },
      'reading dropped',
      reason,
      now,
    );
  }
}

/** Ids of dropped readings are untrusted: keep log lines short. */
function clip(id: string | undefined): string | undefined {
  if (typeof id !== 'string') return undefined;
  return id.length <= 64 ? id : `${id.slice(0, 64)}…`;
}
