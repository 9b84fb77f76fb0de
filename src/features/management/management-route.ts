/**
 * The data-plane REST routes this hub serves (a subset of Azure Web PubSub's API), parsed from a
 * request path. Path segments are percent-decoded; the hub name is kept as sent.
 */
export type ManagementRoute =
  | { op: 'health' }
  | { op: 'groupConnection'; hub: string; group: string; connectionId: string }
  | { op: 'groupConnections'; hub: string; group: string }
  | { op: 'sendToGroup'; hub: string; group: string }
  | { op: 'sendToAll'; hub: string }
  | { op: 'connection'; hub: string; connectionId: string }
  | { op: 'sendToConnection'; hub: string; connectionId: string }
  | { op: 'sendToUser'; hub: string; userId: string };

/** Methods each route answers; anything else is 405. */
export const ROUTE_METHODS: Record<ManagementRoute['op'], readonly string[]> = {
  health: ['GET', 'HEAD'],
  groupConnection: ['PUT', 'DELETE'],
  groupConnections: ['GET'],
  sendToGroup: ['POST'],
  sendToAll: ['POST'],
  connection: ['DELETE', 'HEAD'],
  sendToConnection: ['POST'],
  sendToUser: ['POST'],
};

/** True for paths this module owns: `/api/health` and `/api/hubs/…`. */
export function isManagementPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return path === '/api/health' || path.startsWith('/api/hubs/');
}

/** The route for a path, or undefined (404). A segment that does not decode is no route. */
export function matchManagementRoute(path: string): ManagementRoute | undefined {
  if (path === '/api/health') return { op: 'health' };
  const raw = path.split('/');
  // ['', 'api', 'hubs', hub, ...rest]
  if (raw.length < 5 || raw[0] !== '' || raw[1] !== 'api' || raw[2] !== 'hubs') return undefined;
  const s = raw.map(decode);
  if (s.some((segment) => segment === undefined)) return undefined;
  const [, , , hub, a, b, c, d] = s as string[];
  const n = s.length;
  if (n === 5 && a === ':send') return { op: 'sendToAll', hub: hub! };
  if (n === 6 && a === 'connections') return { op: 'connection', hub: hub!, connectionId: b! };
  if (n === 7 && a === 'connections' && c === ':send') return { op: 'sendToConnection', hub: hub!, connectionId: b! };
  if (n === 7 && a === 'users' && c === ':send') return { op: 'sendToUser', hub: hub!, userId: b! };
  if (n === 7 && a === 'groups' && c === ':send') return { op: 'sendToGroup', hub: hub!, group: b! };
  if (n === 7 && a === 'groups' && c === 'connections') return { op: 'groupConnections', hub: hub!, group: b! };
  if (n === 8 && a === 'groups' && c === 'connections')
    return { op: 'groupConnection', hub: hub!, group: b!, connectionId: d! };
  return undefined;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
