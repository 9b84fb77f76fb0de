import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Server as Engine } from 'engine.io';
import type { Logger } from 'pino';
import { securityHeaders } from '../../host/http/security-headers.js';
import { Server, type Socket } from 'socket.io';
import type { Clock } from '../../host/clock.js';
import { Errors } from '../../host/errors.js';
import type { CatchUp } from '../../realtime/catch-up.js';
import { ConnectionScopes } from '../../realtime/connection-scopes.js';
import type { ScopeFactory } from '../../host/container/service-scope.js';
import { TENANT_CONTEXT } from '../../host/security/tenant-scope.js';
import type { DeviceRegistry } from '../../realtime/device-registry.js';
import type { DeliveryRecorder } from '../../wire/delivery-recorder.js';
import type { Hub } from '../../realtime/hub.js';
import { jsonValueTooDeep, MAX_JSON_DEPTH } from '../../wire/json-depth.js';
import { deviceGroup, toWireReading } from '../../wire/reading.js';
import { ID_PATTERN, isValidId } from '../../host/ids.js';
import { presentedCredentials } from '../../host/edge/credentials.js';
import { SESSION_COOKIE_NAME } from '../../host/security/cookie.js';
import { identifyHandshake, type CredentialCheck } from '../../host/security/identify.js';
import type { Principal } from '../../host/security/principal.js';
import { scheduleExpiry } from '../../host/security/schedule-expiry.js';
import { PendingHandshakes } from './pending-handshakes.js';
import { SocketIoConnection } from './socketio-connection.js';
import { dropUpgradeResponseRelay } from './upgrade-response-relay.js';
import { TELEMETRY_NAMESPACE } from './socketio-codec.js';

export interface SocketIoTransportOptions {
  hub: Hub;
  registry: DeviceRegistry;
  /** Verifies a user token; the same verifier guards HTTP endpoints. */
  authenticate(token: string): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }>;
  /**
   * Reads the `hub_session` cookie a handshake carries (null when none or invalid). A cookie never
   * authenticates a socket; one of another tenant than the token refuses the connection.
   */
  sessionCookie?: (cookieHeader: string) => Principal | null;
  log: Logger;
  /** Deliveries of this transport, for telemetry. Default: none. */
  deliveries?: DeliveryRecorder | undefined;
  /** Times token expiry; default the system clock. */
  clock?: Clock;
  /** Replays what a `subscribe` with `since` missed; without it such a subscribe is refused. */
  catchUp?: CatchUp;
  /** Creates each connection's service scope (see ConnectionScopes); the hub methods resolve from it. */
  scopes: ScopeFactory;
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
  readonly #scopes: ConnectionScopes;

  constructor(options: SocketIoTransportOptions) {
    this.#options = options;
    this.#scopes = new ConnectionScopes(options.scopes, (err, connectionId) =>
      options.log.error({ err, connectionId }, 'socket.io connection services failed to dispose'),
    );
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
      log.info(
        { code: Errors.AUTH_FORBIDDEN.code, reason: 'namespace not served', namespace: socket.nsp.name.slice(0, 64) },
        'socket.io connection refused',
      );
      next(refusal(Errors.AUTH_FORBIDDEN.code, UNAUTHORIZED));
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
    this.#engine.on('connection', (session: Parameters<PendingHandshakes['started']>[0]) =>
      this.#pending.started(session),
    );
    const nsp = io.of(TELEMETRY_NAMESPACE);
    const { authenticate, sessionCookie } = this.#options;
    const check: CredentialCheck<Principal> = async (credential) => {
      if (credential.kind === 'cookie') {
        const principal = sessionCookie?.(credential.header) ?? null;
        return principal
          ? { ok: true, identity: principal, tenantId: principal.tenantId }
          : { ok: false, reason: 'invalid_cookie' };
      }
      const result = await authenticate(credential.token);
      return result.ok ? { ok: true, identity: result.principal, tenantId: result.principal.tenantId } : result;
    };
    nsp.use((socket, next) => {
      const { headers, url } = socket.request;
      const q = (url ?? '').indexOf('?');
      // The handshake request is socket.io's: its query token is a credential (the same parser as every edge).
      const presented = presentedCredentials(headers, q >= 0 ? (url ?? '').slice(q + 1) : '', {
        queryToken: true,
        ...(sessionCookie ? { cookieName: SESSION_COOKIE_NAME } : {}),
      });
      identifyHandshake((socket.handshake.auth as { token?: unknown } | undefined)?.token, presented, check).then(
        (who) => {
          if (who.kind === 'anonymous') {
            log.info({ code: Errors.AUTH_UNAUTHENTICATED.code, reason: 'no token' }, 'socket.io connection refused');
            return next(refusal(Errors.AUTH_UNAUTHENTICATED.code, UNAUTHORIZED));
          }
          if (who.kind === 'refused') {
            log.info({ code: Errors.AUTH_INVALID_TOKEN.code, reason: who.reason }, 'socket.io connection refused');
            return next(refusal(Errors.AUTH_INVALID_TOKEN.code, UNAUTHORIZED));
          }
          const principal = who.identity;
          const limit = hub.connectionLimit(principal.sub, principal.tenantId);
          if (limit !== undefined) {
            log.info(
              { code: Errors.HUB_LIMIT.code, reason: `${limit} connection limit`, tenantId: principal.tenantId },
              'socket.io connection refused',
            );
            return next(refusal(Errors.HUB_LIMIT.code, `too many connections for this ${limit}`));
          }
          socket.data.principal = principal;
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
      void transport.#scopes.close(session.connection.id);
    }
    function onSubscribe(this: Socket, payload: unknown, ack: unknown): void {
      transport.#subscribe((this.data as Session).connection, payload, ack);
    }
    function onUnsubscribe(this: Socket, payload: unknown, ack: unknown): void {
      transport.#unsubscribe((this.data as Session).connection, payload, ack);
    }
    function onRefresh(this: Socket, payload: unknown, ack: unknown): void {
      transport.#refresh(this, payload, typeof ack === 'function' ? (ack as Ack) : () => undefined);
    }
    nsp.on('connection', (socket) => {
      this.#pending.joined(socket.conn);
      const principal = (socket.data as Pick<Session, 'principal'>).principal;
      const connection = new SocketIoConnection(
        socket,
        principal.sub,
        principal.tenantId,
        onSlow,
        this.#options.deliveries,
      );
      // Checked in the middleware already; another connection of the user may have won the race since.
      if (hub.tryAddConnection(connection) !== undefined) {
        socket.emit('hub_closed', { reason: 'policy', code: Errors.HUB_LIMIT.code });
        socket.disconnect(true);
        return;
      }
      const session: Session = {
        principal,
        connection,
        cancelExpiry: this.#expire(socket, principal),
        refreshing: false,
      };
      socket.data = session;
      this.#scopes.open(connection);
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
        log.debug(
          { connectionId: connection.id, event: String(packet[0]).slice(0, 64) },
          'socket.io event too deep; refused',
        );
        if (typeof ack === 'function') {
          (ack as Ack)({
            ok: false,
            error: {
              code: Errors.HUB_BAD_MESSAGE.code,
              message: `event data must be nested at most ${MAX_JSON_DEPTH} levels`,
            },
          });
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
        socket.emit('hub_closed', { reason: 'token-expired', code: Errors.AUTH_INVALID_TOKEN.code });
        socket.disconnect(true);
      },
      this.#options.clock,
    );
  }

  /** `refresh` `{ token }`: one at a time, so a flood never queues verifications and acks answer in order. */
  #refresh(socket: Socket, payload: unknown, reply: Ack): void {
    const session = socket.data as Session;
    if (session.refreshing)
      return reply({
        ok: false,
        error: { code: Errors.HUB_LIMIT.code, message: 'a refresh is already in progress; wait for its ack' },
      });
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
        reply({
          ok: false,
          error: { code: Errors.AUTH_INVALID_TOKEN.code, message: 'the token could not be verified' },
        });
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
      return {
        ok: false,
        error: { code: Errors.HUB_BAD_MESSAGE.code, message: 'refresh takes { token }, a user access token' },
      };
    }
    const result = await this.#options.authenticate(token);
    if (!result.ok) {
      log.info(
        { code: Errors.AUTH_INVALID_TOKEN.code, reason: result.reason, connectionId },
        'socket.io refresh refused',
      );
      return { ok: false, error: { code: Errors.AUTH_INVALID_TOKEN.code, message: 'the token is not valid' } };
    }
    const next = result.principal;
    if (next.sub !== current.sub || next.tenantId !== current.tenantId || next.expiresAt === undefined) {
      log.info(
        { code: Errors.AUTH_FORBIDDEN.code, reason: 'another user or tenant', connectionId },
        'socket.io refresh refused',
      );
      return {
        ok: false,
        error: {
          code: Errors.AUTH_FORBIDDEN.code,
          message: "a session may only be refreshed with its own user's token",
        },
      };
    }
    return { ok: true, principal: next };
  }

  /**
   * Closes every client's transport, so clients reconnect (elsewhere), and disposes the scopes of
   * the connections still open. The HTTP server is left to the host, which is closing it already.
   */
  close(): Promise<void> {
    this.#engine.close();
    return this.#scopes.closeAll();
  }

  /** Scopes of the connections not ended yet (tests, diagnostics). */
  get openScopes(): number {
    return this.#scopes.size;
  }

  #subscribe(connection: SocketIoConnection, payload: unknown, ack: unknown): void {
    if (typeof ack !== 'function') return;
    const reply = ack as Ack;
    const target = this.#target(connection, payload, reply);
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
  #subscribeSince(
    connection: SocketIoConnection,
    target: { tenantId: string; deviceId: string },
    since: unknown,
    reply: Ack,
  ): void {
    const catchUp = this.#options.catchUp;
    if (!Number.isSafeInteger(since) || (since as number) < 0 || catchUp === undefined) {
      const message =
        catchUp === undefined ? 'this hub keeps no history to catch up from' : 'since must be a seq: an integer ≥ 0';
      return reply({ ok: false, error: { code: Errors.HUB_BAD_MESSAGE.code, message } });
    }
    const request = {
      connectionId: connection.id,
      tenantId: target.tenantId,
      deviceId: target.deviceId,
      since: since as number,
    };
    const started = catchUp.start(request, ({ replayed, truncated }) => {
      const last = this.#options.registry.last(target.tenantId, target.deviceId);
      reply({ ok: true, last: last ? toWireReading(last) : null, replayed, truncated });
    });
    if (started === 'group-limit') reply(this.#groupLimit());
    else if (started === 'gated')
      reply({
        ok: false,
        error: { code: Errors.HUB_LIMIT.code, message: 'a catch-up of this device is in progress; wait for its ack' },
      });
  }

  #groupLimit(): { ok: false; error: { code: string; message: string } } {
    const max = this.#options.hub.maxGroupsPerConnection;
    return {
      ok: false,
      error: {
        code: Errors.HUB_LIMIT.code,
        message: `a connection may follow at most ${max} devices; unsubscribe from one first`,
      },
    };
  }

  #unsubscribe(connection: SocketIoConnection, payload: unknown, ack: unknown): void {
    const target = this.#target(connection, payload, typeof ack === 'function' ? (ack as Ack) : () => undefined);
    if (!target) return;
    this.#options.hub.leave(connection.id, target.group);
    if (typeof ack === 'function') (ack as Ack)({ ok: true });
  }

  /**
   * The device group a request names; a tenant other than the user's own is refused. The user's
   * tenant is the connection scope's tenant context, fixed from the token it connected with.
   */
  #target(
    connection: SocketIoConnection,
    payload: unknown,
    ack: Ack,
  ): { group: string; tenantId: string; deviceId: string } | null {
    const own = this.#scopes.get(connection.id)?.resolve(TENANT_CONTEXT).tenantId;
    const body = (payload ?? {}) as { deviceId?: unknown; tenantId?: unknown };
    if (!isValidId(body.deviceId)) {
      ack({
        ok: false,
        error: { code: Errors.HUB_BAD_MESSAGE.code, message: `deviceId must match ${ID_PATTERN.source}` },
      });
      return null;
    }
    const tenantId = body.tenantId ?? own;
    if (own === undefined || tenantId !== own) {
      ack({
        ok: false,
        error: {
          code: Errors.HUB_GROUP_FORBIDDEN.code,
          message: "a user may only subscribe to its own tenant's devices",
        },
      });
      return null;
    }
    return { group: deviceGroup(own, body.deviceId), tenantId: own, deviceId: body.deviceId };
  }
}

function refusal(code: string, message: string): Error & { data: { code: string } } {
  return Object.assign(new Error(message), { data: { code } });
}
