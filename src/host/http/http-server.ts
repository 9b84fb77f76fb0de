import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket as NetSocket, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Errors, type ErrorDefinition } from '../errors.js';
import { problem, PROBLEM_CONTENT_TYPE } from '../problem.js';
import type { ServiceProvider } from '../container/service-provider.js';
import { HttpContext } from '../pipeline/http-context.js';
import { DONE, type RequestDelegate } from '../pipeline/middleware.js';
import { writeErrorProblem } from '../pipeline/results.js';
import { newTraceId, traceIdOf } from '../trace-context.js';
import { runInTrace } from '../hop-trace.js';
import { createEdgeIdentity, type EdgeIdentity } from '../edge/edge-identity.js';
import { requestHost } from '../edge/host-header.js';
import { answerAndClose } from './lingering-close.js';
import { rawResponseBytes, writeRawResponse } from './raw-response.js';
import { untracedRequest, type RequestTrace, type RequestTracer } from './request-trace.js';
import { addSecurityHeaders } from './security-headers.js';
import { systemClock } from '../clock.js';

export interface HttpServerOptions {
  app: RequestDelegate;
  log: Logger;
  bodyLimitBytes: number;
  development: boolean;
  /** Connection limits (`Http:*`); defaults as in the configuration table. */
  limits?: Partial<HttpLimits>;
  /** Origin and client address (`Http:PublicBaseUrl`, `Http:TrustedProxies`); default: socket scheme + Host, the peer. */
  edge?: EdgeIdentity;
  /**
   * Paths (prefixes ending in `/`) whose request bodies the endpoint reads from the raw request
   * itself (socket.io's long-polling): Fastify leaves them unread, and `ctx.body` is undefined.
   * `/` leaves every body unread (a proxy streams them on).
   */
  streamedBodyPrefixes?: readonly string[];
  /** Starts each request's trace (a server span when HTTP telemetry is on); default: trace id only. */
  traceRequest?: RequestTracer;
  /** The container each request's scope comes from (`ctx.services`); read per request, so it may be built after the server. */
  services?: () => ServiceProvider | undefined;
}

export interface HttpLimits {
  /** The request line and headers must arrive within this (slowloris); then 408 and close. */
  headersTimeoutMs: number;
  /** The whole request, body included. */
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Open TCP connections, upgraded ones included; beyond it new connections are closed at once. */
  maxConnections: number;
  /** Request line + headers; beyond it 431. */
  maxHeaderBytes: number;
  /** After a 413/431 answer, how long what the client still sends is read and dropped before the cut. */
  closeLingerMs: number;
}

const DEFAULT_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 10_000,
  maxHeaderBytes: 16 * 1024,
  closeLingerMs: 5_000,
};

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

/**
 * Fastify carries the connection handling, body limits and inject(); every request then runs
 * through the one pipeline. Upgrade requests (WebSockets) run through the same pipeline, so
 * routing, authentication and rate limits apply to them too.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const { app, log, development } = options;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const edge = options.edge ?? createEdgeIdentity();
  const traceRequest = options.traceRequest ?? untracedRequest;
  const fastify = Fastify({
    logger: false,
    bodyLimit: options.bodyLimitBytes,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node looks for overdue requests on this interval (30 s by default): a slow client would
      // otherwise hold its connection up to headersTimeout + 30 s.
      connectionsCheckingInterval: Math.max(100, Math.min(1000, limits.headersTimeoutMs / 2)),
    },
    // Oversized headers and overdue requests never reach a handler: answered here, as problem+json.
    clientErrorHandler: (error: Error & { code?: string }, socket) =>
      answerClientError(error, socket, log, limits.closeLingerMs),
    // While draining, requests on connections the server still holds run through the pipeline, so
    // /health/ready answers its own 503 report and every error stays problem+json.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Our pipeline decides about trailing slashes and case; Fastify only delivers.
    routerOptions: { ignoreTrailingSlash: true, caseSensitive: false },
  });

  // Bodies arrive as bytes; each endpoint's binder decides what it accepts (415 is a routing outcome).
  fastify.removeAllContentTypeParsers();
  const streamEverything = options.streamedBodyPrefixes?.includes('/') === true;
  if (streamEverything) fastify.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
  else fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  // Set when the server starts closing: from then on every response closes its connection, so an
  // in-flight request on a kept-alive connection does not hold the drain open until keep-alive ends.
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });

  fastify.server.maxConnections = limits.maxConnections;
  // Node's headersTimeout starts with the first byte: a connection that sends nothing at all would
  // hold its slot (of maxConnections) for ever. It gets as long as a slow header block would.
  fastify.server.on('connection', (socket: Socket) => {
    socket.setTimeout(limits.headersTimeoutMs);
    socket.once('data', () => socket.setTimeout(0));
  });

  fastify.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    // Reached only for what Fastify rejects before our pipeline: oversized or malformed bodies.
    const definition = rejectionFor(error.statusCode);
    const traceId = traceIdOf(request.headers);
    const body = problem(definition, definition.status === 500 ? 'An unexpected error occurred.' : error.message, {
      instance: request.url.split('?')[0]!,
      traceId,
    });
    // The same one line per request as the pipeline writes; no endpoint was selected.
    log.info(
      {
        method: request.method,
        route: null,
        status: definition.status,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        traceId,
        code: error.code,
      },
      'request',
    );
    const headers = new Map<string, string>([['content-type', PROBLEM_CONTENT_TYPE]]);
    addSecurityHeaders(headers, requestHost(request.headers) !== null && edge.origin(request.raw).startsWith('https:'));
    // inject() has no real socket to write to; it gets the same answer through the reply.
    if (definition.status === 413 && request.raw.socket instanceof NetSocket) {
      // The rest of the body may still be on its way: answer, then close without a reset.
      void reply.hijack();
      answerAndClose(request.raw.socket, rawResponseBytes(413, headers, JSON.stringify(body)), {
        drain: request.raw,
        lingerMs: limits.closeLingerMs,
      });
      return;
    }
    void reply.code(definition.status).headers(Object.fromEntries(headers)).send(JSON.stringify(body));
  });

  // The request line holds only the fields written below (method, route template, status, duration,
  // trace id), never user data, so it skips redaction: its wildcard paths cost ~12 µs a line (bench/).
  const requestLog = log.child({}, { redact: [] });
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.raw;
    const trace = traceRequest(raw);
    const body = Buffer.isBuffer(request.body) ? request.body : undefined;
    const ctx = new HttpContext(raw, {
      url: raw.url ?? '/',
      body,
      traceId: trace.traceId,
      log,
      edge,
      rawResponse: reply.raw,
      services: options.services?.(),
    });
    const badHost = malformedHost(ctx);
    await run(badHost ? refuseMalformedHost : app, ctx, development, requestLog, trace);
    if (ctx.response.hijacked) return reply.hijack();
    addSecurityHeaders(ctx.response.headers, !badHost && ctx.isHttps);
    if (refusedMidBody(ctx) && raw.socket instanceof NetSocket) {
      // A streamed body refused before it all arrived (413 mid-upload, 401 …): the rest is unwanted.
      // Answer, drop what still comes for the linger, close; reading it all would cost the whole upload.
      void reply.hijack();
      const body = ctx.response.body;
      const bytes = typeof body === 'string' || Buffer.isBuffer(body) ? body : null;
      answerAndClose(raw.socket, rawResponseBytes(ctx.response.status, ctx.response.headers, bytes), {
        drain: raw,
        lingerMs: limits.closeLingerMs,
      });
      return;
    }
    reply.code(ctx.response.status);
    ctx.response.headers.forEach(copyHeader, reply);
    if (closing) reply.header('connection', 'close');
    return reply.send(ctx.response.body ?? undefined);
  };
  fastify.route({ method: METHODS, url: '*', handler });
  // Methods outside METHODS (TRACE, PROPFIND …) reach Fastify's not-found handler: they too go
  // through the pipeline, which answers 405 with Allow (or 404) as problem+json.
  fastify.setNotFoundHandler(handler);
  for (const prefix of streamEverything ? [] : (options.streamedBodyPrefixes ?? [])) {
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
    const trace = traceRequest(req);
    const ctx = new HttpContext(req, {
      url: req.url ?? '/',
      body: undefined,
      traceId: trace.traceId,
      log,
      upgrade: { socket, head },
      edge,
      services: options.services?.(),
    });
    const badHost = malformedHost(ctx);
    void run(badHost ? refuseMalformedHost : app, ctx, development, requestLog, trace).then(() => {
      if (ctx.response.hijacked) return;
      addSecurityHeaders(ctx.response.headers, !badHost && ctx.isHttps);
      writeRawResponse(socket, ctx.response);
    });
  });

  return fastify;
}

/**
 * A Host header that is not `host[:port]` is refused on every route before the pipeline runs, so no
 * URL (a negotiated client URL, a token audience, a redirect) is ever built from it.
 */
function malformedHost(ctx: HttpContext): boolean {
  return requestHost(ctx.headers) === null;
}

function refuseMalformedHost(ctx: HttpContext): Promise<void> {
  ctx.response.status = Errors.HTTP_BAD_HOST.status;
  ctx.response.setHeader('content-type', PROBLEM_CONTENT_TYPE);
  ctx.response.setHeader('connection', 'close');
  ctx.response.body = JSON.stringify(
    problem(Errors.HTTP_BAD_HOST, 'The Host header must be host[:port].', { instance: ctx.path, traceId: ctx.traceId }),
  );
  return DONE;
}

/** `Map.forEach` callback with the reply as `this`: no closure per request. */
function copyHeader(this: FastifyReply, value: string | string[], name: string): void {
  this.header(name, value);
}

/** An error answer to a request whose body the endpoint read itself and had not received in full. */
function refusedMidBody(ctx: HttpContext): boolean {
  return (
    ctx.body === undefined &&
    ctx.response.status >= 400 &&
    ctx.upgrade === undefined &&
    !ctx.raw.complete &&
    !ctx.raw.readableEnded
  );
}

/** Runs the pipeline; whatever escapes it becomes a 500 problem. Logs one line per request. */
async function run(
  app: RequestDelegate,
  ctx: HttpContext,
  development: boolean,
  requestLog: Logger,
  trace: RequestTrace,
): Promise<void> {
  try {
    // A sampled request's span is the parent of every call it makes (database, queue, upstream);
    // an unsampled one enters nothing.
    await (trace.logFields === undefined ? app(ctx) : runInTrace(trace.context, () => app(ctx)));
  } catch (error) {
    ctx.log.error({ err: error, traceId: ctx.traceId }, 'unhandled exception');
    if (!ctx.response.hijacked) {
      ctx.response.clear();
      writeErrorProblem(ctx, error, development);
    }
  }
  // Undefined when the request never used its service scope: no promise, no tick.
  const ending = ctx.endServices();
  if (ending !== undefined)
    await ending.catch((err: unknown) =>
      ctx.log.error({ err, traceId: ctx.traceId }, 'request services failed to dispose'),
    );
  const res = ctx.rawResponse;
  const handedOff = ctx.response.hijacked && ctx.upgrade === undefined && res !== undefined;
  // A response handed to another handler (a long poll) has its status only once it is written.
  if (handedOff && !res.writableFinished)
    res.once('close', () => endRequest(requestLog, ctx, res.headersSent ? res.statusCode : null, trace));
  else
    endRequest(requestLog, ctx, handedOff ? res!.statusCode : ctx.response.hijacked ? 101 : ctx.response.status, trace);
}

/** The one request line, and the end of the request's span. */
function endRequest(requestLog: Logger, ctx: HttpContext, status: number | null, trace: RequestTrace): void {
  const endpoint = ctx.endpoint;
  // The template, never the raw path (ids stay out of the log); null when no endpoint fitted.
  const route = endpoint !== null && endpoint.metadata.builtIn !== true ? endpoint.template.text : null;
  const durationMs = Math.round((systemClock.monotonicNow() - ctx.startedAt) * 100) / 100;
  const line = {
    method: ctx.method,
    route,
    endpoint: endpoint?.displayName ?? null,
    status,
    durationMs,
    traceId: ctx.traceId,
  };
  requestLog.info(trace.logFields === undefined ? line : { ...line, ...trace.logFields }, 'request');
  trace.end({ method: ctx.method, route, status, durationMs });
}

/**
 * Node's parser refused the request before any handler (headers over Http:MaxHeaderBytes → 431,
 * headers or request overdue → 408, anything else malformed → 400): a problem+json answer, then the
 * connection closes. No traceparent can be trusted here (the headers never parsed), so a fresh trace id.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex, log: Logger, lingerMs: number): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const definition =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? Errors.HTTP_HEADERS_TOO_LARGE
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? Errors.HTTP_REQUEST_TIMEOUT
        : Errors.HTTP_BAD_REQUEST;
  const detail =
    definition === Errors.HTTP_HEADERS_TOO_LARGE
      ? 'The request line and headers are too large.'
      : definition === Errors.HTTP_REQUEST_TIMEOUT
        ? 'The request did not arrive in time.'
        : 'The request is not valid HTTP.';
  const traceId = newTraceId();
  log.info({ method: null, route: null, status: definition.status, traceId, code: error.code }, 'request');
  const body = JSON.stringify(problem(definition, detail, { instance: '', traceId }));
  const headers = new Map<string, string>([['content-type', PROBLEM_CONTENT_TYPE]]);
  addSecurityHeaders(headers, (socket as { encrypted?: boolean }).encrypted === true);
  // An overdue client gets no lingering: holding its connection open is what it wants.
  if (definition === Errors.HTTP_REQUEST_TIMEOUT) {
    socket.once('finish', () => socket.destroy());
    setTimeout(() => socket.destroy(), 1000).unref();
    if (socket.writable) socket.end(rawResponseBytes(definition.status, headers, body));
    else socket.destroy();
    return;
  }
  answerAndClose(socket, rawResponseBytes(definition.status, headers, body), { lingerMs });
}

/** What Fastify rejected before the pipeline, as a catalogue entry. */
function rejectionFor(statusCode: number | undefined): ErrorDefinition {
  switch (statusCode) {
    case 413:
      return Errors.HTTP_BODY_TOO_LARGE;
    case 415:
      return Errors.HTTP_UNSUPPORTED_MEDIA_TYPE;
    default:
      return statusCode !== undefined && statusCode >= 400 && statusCode < 500
        ? Errors.HTTP_BAD_REQUEST
        : Errors.HTTP_INTERNAL;
  }
}

export type { Server, ServerResponse };
