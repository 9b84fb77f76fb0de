import {
  WebPubSubClient,
  WebPubSubJsonReliableProtocol,
  type OnGroupDataMessageArgs,
  type OnServerDataMessageArgs,
} from '@azure/web-pubsub-client';
import { deviceGroup, parseDeviceGroup } from '../../../src/wire/reading';
import { HttpError } from '../api/http-error';
import { backoffMs, OFFLINE_AFTER_FAILURES } from './backoff';
import { Emitter } from './emitter';
import type { ConnectionState, LiveConnection, LiveConnectionEvents } from './live-connection';
import { tapConnectedFrames } from './protocol-tap';
import { isReading } from './reading-guard';

export interface ServerlessConnectionOptions {
  /** `fetch` that adds the user's bearer token (and renews it on 401). */
  authFetch: (url: string, init?: RequestInit) => Promise<Response>;
  /** The user's tenant: needed to name the device groups to leave. */
  tenantId: string;
  /** The newest seq the page has of a device: a new connection asks the hub to replay what came after it. */
  lastSeq?: (deviceId: string) => number | undefined;
}

/**
 * Serverless transport (contract "Serverless functions"): `POST /api/negotiate` → Web PubSub client URL,
 * `@azure/web-pubsub-client` over the reliable JSON subprotocol, `POST /api/subscribe` to join a device group.
 */
export class ServerlessConnection implements LiveConnection {
  readonly mode = 'serverless' as const;
  state: ConnectionState = 'reconnecting';

  private readonly events = new Emitter<LiveConnectionEvents>();
  private readonly wanted = new Set<string>();
  private client: WebPubSubClient | null = null;
  private connectionId: string | null = null;
  /** The current connection replaced an earlier one: what the page missed in between is caught up. */
  private reconnected = false;
  private failures = 0;
  private retryTimer: number | undefined;
  private closed = false;

  constructor(private readonly opts: ServerlessConnectionOptions) {}

  on<E extends keyof LiveConnectionEvents>(event: E, fn: LiveConnectionEvents[E]): () => void {
    return this.events.on(event, fn);
  }

  start(): void {
    if (this.client || this.closed) return;
    const client = new WebPubSubClient(
      // A function, so every reconnect negotiates a fresh client access URL (the old one's token may be stale).
      { getClientAccessUrl: () => this.negotiate() },
      // Groups are joined server-side by /api/subscribe, so the client has none of its own to rejoin.
      {
        protocol: tapConnectedFrames(WebPubSubJsonReliableProtocol(), (id) => this.onConnectedFrame(id)),
        autoReconnect: true,
        autoRejoinGroups: false,
      },
    );
    this.client = client;
    client.on('disconnected', ({ message }) => {
      if (this.closed) return;
      this.failures++;
      this.setState(
        this.failures >= OFFLINE_AFTER_FAILURES ? 'offline' : 'reconnecting',
        message?.message ?? 'disconnected',
      );
    });
    // Only after the client gave up (or stop()): start again ourselves.
    client.on('stopped', () => {
      if (!this.closed) this.restartLater();
    });
    client.on('group-message', this.onGroupMessage);
    client.on('server-message', this.onServerMessage);
    addEventListener('online', this.onOnline);
    addEventListener('offline', this.onOffline);
    this.startClient();
  }

  subscribe(deviceId: string): void {
    if (this.wanted.has(deviceId)) return;
    this.wanted.add(deviceId);
    if (this.state === 'connected' && this.connectionId) void this.subscribeOn(deviceId, this.connectionId);
  }

  unsubscribe(deviceId: string): void {
    if (!this.wanted.delete(deviceId)) return;
    // There is no unsubscribe function; leaving the group directly is allowed for the user's own tenant.
    if (this.state === 'connected') {
      this.client?.leaveGroup(deviceGroup(this.opts.tenantId, deviceId)).catch(() => {
        // Harmless: readings of unwanted devices are dropped on arrival anyway.
      });
    }
  }

  close(): void {
    this.closed = true;
    window.clearTimeout(this.retryTimer);
    removeEventListener('online', this.onOnline);
    removeEventListener('offline', this.onOffline);
    this.client?.off('group-message', this.onGroupMessage);
    this.client?.off('server-message', this.onServerMessage);
    this.client?.stop();
    this.client = null;
    this.events.clear();
  }

  /** Every `connected` frame, first connection or recovery. */
  private onConnectedFrame(connectionId: string): void {
    if (this.closed) return;
    this.failures = 0;
    // Same id = the reliable protocol recovered the connection with its groups; nothing was lost.
    if (connectionId === this.connectionId) return this.setState('connected', 'web pubsub (recovered)');
    this.reconnected = this.connectionId !== null;
    this.connectionId = connectionId;
    // State first: listeners arm gap detection before any reading of the new connection arrives.
    this.setState('connected', 'web pubsub', true);
    for (const id of this.wanted) void this.subscribeOn(id, connectionId);
  }

  /**
   * On a new connection after another one (a reconnect), a device the page has readings of catches up: the
   * hub's `subscribe` event with `since` replays what came after them, then goes live. Otherwise, or when
   * the event is refused (a service without it), the `subscribe` function joins the device's group.
   */
  private async subscribeOn(deviceId: string, connectionId: string): Promise<void> {
    const since = this.reconnected ? this.opts.lastSeq?.(deviceId) : undefined;
    const client = this.client;
    if (since !== undefined && client) {
      try {
        await client.sendEvent('subscribe', { deviceId, since }, 'json');
        return;
      } catch {
        if (this.closed || !this.wanted.has(deviceId) || connectionId !== this.connectionId) return;
      }
    }
    await this.postSubscribe(deviceId, connectionId, 0);
  }

  private async negotiate(): Promise<string> {
    let res: Response;
    try {
      res = await this.opts.authFetch('/api/negotiate', { method: 'POST' });
    } catch (err) {
      // The client retries on its own without telling anyone; count failures here so the pill can say offline.
      this.failures++;
      if (this.failures >= OFFLINE_AFTER_FAILURES) this.setState('offline', 'hub unreachable');
      throw err;
    }
    if (!res.ok) {
      const err = await HttpError.from(res, 'Negotiate');
      this.events.emit('problem', { code: err.code, message: err.message });
      throw err;
    }
    const { url } = (await res.json()) as { url?: unknown };
    if (typeof url !== 'string') throw new Error('negotiate returned no url');
    return url;
  }

  private startClient(): void {
    const client = this.client;
    if (!client || this.closed) return;
    client.start().catch((err: unknown) => {
      if (this.closed) return;
      this.failures++;
      const detail = err instanceof Error ? err.message : String(err);
      this.setState(this.failures >= OFFLINE_AFTER_FAILURES || !navigator.onLine ? 'offline' : 'reconnecting', detail);
      this.restartLater();
    });
  }

  private restartLater(): void {
    window.clearTimeout(this.retryTimer);
    this.retryTimer = window.setTimeout(() => this.startClient(), backoffMs(this.failures + 1));
  }

  private async postSubscribe(deviceId: string, connectionId: string, attempt: number): Promise<void> {
    let res: Response;
    try {
      res = await this.opts.authFetch('/api/subscribe', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ connectionId, deviceId }),
      });
    } catch {
      res = new Response(null, { status: 599 });
    }
    if (res.ok || this.closed || !this.wanted.has(deviceId) || connectionId !== this.connectionId) return;
    // 404 = the function does not know this connection yet/anymore; 5xx = transient. Both are worth a retry.
    if ((res.status === 404 || res.status >= 500) && attempt < 3) {
      window.setTimeout(() => void this.postSubscribe(deviceId, connectionId, attempt + 1), backoffMs(attempt + 1));
      return;
    }
    const err = await HttpError.from(res, `Subscribing to ${deviceId}`);
    this.events.emit('problem', { deviceId, code: err.code, message: err.message });
  }

  private readonly onGroupMessage = ({ message }: OnGroupDataMessageArgs) => {
    const data: unknown = message.data;
    if (!isReading(data) || !this.wanted.has(data.deviceId)) return;
    // Trust the group name over the payload: a reading must come from its own device's group.
    const g = parseDeviceGroup(message.group);
    if (g && g.deviceId !== data.deviceId) return;
    this.events.emit('reading', data);
  };

  /** A catch-up's summary: with nothing to replay, its `last` is the newest reading (as a plain subscribe's is). */
  private readonly onServerMessage = ({ message }: OnServerDataMessageArgs) => {
    const summary = (message.data as { catchUp?: { deviceId?: unknown; replayed?: unknown; last?: unknown } } | null)
      ?.catchUp;
    if (!summary || summary.replayed !== 0 || !isReading(summary.last)) return;
    if (summary.last.deviceId === summary.deviceId && this.wanted.has(summary.last.deviceId))
      this.events.emit('reading', summary.last);
  };

  private readonly onOnline = () => {
    if (this.state !== 'connected') {
      this.failures = 0;
      this.setState('reconnecting', 'network back');
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
