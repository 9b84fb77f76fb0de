import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Errors } from '../../host/errors.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../../host/problem.js';
import { refusalDetails, type UpgradeAdmission, type UpgradeGuard } from '../upgrade-guard.js';
import { rejectUpgrade } from '../webpubsub/reject-upgrade.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;
type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * Puts the upgrade guard in front of socket.io's engine. engine.io attaches one 'request' and one
 * 'upgrade' listener to the server and its own `allowRequest` hook can only answer 403, so this
 * wraps those listeners: a request that starts a new session (under `path`, without `sid`) is
 * admitted or answered 429/503 problem+json with Retry-After before the engine sees it.
 * `attach` must attach the engine; `onAdmitted` receives the request, the pending slot's release
 * and the response or socket whose 'close' ends the handshake. Every other request reaches the
 * engine's listeners unchanged.
 */
export function guardEngineHandshakes(
  server: HttpServer,
  path: string,
  guard: UpgradeGuard,
  attach: () => void,
  onAdmitted: (req: IncomingMessage, release: () => void, exchange: ServerResponse | Duplex) => void,
): void {
  const requestsBefore = new Set(server.listeners('request'));
  const upgradesBefore = new Set(server.listeners('upgrade'));
  attach();
  // A new session starts with a GET (polling or WebSocket) without `sid`; CORS preflights are not handshakes.
  const isHandshake = (req: IncomingMessage) => {
    const url = req.url ?? '/';
    return req.method === 'GET' && url.startsWith(path) && !new URLSearchParams(url.split('?')[1] ?? '').has('sid');
  };
  const admit = (req: IncomingMessage, exchange: ServerResponse | Duplex): Extract<UpgradeAdmission, { ok: false }> | undefined => {
    if (!isHandshake(req)) return undefined;
    const admission = guard.admit(req);
    if (!admission.ok) return admission;
    onAdmitted(req, admission.release, exchange);
    return undefined;
  };
  for (const listener of server.listeners('request').filter((l) => !requestsBefore.has(l)) as RequestListener[]) {
    server.removeListener('request', listener);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const refusal = admit(req, res);
      if (refusal === undefined) listener.call(server, req, res);
      else writeRefusal(res, refusal, req);
    });
  }
  for (const listener of server.listeners('upgrade').filter((l) => !upgradesBefore.has(l)) as UpgradeListener[]) {
    server.removeListener('upgrade', listener);
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const refusal = admit(req, socket);
      if (refusal === undefined) {
        listener.call(server, req, socket, head);
        return;
      }
      socket.on('error', () => socket.destroy());
      rejectUpgrade(socket, refusal.key, refusal.detail, { instance: instanceOf(req) }, refusalDetails(refusal));
    });
  }
}

function writeRefusal(res: ServerResponse, refusal: Extract<UpgradeAdmission, { ok: false }>, req: IncomingMessage): void {
  const { extensions, headers } = refusalDetails(refusal);
  const definition = Errors[refusal.key];
  const body = JSON.stringify(problem(definition, refusal.detail, { instance: instanceOf(req), traceId: '' }, extensions));
  res.writeHead(definition.status, { ...headers, 'content-type': PROBLEM_CONTENT_TYPE, connection: 'close' }).end(body);
}

function instanceOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?', 1)[0]!;
}
