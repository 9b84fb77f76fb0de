import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createEdgeIdentity, type EdgeIdentity } from '../../host/edge/edge-identity.js';
import { requestHost } from '../../host/edge/host-header.js';
import { rejectUpgrade } from './reject-upgrade.js';
import { authenticateClientUpgrade, isClientHubPath, type UpgradeAuthOptions } from './upgrade-context.js';
import type { WebPubSubEndpoint } from './web-pubsub-endpoint.js';

/**
 * The whole Web PubSub upgrade for a plain `node:http` server's 'upgrade' event: false when the
 * path is not `/client/hubs/{hub}` (route it elsewhere); otherwise authenticates, then hands the
 * socket to the endpoint or answers 401/404 with a problem body. Never throws.
 */
export async function handleWebPubSubUpgrade(
  endpoint: WebPubSubEndpoint,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: UpgradeAuthOptions & { traceId?: string; edge?: EdgeIdentity },
): Promise<boolean> {
  if (!isClientHubPath(req.url, options.hubName)) return false;
  socket.on('error', () => socket.destroy());
  const instance = (req.url ?? '/').split('?', 1)[0]!;
  if (requestHost(req.headers) === null) {
    rejectUpgrade(socket, 'HTTP_BAD_HOST', 'The Host header must be host[:port].', {
      instance,
      traceId: options.traceId,
    });
    return true;
  }
  const auth = await authenticateClientUpgrade(req, (options.edge ?? createEdgeIdentity()).origin(req), options);
  if (auth.ok) endpoint.handleUpgrade(req, socket, head, auth.context);
  else rejectUpgrade(socket, auth.rejection.key, auth.rejection.detail, { instance, traceId: options.traceId });
  return true;
}
