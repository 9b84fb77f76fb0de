import { describe, expect, it } from 'vitest';
import { Hub } from '../../src/realtime/hub.js';
import type { Transport } from '../../src/realtime/transport.js';
import { TransportConnection } from '../../src/realtime/transport-connection.js';
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
    this.room = Infinity;
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
});
