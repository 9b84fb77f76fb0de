import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Errors, type ErrorDefinition } from '../errors.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../problem.js';
import { HttpContext } from '../pipeline/http-context.js';
import type { RequestDelegate } from '../pipeline/middleware.js';
import { writeErrorProblem } from '../pipeline/results.js';
import { continueTrace } from '../trace-context.js';
import { writeRawResponse } from './raw-response.js';

export interface HttpServerOptions {
  app: RequestDelegate;
  log: Logger;
  bodyLimitBytes: number;
  development: boolean;
  /**
   * Paths (prefixes ending in `/`) whose request bodies the endpoint reads from the raw request
   * itself (socket.io's long-polling): Fastify leaves them unread, and `ctx.body` is undefined.
   */
  streamedBodyPrefixes?: readonly string[];
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/**
 * Fastify carries the connection handling, body limits and inject(); every request then runs
 * through the one pipeline. Upgrade requests (WebSockets) run through the same pipeline, so
 * routing, authentication and rate limits apply to them too.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const { app, log, development } = options;
  const fastify = Fastify({
    logger: false,
    bodyLimit: options.bodyLimitBytes,
    // While draining, requests on connections the server still holds run through the pipeline, so
    // /health/ready answers its own 503 report and every error stays problem+json.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Our pipeline decides about trailing slashes and case; Fastify only delivers.
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false },
  });

  // Bodies arrive as bytes; each endpoint's binder decides what it accepts (415 is a routing outcome).
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  // Set when the server starts closing: from then on every response closes its connection, so an
  // in-flight request on a kept-alive connection does not hold the drain open until keep-alive ends.
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });

  fastify.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    // Reached only for what Fastify rejects before our pipeline: oversized or malformed bodies.
    const definition = rejectionFor(error.statusCode);
    const trace = continueTrace(request.headers.traceparent);
    const body = problem(definition, definition.status === 500 ? 'An unexpected error occurred.' : error.message, {
      instance: request.url.split('?')[0]!,
      traceId: trace.traceId,
    });
    // The same one line per request as the pipeline writes; no endpoint was selected.
    log.info(
      { method: request.method, route: null, status: definition.status, durationMs: Math.round(reply.elapsedTime * 100) / 100, traceId: trace.traceId, code: error.code },
      'request',
    );
    void reply.code(definition.status).header('content-type', PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  });

  // The request line holds only the fields written below (method, route template, status, duration,
  // trace id), never user data, so it skips redaction: its wildcard paths cost ~12 µs a line (bench/).
  const requestLog = log.child({}, { redact: [] });
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.raw;
    const trace = continueTrace(raw.headers.traceparent);
    const body = Buffer.isBuffer(request.body) ? request.body : undefined;
    const ctx = new HttpContext(raw, { url: raw.url ?? '/', body, traceId: trace.traceId, log, rawResponse: reply.raw });
    await run(app, ctx, development, requestLog);
    if (ctx.response.hijacked) return reply.hijack();
    reply.code(ctx.response.status);
    for (const [name, value] of ctx.response.headers) reply.header(name, value);
    if (closing) reply.header('connection', 'close');
    return reply.send(ctx.response.body ?? undefined);
  };
  fastify.route({ method: METHODS, url: '*', handler });
  // Methods outside METHODS (TRACE, PROPFIND …) reach Fastify's not-found handler: they too go
  // through the pipeline, which answers 405 with Allow (or 404) as problem+json.
  fastify.setNotFoundHandler(handler);
  for (const prefix of options.streamedBodyPrefixes ?? []) {
    // Content-type parsers are scoped to a plugin: this one leaves the body in the raw request.
    void fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
      scope.route({ method: METHODS, url: `${prefix}*`, handler });
      // `ignoreTrailingSlash` matches `/socket.io/` (socket.io's own path) as `/socket.io`.
      scope.route({ method: METHODS, url: prefix.replace(/\/$/, ''), handler });
    });
  }

  const onUpgradeSocketError = (err: Error) => log.debug({ err }, 'upgrade socket error');
  fastify.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A socket error during or after the upgrade must never reach the process as an unhandled event.
    // One listener for all sockets: a closure here would keep each connection's request context alive.
    socket.on('error', onUpgradeSocketError);
    const trace = continueTrace(req.headers.traceparent);
    const ctx = new HttpContext(req, { url: req.url ?? '/', body: undefined, traceId: trace.traceId, log, upgrade: { socket, head } });
    void run(app, ctx, development, requestLog).then(() => {
      if (!ctx.response.hijacked) writeRawResponse(socket, ctx.response);
    });
  });

  return fastify;
}

/** Runs the pipeline; whatever escapes it becomes a 500 problem. Logs one line per request. */
async function run(app: RequestDelegate, ctx: HttpContext, development: boolean, requestLog: Logger): Promise<void> {
  try {
    await app(ctx);
  } catch (error) {
    ctx.log.error({ err: error, traceId: ctx.traceId }, 'unhandled exception');
    if (!ctx.response.hijacked) {
      ctx.response.clear();
      writeErrorProblem(ctx, error, development);
    }
  }
  const res = ctx.rawResponse;
  const handedOff = ctx.response.hijacked && ctx.upgrade === undefined && res !== undefined;
  // A response handed to another handler (a long poll) has its status only once it is written.
  if (handedOff && !res.writableFinished) res.once('close', () => logRequest(requestLog, ctx, res.headersSent ? res.statusCode : null));
  else logRequest(requestLog, ctx, handedOff ? res!.statusCode : ctx.response.hijacked ? 101 : ctx.response.status);
}

function logRequest(requestLog: Logger, ctx: HttpContext, status: number | null): void {
  requestLog.info(
    {
      method: ctx.method,
      // The template, never the raw path (ids stay out of the log); null when no endpoint fitted.
      route: ctx.endpoint && !ctx.endpoint.metadata.builtIn ? ctx.endpoint.template.text : null,
      endpoint: ctx.endpoint?.displayName ?? null,
      status,
      durationMs: Math.round((performance.now() - ctx.startedAt) * 100) / 100,
      traceId: ctx.traceId,
    },
    'request',
  );
}

/** What Fastify rejected before the pipeline, as a catalogue entry. */
function rejectionFor(statusCode: number | undefined): ErrorDefinition {
  switch (statusCode) {
    case 413:
      return Errors.HTTP_BODY_TOO_LARGE;
    case 415:
      return Errors.HTTP_UNSUPPORTED_MEDIA_TYPE;
    default:
      return statusCode !== undefined && statusCode >= 400 && statusCode < 500 ? Errors.HTTP_BAD_REQUEST : Errors.HTTP_INTERNAL;
  }
}

export type { Server, ServerResponse };
