import { systemClock } from '../clock.js';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import type { Logger } from 'pino';
import { createEdgeIdentity, type EdgeIdentity } from '../edge/edge-identity.js';
import { serviceKey } from '../container/service-key.js';
import type { ServiceProvider } from '../container/service-provider.js';
import { scopeValue, type ServiceScope } from '../container/service-scope.js';

let untrustingEdge: EdgeIdentity | undefined;
/** No public base URL and no trusted proxy: the socket's scheme, the Host header and the peer. */
function defaultEdge(): EdgeIdentity {
  return (untrustingEdge ??= createEdgeIdentity());
}

/**
 * Open-ended endpoint metadata; each concern reads its own keys (authorization, rate limits, …).
 * `builtIn: true` marks the routing's own 405/415 endpoints (logged without a route template).
 */
export type Metadata = Readonly<Record<string, unknown>>;

/**
 * What middleware after routing reads of the endpoint it selected (spec "What the service does" 6):
 * its name, route template and metadata. The whole endpoint, handler and filters included, is an
 * `Endpoint` (endpoint.ts), which the pipeline's end invokes.
 */
export interface SelectedEndpoint {
  /** e.g. `GET /v1/devices`, used in logs (the route template, never the raw path). */
  readonly displayName: string;
  readonly template: { readonly text: string };
  readonly metadata: Metadata;
}

/** What the pipeline will write: buffered until the pipeline unwinds, so outer middleware can still change it. */
export class ResponseState {
  status = 200;
  readonly headers = new Map<string, string | string[]>();
  /** A Readable is streamed to the client (large files); only strings and buffers can be cached. */
  body: string | Buffer | Readable | null = null;
  /** Set when an endpoint took over the raw response or socket (WebSocket upgrade). */
  hijacked = false;

  setHeader(name: string, value: string | string[]): void {
    this.headers.set(name.toLowerCase(), value);
  }

  appendVary(value: string): void {
    const current = this.headers.get('vary');
    if (current === undefined) {
      this.headers.set('vary', value);
      return;
    }
    const list = current ? String(current).split(/\s*,\s*/) : [];
    if (!list.some((v) => v.toLowerCase() === value.toLowerCase())) list.push(value);
    this.headers.set('vary', list.join(', '));
  }

  /** What the exception handler does before re-executing: nothing written survives. */
  clear(): void {
    this.status = 200;
    this.headers.clear();
    if (this.body !== null && typeof this.body === 'object' && !Buffer.isBuffer(this.body)) this.body.destroy();
    this.body = null;
  }
}

/** A WebSocket (or other) upgrade request travelling through the pipeline. */
export interface UpgradeRequest {
  socket: Duplex;
  head: Buffer;
}

/** The request itself, as a value of its service scope. */
export const HTTP_CONTEXT = serviceKey<HttpContext>('httpContext');

/** Everything one request carries through the pipeline. */
export class HttpContext {
  readonly method: string;
  /** The request path (percent-encoded, as sent). A path-map branch moves its matched prefix to pathBase. */
  path: string;
  pathBase = '';
  readonly headers: IncomingHttpHeaders;
  /** The raw body, read before the pipeline; undefined when the request had none. */
  readonly body: Buffer | undefined;
  /** Selected at the routing position; null before it, and when no endpoint fits. */
  endpoint: SelectedEndpoint | null = null;
  routeValues: Record<string, string> = {};
  /** Set by authentication; null when anonymous. */
  user: unknown = null;
  #items: Map<unknown, unknown> | undefined;
  #query: URLSearchParams | undefined;
  readonly #search: string;
  readonly response = new ResponseState();
  /** The exception being handled, while the exception handler re-executes at its error path. */
  error: unknown = undefined;
  /** The path that failed (pathBase + path), while the exception handler re-executes at its error path. */
  errorPath: string | undefined = undefined;
  readonly startedAt = systemClock.monotonicNow();

  readonly traceId: string;
  readonly log: Logger;
  readonly upgrade: UpgradeRequest | undefined;
  readonly #edge: EdgeIdentity | undefined;
  #origin: string | undefined;
  #clientAddress: string | undefined;
  /** The raw response, for an endpoint that hands the request to another HTTP handler (Results.handOff). */
  readonly rawResponse: ServerResponse | undefined;
  readonly #provider: ServiceProvider | undefined;
  #scope: ServiceScope | undefined;
  #stopWatching: (() => void) | undefined;

  constructor(
    readonly raw: IncomingMessage,
    init: {
      url: string;
      body: Buffer | undefined;
      traceId: string;
      log: Logger;
      upgrade?: UpgradeRequest;
      /** Origin and client address (Http:PublicBaseUrl, Http:TrustedProxies); default: socket scheme + Host, the peer. */
      edge?: EdgeIdentity;
      rawResponse?: ServerResponse;
      /** The container whose request scope `services` is. */
      services?: ServiceProvider;
    },
  ) {
    this.method = (raw.method ?? 'GET').toUpperCase();
    const q = init.url.indexOf('?');
    this.path = q >= 0 ? init.url.slice(0, q) : init.url;
    this.#search = q >= 0 ? init.url.slice(q + 1) : '';
    this.headers = raw.headers;
    this.body = init.body;
    this.traceId = init.traceId;
    this.log = init.log;
    this.upgrade = init.upgrade;
    this.#edge = init.edge;
    this.rawResponse = init.rawResponse;
    this.#provider = init.services;
  }

  /**
   * The request's service scope, created when first used (a request that resolves nothing scoped
   * pays nothing) and disposed when the request ends: when the pipeline has finished, errors
   * included, or when the connection closes before the answer went out (the client went away, a
   * timeout cut it), whichever comes first.
   */
  get services(): ServiceScope {
    if (this.#scope === undefined) {
      if (this.#provider === undefined) throw new Error('this request has no service container');
      const scope = this.#provider.createScope([scopeValue(HTTP_CONTEXT, this)]);
      this.#scope = scope;
      const connection = this.rawResponse ?? this.upgrade?.socket;
      if (connection !== undefined) {
        const onClose = () => {
          if (!this.rawResponse?.writableFinished)
            void scope
              .dispose()
              .catch((err: unknown) =>
                this.log.error({ err, traceId: this.traceId }, 'request services failed to dispose'),
              );
        };
        connection.once('close', onClose);
        this.#stopWatching = () => connection.off('close', onClose);
      }
    }
    return this.#scope;
  }

  /** Disposes the request's scope, if it was ever created (the host calls it when the request ends). */
  endServices(): Promise<void> | undefined {
    if (this.#scope === undefined) return undefined;
    this.#stopWatching?.();
    return this.#scope.dispose();
  }

  /** The query string's parameters (parsed when first read: most requests never look). */
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.#search));
  }

  /** Per-request features other middleware hand down (tenant, rate-limit lease, …). */
  get items(): Map<unknown, unknown> {
    return (this.#items ??= new Map());
  }

  /** `pathBase + path`: the path the client sent (used as a problem's `instance`). */
  get originalPath(): string {
    return this.pathBase + this.path;
  }

  /**
   * The base URL the client used, e.g. `https://telemetry.example.com`: `Http:PublicBaseUrl` when set,
   * else the socket's scheme and the Host header, overridden by X-Forwarded-Proto/Host from a trusted proxy.
   */
  get origin(): string {
    return (this.#origin ??= (this.#edge ?? defaultEdge()).origin(this.raw));
  }

  /** The client's address: the peer, or what a trusted proxy says it forwarded for (`Http:TrustedProxies`). */
  get clientAddress(): string {
    return (this.#clientAddress ??= (this.#edge ?? defaultEdge()).clientAddress(this.raw));
  }

  /** True when the client reached us over https (directly, through a trusted proxy, or per Http:PublicBaseUrl). */
  get isHttps(): boolean {
    return this.origin.startsWith('https:');
  }
}
