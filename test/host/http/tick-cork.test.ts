import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeCorked } from '../../../src/host/http/tick-cork.js';

/** A stream that records each write it is handed: one entry per batch. */
function recorder(): { socket: Duplex; batches: string[][] } {
  const batches: string[][] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, done) {
      batches.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      done();
    },
  });
  return { socket, batches };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('writeCorked', () => {
  it('frames for one socket in one loop turn leave in one write, in order; the next turn starts afresh', async () => {
    const a = recorder();
    const b = recorder();
    writeCorked(a.socket, Buffer.from('a1'));
    writeCorked(b.socket, Buffer.from('b1'));
    writeCorked(a.socket, Buffer.from('a2'));
    writeCorked(a.socket, Buffer.from('a3'));
    writeCorked(a.socket, Buffer.from('a4'));
    expect(a.batches).toEqual([]); // held until the turn's I/O is done
    await nextTurn();
    expect(a.batches).toEqual([['a1', 'a2', 'a3', 'a4']]);
    expect(b.batches).toEqual([['b1']]);
    writeCorked(a.socket, Buffer.from('a5'));
    await nextTurn();
    expect(a.batches).toEqual([['a1', 'a2', 'a3', 'a4'], ['a5']]);
  });

  it('frames written in separate ticks of one turn (one MQTT packet per tick) still leave together', async () => {
    const a = recorder();
    writeCorked(a.socket, Buffer.from('p1'));
    await new Promise<void>((resolve) => process.nextTick(resolve));
    writeCorked(a.socket, Buffer.from('p2'));
    await Promise.resolve();
    writeCorked(a.socket, Buffer.from('p3'));
    expect(a.batches).toEqual([]);
    await nextTurn();
    expect(a.batches).toEqual([['p1', 'p2', 'p3']]);
  });

  it("keeps order with the stream's other writes of the same turn (ws's control frames)", async () => {
    const a = recorder();
    writeCorked(a.socket, Buffer.from('frame'));
    writeCorked(a.socket, Buffer.from('frame2'));
    a.socket.write(Buffer.from('pong'));
    writeCorked(a.socket, Buffer.from('frame3'));
    await nextTurn();
    expect(a.batches.flat()).toEqual(['frame', 'frame2', 'pong', 'frame3']);
  });

  it('a socket ended within the turn still sends what was written before its end', async () => {
    const a = recorder();
    writeCorked(a.socket, Buffer.from('first'));
    writeCorked(a.socket, Buffer.from('last'));
    a.socket.end();
    await nextTurn();
    expect(a.batches.flat()).toEqual(['first', 'last']);
  });
});
