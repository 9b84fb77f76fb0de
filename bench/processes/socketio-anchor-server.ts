import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { BENCH } from '../harness/bench-config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';
import { deviceOfTopic, startAnchorFeed } from './anchor-feed.js';

interface SocketIoAnchorArgs {
  mqttUrl?: string;
}

/**
 * Anchor: plain socket.io rooms, as one would write them without the hub. A client joins the room
 * named by its handshake query `group`; each MQTT payload is parsed and emitted to its device's
 * room as a `reading` event (socket.io encodes a room broadcast once).
 */
const args = processArgs<SocketIoAnchorArgs>();
const server = createServer();
const io = new Server(server, { serveClient: false, transports: ['websocket'] });
io.on('connection', (socket) => {
  const group = socket.handshake.query.group;
  if (typeof group === 'string') void socket.join(group);
});

const feed = await startAnchorFeed(args.mqttUrl, `tenants/${BENCH.tenant}/devices/+/telemetry`, (topic, payload) => {
  io.to(deviceOfTopic(topic)).emit('reading', JSON.parse(payload.toString('utf8')) as unknown);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

serveParent(
  { stats: () => ({ sockets: io.engine.clientsCount }) },
  { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, brokerUrl: feed.brokerUrl },
);
