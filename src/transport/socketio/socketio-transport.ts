import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Server as Engine } from 'engine.io';
import type { Logger } from 'pino';
import { securityHeaders } from '../../host/http/security-headers.js';
import { Server, type Socket } from 'socket.io';
import type { Clock } from '../../host/clock.js';
import type { CatchUp } from '../../hub/catch-up.js';
import type { DeviceRegistry } from '../../hub/device-registry.js';
import type { DeliveryRecorder } from '../../hub/delivery-recorder.js';
import type { Hub } from '../../hub/hub.js';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../../protocol/json-depth.js';
import { deviceGroup, isValidId, toWireReading } from '../../protocol/reading.js';
import type { Principal } from '../../security/principal.js';
import { scheduleExpiry } from '../../security/schedule-expiry.js';
import { PendingHandshakes } from './pending-handshakes.js';
import { SocketIoConnection } from './socketio-connection.js';
import { dropUpgradeResponseRelay } from './upgrade-response-relay.js';
import { TELEMETRY_NAMESPACE } from './socketio-codec.js';

export interface SocketIoTransportOptions {
  hub: Hub;
  registry: DeviceRegistry;
  /** Verifies a user token; the same verifier guards HTTP endpoints. */
  authenticate(token: string): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }>;
  log: Logger;
  /** Deliveries of this transport, for telemetry. Default: none. */
  deliveries?: DeliveryRecorder | undefined;
  /** Times token expiry; default the system clock. */
  clock?: Clock;
  /** Replays what a `subscribe` with `since` missed; without it such a subscribe is refused. */
  catchUp?: CatchUp;
}

type Ack = (response: unknown) => void;

/** What the hub keeps of a session, in `socket.data` (the middleware puts the principal there first). */
interface Session {
  principal: Principal;
  connection: SocketIoConnection;
  /** Ends the pending token-expiry timer. */
  cancelExpiry: () => void;
  refreshing: boolean;
}

/** Shared by every slimmed handshake (see the connection handler). */
const NOTHING = Object.freeze({});

const HUB_ERR = {
  unauthenticated: 'HUB_ERR_AUTH_UNAUTHENTICATED',
  invalidToken: 'HUB_ERR_AUTH_INVALID_TOKEN',
  badMessage: 'HUB_ERR_HUB_BAD_MESSAGE',
  forbidden: 'HUB_ERR_HUB_GROUP_FORBIDDEN',
  limit: 'HUB_ERR_HUB_LIMIT',
  notAllowed: 'HUB_ERR_AUTH_FORBIDDEN',
} as const;

/**
 * What a refused client reads in `connect_error`: one generic message, so a probe learns nothing
 * about tokens or namespaces; `data.code` says what to do (sign in again, or stop). The detail
 * goes to the server log only.
 */
const UNAUTHORIZED = 'unauthorized';

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
  readonly #pending = new PendingHandshakes();

  constructor(options: SocketIoTransportOptions) {
    this.#options = options;
    // CORS is the pipeline's; the engine adds no headers of its own.
    this.#engine = new Engine({ maxHttpBufferSize: 64 * 1024 });
    const io = new Server({
      path: '/socket.io',
      serveClient: false,
      maxHttpBufferSize: 64 * 1024,
      // Namespaces created to refuse a client (see #listen) go again with their last socket.
      cleanupEmptyChildNamespaces: true,
    });
    io.bind(this.#engine);
    this.#listen(io);
  }

  /**
   * An engine.io HTTP request (long-polling handshake, poll or post), its body still unread.
   * `release` frees a new session's pending-handshake slot once it joins the namespace or ends.
   */
  handleRequest(req: IncomingMessage, res: ServerResponse, release?: () => void): void {
    if (release) this.#pending.hold(req, res, release);
    this.#engine.handleRequest(req, res);
  }

  /** A WebSocket upgrade (a new session, or a polling session upgrading); `release` as for handleRequest. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, release?: () => void): void {
    if (release) this.#pending.hold(req, socket, release);
    const closeListeners = socket.listenerCount('close');
    this.#engine.handleUpgrade(req, socket, head);
    dropUpgradeResponseRelay(socket, closeListeners);
  }

  #listen(io: Server): void {
    const { hub, log } = this.#options;
    // Only the telemetry namespace is served: the default one, and any other a client names, is
    // refused the same way whatever the credentials.
    const refuseNamespace = (socket: Socket, next: (err?: Error) => void) => {
      log.info({ code: HUB_ERR.notAllowed, reason: 'namespace not served', namespace: socket.nsp.name.slice(0, 64) }, 'socket.io connection refused');
      next(refusal(HUB_ERR.notAllowed, UNAUTHORIZED));
    };
    io.of('/').use(refuseNamespace);
    io.of((_name, _auth, next) => next(null, true)).use(refuseNamespace);

    // engine.io writes its own HTTP answers (long polling, handshakes) on the handed-off response.
    // HSTS is left to the pipeline's responses: browsers apply it to the whole host.
    this.#engine.on('headers', (headers: Record<string, string>) => {
      for (const [name, value] of securityHeaders(false)) headers[name] ??= value;
    });
    // A handshake holds its pending slot (Http:MaxPendingUpgrades) until its session joins the
    // telemetry namespace or closes; one the engine refused never becomes a session.
    this.#engine.on('connection', (session: Parameters<PendingHandshakes['started']>[0]) => this.#pending.started(session));
    const nsp = io.of(TELEMETRY_NAMESPACE);
    nsp.use((socket, next) => {
      const token = tokenOf(socket);
      if (!token) {
        log.info({ code: HUB_ERR.unauthenticated, reason: 'no token' }, 'socket.io connection refused');
        return next(refusal(HUB_ERR.unauthenticated, UNAUTHORIZED));
      }
      this.#options.authenticate(token).then(
        (result) => {
          if (!result.ok) {
            log.info({ code: HUB_ERR.invalidToken, reason: result.reason }, 'socket.io connection refused');
            return next(refusal(HUB_ERR.invalidToken, UNAUTHORIZED));
          }
          const limit = hub.connectionLimit(result.principal.sub, result.principal.tenantId);
          if (limit !== undefined) {
            log.info({ code: HUB_ERR.limit, reason: `${limit} connection limit`, tenantId: result.principal.tenantId }, 'socket.io connection refused');
            return next(refusal(HUB_ERR.limit, `too many connections for this ${limit}`));
          }
          socket.data.principal = result.principal;
          next();
        },
        (err: unknown) => next(err instanceof Error ? err : new Error(String(err))),
      );
    });
    const transport = this;
    const onSlow = (slow: SocketIoConnection) => {
      log.warn({ connectionId: slow.id }, 'socket.io client too slow; disconnecting');
      slow.close('policy');
    };
    // One listener of each kind for every socket (socket.io calls them with the socket as `this`):
    // an idle session holds its state in `socket.data`, not in closures of its own.
    function onDisconnect(this: Socket): void {
      const session = this.data as Session;
      hub.removeConnection(session.connection.id);
      session.cancelExpiry();
    }
    function onSubscribe(this: Socket, payload: unknown, ack: unknown): void {
      const { connection, principal } = this.data as Session;
      transport.#subscribe(connection, principal, payload, ack);
    }
    function onUnsubscribe(this: Socket, payload: unknown, ack: unknown): void {
      const { connection, principal } = this.data as Session;
      transport.#unsubscribe(connection, principal, payload, ack);
    }
    function onRefresh(this: Socket, payload: unknown, ack: unknown): void {
      transport.#refresh(this, payload, typeof ack === 'function' ? (ack as Ack) : () => undefined);
    }
    nsp.on('connection', (socket) => {
      this.#pending.joined(socket.conn);
      const principal = (socket.data as Pick<Session, 'principal'>).principal;
      const connection = new SocketIoConnection(socket, principal.sub, principal.tenantId, onSlow, this.#options.deliveries);
      // Checked in the middleware already; another connection of the user may have won the race since.
      if (hub.tryAddConnection(connection) !== undefined) {
        socket.emit('hub_closed', { reason: 'policy', code: HUB_ERR.limit });
        socket.disconnect(true);
        return;
      }
      const session: Session = { principal, connection, cancelExpiry: this.#expire(socket, principal), refreshing: false };
      socket.data = session;
      socket.on('disconnect', onDisconnect);
      // Idle memory (socket.io's own advice): engine.io keeps the handshake's HTTP request for the
      // session's life, socket.io a copy of its headers, query and auth (the token), and each
      // socket sits in a room of its own; the hub uses none of them from here on (its groups are
      // the hub's, and the handshake was read above).
      (socket.conn as unknown as { request: unknown }).request = null;
      Object.assign(socket.handshake, { headers: NOTHING, query: NOTHING, auth: NOTHING, url: '' });
      void nsp.adapter.delAll(socket.id);
      // Every event's arguments, before any handler: nothing a client nests reaches an encoder.
      socket.use((packet, next) => {
        const args = packet.slice(1);
        const ack = args[args.length - 1];
        if (!jsonValueTooDeep(typeof ack === 'function' ? args.slice(0, -1) : args, MAX_JSON_DEPTH + 1)) return next();
        log.debug({ connectionId: connection.id, event: String(packet[0]).slice(0, 64) }, 'socket.io event too deep; refused');
        if (typeof ack === 'function') {
          (ack as Ack)({ ok: false, error: { code: HUB_ERR.badMessage, message: `event data must be nested at most ${MAX_JSON_DEPTH} levels` } });
        }
      });
      socket.on('subscribe', onSubscribe);
      socket.on('unsubscribe', onUnsubscribe);
      socket.on('refresh', onRefresh);
    });
  }

  /** Never left silently authorised: an expired token ends the session, unless the client refreshed it in time. */
  #expire(socket: Socket, principal: Principal): () => void {
    return scheduleExpiry(
      principal,
      () => {
        socket.emit('hub_closed', { reason: 'token-expired', code: HUB_ERR.invalidToken });
        socket.disconnect(true);
      },
      this.#options.clock,
    );
  }

  /** `refresh` `{ token }`: one at a time, so a flood never queues verifications and acks answer in order. */
  #refresh(socket: Socket, payload: unknown, reply: Ack): void {
    const session = socket.data as Session;
    if (session.refreshing) return reply({ ok: false, error: { code: HUB_ERR.limit, message: 'a refresh is already in progress; wait for its ack' } });
    session.refreshing = true;
    this.#verifyRefresh(session.connection.id, session.principal, payload).then(
      (result) => {
        session.refreshing = false;
        // A session closed meanwhile keeps no timer.
        if (socket.disconnected) return;
        if (!result.ok) return reply(result);
        session.cancelExpiry();
        session.cancelExpiry = this.#expire(socket, result.principal);
        reply({ ok: true, exp: Math.floor(result.principal.expiresAt! / 1000) });
      },
      (err: unknown) => {
        session.refreshing = false;
        this.#options.log.error({ err, connectionId: session.connection.id }, 'socket.io refresh failed');
        reply({ ok: false, error: { code: HUB_ERR.invalidToken, message: 'the token could not be verified' } });
      },
    );
  }

  /**
   * Checks a `refresh` payload: a valid token of the same user and tenant moves the session's expiry;
   * anything else changes nothing. The detail of a refusal goes to the log, not the client.
   */
  async #verifyRefresh(
    connectionId: string,
    current: Principal,
    payload: unknown,
  ): Promise<{ ok: true; principal: Principal } | { ok: false; error: { code: string; message: string } }> {
    const { log } = this.#options;
    const token = (payload as { token?: unknown } | null | undefined)?.token;
    if (typeof token !== 'string' || token.length === 0) {
      return { ok: false, error: { code: HUB_ERR.badMessage, message: 'refresh takes { token }, a user access token' } };
    }
    const result = await this.#options.authenticate(token);
    if (!result.ok) {
      log.info({ code: HUB_ERR.invalidToken, reason: result.reason, connectionId }, 'socket.io refresh refused');
      return { ok: false, error: { code: HUB_ERR.invalidToken, message: 'the token is not valid' } };
    }
    const next = result.principal;
    if (next.sub !== current.sub || next.tenantId !== current.tenantId || next.expiresAt === undefined) {
      log.info({ code: HUB_ERR.notAllowed, reason: 'another user or tenant', connectionId }, 'socket.io refresh refused');
      return { ok: false, error: { code: HUB_ERR.notAllowed, message: "a session may only be refreshed with its own user's token" } };
    }
    return { ok: true, principal: next };
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
    const reply = ack as Ack;
    const target = this.#target(principal, payload, reply);
    if (!target) return;
    const since = (payload as { since?: unknown }).since;
    if (since !== undefined) return this.#subscribeSince(connection, target, since, reply);
    const { hub, registry } = this.#options;
    if (hub.tryJoin(connection.id, target.group) === 'group-limit') return reply(this.#groupLimit());
    // Acked once other instances' readings of the device reach this one (at once when a member
    // here had it already): a reading published after the ack is never missed. Read after the
    // join, `last` may repeat a reading that arrived live just before the ack; `seq` tells.
    void hub.groupReady(target.group).then(() => {
      const last = registry.last(target.tenantId, target.deviceId);
      reply({ ok: true, last: last ? toWireReading(last) : null });
    });
  }

  /** `subscribe` `{ deviceId, since }`: the ack, then the readings after `since`, then live (CatchUp). */
  #subscribeSince(connection: SocketIoConnection, target: { tenantId: string; deviceId: string }, since: unknown, reply: Ack): void {
    const catchUp = this.#options.catchUp;
    if (!Number.isSafeInteger(since) || (since as number) < 0 || catchUp === undefined) {
      const message = catchUp === undefined ? 'this hub keeps no history to catch up from' : 'since must be a seq: an integer ≥ 0';
      return reply({ ok: false, error: { code: HUB_ERR.badMessage, message } });
    }
    const request = { connectionId: connection.id, tenantId: target.tenantId, deviceId: target.deviceId, since: since as number };
    const started = catchUp.start(request, ({ replayed, truncated }) => {
      const last = this.#options.registry.last(target.tenantId, target.deviceId);
      reply({ ok: true, last: last ? toWireReading(last) : null, replayed, truncated });
    });
    if (started === 'group-limit') reply(this.#groupLimit());
    else if (started === 'gated') reply({ ok: false, error: { code: HUB_ERR.limit, message: 'a catch-up of this device is in progress; wait for its ack' } });
  }

  #groupLimit(): { ok: false; error: { code: string; message: string } } {
    const max = this.#options.hub.maxGroupsPerConnection;
    return { ok: false, error: { code: HUB_ERR.limit, message: `a connection may follow at most ${max} devices; unsubscribe from one first` } };
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
