import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
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
  options: UpgradeAuthOptions & { traceId?: string },
): Promise<boolean> {
  if (!isClientHubPath(req.url, options.hubName)) return false;
  socket.on('error', () => socket.destroy());
  const auth = await authenticateClientUpgrade(req, options);
  if (auth.ok) {
    endpoint.handleUpgrade(req, socket, head, auth.context);
  } else {
    const instance = (req.url ?? '/').split('?', 1)[0]!;
    rejectUpgrade(socket, auth.rejection.key, auth.rejection.detail, { instance, traceId: options.traceId });
  }
  return true;
}
