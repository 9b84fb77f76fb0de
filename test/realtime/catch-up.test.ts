import { describe, expect, it } from 'vitest';
import type { HistoryReader, ReadingsAfter } from '../../src/realtime/history-reader.js';
import { MemoryHistory } from '../../src/adapters/memory/memory-history.js';
import { CatchUp, type CatchUpSummary } from '../../src/realtime/catch-up.js';
import { Hub } from '../../src/realtime/hub.js';
import { MemoryConnection } from '../../src/adapters/memory/memory-connection.js';
import { HubOutboundMessage } from '../../src/wire/outbound-message.js';
import type { OutboundMessage } from '../../src/wire/message.js';
import type { Reading } from '../../src/wire/reading.js';
import type { Backplane } from '../../src/realtime/backplane.js';
import { eventually } from '../support/app-harness.js';

const reading = (seq: number, deviceId = 'dev-1'): Reading => ({
  tenantId: 'demo',
  deviceId,
  seq,
  ts: seq,
  receivedAt: seq,
  data: { v: seq },
});

/** A history whose answers wait until the test releases them: live readings can arrive meanwhile. */
class PausedHistory implements HistoryReader {
  readonly memory = new MemoryHistory();
  readonly #waiting: (() => void)[] = [];
  fail = false;
  readingsAfter(tenantId: string, deviceId: string, afterSeq: number, max: number): Promise<ReadingsAfter> {
    return new Promise((resolve, reject) => {
      this.#waiting.push(() =>
        this.fail
          ? reject(new Error('database down'))
          : resolve(this.memory.readingsAfter(tenantId, deviceId, afterSeq, max)),
      );
    });
  }
  get waiting(): number {
    return this.#waiting.length;
  }
  /** Answers the oldest request, once it was made (the catch-up asks after a turn of the event loop). */
  async release(): Promise<void> {
    for (let turns = 0; this.#waiting.length === 0; turns++) {
      if (turns > 100) throw new Error('the history was never asked');
      await settle();
    }
    this.#waiting.shift()!();
    await settle();
  }
}

/** What the client saw, in order: `ack:{replayed}:{truncated}` for the answer, the seq for each reading, the text for other messages. */
function setup(options: { max?: number; maxHeld?: number; capacity?: number } = {}) {
  const hub = new Hub();
  const history = new PausedHistory();
  const catchUp = new CatchUp({ hub, history, max: options.max ?? 1000, maxHeld: options.maxHeld ?? 100 });
  const seen: (string | number)[] = [];
  const describeMessage = (m: OutboundMessage) => (m.kind === 'reading' ? (m.data as Reading).seq : String(m.data));
  const conn = new MemoryConnection({
    id: 'c1',
    tenantId: 'demo',
    userId: 'u',
    capacity: options.capacity ?? 64,
    onMessage: (m) => seen.push(describeMessage(m)),
  });
  hub.addConnection(conn);
  const accept = (seq: number, deviceId = 'dev-1') => {
    history.memory.record(reading(seq, deviceId));
    hub.publishReading(reading(seq, deviceId));
  };
  const start = (since: number, deviceId = 'dev-1') => {
    const summaries: CatchUpSummary[] = [];
    const result = catchUp.start({ connectionId: 'c1', tenantId: 'demo', deviceId, since }, (s) => {
      summaries.push(s);
      seen.push(`ack:${s.replayed}:${s.truncated}`);
    });
    return { result, summaries };
  };
  return { hub, history, conn, seen, accept, start };
}

/** Lets queued promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CatchUp', () => {
  it('answers, replays the readings after since, then the live ones held meanwhile: no gap, no duplicate', async () => {
    const { history, seen, accept, start } = setup();
    for (let seq = 1; seq <= 8; seq++) history.memory.record(reading(seq));
    expect(start(4).result).toBe('joined');
    // Accepted while the history is read: 9 and 10 are in history and live; the replay has them once.
    accept(9);
    accept(10);
    await history.release();
    accept(11);
    expect(seen).toEqual(['ack:6:false', 5, 6, 7, 8, 9, 10, 11]);
  });

  it('replays at most max readings, the newest, and says truncated', async () => {
    const { history, seen, start } = setup({ max: 3 });
    for (let seq = 1; seq <= 10; seq++) history.memory.record(reading(seq));
    start(2);
    await history.release();
    expect(seen).toEqual(['ack:3:true', 8, 9, 10]);
  });

  it('ends the catch-up as truncated when live readings overflow the hold, answering before any reading', async () => {
    const { history, seen, accept, start, hub } = setup({ maxHeld: 3 });
    for (let seq = 1; seq <= 5; seq++) history.memory.record(reading(seq));
    start(0);
    for (let seq = 6; seq <= 9; seq++) accept(seq);
    expect(seen).toEqual(['ack:0:true', 6, 7, 8, 9]);
    await settle();
    accept(10);
    // The history is not read any more: nothing older arrives once the live stream started.
    expect(history.waiting).toBe(0);
    expect(seen).toEqual(['ack:0:true', 6, 7, 8, 9, 10]);
    expect(hub.groupsOf('c1')).toEqual(['device:demo:dev-1']);
  });

  it('drops a reading the replay covered that the throttle releases late, until a newer one passes', async () => {
    const { history, seen, start, hub } = setup();
    for (let seq = 1; seq <= 6; seq++) history.memory.record(reading(seq));
    start(3);
    await history.release();
    hub.publishReading(reading(6));
    hub.sendToGroup(
      'device:demo:dev-1',
      new HubOutboundMessage({ kind: 'group', group: 'device:demo:dev-1' }, 'text', 'note'),
    );
    hub.publishReading(reading(7));
    hub.publishReading(reading(5));
    expect(seen).toEqual(['ack:3:false', 4, 5, 6, 'note', 7, 5]);
  });

  it('refuses a second catch-up of the same device on the connection while the first runs', async () => {
    const { history, start } = setup();
    expect(start(0).result).toBe('joined');
    expect(start(0).result).toBe('gated');
    await history.release();
    expect(start(0).result).toBe('joined');
  });

  it('still follows the device live when the history cannot be read, and says truncated', async () => {
    const { history, seen, start, accept } = setup();
    history.fail = true;
    start(0);
    accept(1);
    await history.release();
    accept(2);
    expect(seen).toEqual(['ack:0:true', 1, 2]);
  });

  it('replays nothing once the client unsubscribed during the catch-up', async () => {
    const { history, hub, seen, start } = setup();
    for (let seq = 1; seq <= 3; seq++) history.memory.record(reading(seq));
    start(0);
    hub.leave('c1', 'device:demo:dev-1');
    await settle();
    hub.publishReading(reading(4));
    expect(seen).toEqual(['ack:0:false']);
  });

  it("runs a connection's catch-ups one at a time, each after the client took the previous replay", async () => {
    const { history, conn, seen, start } = setup({ capacity: 2 });
    for (let seq = 1; seq <= 5; seq++) {
      history.memory.record(reading(seq, 'dev-1'));
      history.memory.record(reading(seq, 'dev-2'));
    }
    conn.pause();
    start(0, 'dev-1');
    start(0, 'dev-2');
    await history.release();
    await history.release();
    // The second answer waits while the client has not taken the first replay.
    expect(seen).toEqual(['ack:5:false']);
    conn.resume();
    await settle();
    expect(seen).toEqual(['ack:5:false', 1, 2, 3, 4, 5, 'ack:5:false', 1, 2, 3, 4, 5]);
  });

  describe('in a cluster, where other instances commit what they accepted a little later', () => {
    /** A lone connection on a hub; `commit` is what another instance's writer stores later. */
    function cluster(options: { head?: number; commitWaitMs?: number; watched?: Promise<void> } = {}) {
      const history = new MemoryHistory();
      const backplane: Backplane = {
        publish: () => {},
        onMessage: () => {},
        watch: () => options.watched ?? Promise.resolve(),
        unwatch: () => {},
        close: async () => {},
      };
      const hub = new Hub({ backplane });
      const head = options.head;
      let asked = 0;
      const counting: HistoryReader = {
        readingsAfter: (...args) => {
          asked++;
          return history.readingsAfter(...args);
        },
      };
      const catchUp = new CatchUp({
        hub,
        history: counting,
        max: 1000,
        head: () => head,
        commitWaitMs: options.commitWaitMs ?? 5000,
      });
      const seen: (string | number)[] = [];
      hub.addConnection(
        new MemoryConnection({
          id: 'c1',
          tenantId: 'demo',
          userId: 'u',
          capacity: 64,
          onMessage: (m) => seen.push(m.kind === 'reading' ? (m.data as Reading).seq : String(m.data)),
        }),
      );
      const start = () =>
        catchUp.start({ connectionId: 'c1', tenantId: 'demo', deviceId: 'dev-1', since: 0 }, (s) =>
          seen.push(`ack:${s.replayed}:${s.truncated}`),
        );
      return { hub, history, seen, start, asked: () => asked };
    }

    it("replays the readings up to the cluster's newest once the history holds them", async () => {
      const { history, seen, start, asked } = cluster({ head: 3 });
      history.record(reading(1));
      start();
      // Accepted and published elsewhere before this connection joined; committed only now.
      await eventually(() => asked() >= 2, 2000, 'the history asked again');
      expect(seen).toEqual([]);
      history.record(reading(2));
      history.record(reading(3));
      await eventually(() => seen.length > 0, 2000, 'the answer');
      expect(seen).toEqual(['ack:3:false', 1, 2, 3]);
    });

    it('replays up to the seq before the first live reading held, even past the head it knew', async () => {
      const { hub, history, seen, start, asked } = cluster({ head: 1 });
      history.record(reading(1));
      start();
      // Live 3 is held while the history is read: the history answers 1 (the head it knew), but 3
      // says 2 was accepted before it.
      hub.publishReading(reading(3));
      await eventually(() => asked() >= 2, 2000, 'the history asked again');
      expect(seen).toEqual([]);
      history.record(reading(2));
      await eventually(() => seen.includes(3), 2000, 'the live reading');
      expect(seen).toEqual(['ack:2:false', 1, 2, 3]);
    });

    it('reads the history only once readings of other instances reach this one', async () => {
      let watched!: () => void;
      const { hub, history, seen, start, asked } = cluster({
        watched: new Promise((resolve) => (watched = resolve)),
      });
      history.record(reading(1));
      start();
      await settle();
      expect(asked()).toBe(0);
      history.record(reading(2));
      watched();
      await eventually(() => seen.length > 0, 2000, 'the answer');
      hub.publishReading(reading(3));
      expect(seen).toEqual(['ack:2:false', 1, 2, 3]);
    });

    it('replays what the history has once the wait is over, when the newest never arrives (a seq skipped)', async () => {
      const { history, seen, start } = cluster({ head: 5, commitWaitMs: 60 });
      history.record(reading(1));
      start();
      await eventually(() => seen.length > 0, 2000, 'the answer');
      expect(seen).toEqual(['ack:1:false', 1]);
    });
  });
});
