import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import WebSocket from 'ws';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import { Hub } from '../../../src/realtime/hub.js';
import type { HubConnection } from '../../../src/realtime/hub-connection.js';
import type { CloseReason } from '../../../src/wire/message.js';
import type { SocketIoConnection } from '../../../src/adapters/socketio/socketio-connection.js';
import { SocketIoTransport } from '../../../src/adapters/socketio/socketio-transport.js';
import { hostServices } from '../../../src/compose/host-services.js';
import { runHubConnectionContract } from '../../realtime/hub-connection.case.js';
import { eventually } from '../../support/app-harness.js';

const NSP = '/telemetry';

/**
 * A socket.io connection made by the real transport (its slow-client handling included), with a
 * raw engine.io client over ws at the other end: unlike socket.io-client, it can stop reading.
 */
runHubConnectionContract('SocketIoConnection', async () => {
  const hub = new Hub();
  let connection: SocketIoConnection | undefined;
  const add = hub.addConnection.bind(hub);
  hub.addConnection = (c: HubConnection) => {
    connection = c as SocketIoConnection;
    add(c);
  };
  const server = createServer();
  const transport = new SocketIoTransport({
    hub,
    registry: new DeviceRegistry(),
    authenticate: async () => ({ ok: true, principal: { sub: 'u', tenantId: 'demo', roles: [], scheme: 'bearer' } }),
    log: pino({ level: 'silent' }),
    scopes: hostServices().build(),
  });
  // What the host pipeline's /socket.io endpoint does, without the pipeline.
  server.on('request', (req, res) => transport.handleRequest(req, res));
  server.on('upgrade', (req, socket, head) => transport.handleUpgrade(req, socket, head));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const ws = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`);
  const received: unknown[] = [];
  let hubClosed: CloseReason | undefined;
  let joined = false;
  ws.on('message', (raw) => {
    const text = raw.toString();
    if (text === '2') return void ws.send('3'); // engine.io ping → pong
    if (text.startsWith(`40${NSP},`)) joined = true;
    if (!text.startsWith(`42${NSP},`)) return;
    const [event, payload] = JSON.parse(text.slice(`42${NSP},`.length)) as [string, Record<string, unknown>];
    if (event === 'reading') received.push(payload);
    else if (event === 'message') received.push(payload.data);
    else if (event === 'hub_closed') hubClosed = payload.reason as CloseReason;
  });
  // socket.io tells a client to reconnect by closing its transport, and anything else by hub_closed first.
  const closed = new Promise<CloseReason>((resolve) => ws.on('close', () => resolve(hubClosed ?? 'shutdown')));
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(`40${NSP},${JSON.stringify({ token: 'any' })}`);
  await eventually(() => joined && connection !== undefined, 5000, 'the namespace connection');
  const socket = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  return {
    connection: connection!,
    received,
    stall: () => socket.pause(),
    resume: () => socket.resume(),
    pending: () => connection!.pending,
    closed,
    // The outbox's default: the transport does not set one.
    maxUnkeyed: 1000,
    async dispose() {
      socket.resume();
      ws.terminate();
      transport.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
});
