import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { SocketIoTransport } from '../../../src/adapters/socketio/socketio-transport.js';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import { Hub } from '../../../src/realtime/hub.js';
import { connectTelemetry, eventually } from '../../support/app-harness.js';
import { connectionScopeProbe } from '../../support/connection-scope-probe.js';

const running: { server: Server; transport: SocketIoTransport; clients: Socket[] }[] = [];
afterEach(async () => {
  for (const { server, transport, clients } of running.splice(0)) {
    for (const c of clients) c.close();
    await transport.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** The real transport behind a bare node:http server; the token names the user (tenant `demo`). */
async function serve(probe: ReturnType<typeof connectionScopeProbe>, clock?: ManualClock) {
  const hub = new Hub();
  const transport = new SocketIoTransport({
    hub,
    registry: new DeviceRegistry(),
    authenticate: async (token) =>
      token.startsWith('user-')
        ? {
            ok: true,
            principal: {
              sub: token,
              tenantId: 'demo',
              roles: [],
              scheme: 'bearer',
              ...(clock ? { expiresAt: clock.now() + 60_000 } : {}),
            },
          }
        : { ok: false, reason: 'bad token' },
    log: pino({ level: 'silent' }),
    scopes: probe.scopes,
    ...(clock ? { clock } : {}),
  });
  const server = createServer((req, res) => transport.handleRequest(req, res));
  server.on('upgrade', (req, socket, head) => transport.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const entry = { server, transport, clients: [] as Socket[] };
  running.push(entry);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connect = async (user: string) => {
    const client = await connectTelemetry(url, user);
    entry.clients.push(client);
    return client;
  };
  return { hub, transport, connect, url };
}

describe('a socket.io connection’s service scope', () => {
  it('is created when the connection opens, with who connected, and disposed newest first when it closes', async () => {
    const probe = connectionScopeProbe();
    const { transport, connect } = await serve(probe);

    const client = await connect('user-alice');
    await eventually(() => probe.events.length === 2, 5000, 'the scope opened');
    expect(probe.identities[0]).toMatchObject({ transport: 'socketio', userId: 'user-alice', tenantId: 'demo' });
    expect(probe.identities[0]!.connectionId).toBe(client.id);

    client.close();
    await eventually(() => probe.events.length === 4, 5000, 'the scope disposed');
    expect(probe.events).toEqual([
      'create log user-alice',
      'create cache user-alice',
      'dispose cache user-alice',
      'dispose log user-alice',
    ]);
    expect(transport.openScopes).toBe(0);
  });

  it('is disposed when the client’s connection drops without a goodbye', async () => {
    const probe = connectionScopeProbe();
    const { transport, connect } = await serve(probe);
    const client = await connect('user-alice');
    await eventually(() => transport.openScopes === 1, 5000, 'the scope opened');

    // The TCP connection cut under the client, as a network failure would.
    (client.io.engine.transport as unknown as { ws: { _socket: { destroy(): void } } }).ws._socket.destroy();

    await eventually(() => transport.openScopes === 0, 5000, 'the scope disposed');
    expect(probe.events.slice(2)).toEqual(['dispose cache user-alice', 'dispose log user-alice']);
  });

  it('is disposed when the hub ends the session at its token’s expiry', async () => {
    const clock = new ManualClock();
    const probe = connectionScopeProbe();
    const { transport, connect } = await serve(probe, clock);
    await connect('user-alice');
    await eventually(() => transport.openScopes === 1, 5000, 'the scope opened');

    clock.advance(60_000);

    await eventually(() => transport.openScopes === 0, 5000, 'the scope disposed');
    expect(probe.events.slice(2)).toEqual(['dispose cache user-alice', 'dispose log user-alice']);
  });

  it('opens none for a refused handshake', async () => {
    const probe = connectionScopeProbe();
    const { connect } = await serve(probe);

    await expect(connect('nobody')).rejects.toThrow('unauthorized');
    expect(probe.events).toEqual([]);
  });

  it('is disposed when the server stops with the client still connected', async () => {
    const probe = connectionScopeProbe();
    const { transport, connect } = await serve(probe);
    await connect('user-alice');
    await connect('user-bob');
    await eventually(() => transport.openScopes === 2, 5000, 'two scopes');

    await transport.close();

    expect(transport.openScopes).toBe(0);
    expect(probe.events.filter((e) => e.startsWith('dispose')).sort()).toEqual([
      'dispose cache user-alice',
      'dispose cache user-bob',
      'dispose log user-alice',
      'dispose log user-bob',
    ]);
    expect(probe.events.indexOf('dispose cache user-alice')).toBeLessThan(
      probe.events.indexOf('dispose log user-alice'),
    );
  });

  it('is where subscribe takes the user’s tenant from', async () => {
    // The scope supplies another tenant than the token's: subscribe follows the scope.
    const probe = connectionScopeProbe({ tenantOverride: 'scoped' });
    const { hub, connect } = await serve(probe);
    const client = await connect('user-alice');

    expect(await client.timeout(2000).emitWithAck('subscribe', { deviceId: 'd1' })).toMatchObject({ ok: true });
    expect(hub.groupsOf(client.id!)).toEqual(['device:scoped:d1']);
    expect(await client.timeout(2000).emitWithAck('subscribe', { deviceId: 'd2', tenantId: 'demo' })).toMatchObject({
      ok: false,
      error: { code: 'HUB_ERR_HUB_GROUP_FORBIDDEN' },
    });
    expect(await client.timeout(2000).emitWithAck('unsubscribe', { deviceId: 'd1' })).toEqual({ ok: true });
    expect(hub.groupsOf(client.id!)).toEqual([]);
  });
});
