import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import { Results } from '../../host/pipeline/results.js';
import type { SocketIoTransport } from './socketio-transport.js';
import type { UpgradeGuard } from '../../host/security/upgrade-guard.js';
import { upgradeRefusal } from '../../host/security/http/upgrade-refusal.js';

/**
 * `/socket.io/…` on the host pipeline, like the Web PubSub upgrade: CORS, authentication and the
 * request log apply to socket.io's long-polling requests and WebSocket upgrades, which are then
 * handed to its engine. A request that starts a new session (no `sid`) passes the upgrade guard
 * first (handshakes per client address, handshakes pending), as a Web PubSub upgrade does; a
 * session's later polls do not. Anonymous to the user-token middleware: the token usually travels
 * inside the socket.io CONNECT packet (`auth.token`), so the namespace checks it, as it checks
 * `access_token` in the query.
 */
export function mapSocketIoEndpoints(routes: EndpointGroup, transport: SocketIoTransport, guard: UpgradeGuard): void {
  routes.map(
    ['GET', 'POST'],
    '/socket.io/{*rest}',
    ({ http }) => {
      let release: (() => void) | undefined;
      if (http.raw.method === 'GET' && !http.query.has('sid')) {
        const admission = guard.admit(http.raw);
        if (!admission.ok) return upgradeRefusal(admission);
        release = admission.release;
      }
      if (http.upgrade !== undefined) {
        transport.handleUpgrade(http.raw, http.upgrade.socket, http.upgrade.head, release);
        return Results.handled();
      }
      return Results.handOff((req, res) => transport.handleRequest(req, res, release));
    },
    { metadata: { allowAnonymous: true } },
  );
}
