/**
 * The HubConnection contract every transport's connection runs (the checkpoint-store pattern). What
 * the hub relies on when it hands a connection a message: delivery in send order; a transport that
 * is full ("false = written, and now full") keeps only the newest message per conflation key and
 * every unkeyed one up to a bound, and past the bound the connection closes as too slow; close
 * reasons reach the client; nothing is written after close. A new transport is one factory.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HubOutboundMessage } from '../../src/wire/outbound-message.js';
import type { HubConnection } from '../../src/realtime/hub-connection.js';
import type { CloseReason } from '../../src/wire/message.js';
import { eventually } from '../support/app-harness.js';

/** One connection of the transport under test, with a client at the other end. */
export interface ConnectionUnderTest {
  /** The server side, as the hub sees it. */
  readonly connection: HubConnection;
  /** The `data` of every message the client has read, in the order read. */
  readonly received: readonly unknown[];
  /** The client stops reading; the transport fills. */
  stall(): void;
  /** The client reads again. */
  resume(): void;
  /** Messages the connection holds back while its transport is full (its outbox); 0 while writable. */
  pending(): number;
  /** Resolves once the client saw the connection end, with the reason the client understood. */
  readonly closed: Promise<CloseReason>;
  /** Unkeyed messages this connection holds while full before it closes as too slow. */
  readonly maxUnkeyed: number;
  dispose(): Promise<void>;
}

/** What the contract's messages carry: a number in send order, a key, and padding to fill transports. */
export interface Payload {
  n: number;
  key: string | null;
  pad?: string;
}

const GROUP = 'device:demo:contract';
/** Big enough to fill a socket's buffers in a few hundred messages, small enough to keep memory low. */
const FILLER_PAD = 'x'.repeat(64 * 1024);
const MAX_FILL_BYTES = 256 * 1024 * 1024;

function message(n: number, key: string | null, pad?: string): HubOutboundMessage {
  const data: Payload = { n, key, ...(pad === undefined ? {} : { pad }) };
  return new HubOutboundMessage({ kind: 'group', group: GROUP }, 'json', data, key ?? undefined);
}

const numbers = (received: readonly unknown[]): number[] => received.map((d) => (d as Payload).n);
const ofKey = (received: readonly unknown[], key: string): number[] =>
  received.filter((d) => (d as Payload).key === key).map((d) => (d as Payload).n);

export function runHubConnectionContract(name: string, create: () => Promise<ConnectionUnderTest>): void {
  describe(`${name} (HubConnection contract)`, () => {
    let subject: ConnectionUnderTest;
    let next: number;
    beforeEach(async () => {
      subject = await create();
      next = 0;
    });
    afterEach(async () => subject.dispose());

    const send = (key: string | null, pad?: string): number => {
      const n = next++;
      subject.connection.send(message(n, key, pad));
      return n;
    };

    /**
     * Stalls the client and sends unkeyed fillers until the connection holds one back: the
     * transport said "full". Returns the fillers' numbers; every one of them must arrive.
     */
    const fill = (): number[] => {
      subject.stall();
      const fillers: number[] = [];
      while (subject.pending() === 0) {
        if (fillers.length * FILLER_PAD.length > MAX_FILL_BYTES) throw new Error('the transport never reported full');
        fillers.push(send(null, FILLER_PAD));
      }
      expect(subject.pending()).toBe(1);
      return fillers;
    };

    // Conflation keeps a key's first place in the queue (so a busy key is never starved), so the
    // newest of a key may overtake messages sent between; each key and the unkeyed stream keep order.
    it('delivers in send order per key and for unkeyed messages: every unkeyed one, and the newest of each key', async () => {
      const sent: Payload[] = [];
      for (let i = 0; i < 300; i++) {
        const key = i % 4 === 3 ? null : `k${i % 3}`;
        sent.push({ n: send(key), key });
      }
      const last = sent.at(-1)!.n;
      await eventually(() => numbers(subject.received).at(-1) === last, 10_000, 'the last message');

      const got = numbers(subject.received);
      expect(new Set(got).size).toBe(got.length);
      const unkeyed = sent.filter((p) => p.key === null).map((p) => p.n);
      expect(got.filter((n) => unkeyed.includes(n))).toEqual(unkeyed);
      for (const key of ['k0', 'k1', 'k2']) {
        const ofThisKey = ofKey(subject.received, key);
        expect(ofThisKey).toEqual([...ofThisKey].sort((a, b) => a - b));
        expect(ofThisKey.at(-1)).toBe(sent.filter((p) => p.key === key).at(-1)!.n);
      }
    });

    it('while the transport is full, keeps only the newest message per key, then delivers it after what was written', async () => {
      const fillers = fill();
      const newest = new Map<string, number>();
      for (let round = 0; round < 50; round++) {
        for (const key of ['a', 'b', 'c']) newest.set(key, send(key));
      }
      // Memory: the held-back filler and one message per key, however many were sent.
      expect(subject.pending()).toBe(4);

      subject.resume();
      await eventually(() => ofKey(subject.received, 'c').length > 0, 10_000, 'the newest of key c');
      for (const [key, n] of newest) expect(ofKey(subject.received, key)).toEqual([n]);
      expect(numbers(subject.received)).toEqual([...fillers, newest.get('a'), newest.get('b'), newest.get('c')]);
    });

    it('while full, holds every unkeyed message up to its bound and delivers them all, in order', async () => {
      const fillers = fill();
      const held: number[] = [];
      // The last filler is already held back.
      for (let i = 1; i < subject.maxUnkeyed; i++) held.push(send(null));
      expect(subject.pending()).toBe(subject.maxUnkeyed);

      subject.resume();
      await eventually(() => numbers(subject.received).at(-1) === held.at(-1), 10_000, 'every held message');
      expect(numbers(subject.received)).toEqual([...fillers, ...held]);
    });

    it('one unkeyed message past the bound closes the connection as too slow (policy), dropping what it held', async () => {
      const fillers = fill();
      for (let i = 1; i < subject.maxUnkeyed; i++) send(null);
      const overflow = send(null);
      // The connection is closed: sends after it neither throw nor reach the client.
      const after = [send(null), send('k')];

      subject.resume();
      expect(await subject.closed).toBe('policy');
      const got = numbers(subject.received);
      expect(got.every((n) => fillers.includes(n))).toBe(true);
      expect(got).not.toContain(overflow);
      for (const n of after) expect(got).not.toContain(n);
    });

    it.each<CloseReason>(['shutdown', 'kicked', 'token-expired', 'policy'])(
      'close(%s) reaches the client as that reason',
      async (reason) => {
        subject.connection.close(reason);
        expect(await subject.closed).toBe(reason);
      },
    );

    it('writes what was sent before close, nothing after it, and ignores a second close', async () => {
      const before = [send(null), send('k'), send(null)];
      subject.connection.close('kicked');
      const after = [send(null), send('k')];
      subject.connection.close('shutdown');

      expect(await subject.closed).toBe('kicked');
      expect(numbers(subject.received)).toEqual(before);
      expect(after.some((n) => numbers(subject.received).includes(n))).toBe(false);
    });
  });
}
