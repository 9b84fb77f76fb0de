import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import { Hub } from '../../../src/realtime/hub.js';
import { SocketIoTransport } from '../../../src/adapters/socketio/socketio-transport.js';
import { hostServices } from '../../../src/compose/host-services.js';
import { connectTelemetry, eventually } from '../../support/app-harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * What an idle socket.io session keeps: with thousands of them, whatever its handshake left
 * reachable is memory per connection (bench: idle memory). A session that joined the namespace
 * keeps neither its HTTP request nor its pending-handshake slot.
 */
describe('an idle socket.io session', () => {
  let server: Server;
  let url: string;
  const requests: WeakRef<IncomingMessage>[] = [];
  let released = 0;
  const clients: Socket[] = [];

  beforeAll(async () => {
    const transport = new SocketIoTransport({
      hub: new Hub(),
      registry: new DeviceRegistry(),
      authenticate: async (token) =>
        token === 'good'
          ? { ok: true, principal: { sub: 'u', tenantId: 'demo', roles: [], scheme: 'bearer' } }
          : { ok: false, reason: 'bad token' },
      log: pino({ level: 'silent' }),
      scopes: hostServices().build(),
    });
    server = createServer();
    server.on('upgrade', (req: IncomingMessage, socket, head) => {
      requests.push(new WeakRef(req));
      transport.handleUpgrade(req, socket, head, () => released++);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps neither its WebSocket handshake request nor its pending slot once it joined', async () => {
    const before = requests.length;
    for (let i = 0; i < 3; i++) clients.push(await connectTelemetry(url, 'good'));
    expect(released).toBe(3);
    const mine = requests.slice(before);
    await eventually(
      () => {
        gc();
        return mine.every((r) => r.deref() === undefined);
      },
      5000,
      'the handshake requests collected',
    );
    // Still a live session: it answers an ack.
    expect(
      await clients[0]!.timeout(2000).emitWithAck('subscribe', { deviceId: 'x', tenantId: 'other' }),
    ).toMatchObject({ ok: false });
  });

  it('a refused handshake frees its pending slot once', async () => {
    const before = released;
    await expect(connectTelemetry(url, 'bad')).rejects.toThrow('unauthorized');
    await eventually(() => released === before + 1, 5000, 'the slot released');
  });
});
