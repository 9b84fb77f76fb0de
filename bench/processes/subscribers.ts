import { WebSocket } from 'ws';
import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../../src/wire/webpubsub/access-token.js';
import { deviceGroup } from '../../src/wire/reading.js';
import { signUserToken } from '../../src/host/security/jwt-bearer.js';
import { BENCH, deviceId, type SubscriberKind } from '../harness/bench-config.js';
import { benchClock } from '../harness/clock.js';
import { Histogram } from '../harness/histogram.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';

interface SubscribersArgs {
  kind: SubscriberKind;
  /** `http://127.0.0.1:PORT` of the server under test. */
  url: string;
  n: number;
  groups: number;
  /** The first `hot` subscribers all join group 0, the others groups 1 … groups−1 (the density scenario's big group). */
  hot?: number;
  /** Source address of every connection (127.0.0.x): one address has only ~28k ports towards one server port. */
  localAddress?: string;
}

/**
 * N WebSocket subscribers in one process, subscriber i in group i % groups. socket.io is spoken
 * directly over `ws` (Engine.IO v4 text packets: open, namespace connect, event, ack, ping/pong),
 * so the client side costs the same for every server and the server is what is measured. Each
 * reading's `ts` is found in the raw frame bytes (no JSON.parse) for the latency histogram.
 */
const args = processArgs<SubscribersArgs>();
const TS = Buffer.from('"ts":');
const sockets: WebSocket[] = [];
const histogram = new Histogram();
let received = 0;
let closed = 0;
let correctionMs = 0;
let resetAt = performance.now();
const wsUrl = args.url.replace(/^http/, 'ws');
const isSocketIo = args.kind === 'hub-sio' || args.kind === 'sio';

function onReading(data: Buffer): boolean {
  const i = data.indexOf(TS);
  if (i < 0) return false;
  const start = i + TS.length;
  let end = start;
  while (end < data.length && data[end] !== 0x2c && data[end] !== 0x7d) end++;
  const ts = Number(data.toString('latin1', start, end));
  received++;
  histogram.record(benchClock() - ts - correctionMs);
  return true;
}

/** Subscriber i's group. */
function groupOf(i: number): number {
  if (args.hot === undefined) return i % args.groups;
  return i < args.hot ? 0 : 1 + ((i - args.hot) % (args.groups - 1));
}

async function urlFor(i: number, tokens: Map<number, string>): Promise<{ url: string; protocols?: string[] }> {
  const g = groupOf(i);
  const device = deviceId(g);
  switch (args.kind) {
    case 'wps': {
      let token = tokens.get(g);
      if (token === undefined) {
        token = await mintClientAccessToken({
          accessKey: BENCH.accessKey,
          audience: clientAudience(args.url, BENCH.hubName),
          userId: `bench-${g}`,
          tenantId: BENCH.tenant,
          groups: [deviceGroup(BENCH.tenant, device)],
        });
        tokens.set(g, token);
      }
      return { url: clientAccessUrl(args.url, BENCH.hubName, token), protocols: ['json.webpubsub.azure.v1'] };
    }
    case 'hub-sio':
      return { url: `${wsUrl}/socket.io/?EIO=4&transport=websocket` };
    case 'sio':
      return { url: `${wsUrl}/socket.io/?EIO=4&transport=websocket&group=${device}` };
    case 'ws':
      return { url: `${wsUrl}/?group=${device}` };
  }
}

/** Opens subscriber i; resolves once it is in its group (the server said so), rejects otherwise. */
async function connectOne(i: number, tokens: Map<number, string>, userToken: string): Promise<void> {
  const { url, protocols } = await urlFor(i, tokens);
  const device = deviceId(groupOf(i));
  const ws = new WebSocket(url, protocols, {
    perMessageDeflate: false,
    ...(args.localAddress ? { localAddress: args.localAddress } : {}),
  });
  sockets.push(ws);
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    const timer = setTimeout(() => fail(new Error('subscribe timed out')), 30_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      ws.terminate();
      reject(err);
    };
    const becomeReady = () => {
      ready = true;
      clearTimeout(timer);
      resolve();
    };
    ws.on('error', (err) => {
      if (!ready) fail(err);
    });
    ws.on('close', () => {
      if (ready) closed++;
      else fail(new Error('closed before subscribed'));
    });
    if (args.kind === 'ws') ws.on('open', becomeReady);
    ws.on('message', (data: Buffer) => {
      if (isSocketIo && data.length === 1 && data[0] === 0x32) {
        ws.send('3'); // Engine.IO ping → pong
        return;
      }
      if (ready) {
        onReading(data);
        return;
      }
      const text = data.toString('utf8');
      switch (args.kind) {
        case 'wps':
          if (text.includes('"connected"')) becomeReady();
          return;
        case 'sio':
          if (text.startsWith('0{')) ws.send('40');
          else if (text.startsWith('40')) becomeReady();
          else if (text.startsWith('44')) fail(new Error(text));
          return;
        case 'hub-sio':
          if (text.startsWith('0{')) ws.send(`40/telemetry,${JSON.stringify({ token: userToken })}`);
          else if (text.startsWith('40/telemetry,'))
            ws.send(`42/telemetry,1${JSON.stringify(['subscribe', { deviceId: device }])}`);
          else if (text.startsWith('43/telemetry,1['))
            text.includes('"ok":true') ? becomeReady() : fail(new Error(text));
          else if (text.startsWith('44/telemetry,')) fail(new Error(text));
          return;
        case 'ws':
          return;
      }
    });
  });
}

async function connectAll(
  concurrency: number,
): Promise<{ connected: number; failed: number; error?: string; ms: number }> {
  const started = Date.now();
  const tokens = new Map<number, string>();
  const userToken = await signUserToken({
    sub: 'bench-user',
    tenantId: BENCH.tenant,
    ...BENCH.jwt,
    expiresInSeconds: 7200,
  });
  let next = 0;
  let connected = 0;
  let failed = 0;
  let error: string | undefined;
  const worker = async () => {
    while (next < args.n) {
      const i = next++;
      try {
        await connectOne(i, tokens, userToken);
        connected++;
      } catch (err) {
        failed++;
        error ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, args.n) }, worker));
  return { connected, failed, ...(error ? { error } : {}), ms: Date.now() - started };
}

serveParent({
  connect: (payload) => connectAll((payload as { concurrency?: number } | undefined)?.concurrency ?? 100),
  reset: (payload) => {
    correctionMs = (payload as { correctionMs: number }).correctionMs;
    histogram.reset();
    received = 0;
    resetAt = performance.now();
  },
  report: () => ({
    received,
    closed,
    latency: histogram.summary(),
    histogram: histogram.sparse(),
    seconds: (performance.now() - resetAt) / 1000,
  }),
  close: () => {
    for (const ws of sockets) ws.terminate();
    sockets.length = 0;
  },
});
