import { mapSocketIoEndpoints } from '../adapters/socketio/socketio-endpoints.js';
import { SocketIoTransport } from '../adapters/socketio/socketio-transport.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import type { ScopeFactory, ServiceResolver } from '../host/container/service-scope.js';
import type { HttpServerService } from '../host/http/http-server-service.js';
import { categoryLogger } from '../host/logging.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { readSessionCookie } from '../host/security/cookie.js';
import { APP_CONFIG, CLOCK, LOGGER, SOCKETIO_TRANSPORT, TOKEN_VERIFIER, UPGRADE_GUARD } from './app-service-keys.js';
import { TELEMETRY } from './telemetry-services.js';

/** The socket.io transport on the hub: users sign in with a token or the session cookie. */
export function registerSocketIo(registrations: ServiceCollection, cookieSecret: string, scopes: ScopeFactory): void {
  registrations.singleton(
    SOCKETIO_TRANSPORT,
    [APP_CONFIG, LOGGER, CLOCK, TELEMETRY, TOKEN_VERIFIER],
    (config, log, clock, telemetry, verifier) =>
      new SocketIoTransport({
        hub: telemetry.hub,
        registry: telemetry.registry,
        catchUp: telemetry.catchUp,
        authenticate: (token) => verifier.verify(token),
        sessionCookie: (header) => readSessionCookie(header, cookieSecret, clock.now()),
        log: categoryLogger(log, config, 'Hub.SocketIo'),
        clock,
        deliveries: telemetry.deliveries.socketio,
        scopes,
      }),
  );
}

/**
 * `/socket.io/…` on the transport the container made. When the server closes, the transport's
 * sessions end (the promise: their scopes disposed) and anything still joined to the hub goes.
 */
export function mapSocketIo(routes: EndpointGroup, server: HttpServerService, services: ServiceResolver): void {
  const transport = services.resolve(SOCKETIO_TRANSPORT);
  const hub = services.resolve(TELEMETRY).hub;
  mapSocketIoEndpoints(routes, transport, services.resolve(UPGRADE_GUARD));
  server.onClosing(() => {
    const scopesDisposed = transport.close();
    hub.closeAll('shutdown');
    return scopesDisposed;
  });
}
