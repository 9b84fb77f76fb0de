import { isUtf8 } from 'node:buffer';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { scheduleExpiry } from '../../host/security/schedule-expiry.js';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { systemClock, type Clock, type TimerHandle } from '../../host/clock.js';
import type { CatchUp } from '../../realtime/catch-up.js';
import { ConnectionScopes } from '../../realtime/connection-scopes.js';
import type { ScopeFactory } from '../../host/container/service-scope.js';
import type { DeliveryRecorder } from '../../wire/delivery-recorder.js';
import type { Hub } from '../../realtime/hub.js';
import type { CloseReason } from '../../wire/message.js';
import type { Reading } from '../../wire/reading.js';
import type { ClientAccessClaims } from '../../wire/webpubsub/access-token.js';
import type { ParseResult } from '../../wire/webpubsub/client-frame.js';
import { parseClientFrame } from '../../wire/webpubsub/parse-client-frame.js';
import { parseProtobufClientFrame } from '../../wire/webpubsub/parse-protobuf-client-frame.js';
import { isProtobuf, isReliable, selectSubprotocol, type ProtocolKind } from '../../wire/webpubsub/subprotocol.js';
import { handleClientFrame } from './client-frame-handler.js';
import { CloseCode } from '../../wire/webpubsub/close-codes.js';
import { controlFramesFor } from '../../wire/webpubsub/control-frames.js';
import { recoveryReplay } from './recovery-replay.js';
import { rejectUpgrade } from './reject-upgrade.js';
import { DEFAULT_RESEND_MAX_BYTES, DEFAULT_RESEND_MAX_MESSAGES } from './resend-buffer.js';
import type { UpgradeContext } from './upgrade-context.js';
import { WebPubSubConnection } from './web-pubsub-connection.js';
import { Errors } from '../../host/errors.js';

/** The few logger methods the endpoint uses (pino's signature: object first). */
export interface EndpointLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WebPubSubEndpointOptions {
  readonly hub: Hub;
  /** Creates each connection's service scope (see ConnectionScopes); the hub methods resolve from it. */
  readonly scopes: ScopeFactory;
  /** The device's last accepted reading for `subscribe` (e.g. DeviceRegistry.last). */
  readonly lastReading?: (tenantId: string, deviceId: string) => Reading | undefined;
  /** Replays what a `subscribe` event with `since` missed; without it such a subscribe is refused. */
  readonly catchUp?: CatchUp;
  /** How long a reliable session outlives a dropped socket. Default 30 000 ms (the service keeps ≥ 30 s). */
  readonly sessionRetentionMs?: number;
  /** Socket bytes buffered before the connection counts as slow. Default 256 KiB. */
  readonly maxBufferedBytes?: number;
  /** Unacknowledged reliable messages kept for resending. Default 1000 (the service's limit). */
  readonly resendMaxMessages?: number;
  /** Unacknowledged reliable bytes kept for resending. Default 16 MiB (the service's limit). */
  readonly resendMaxBytes?: number;
  /** Non-conflatable messages queued for a slow connection before it is closed. Default 1000. */
  readonly maxUnkeyedQueued?: number;
  /** Largest client frame. Default 1 MiB (the service's message limit). */
  readonly maxPayloadBytes?: number;
  /** Ping period; a socket silent for two periods is cut (a reliable session then waits). Default 30 000 ms; 0 = off. */
  readonly heartbeatIntervalMs?: number;
  readonly log?: EndpointLog;
  /** Times token expiry, the heartbeat and session retention; default the system clock. */
  readonly clock?: Clock;
  /** Deliveries of this transport, for telemetry. Default: none. */
  readonly deliveries?: DeliveryRecorder | undefined;
}

const NO_LOG: EndpointLog = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Web PubSub-compatible WebSockets over `ws` in noServer mode: the host routes and authenticates
 * the upgrade (see authenticateClientUpgrade), then hands the socket here with the verified
 * context. Speaks `json.webpubsub.azure.v1`, `json.reliable.webpubsub.azure.v1`, their protobuf
 * counterparts `protobuf.webpubsub.azure.v1` and `protobuf.reliable.webpubsub.azure.v1`, and
 * plain ("simple") WebSockets that offer no subprotocol.
 */
export class WebPubSubEndpoint {
  readonly #hub: Hub;
  readonly #options: WebPubSubEndpointOptions;
  readonly #log: EndpointLog;
  readonly #wss: WebSocketServer;
  readonly #connections = new Map<string, WebPubSubConnection>();
  /** Cancels each connection's token-expiry timer when it ends. */
  readonly #expiry = new Map<string, () => void>();
  readonly #clock: Clock;
  readonly #scopes: ConnectionScopes;
  #heartbeat: TimerHandle | undefined;
  #closing = false;

  constructor(options: WebPubSubEndpointOptions) {
    this.#hub = options.hub;
    this.#options = options;
    this.#log = options.log ?? NO_LOG;
    this.#scopes = new ConnectionScopes(options.scopes, (err, connectionId) =>
      this.#log.error({ err, connectionId }, 'webpubsub connection services failed to dispose'),
    );
    this.#wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      // Compression would run per connection and undo encode-once fan-out.
      perMessageDeflate: false,
      maxPayload: options.maxPayloadBytes ?? 1024 * 1024,
      handleProtocols: (offered) => {
        const choice = selectSubprotocol(offered);
        return choice.ok && choice.subprotocol !== undefined ? choice.subprotocol : false;
      },
    });
    this.#clock = options.clock ?? systemClock;
    const interval = options.heartbeatIntervalMs ?? 30_000;
    if (interval > 0) {
      const beat = (): void => {
        this.#heartbeat = this.#clock.setTimeout(beat, interval);
        this.#heartbeat.unref?.();
        this.#beat();
      };
      this.#heartbeat = this.#clock.setTimeout(beat, interval);
      this.#heartbeat.unref?.();
    }
  }

  /** Connections this endpoint holds, including reliable sessions waiting for recovery. */
  get connectionCount(): number {
    return this.#connections.size;
  }

  /** Scopes of the connections not ended yet, reliable sessions waiting for recovery included (tests, diagnostics). */
  get openScopes(): number {
    return this.#scopes.size;
  }

  /** The live connection object (tests, diagnostics). */
  connection(connectionId: string): WebPubSubConnection | undefined {
    return this.#connections.get(connectionId);
  }

  /**
   * Completes an authenticated upgrade. Refuses with a problem response when the client offered
   * only unknown subprotocols (400) or the endpoint is closing (503). Never throws.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: UpgradeContext): void {
    // An error on the raw socket must close this connection only, never reach the process.
    socket.on('error', (err) => this.#log.debug({ err }, 'webpubsub socket error'));
    const instance = (req.url ?? '/').split('?', 1)[0]!;
    if (this.#closing) {
      rejectUpgrade(socket, 'HOST_STOPPING', 'The hub is shutting down.', { instance });
      return;
    }
    const choice = selectSubprotocol(offeredSubprotocols(req));
    if (!choice.ok) {
      rejectUpgrade(socket, 'HTTP_BAD_REQUEST', `Unsupported subprotocols: ${choice.offered.join(', ')}.`, {
        instance,
      });
      return;
    }
    // A recovering session is counted already; a new connection must fit its user's and tenant's limits.
    const limit =
      ctx.kind === 'connect' ? this.#hub.connectionLimit(ctx.claims.userId, ctx.claims.tenantId) : undefined;
    if (limit !== undefined) {
      this.#log.info(
        { code: Errors.HUB_LIMIT.code, reason: `${limit} connection limit` },
        'webpubsub connection refused',
      );
      rejectUpgrade(socket, 'HUB_LIMIT', `Too many connections for this ${limit}; close one first.`, { instance });
      return;
    }
    try {
      this.#wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', (err) => this.#log.debug({ err }, 'webpubsub websocket error'));
        if (ctx.kind === 'connect') this.#connect(ws, socket, choice.kind, ctx.claims);
        else this.#recover(ws, socket, choice.kind, ctx.connectionId, ctx.reconnectionToken);
      });
    } catch (err) {
      this.#log.warn({ err }, 'webpubsub upgrade failed');
      socket.destroy();
    }
  }

  /** Cuts a connection's socket as a network failure would; a reliable session stays recoverable. */
  terminateSocket(connectionId: string): boolean {
    return this.#connections.get(connectionId)?.terminateSocket() ?? false;
  }

  /**
   * Shutdown: closes every connection with `reason` (default `shutdown` → 1012, "reconnect
   * elsewhere"), drops waiting reliable sessions, stops the heartbeat and refuses new upgrades;
   * resolves once every connection's scope is disposed.
   */
  closeAll(reason: CloseReason = 'shutdown'): Promise<void> {
    this.#closing = true;
    if (this.#heartbeat !== undefined) this.#clock.clearTimeout(this.#heartbeat);
    this.#heartbeat = undefined;
    for (const connection of [...this.#connections.values()]) {
      if (!this.#hub.closeConnection(connection.id, reason)) connection.close(reason);
    }
    return this.#scopes.closeAll();
  }

  #connect(ws: WebSocket, raw: Duplex, kind: ProtocolKind, claims: ClientAccessClaims): void {
    const connection = new WebPubSubConnection({
      id: randomBytes(16).toString('base64url'),
      kind,
      claims,
      reconnectionToken: isReliable(kind) ? randomBytes(32).toString('base64url') : undefined,
      maxBufferedBytes: this.#options.maxBufferedBytes ?? 256 * 1024,
      maxUnkeyedQueued: this.#options.maxUnkeyedQueued ?? 1000,
      resendMaxMessages: this.#options.resendMaxMessages ?? DEFAULT_RESEND_MAX_MESSAGES,
      resendMaxBytes: this.#options.resendMaxBytes ?? DEFAULT_RESEND_MAX_BYTES,
      retentionMs: this.#options.sessionRetentionMs ?? 30_000,
      clock: this.#clock,
      deliveries: this.#options.deliveries,
      onEnd: (c) => this.#ended(c),
      onWriteError: (c, err) => this.#log.warn({ err, connectionId: c.id }, 'webpubsub message dropped'),
    });
    // Checked before the handshake already; another connection of the user may have won the race since.
    if (this.#hub.connectionLimit(connection.userId, connection.tenantId) !== undefined) {
      ws.close(CloseCode.POLICY, 'Too many connections.');
      return;
    }
    this.#connections.set(connection.id, connection);
    // Before anything can end the connection: #ended disposes it, whatever the reason.
    this.#scopes.open(connection);
    this.#listen(connection, ws);
    connection.open(ws, raw);
    this.#hub.addConnection(connection);
    // Groups the token names count against the group limit like any join; past it they are skipped.
    for (const group of claims.groups) this.#hub.join(connection.id, group);
    // Never left silently authorised: at the token's expiry the connection is closed with 1008,
    // on which the official client negotiates a new URL (and token) and connects again.
    this.#expiry.set(
      connection.id,
      scheduleExpiry(
        { expiresAt: claims.expiresAt * 1000 },
        () => {
          if (!this.#hub.closeConnection(connection.id, 'token-expired')) connection.close('token-expired');
        },
        this.#clock,
      ),
    );
    this.#log.debug({ connectionId: connection.id, kind, userId: claims.userId }, 'webpubsub connected');
  }

  #recover(ws: WebSocket, raw: Duplex, kind: ProtocolKind, connectionId: string, token: string): void {
    const connection = this.#connections.get(connectionId);
    if (
      connection === undefined ||
      connection.ended ||
      // The resend buffer holds frames in the session's encoding: recovery keeps the subprotocol.
      kind !== connection.kind ||
      !isReliable(kind) ||
      !tokenEquals(connection.reconnectionToken, token)
    ) {
      // 1008 tells the official client to stop recovering and open a new connection.
      if (kind !== 'simple') ws.send(controlFramesFor(kind).disconnected('The session cannot be recovered.'));
      ws.close(CloseCode.POLICY, 'Session not found.');
      return;
    }
    this.#listen(connection, ws);
    const { catchUp } = this.#options;
    connection.resume(ws, raw, catchUp && recoveryReplay(this.#hub, catchUp, connection, this.#options.lastReading));
    this.#log.debug({ connectionId, unacknowledged: connection.unacknowledged }, 'webpubsub recovered');
  }

  #listen(connection: WebPubSubConnection, ws: WebSocket): void {
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      connection.alive = true;
      if (connection.kind === 'simple') return; // no upstream to deliver a simple client's data to
      this.#onFrame(connection, toBuffer(data), isBinary);
    });
    ws.on('close', (code: number) => connection.socketClosed(ws, code));
  }

  #onFrame(connection: WebPubSubConnection, data: Buffer, isBinary: boolean): void {
    const parsed = this.#parse(connection, data, isBinary);
    if (parsed === undefined) return;
    if (parsed.ok) {
      const services = this.#scopes.get(connection.id);
      // Frames still queued on a socket whose session ended have no one to answer.
      if (services === undefined) return;
      handleClientFrame(connection, parsed.frame, {
        services,
        hub: this.#hub,
        lastReading: this.#options.lastReading,
        catchUp: this.#options.catchUp,
      });
      return;
    }
    const { error } = parsed;
    switch (error.code) {
      case 'invalid-json':
      case 'not-an-object':
      case 'invalid-protobuf':
      case 'missing-type':
        // Not the subprotocol at all: the service declines such a client.
        connection.abort(CloseCode.INVALID_PAYLOAD, error.message);
        return;
      case 'unknown-type':
        // A newer client's frame: ignored, for forward compatibility.
        return;
      case 'invalid-field':
        if (error.ackId !== undefined) connection.sendAck(error.ackId, { name: 'BadRequest', message: error.message });
        else
          this.#log.debug(
            { connectionId: connection.id, type: error.type, detail: error.message },
            'webpubsub invalid frame',
          );
        return;
    }
  }

  /** Undefined when the frame already closed the connection. */
  #parse(connection: WebPubSubConnection, data: Buffer, isBinary: boolean): ParseResult | undefined {
    if (isProtobuf(connection.kind)) return parseProtobufClientFrame(data);
    // Text frames arrive UTF-8-validated by ws; the service also takes JSON in binary frames.
    if (isBinary && !isUtf8(data)) {
      connection.abort(CloseCode.INVALID_PAYLOAD, 'Frames must be UTF-8 JSON.');
      return undefined;
    }
    return parseClientFrame(data.toString('utf8'));
  }

  #ended(connection: WebPubSubConnection): void {
    if (this.#connections.get(connection.id) === connection) this.#connections.delete(connection.id);
    this.#expiry.get(connection.id)?.();
    this.#expiry.delete(connection.id);
    this.#hub.removeConnection(connection.id);
    void this.#scopes.close(connection.id);
    this.#log.debug({ connectionId: connection.id }, 'webpubsub connection ended');
  }

  #beat(): void {
    for (const connection of this.#connections.values()) {
      const ws = connection.socket;
      if (ws === undefined || ws.readyState !== WebSocket.OPEN) continue;
      if (!connection.alive) {
        // Silent for a whole period: a half-open TCP connection. A reliable session survives it.
        ws.terminate();
        continue;
      }
      connection.alive = false;
      ws.ping();
    }
  }
}

function offeredSubprotocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (header === undefined) return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

function tokenEquals(expected: string | undefined, actual: string): boolean {
  if (expected === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(actual);
  return a.length === b.length && timingSafeEqual(a, b);
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
