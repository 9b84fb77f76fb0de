import type { Session } from '../auth/session';
import type { ConnectionMode, LiveConnection } from './live-connection';
import { SocketConnection } from './socket-connection';

/**
 * The only place that knows which class implements which mode. The serverless client (Web PubSub SDK and its
 * buffer/events polyfills) is loaded on demand, so Socket-mode users never download it.
 */
export async function createConnection(
  mode: ConnectionMode,
  session: Session,
  tenantId: string,
  lastSeq: (deviceId: string) => number | undefined,
): Promise<LiveConnection> {
  if (mode === 'serverless') {
    const { ServerlessConnection } = await import('./serverless-connection');
    return new ServerlessConnection({ authFetch: (url, init) => session.fetch(url, init), tenantId, lastSeq });
  }
  return new SocketConnection({ getToken: (refresh) => session.token(refresh), lastSeq });
}
