import { io, type Socket } from 'socket.io-client';
import type { Reading } from '../../../src/wire/reading';
import { jwtExpiryMs } from '../auth/session';
import { TokenRefresher, type RefreshTimers } from '../auth/token-refresher';
import { backoffMs, OFFLINE_AFTER_FAILURES } from './backoff';
import { Emitter } from './emitter';
import type { ConnectionState, LiveConnection, LiveConnectionEvents } from './live-connection';
import { isReading } from './reading-guard';

/** Subscribe/unsubscribe ack, contract "Hub — socket.io"; `replayed`/`truncated` answer a subscribe with `since` (v2). */
type Ack =
  | { ok: true; last: Reading | null; replayed?: number; truncated?: boolean }
  | { ok: false; error: { code: string; message: string } };
/** Refresh ack, contract v2 "socket.io additions". */
type RefreshAck = { ok: true; exp: number } | { ok: false; error: { code: string; message: string } };

export interface SocketConnectionOptions {
  /** Token for the handshake; `refresh` asks for a new one after the hub refused the old one. */
  getToken: (refresh: boolean) => Promise<string>;
  /** Origin of the hub; default: the page's own. */
  origin?: string;
  ackTimeoutMs?: number;
  /** The token refresh's clock; default the browser's. */
  refreshTimers?: RefreshTimers;
  /** The newest seq the page has of a device: a subscribe asks the hub to replay what came after it. */
  lastSeq?: (deviceId: string) => number | undefined;
}

/** socket.io transport: one connection to namespace `/telemetry`, subscriptions as acked events on it. */
export class SocketConnection implements LiveConnection {
  readonly mode = 'socket' as const;
  state: ConnectionState = 'reconnecting';

  private readonly events = new Emitter<LiveConnectionEvents>();
  private readonly wanted = new Set<string>();
  private socket: Socket | null = null;
  private failures = 0;
  private refreshToken = false;
  private retryTimer: number | undefined;
  private closed = false;
  /** The token the current socket connected with: its expiry is the session's until a refresh. */
  private handshakeToken: string | null = null;
  /** Moves the session's expiry with socket.io `refresh` before it ends: no reconnect, no gap in the live view. */
  private readonly refresher: TokenRefresher;

  constructor(private readonly opts: SocketConnectionOptions) {
    this.refresher = new TokenRefresher({
      fetchToken: () => this.opts.getToken(true),
      apply: (token) => this.sendRefresh(token),
      ...(opts.refreshTimers ? { timers: opts.refreshTimers } : {}),
    });
  }

  on<E extends keyof LiveConnectionEvents>(event: E, fn: LiveConnectionEvents[E]): () => void {
    return this.events.on(event, fn);
  }

  start(): void {
    if (this.socket || this.closed) return;
    const socket = io(`${this.opts.origin ?? ''}/telemetry`, {
      path: '/socket.io',
      // WebSocket only: no long-polling means no sticky sessions are needed behind a load balancer.
      transports: ['websocket'],
      reconnectionDelay: 1000,
      reconnectionDelayMax: 10_000,
      // A function so every (re)connect presents a current token, not the one from page load.
      auth: (cb) => {
        const refresh = this.refreshToken;
        this.refreshToken = false;
        this.opts.getToken(refresh).then(
          (token) => {
            this.handshakeToken = token;
            cb({ token });
          },
          (err: unknown) => {
            this.events.emit('problem', { code: 'AUTH', message: `No token: ${String(err)}` });
            cb({});
          },
        );
      },
    });
    this.socket = socket;

    socket.on('connect', () => {
      this.failures = 0;
      this.setState('connected', 'socket.io', true);
      const expiresAt = this.handshakeToken === null ? null : jwtExpiryMs(this.handshakeToken);
      if (expiresAt !== null) this.refresher.start(expiresAt);
      // A new socket has no subscriptions on the server: restore all of them.
      for (const id of this.wanted) this.sendSubscribe(id, 0);
    });
    socket.on('disconnect', (reason) => {
      if (this.closed) return;
      this.refresher.stop();
      this.setState('reconnecting', reason);
      // The server closed us on purpose (e.g. token expired): socket.io does not retry by itself then.
      if (reason === 'io server disconnect') {
        this.refreshToken = true;
        this.retryLater();
      }
    });
    socket.on('connect_error', (err: Error & { data?: { code?: string } }) => {
      if (this.closed) return;
      this.failures++;
      const detail = err.data?.code ?? err.message;
      this.setState(this.failures >= OFFLINE_AFTER_FAILURES || !navigator.onLine ? 'offline' : 'reconnecting', detail);
      // Not active = refused by the hub's middleware (auth): socket.io stops; retry with a fresh token.
      if (!socket.active) {
        this.refreshToken = true;
        this.retryLater();
      }
    });
    socket.on('reading', (r: unknown) => {
      if (isReading(r) && this.wanted.has(r.deviceId)) this.events.emit('reading', r);
    });
    addEventListener('online', this.onOnline);
    addEventListener('offline', this.onOffline);
  }

  subscribe(deviceId: string): void {
    if (this.wanted.has(deviceId)) return;
    this.wanted.add(deviceId);
    // Only when connected: socket.io would otherwise buffer it AND the reconnect would send it again.
    if (this.socket?.connected) this.sendSubscribe(deviceId, 0);
  }

  unsubscribe(deviceId: string): void {
    if (!this.wanted.delete(deviceId)) return;
    if (this.socket?.connected) this.socket.timeout(this.ackTimeout).emit('unsubscribe', { deviceId }, () => {});
  }

  close(): void {
    this.closed = true;
    this.refresher.stop();
    window.clearTimeout(this.retryTimer);
    removeEventListener('online', this.onOnline);
    removeEventListener('offline', this.onOffline);
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
    this.socket = null;
    this.events.clear();
  }

  private get ackTimeout(): number {
    return this.opts.ackTimeoutMs ?? 10_000;
  }

  private sendSubscribe(deviceId: string, attempt: number): void {
    const socket = this.socket;
    if (!socket) return;
    const since = this.opts.lastSeq?.(deviceId);
    // With `since` the hub replays every reading after it before going live: a reconnect leaves no gap.
    const payload = since === undefined ? { deviceId } : { deviceId, since };
    socket.timeout(this.ackTimeout).emit('subscribe', payload, (err: Error | null, ack: Ack | undefined) => {
      if (this.closed || !this.wanted.has(deviceId)) return;
      if (err || !ack) {
        // Lost with the connection: the next 'connect' resubscribes. Otherwise the hub is slow: try again.
        if (socket.connected && attempt < 3) {
          window.setTimeout(
            () => this.wanted.has(deviceId) && this.sendSubscribe(deviceId, attempt + 1),
            backoffMs(attempt + 1),
          );
        }
        return;
      }
      if (!ack.ok) {
        this.events.emit('problem', { deviceId, code: ack.error.code, message: ack.error.message });
        return;
      }
      // The newest reading before the subscription, unless the replay that follows brings it (in seq
      // order: taking it first would make the replayed ones look stale).
      if (!ack.replayed && ack.last && isReading(ack.last)) this.events.emit('reading', ack.last);
    });
  }

  /** The session's new expiry (epoch ms); throws when the hub refused the token or did not answer. */
  private async sendRefresh(token: string): Promise<number> {
    const socket = this.socket;
    if (!socket?.connected) throw new Error('not connected');
    const ack = (await socket.timeout(this.ackTimeout).emitWithAck('refresh', { token })) as RefreshAck;
    if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
    return ack.exp * 1000;
  }

  private retryLater(): void {
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(
      () => {
        if (!this.closed && this.socket && !this.socket.connected) this.socket.connect();
      },
      backoffMs(this.failures + 1),
    );
  }

  private readonly onOnline = () => {
    if (this.socket && !this.socket.connected) {
      this.setState('reconnecting', 'network back');
      this.socket.connect();
    }
  };

  private readonly onOffline = () => this.setState('offline', 'browser offline');

  /** `newConnection` re-announces 'connected' even when the state did not change (see LiveConnectionEvents). */
  private setState(state: ConnectionState, detail: string, newConnection = false): void {
    const changed = state !== this.state;
    this.state = state;
    if (changed || newConnection || state !== 'connected') this.events.emit('state', state, detail);
  }
}
