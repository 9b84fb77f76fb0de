import { describe, expect, it } from 'vitest';
import { Hub } from '../../src/realtime/hub.js';
import type { Transport } from '../../src/realtime/transport.js';
import { TransportConnection, type ReplayFrom } from '../../src/realtime/transport-connection.js';
import { HubOutboundMessage } from '../../src/wire/outbound-message.js';
import type { CloseReason, MessageCodec } from '../../src/wire/message.js';

/** A transport that keeps what it was given and is full after `room` frames until `drain()`. */
class RecordingTransport implements Transport<string> {
  readonly frames: string[] = [];
  closedWith: CloseReason | undefined;
  room = Infinity;
  #listener = (): void => undefined;
  get bufferedAmount(): number {
    return this.frames.length;
  }
  write(frame: string): boolean {
    this.frames.push(frame);
    return this.frames.length < this.room;
  }
  onDrain(listener: () => void): void {
    this.#listener = listener;
  }
  close(reason: CloseReason): void {
    this.closedWith = reason;
  }
  drain(): void {
    this.free(Infinity);
  }
  /** Room for `frames` more, then the connection may write. */
  free(frames: number): void {
    this.room = this.frames.length + frames;
    this.#listener();
  }
}

function setup(members: number) {
  let encodes = 0;
  const codec: MessageCodec<string> = { id: 'test/text', encode: (m) => (encodes++, JSON.stringify(m.data)) };
  const hub = new Hub();
  const transports = Array.from({ length: members }, (_, i) => {
    const transport = new RecordingTransport();
    hub.addConnection(
      new TransportConnection({
        id: `c${i}`,
        transportName: 'test',
        userId: undefined,
        tenantId: undefined,
        codec,
        transport,
      }),
    );
    hub.join(`c${i}`, 'g');
    return transport;
  });
  return { hub, transports, encodes: () => encodes };
}

const message = (n: number, key?: string) => new HubOutboundMessage({ kind: 'group', group: 'g' }, 'json', { n }, key);

describe('TransportConnection', () => {
  it('encodes a group message once and writes the same frame to every member', () => {
    const { hub, transports, encodes } = setup(3);
    hub.sendToGroup('g', message(1));
    expect(encodes()).toBe(1);
    expect(transports.map((t) => t.frames)).toEqual([['{"n":1}'], ['{"n":1}'], ['{"n":1}']]);
  });

  it('holds the newest message per key while its transport is full and writes it when the transport drains', () => {
    const { hub, transports } = setup(1);
    const [transport] = transports;
    transport!.room = 1;
    for (const n of [1, 2, 3]) hub.sendToGroup('g', message(n, 'k'));
    expect(transport!.frames).toEqual(['{"n":1}']);
    transport!.drain();
    expect(transport!.frames).toEqual(['{"n":1}', '{"n":3}']);
  });

  it('closes its transport with the hub’s reason and writes nothing after', () => {
    const { hub, transports } = setup(1);
    hub.closeConnection('c0', 'kicked');
    hub.sendToGroup('g', message(1));
    expect(transports[0]!.closedWith).toBe('kicked');
    expect(transports[0]!.frames).toEqual([]);
  });

  describe('held readings (trackHeldReadings)', () => {
    /** Opens replayHeld, which only a recovering transport calls. */
    class Recovering extends TransportConnection<string> {
      replay(from: ReplayFrom): void {
        this.replayHeld(from);
      }
    }
    const reading = (device: string, seq: number) =>
      new HubOutboundMessage(
        { kind: 'group', group: `device:t:${device}` },
        'json',
        { deviceId: device, seq },
        `device:t:${device}`,
        'reading',
      );

    function recovering() {
      const transport = new RecordingTransport();
      const codec: MessageCodec<string> = { id: 'test/seq', encode: (m) => JSON.stringify(m.data) };
      const connection = new Recovering({
        id: 'c',
        transportName: 'test',
        userId: undefined,
        tenantId: undefined,
        codec,
        transport,
        trackHeldReadings: true,
      });
      return { transport, connection };
    }

    it('hands each group held back the seq its client has, and drops the held readings of groups it replays', () => {
      const { transport, connection } = recovering();
      transport.room = 1;
      connection.send(reading('a', 1)); // written; the transport is full from here
      for (let seq = 2; seq <= 5; seq++) connection.send(reading('a', seq));
      for (let seq = 7; seq <= 9; seq++) connection.send(reading('b', seq));
      connection.send(reading('c', 3));
      connection.send(new HubOutboundMessage({ kind: 'server' }, 'json', { notice: true }));

      const asked: [string, number][] = [];
      connection.replay((group, since) => {
        asked.push([group, since]);
        return group !== 'device:t:c'; // c is declined: its newest held reading stays
      });
      expect(asked).toEqual([
        ['device:t:a', 1],
        ['device:t:b', 6],
        ['device:t:c', 2],
      ]);
      transport.drain();
      expect(transport.frames).toEqual(['{"deviceId":"a","seq":1}', '{"deviceId":"c","seq":3}', '{"notice":true}']);
    });

    it('moves a group’s seq up as its held readings are written, and forgets it once nothing is held', () => {
      const { transport, connection } = recovering();
      const asked: [string, number][] = [];
      const ask: ReplayFrom = (group, since) => (asked.push([group, since]), false);
      transport.room = 1;
      connection.send(reading('a', 1));
      connection.send(reading('a', 2));
      connection.send(reading('a', 3));
      transport.free(5); // a/3 goes: nothing is held any more
      connection.replay(ask);
      expect(asked).toEqual([]);

      transport.room = transport.frames.length + 1;
      connection.send(reading('a', 4)); // written, fills the transport
      connection.send(reading('b', 1));
      connection.send(reading('a', 5));
      connection.send(reading('a', 6));
      transport.free(1); // b/1 goes; a/6 is still held
      connection.send(reading('b', 2));
      transport.free(1); // a/6 goes; b/2 is held
      connection.send(reading('a', 7));
      connection.replay(ask);
      expect(asked).toEqual([
        ['device:t:b', 1],
        ['device:t:a', 6],
      ]);
    });
  });
});
