import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import type { Logger } from 'pino';
import { Errors, type ErrorDefinition } from '../../host/errors.js';
import { rawResponseBytes } from '../../host/http/raw-response.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../../host/problem.js';
import type { Upstream, UpstreamCall } from '../../features/gateway/upstream.js';

/**
 * HTTP and WebSocket forwarding, on http-proxy-3 (a maintained rewrite of http-proxy): the request
 * and its body stream through unbuffered, upgrades are spliced socket to socket. Failures become
 * problems: the instance cannot be reached → 502 (and it leaves the rotation), no answer within
 * `timeoutMs` → 504. The Host header is kept, so the hub builds the URLs clients see (negotiate,
 * token audiences) for the gateway's host.
 */
export class UpstreamProxy implements Upstream {
  readonly #proxy = createProxyServer({ xfwd: false, changeOrigin: false, ws: true });
  readonly #timeoutMs: number;
  readonly #log: Logger;
  readonly #onUnreachable: (target: string) => void;
  /** Requests whose upstream exchange was cut at the timeout (504, not 502). */
  readonly #timedOut = new WeakSet<IncomingMessage>();

  constructor(options: { timeoutMs: number; log: Logger; onUnreachable: (target: string) => void }) {
    this.#timeoutMs = options.timeoutMs;
    this.#log = options.log;
    this.#onUnreachable = options.onUnreachable;
    // Without a listener an error event would be thrown; every call passes its own callback.
    this.#proxy.on('error', (err) => this.#log.debug({ err }, 'proxy error'));
    this.#proxy.on('proxyReq', (proxyReq, req) => {
      // Up to the response head; a long poll answers within its ping interval, well inside it.
      proxyReq.setTimeout(this.#timeoutMs, () => {
        this.#timedOut.add(req);
        proxyReq.destroy();
      });
    });
  }

  web(req: IncomingMessage, res: ServerResponse, call: UpstreamCall): void {
    prepare(req, call);
    this.#proxy.web(req, res, { target: call.target }, (err: Error & { code?: string }) => {
      const definition = this.#failure(err, call.target, this.#timedOut.has(req));
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify(
        problem(definition, detailOf(definition), { instance: (req.url ?? '/').split('?')[0]!, traceId: call.traceId }),
      );
      res.writeHead(definition.status, { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store' }).end(body);
    });
  }

  ws(req: IncomingMessage, socket: Duplex, head: Buffer, call: UpstreamCall): void {
    prepare(req, call);
    this.#proxy.ws(
      req,
      socket as import('node:net').Socket,
      head,
      { target: call.target },
      (err: Error & { code?: string }) => {
        const definition = this.#failure(err, call.target, false);
        if (!socket.writable) return;
        const body = JSON.stringify(
          problem(definition, detailOf(definition), {
            instance: (req.url ?? '/').split('?')[0]!,
            traceId: call.traceId,
          }),
        );
        socket.end(rawResponseBytes(definition.status, [['content-type', PROBLEM_CONTENT_TYPE]], body));
      },
    );
  }

  close(): void {
    this.#proxy.close();
  }

  #failure(err: Error & { code?: string }, target: string, timedOut: boolean): ErrorDefinition {
    if (timedOut) {
      this.#log.warn({ target, timeoutMs: this.#timeoutMs }, 'upstream timed out');
      return Errors.GATEWAY_UPSTREAM_TIMEOUT;
    }
    if (err.code === 'ECONNREFUSED' || err.code === 'EHOSTUNREACH' || err.code === 'ENOTFOUND')
      this.#onUnreachable(target);
    this.#log.warn({ target, code: err.code, message: err.message }, 'upstream failed');
    return Errors.GATEWAY_UPSTREAM_FAILED;
  }
}

function prepare(req: IncomingMessage, call: UpstreamCall): void {
  for (const name of call.drop) delete req.headers[name];
  Object.assign(req.headers, call.headers);
}

function detailOf(definition: ErrorDefinition): string {
  return definition === Errors.GATEWAY_UPSTREAM_TIMEOUT
    ? 'The instance did not answer in time.'
    : 'The instance could not be reached or broke off the exchange.';
}
