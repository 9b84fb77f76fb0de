// A stand-in for the hub, just enough for browser tests of the dashboard: static files, the dev token,
// paginated /v1/devices, socket.io `/telemetry`, and a Web PubSub-style endpoint with negotiate/subscribe.
import { createReadStream, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { Server } from 'socket.io';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Reading } from '../../src/wire/reading';

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

export interface FakeHub {
  url: string;
  /** Query strings of every `series` request, as `{deviceId}?{query}`. */
  seriesRequests: string[];
  /** Drops every live connection and refuses new ones for `ms`, while devices keep producing readings. */
  outage(ms: number): void;
  close(): Promise<void>;
}

export async function startFakeHub(root: string, deviceCount = 12, ratePerSecond = 4): Promise<FakeHub> {
  const ids = Array.from({ length: deviceCount }, (_, i) => `sim-${String(i + 1).padStart(3, '0')}`);
  const state = new Map(ids.map((id) => [id, { seq: 0, last: null as Reading | null }]));
  let refusing = false;
  const wps = new Map<string, { ws: WebSocket; groups: Set<string>; seq: number }>();

  const produce = (id: string): Reading => {
    const s = state.get(id)!;
    const t = Date.now();
    s.last = {
      tenantId: 'demo',
      deviceId: id,
      seq: ++s.seq,
      ts: t,
      receivedAt: t,
      data: { temperature: 20 + Math.random(), humidity: 40 + Math.random() },
    };
    return s.last;
  };
  ids.forEach(produce);

  const seriesRequests: string[] = [];
  /** Stored history in the contract's shape: one bucket per `bucket` from `from` to `to`, a slow wave. */
  const series = (deviceId: string, q: URLSearchParams) => {
    seriesRequests.push(`${deviceId}?${q}`);
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
    const [, n, u] = /^(\d+)([smhd])$/.exec(q.get('bucket') ?? '') ?? [];
    const bucketMs = Number(n) * unit[u as keyof typeof unit];
    const from = Number(q.get('from'));
    const to = Number(q.get('to'));
    if (!(bucketMs > 0) || !(from < to)) return null;
    const points = [];
    for (let t = Math.ceil(from / bucketMs) * bucketMs; t < to; t += bucketMs) {
      const avg = 20 + 5 * Math.sin(t / 3_600_000);
      points.push({
        t,
        count: 10,
        fields: { temperature: { min: avg - 1, max: avg + 1, avg }, humidity: { min: 40, max: 42, avg: 41 } },
      });
    }
    return { bucketMs, points };
  };
  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(body === undefined ? undefined : JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    // No session cookie here: the dashboard falls back to the development token, as on a real hub in Development.
    if (u.pathname === '/auth/token') return send(res, 401, { code: 'HUB_ERR_AUTH_UNAUTHENTICATED' });
    if (u.pathname === '/auth/dev-token')
      return send(res, 200, { token: 'dev.token.x', tenantId: 'demo', sub: 'tester' });
    if (u.pathname.startsWith('/v1/') || u.pathname.startsWith('/api/')) {
      if (req.headers.authorization !== 'Bearer dev.token.x') return send(res, 401, { code: 'HUB_ERR_AUTH_MISSING' });
    }
    if (u.pathname === '/v1/devices') {
      const cursor = u.searchParams.get('cursor');
      const start = cursor ? ids.indexOf(cursor) + 1 : 0;
      const page = ids.slice(start, start + 5); // small pages: the dashboard must follow the cursor
      const items = page.map((id) => ({
        deviceId: id,
        lastSeen: state.get(id)!.last!.receivedAt,
        last: state.get(id)!.last,
      }));
      return send(res, 200, { items, nextCursor: start + page.length < ids.length ? page.at(-1) : null });
    }
    const seriesPath = /^\/v1\/devices\/([^/]+)\/series$/.exec(u.pathname);
    if (seriesPath) {
      const body = series(decodeURIComponent(seriesPath[1]!), u.searchParams);
      return body ? send(res, 200, body) : send(res, 400, { code: 'HUB_ERR_HTTP_BAD_REQUEST' });
    }
    if (u.pathname === '/api/negotiate') {
      return refusing
        ? send(res, 503, { code: 'HUB_ERR_TEST_OUTAGE' })
        : send(res, 200, { url: `ws://${req.headers.host}/client/hubs/telemetry?access_token=x` });
    }
    if (u.pathname === '/api/subscribe') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const { connectionId, deviceId } = JSON.parse(body) as { connectionId: string; deviceId: string };
        const c = wps.get(connectionId);
        if (!c) return send(res, 404, { code: 'HUB_ERR_CONNECTION_NOT_FOUND' });
        c.groups.add(`device:demo:${deviceId}`);
        send(res, 204);
      });
      return;
    }
    let file = join(root, normalize(u.pathname));
    if (u.pathname === '/' || !existsSync(file)) file = join(root, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  };

  const server = createServer(handle);
  const io = new Server(server, { path: '/socket.io' });
  const nsp = io.of('/telemetry');
  nsp.use((socket, next) => {
    if (refusing) return next(Object.assign(new Error('outage'), { data: { code: 'HUB_ERR_TEST_OUTAGE' } }));
    return socket.handshake.auth?.token === 'dev.token.x'
      ? next()
      : next(Object.assign(new Error('unauthorized'), { data: { code: 'HUB_ERR_AUTH_MISSING' } }));
  });
  nsp.on('connection', (socket) => {
    socket.on('subscribe', ({ deviceId }: { deviceId: string }, ack: (a: unknown) => void) => {
      void socket.join(deviceId);
      ack({ ok: true, last: state.get(deviceId)?.last ?? null });
    });
    socket.on('unsubscribe', ({ deviceId }: { deviceId: string }, ack: (a: unknown) => void) => {
      void socket.leave(deviceId);
      ack({ ok: true, last: null });
    });
  });

  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (p) => (p.has('json.reliable.webpubsub.azure.v1') ? 'json.reliable.webpubsub.azure.v1' : false),
  });
  server.on('upgrade', (req, sock, head) => {
    if (!req.url?.startsWith('/client/hubs/telemetry')) return;
    if (refusing) return sock.destroy();
    wss.handleUpgrade(req, sock, head, (ws) => {
      const connectionId = `c-${Math.random().toString(36).slice(2)}`;
      const c = { ws, groups: new Set<string>(), seq: 0 };
      wps.set(connectionId, c);
      ws.send(
        JSON.stringify({ type: 'system', event: 'connected', userId: 'tester', connectionId, reconnectionToken: 'r' }),
      );
      ws.on('message', (m) => {
        const msg = JSON.parse(String(m)) as {
          type: string;
          group?: string;
          ackId?: number;
          event?: string;
          data?: { deviceId?: string };
        };
        if (msg.type === 'leaveGroup' && msg.group) c.groups.delete(msg.group);
        // The hub method over the socket; this fake keeps no history, so `since` replays nothing.
        if (msg.type === 'event' && msg.event === 'subscribe' && msg.data?.deviceId)
          c.groups.add(`device:demo:${msg.data.deviceId}`);
        if (msg.ackId !== undefined) ws.send(JSON.stringify({ type: 'ack', ackId: msg.ackId, success: true }));
      });
      ws.on('close', () => wps.delete(connectionId));
    });
  });

  const timer = setInterval(() => {
    for (const id of ids) {
      const r = produce(id);
      if (refusing) continue;
      nsp.to(id).emit('reading', r);
      for (const c of wps.values()) {
        const group = `device:demo:${id}`;
        if (c.groups.has(group))
          c.ws.send(
            JSON.stringify({ type: 'message', from: 'group', group, dataType: 'json', data: r, sequenceId: ++c.seq }),
          );
      }
    }
  }, 1000 / ratePerSecond);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seriesRequests,
    outage(ms) {
      refusing = true;
      nsp.disconnectSockets(true);
      for (const c of wps.values()) c.ws.terminate();
      setTimeout(() => (refusing = false), ms);
    },
    async close() {
      clearInterval(timer);
      for (const c of wps.values()) c.ws.terminate();
      await new Promise<void>((resolve) => io.close(() => resolve()));
    },
  };
}
