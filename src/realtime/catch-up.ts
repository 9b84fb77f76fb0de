import type { HistoryReader, ReadingsAfter } from './history-reader.js';
import { systemClock, type Clock } from '../host/clock.js';
import { deviceGroup, toWireReading, type Reading } from '../wire/reading.js';
import { CatchUpGate } from './catch-up-gate.js';
import type { GatedJoinResult, Hub } from './hub.js';
import { HubOutboundMessage } from '../wire/outbound-message.js';

export interface CatchUpOptions {
  readonly hub: Hub;
  readonly history: HistoryReader;
  /** Readings one catch-up replays at most, the newest kept (`Hub:CatchUpMax`). */
  readonly max: number;
  /**
   * Live messages held per catch-up while its history is read; one more ends the catch-up as
   * truncated and goes live. Default 1000 (over three minutes of a device at the default throttle).
   */
  readonly maxHeld?: number;
  readonly log?: { warn(obj: object, msg: string): void };
  /**
   * The newest seq the cluster has accepted of a device (its last value), when readings another
   * instance accepted reach this history only once that instance commits them: the replay then
   * waits, at most `commitWaitMs`, until the history holds it. Unset: the history is this
   * instance's own (a lone hub, the in-memory history) and is complete when asked.
   */
  readonly head?: (tenantId: string, deviceId: string) => number | undefined;
  /** How long a replay waits for the history to hold the cluster's newest reading. Default 3000 ms. */
  readonly commitWaitMs?: number;
  readonly clock?: Clock;
}

/** A subscribe with `since`: the connection, the device (of the connection's tenant) and the last seq the client has. */
export interface CatchUpRequest {
  readonly connectionId: string;
  readonly tenantId: string;
  readonly deviceId: string;
  readonly since: number;
}

/** What the subscribe's answer says: readings replayed next, and whether older missed ones were left out. */
export interface CatchUpSummary {
  readonly replayed: number;
  readonly truncated: boolean;
}

/**
 * Gapless catch-up, shared by every transport. The connection joins the device group at once and
 * its live messages of the device are held while the history is read; then the transport answers
 * (`announce`, synchronously before anything follows), the readings after `since` are replayed in
 * seq order, and the held live ones the replay did not cover follow: no gap at the seam, no
 * duplicate. A connection's catch-ups run one at a time, each after the client took the last
 * one's replay, so memory stays within one replay per connection and `maxHeld` per pending one.
 */
export class CatchUp {
  readonly #hub: Hub;
  readonly #history: HistoryReader;
  readonly #max: number;
  readonly #maxHeld: number;
  readonly #log: CatchUpOptions['log'];
  readonly #head: CatchUpOptions['head'];
  readonly #commitWaitMs: number;
  readonly #clock: Clock;
  /** Per connection: the end of its last queued catch-up. */
  readonly #queues = new Map<string, Promise<void>>();

  constructor(options: CatchUpOptions) {
    this.#hub = options.hub;
    this.#history = options.history;
    this.#max = options.max;
    this.#maxHeld = options.maxHeld ?? 1000;
    this.#log = options.log;
    this.#head = options.head;
    this.#commitWaitMs = options.commitWaitMs ?? 3000;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Joins and starts the catch-up. On `joined`, `announce` is called exactly once, later, right
   * before the replay is sent; on anything else nothing happened (`gated`: a catch-up of this
   * device is running on this connection already).
   */
  start(request: CatchUpRequest, announce: (summary: CatchUpSummary) => void): GatedJoinResult {
    const group = deviceGroup(request.tenantId, request.deviceId);
    let announced = false;
    const once = (summary: CatchUpSummary) => {
      if (announced) return;
      announced = true;
      announce(summary);
    };
    let gate: CatchUpGate | undefined;
    const joined = this.#hub.tryJoinGated(request.connectionId, group, (connection) => {
      gate = new CatchUpGate(connection, this.#maxHeld, () => once({ replayed: 0, truncated: true }));
      return gate;
    });
    if (joined !== 'joined') return joined;
    const { connectionId } = request;
    const run = (this.#queues.get(connectionId) ?? Promise.resolve())
      .then(() => this.#run(request, group, gate!, once))
      .catch((err: unknown) => {
        this.#log?.warn({ err, connectionId }, 'catch-up failed');
        once({ replayed: 0, truncated: true });
        this.#hub.removeGate(connectionId, group, gate!);
      });
    this.#queues.set(connectionId, run);
    void run.then(() => {
      if (this.#queues.get(connectionId) === run) this.#queues.delete(connectionId);
    });
    return 'joined';
  }

  async #run(
    request: CatchUpRequest,
    group: string,
    gate: CatchUpGate,
    announce: (summary: CatchUpSummary) => void,
  ): Promise<void> {
    const { connectionId, tenantId, deviceId, since } = request;
    if (gate.overflowed || !this.#hub.hasGate(connectionId, group, gate))
      return announce({ replayed: 0, truncated: false });
    let found: ReadingsAfter;
    try {
      // From here on other instances' readings of the device reach the gate: whatever the replay
      // must cover was accepted before this point.
      await this.#hub.groupReady(group);
      found = await this.#readCommitted(request, gate);
    } catch (err) {
      // The live subscription stands; the client learns that what it missed is not coming.
      this.#log?.warn({ err, tenantId, deviceId }, 'catch-up history unavailable');
      found = { readings: [], truncated: true };
    }
    await gate.connection.drained?.();
    if (gate.overflowed) return;
    if (!this.#hub.hasGate(connectionId, group, gate)) return announce({ replayed: 0, truncated: found.truncated });
    announce({ replayed: found.readings.length, truncated: found.truncated });
    for (const reading of found.readings) gate.connection.send(replayMessage(group, reading));
    if (!gate.open(found.readings.at(-1)?.seq)) this.#hub.removeGate(connectionId, group, gate);
  }

  /**
   * The history after `since`, once it holds every reading accepted before the live stream took
   * over: the cluster's newest seq when the group became ready, and the seq before the first live
   * one held. Another instance commits its readings a little after publishing them, so a replay
   * read at once could miss them; it is read again (25, 50, 100 … ms apart) until they are there or
   * `commitWaitMs` passed (a seq skipped at a failover never comes: the replay then goes without).
   */
  async #readCommitted(request: CatchUpRequest, gate: CatchUpGate): Promise<ReadingsAfter> {
    const { tenantId, deviceId, since } = request;
    const head = this.#head?.(tenantId, deviceId);
    let found = await this.#history.readingsAfter(tenantId, deviceId, since, this.#max);
    if (this.#head === undefined) return found;
    const deadline = this.#clock.monotonicNow() + this.#commitWaitMs;
    for (let pause = 25; ; pause *= 2) {
      const target = Math.max(head ?? 0, (gate.firstHeldSeq ?? 0) - 1);
      const newest = found.readings.at(-1)?.seq ?? since;
      const left = deadline - this.#clock.monotonicNow();
      if (newest >= target || left <= 0 || gate.overflowed) return found;
      await new Promise<void>((resolve) => this.#clock.setTimeout(resolve, Math.min(pause, left)));
      found = await this.#history.readingsAfter(tenantId, deviceId, since, this.#max);
    }
  }
}

/**
 * A replayed reading: the group message a live one is, but keyed by its seq, so a slow client's
 * outbox never conflates the replay away and it never counts against the unkeyed bound (the replay
 * itself is at most `Hub:CatchUpMax`).
 */
function replayMessage(group: string, reading: Reading): HubOutboundMessage {
  return new HubOutboundMessage(
    { kind: 'group', group },
    'json',
    toWireReading(reading),
    `${group}\u0000${reading.seq}`,
    'reading',
  );
}
