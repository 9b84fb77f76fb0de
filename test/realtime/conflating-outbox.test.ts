import { describe, expect, it } from 'vitest';
import { ConflatingOutbox } from '../../src/wire/conflating-outbox.js';
import { HubOutboundMessage } from '../../src/wire/outbound-message.js';
import type { OutboundMessage } from '../../src/wire/message.js';

const keyed = (key: string, data: string) => new HubOutboundMessage({ kind: 'group', group: key }, 'text', data, key);
const plain = (data: string) => new HubOutboundMessage({ kind: 'server' }, 'text', data);

/** A transport whose buffer holds `capacity` messages until the test frees it. */
function transport(capacity: number) {
  const written: string[] = [];
  let buffered = 0;
  return {
    written,
    write: (m: OutboundMessage) => {
      written.push(m.data as string);
      buffered++;
      return buffered < capacity;
    },
    empty: () => {
      buffered = 0;
    },
  };
}

describe('ConflatingOutbox', () => {
  it('writes straight through while the transport keeps up', () => {
    const t = transport(Infinity);
    const outbox = new ConflatingOutbox({ write: t.write });
    expect(outbox.offer(keyed('d1', 'a'))).toBe('written');
    expect(outbox.offer(plain('b'))).toBe('written');
    expect(t.written).toEqual(['a', 'b']);
    expect(outbox.pendingCount).toBe(0);
  });

  it('keeps only the newest message per key while the transport is full, in arrival order of keys', () => {
    const t = transport(1);
    const outbox = new ConflatingOutbox({ write: t.write });
    outbox.offer(keyed('d1', 'd1-1')); // fills the transport
    expect(outbox.offer(keyed('d1', 'd1-2'))).toBe('queued');
    expect(outbox.offer(keyed('d2', 'd2-1'))).toBe('queued');
    expect(outbox.offer(plain('notice'))).toBe('queued');
    expect(outbox.offer(keyed('d1', 'd1-3'))).toBe('conflated');
    expect(outbox.offer(keyed('d2', 'd2-2'))).toBe('conflated');
    expect(outbox.conflated).toBe(2);
    expect(outbox.pendingCount).toBe(3);

    t.empty();
    outbox.drain();
    expect(t.written).toEqual(['d1-1', 'd1-3']);
    t.empty();
    outbox.drain();
    t.empty();
    outbox.drain();
    expect(t.written).toEqual(['d1-1', 'd1-3', 'd2-2', 'notice']);
    expect(outbox.pendingCount).toBe(0);
  });

  it('never writes past pending messages: new offers queue until drained', () => {
    const t = transport(2);
    const outbox = new ConflatingOutbox({ write: t.write });
    outbox.offer(plain('1'));
    outbox.offer(plain('2'));
    outbox.offer(plain('3'));
    t.empty();
    outbox.drain();
    outbox.offer(plain('4'));
    expect(t.written).toEqual(['1', '2', '3', '4']);
  });

  it('holds at most one message per key however long the transport stays full', () => {
    const t = transport(1);
    const outbox = new ConflatingOutbox({ write: t.write });
    outbox.offer(plain('fill'));
    for (let i = 0; i < 10_000; i++) outbox.offer(keyed(`device:demo:dev-${i % 50}`, String(i)));
    expect(outbox.pendingCount).toBe(50);
    expect(outbox.overflowed).toBe(false);
  });

  it('signals overflow when unkeyed messages exceed the bound, and keeps saying so', () => {
    const t = transport(1);
    const outbox = new ConflatingOutbox({ write: t.write, maxUnkeyed: 3 });
    outbox.offer(plain('fill'));
    expect([1, 2, 3].map((i) => outbox.offer(plain(String(i))))).toEqual(['queued', 'queued', 'queued']);
    expect(outbox.offer(plain('4'))).toBe('overflow');
    expect(outbox.overflowed).toBe(true);
    expect(outbox.pendingCount).toBe(0);
    expect(outbox.offer(keyed('d1', 'x'))).toBe('overflow');
  });

  it('bounds unkeyed messages at 1000 by default', () => {
    const t = transport(1);
    const outbox = new ConflatingOutbox({ write: t.write });
    outbox.offer(plain('fill'));
    for (let i = 0; i < 1000; i++) expect(outbox.offer(plain(String(i)))).toBe('queued');
    expect(outbox.offer(plain('one too many'))).toBe('overflow');
  });

  it('frees room in the bound as unkeyed messages drain', () => {
    const t = transport(1);
    const outbox = new ConflatingOutbox({ write: t.write, maxUnkeyed: 2 });
    outbox.offer(plain('fill'));
    outbox.offer(plain('1'));
    outbox.offer(plain('2'));
    t.empty();
    outbox.drain(); // writes '1', full again
    expect(outbox.offer(plain('3'))).toBe('queued');
    expect(outbox.overflowed).toBe(false);
  });

  it('idle() resolves once nothing is held back: at once, after a drain empties it, or when cleared', async () => {
    const t = transport(1);
    const outbox = new ConflatingOutbox({ write: t.write });
    let resolved = 0;
    await outbox.idle();
    outbox.offer(plain('a')); // fills the transport
    outbox.offer(plain('b'));
    outbox.offer(plain('c'));
    void outbox.idle().then(() => resolved++);
    t.empty();
    outbox.drain(); // writes b, full again with c held
    await Promise.resolve();
    expect(resolved).toBe(0);
    t.empty();
    outbox.drain();
    await Promise.resolve();
    expect(resolved).toBe(1);
    outbox.offer(plain('d'));
    void outbox.idle().then(() => resolved++);
    outbox.clear();
    await Promise.resolve();
    expect(resolved).toBe(2);
  });

  it('discard drops the pending messages it picks and keeps the others in order, freeing their room', async () => {
    const t = transport(1);
    const outbox = new ConflatingOutbox({ write: t.write, maxUnkeyed: 1 });
    outbox.offer(plain('first')); // fills the transport
    outbox.offer(keyed('d1', 'd1-1'));
    outbox.offer(plain('notice'));
    outbox.offer(keyed('d2', 'd2-1'));
    expect(outbox.discard((m) => m.data === 'd1-1' || m.data === 'notice')).toBe(2);
    expect(outbox.pendingCount).toBe(1);
    // The unkeyed bound counts what is still pending: the dropped notice left room for another.
    expect(outbox.offer(plain('again'))).toBe('queued');

    let idle = false;
    void outbox.idle().then(() => (idle = true));
    expect(outbox.discard(() => true)).toBe(2);
    await Promise.resolve();
    expect(idle).toBe(true);
    t.empty();
    outbox.drain();
    outbox.offer(plain('later'));
    expect(t.written).toEqual(['first', 'later']);
  });
});
