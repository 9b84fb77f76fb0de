import { WebPubSubClient, WebPubSubJsonReliableProtocol } from '@azure/web-pubsub-client';
import { io, type Socket } from 'socket.io-client';
import { signUserToken } from '../../src/host/security/jwt-bearer.js';
import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../../src/wire/webpubsub/access-token.js';
import type { WireReading } from '../../src/wire/reading.js';
import { messageNumber, SOAK } from '../soak/config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';

export interface SubscriberSpec {
  id: number;
  tenantId: string;
  /** Fleet index and device id of each device it follows. */
  follows: { index: number; deviceId: string }[];
  /** Where it connects: its own hub first, the next ones when that one refuses (or the proxy alone). */
  urls: string[];
}

interface SubscribersArgs {
  kind: 'socket.io' | 'web-pubsub';
  subscribers: SubscriberSpec[];
}

/** What one subscriber got of one device, in arrival order: each reading's number (from its msgId), seq and arrival time. */
export interface FollowRecord {
  subscriber: number;
  kind: SubscribersArgs['kind'];
  device: number;
  n: number[];
  seq: number[];
  at: number[];
}

/** Per subscriber: how often it (re)connected, subscribe refusals, truncated catch-ups, readings of another tenant. */
interface SubscriberState {
  spec: SubscriberSpec;
  records: Map<string, FollowRecord>;
  lastSeq: Map<string, number>;
  connected: boolean;
  sessions: number;
  refused: string[];
  truncated: number;
  foreign: number;
  /** Which url it tries next. */
  urlIndex: number;
}

/**
 * The soak's subscribers of one kind in one process. socket.io: socket.io-client, reconnecting by
 * itself on a delay to its hub, or the next one when its hub refuses. Web PubSub: the official
 * client on the reliable subprotocol (it recovers a dropped session by itself; a new session, e.g.
 * after its hub died, is a new `connected`). On every new connection or session, each followed
 * device is subscribed with `since` = the newest seq received of it, so catch-up fills the gap.
 */
const args = processArgs<SubscribersArgs>();
const states: SubscriberState[] = args.subscribers.map((spec) => ({
  spec,
  records: new Map(
    spec.follows.map((f) => [
      f.deviceId,
      { subscriber: spec.id, kind: args.kind, device: f.index, n: [], seq: [], at: [] } satisfies FollowRecord,
    ]),
  ),
  lastSeq: new Map(),
  connected: false,
  sessions: 0,
  refused: [],
  truncated: 0,
  foreign: 0,
  urlIndex: 0,
}));
let received = 0;
let subscribedOnce = 0;
const closers: (() => void)[] = [];
let closing = false;

function record(state: SubscriberState, reading: WireReading): void {
  received++;
  if (reading.tenantId !== state.spec.tenantId) {
    state.foreign++;
    return;
  }
  const r = state.records.get(reading.deviceId);
  if (r === undefined) return;
  r.n.push(messageNumber(String((reading.data as { msgId?: unknown }).msgId)));
  r.seq.push(reading.seq);
  r.at.push(Date.now());
  if (reading.seq > (state.lastSeq.get(reading.deviceId) ?? 0)) state.lastSeq.set(reading.deviceId, reading.seq);
}

/** The subscribe payload: without `since` on the first session (nothing was published yet), with it after. */
function subscribePayload(state: SubscriberState, deviceId: string): { deviceId: string; since?: number } {
  return state.sessions === 1 ? { deviceId } : { deviceId, since: state.lastSeq.get(deviceId) ?? 0 };
}

function markSubscribed(state: SubscriberState): void {
  state.connected = true;
  if (state.sessions === 1) subscribedOnce++;
}

function runSocketIo(state: SubscriberState, userToken: string): void {
  let socket: Socket | undefined;
  const connect = () => {
    if (closing) return;
    const url = state.spec.urls[state.urlIndex % state.spec.urls.length]!;
    const s = io(`${url}/telemetry`, {
      auth: { token: userToken },
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      timeout: 10_000,
    });
    socket = s;
    let done = false;
    const again = (nextUrl: boolean) => {
      if (done) return;
      done = true;
      state.connected = false;
      s.removeAllListeners();
      s.close();
      if (nextUrl) state.urlIndex++;
      setTimeout(connect, 300 + Math.random() * 700);
    };
    s.on('reading', (reading: WireReading) => record(state, reading));
    s.on('connect_error', () => again(true));
    s.on('disconnect', () => again(false));
    s.on('connect', async () => {
      state.sessions++;
      try {
        for (const f of state.spec.follows) {
          const ack = (await s.timeout(15_000).emitWithAck('subscribe', subscribePayload(state, f.deviceId))) as {
            ok: boolean;
            truncated?: boolean;
            error?: { code: string };
          };
          if (!ack.ok) throw new Error(ack.error?.code ?? 'refused');
          if (ack.truncated) state.truncated++;
        }
        markSubscribed(state);
      } catch (err) {
        state.refused.push(`${new Date().toISOString()} ${(err as Error).message}`);
        again(false);
      }
    });
  };
  closers.push(() => socket?.close());
  connect();
}

async function runWebPubSub(state: SubscriberState): Promise<void> {
  const tokens = new Map<string, string>();
  let calls = 0;
  let tried = 0;
  const client = new WebPubSubClient(
    {
      getClientAccessUrl: async () => {
        // The same hub first after a lost session, then the next ones in turn.
        tried = (state.urlIndex + calls++) % state.spec.urls.length;
        const base = state.spec.urls[tried]!;
        let token = tokens.get(base);
        if (token === undefined) {
          token = await mintClientAccessToken({
            accessKey: SOAK.accessKey,
            audience: clientAudience(base, SOAK.hubName),
            userId: `soak-${state.spec.id}`,
            tenantId: state.spec.tenantId,
            expiresInSeconds: 24 * 3600,
          });
          tokens.set(base, token);
        }
        return clientAccessUrl(base, SOAK.hubName, token);
      },
    },
    {
      protocol: WebPubSubJsonReliableProtocol(),
      autoRejoinGroups: false,
      reconnectRetryOptions: { retryDelayInMs: 500, maxRetryDelayInMs: 2000, mode: 'Exponential' },
      messageRetryOptions: { maxRetries: 0 },
    },
  );
  client.on('group-message', (e) => record(state, e.message.data as WireReading));
  client.on('server-message', (e) => {
    const catchUp = (e.message.data as { catchUp?: { truncated?: boolean } } | undefined)?.catchUp;
    if (catchUp?.truncated) state.truncated++;
  });
  client.on('disconnected', () => (state.connected = false));
  client.on('connected', async () => {
    state.urlIndex = tried;
    calls = 0;
    state.sessions++;
    try {
      for (const f of state.spec.follows)
        await client.sendEvent('subscribe', subscribePayload(state, f.deviceId), 'json');
      markSubscribed(state);
    } catch (err) {
      state.refused.push(`${new Date().toISOString()} ${(err as Error).message}`);
      // A new session subscribes again with since; this one is of no use ('stopped' starts the next).
      client.stop();
    }
  });
  client.on('stopped', () => {
    state.connected = false;
    if (!closing) setTimeout(() => void client.start().catch(() => undefined), 1000);
  });
  closers.push(() => client.stop());
  await client.start();
}

async function startAll(): Promise<void> {
  const userTokens = new Map<string, string>();
  for (const tenantId of SOAK.tenants)
    userTokens.set(
      tenantId,
      await signUserToken({ sub: `soak-${tenantId}`, tenantId, ...SOAK.jwt, expiresInSeconds: 24 * 3600 }),
    );
  for (const state of states) {
    if (args.kind === 'socket.io') runSocketIo(state, userTokens.get(state.spec.tenantId)!);
    else void runWebPubSub(state).catch((err: Error) => state.refused.push(err.message));
    // Not all at once: a few hundred handshakes in one burst are not what the soak is about.
    await new Promise((r) => setTimeout(r, 5));
  }
}

serveParent({
  start: () => startAll(),
  status: () => ({
    subscribed: subscribedOnce,
    connected: states.filter((s) => s.connected).length,
    sessions: states.reduce((n, s) => n + s.sessions, 0),
    received,
  }),
  records: () => states.flatMap((s) => [...s.records.values()]),
  problems: () =>
    states.map((s) => ({
      subscriber: s.spec.id,
      kind: args.kind,
      sessions: s.sessions,
      refused: s.refused,
      truncated: s.truncated,
      foreign: s.foreign,
    })),
  close: () => {
    closing = true;
    for (const close of closers) close();
  },
});
