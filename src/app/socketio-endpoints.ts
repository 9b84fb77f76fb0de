import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { Results } from '../host/pipeline/results.js';
import { RateLimitPolicies } from '../security/http/default-rate-limit-policies.js';
import type { SocketIoTransport } from '../transport/socketio/socketio-transport.js';

/**
 * `/socket.io/…` on the host pipeline, like the Web PubSub upgrade: CORS, authentication, the
 * per-address connection limit and the request log apply to socket.io's long-polling requests and
 * WebSocket upgrades, which are then handed to its engine. Anonymous to the user-token middleware:
 * the token usually travels inside the socket.io CONNECT packet (`auth.token`), so the namespace
 * checks it, as it checks `access_token` in the query.
 */
export function mapSocketIoEndpoints(routes: EndpointGroup, transport: SocketIoTransport): void {
  routes.map(
    ['GET', 'POST'],
    '/socket.io/{*rest}',
    ({ http }) => {
      if (http.upgrade !== undefined) {
        transport.handleUpgrade(http.raw, http.upgrade.socket, http.upgrade.head);
        return Results.handled();
      }
      return Results.handOff((req, res) => transport.handleRequest(req, res));
    },
    { metadata: { allowAnonymous: true, rateLimit: RateLimitPolicies.connections } },
  );
}
