import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Server as Engine } from 'engine.io';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import type { DeviceRegistry } from '../../hub/device-registry.js';
import type { Hub } from '../../hub/hub.js';
import { deviceGroup, isValidId, toWireReading } from '../../protocol/reading.js';
import type { Principal } from '../../security/principal.js';
import { scheduleExpiry } from '../../security/schedule-expiry.js';
import { SocketIoConnection } from './socketio-connection.js';
import { TELEMETRY_NAMESPACE } from './socketio-codec.js';

export interface SocketIoTransportOptions {
  hub: Hub;
  registry: DeviceRegistry;
  /** Verifies a user token; the same verifier guards HTTP endpoints. */
  authenticate(token: string): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }>;
  log: Logger;
}

type Ack = (response: unknown) => void;

const HUB_ERR = {
  unauthenticated: 'HUB_ERR_AUTH_UNAUTHENTICATED',
  invalidToken: 'HUB_ERR_AUTH_INVALID_TOKEN',
  badMessage: 'HUB_ERR_HUB_BAD_MESSAGE',
  forbidden: 'HUB_ERR_HUB_GROUP_FORBIDDEN',
} as const;

/**
 * The socket.io hub endpoint (contract "Hub — socket.io"): path `/socket.io`, namespace
 * `/telemetry`, `subscribe`/`unsubscribe` with acks, `reading` events.
 *
 * It listens on nothing: the host pipeline routes `/socket.io/…` requests and upgrades (CORS,
 * authentication, rate limits, the request log) and hands them to `handleRequest` / `handleUpgrade`.
 */
export class SocketIoTransport {
  readonly #options: SocketIoTransportOptions;
  readonly #engine: Engine;

  constructor(options: SocketIoTransportOptions) {
    this.#options = options;
    // CORS is the pipeline's; the engine adds no headers of its own.
    this.#engine = new Engine({ maxHttpBufferSize: 64 * 1024 });
    const io = new Server({ path: '/socket.io', serveClient: false, maxHttpBufferSize: 64 * 1024 });
    io.bind(this.#engine);
    this.#listen(io);
  }

  /** An engine.io HTTP request (long-polling handshake, poll or post), its body still unread. */
  handleRequest(req: IncomingMessage, res: ServerResponse): void {
    this.#engine.handleRequest(req, res);
  }

  /** A WebSocket upgrade (a new session, or a polling session upgrading). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#engine.handleUpgrade(req, socket, head);
  }

  #listen(io: Server): void {
    const { hub, log } = this.#options;
    const nsp = io.of(TELEMETRY_NAMESPACE);
    nsp.use((socket, next) => {
      const token = tokenOf(socket);
      if (!token) return next(refusal(HUB_ERR.unauthenticated, 'a user token is required (auth.token)'));
      this.#options.authenticate(token).then(
        (result) => {
          if (!result.ok) return next(refusal(HUB_ERR.invalidToken, `token rejected: ${result.reason}`));
          socket.data.principal = result.principal;
          next();
        },
        (err: unknown) => next(err instanceof Error ? err : new Error(String(err))),
      );
    });
    nsp.on('connection', (socket) => {
      const principal = socket.data.principal as Principal;
      const connection = new SocketIoConnection(socket, principal.sub, principal.tenantId, (slow) => {
        log.warn({ connectionId: slow.id }, 'socket.io client too slow; disconnecting');
        slow.close('policy');
      });
      hub.addConnection(connection);
      socket.on('disconnect', () => hub.removeConnection(connection.id));
      socket.on('subscribe', (payload: unknown, ack: unknown) => this.#subscribe(connection, principal, payload, ack));
      socket.on('unsubscribe', (payload: unknown, ack: unknown) => this.#unsubscribe(connection, principal, payload, ack));
      // Never left silently authorised: an expired token ends the session; the client reconnects with a new one.
      const cancelExpiry = scheduleExpiry(principal, () => {
        socket.emit('hub_closed', { reason: 'token-expired', code: HUB_ERR.invalidToken });
        socket.disconnect(true);
      });
      socket.on('disconnect', cancelExpiry);
    });
  }

  /**
   * Closes every client's transport, so clients reconnect (elsewhere). The HTTP server is left to
   * the host, which is closing it already.
   */
  close(): void {
    this.#engine.close();
  }

  #subscribe(connection: SocketIoConnection, principal: Principal, payload: unknown, ack: unknown): void {
    if (typeof ack !== 'function') return;
    const target = this.#target(principal, payload, ack as Ack);
    if (!target) return;
    // join, read the last value and ack in one synchronous step: no reading can fall between them.
    this.#options.hub.join(connection.id, target.group);
    const last = this.#options.registry.last(target.tenantId, target.deviceId);
    (ack as Ack)({ ok: true, last: last ? toWireReading(last) : null });
  }

  #unsubscribe(connection: SocketIoConnection, principal: Principal, payload: unknown, ack: unknown): void {
    const target = this.#target(principal, payload, typeof ack === 'function' ? (ack as Ack) : () => undefined);
    if (!target) return;
    this.#options.hub.leave(connection.id, target.group);
    if (typeof ack === 'function') (ack as Ack)({ ok: true });
  }

  /** The device group a request names; a tenant other than the user's own is refused. */
  #target(principal: Principal, payload: unknown, ack: Ack): { group: string; tenantId: string; deviceId: string } | null {
    const body = (payload ?? {}) as { deviceId?: unknown; tenantId?: unknown };
    if (!isValidId(body.deviceId)) {
      ack({ ok: false, error: { code: HUB_ERR.badMessage, message: 'deviceId must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$' } });
      return null;
    }
    const tenantId = body.tenantId ?? principal.tenantId;
    if (tenantId !== principal.tenantId) {
      ack({ ok: false, error: { code: HUB_ERR.forbidden, message: "a user may only subscribe to its own tenant's devices" } });
      return null;
    }
    return { group: deviceGroup(principal.tenantId, body.deviceId), tenantId: principal.tenantId, deviceId: body.deviceId };
  }
}

function tokenOf(socket: Socket): string | undefined {
  const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof fromAuth === 'string' && fromAuth) return fromAuth;
  const fromQuery = socket.handshake.query.access_token;
  return typeof fromQuery === 'string' && fromQuery ? fromQuery : undefined;
}

function refusal(code: string, message: string): Error & { data: { code: string } } {
  return Object.assign(new Error(message), { data: { code } });
}
