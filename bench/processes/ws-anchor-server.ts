import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { BENCH } from '../harness/bench-config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';
import { deviceOfTopic, startAnchorFeed } from './anchor-feed.js';
import { textFrame } from '../../src/wire/web-socket-frame.js';

interface WsAnchorArgs {
  /** `frame`: one prebuilt WebSocket frame written to each member's TCP socket; `send`: ws.send(buffer) per member. */
  mode: 'frame' | 'send';
  /** Mosquitto URL; unset → an embedded aedes broker in this process. */
  mqttUrl?: string;
}

/**
 * Anchor: raw `ws` rooms. A client joins the room named by `?group=`; each MQTT payload is written
 * to every member of its device's room, unchanged. No auth, no backpressure: the practical ceiling.
 */
const args = processArgs<WsAnchorArgs>();
const rooms = new Map<string, Set<WebSocket>>();
const server = createServer((_req, res) => res.writeHead(404).end());
const wss = new WebSocketServer({ server, perMessageDeflate: false, clientTracking: false });
wss.on('connection', (ws, req) => {
  const group = new URL(req.url ?? '/', 'http://x').searchParams.get('group') ?? '';
  let room = rooms.get(group);
  if (room === undefined) rooms.set(group, (room = new Set()));
  room.add(ws);
  ws.on('close', () => room.delete(ws));
  ws.on('error', () => undefined);
});

const feed = await startAnchorFeed(args.mqttUrl, `tenants/${BENCH.tenant}/devices/+/telemetry`, (topic, payload) => {
  const room = rooms.get(deviceOfTopic(topic));
  if (room === undefined) return;
  if (args.mode === 'send') {
    for (const ws of room) ws.send(payload, { binary: false });
    return;
  }
  const frame = textFrame(payload);
  for (const ws of room) (ws as unknown as { _socket: Duplex })._socket.write(frame);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

serveParent(
  { stats: () => ({ rooms: rooms.size, members: [...rooms.values()].reduce((n, r) => n + r.size, 0) }) },
  { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, brokerUrl: feed.brokerUrl },
);
