import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Endpoint } from './endpoint.js';

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
  endpoint: Endpoint | null = null;
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
  readonly startedAt = performance.now();

  readonly traceId: string;
  readonly log: Logger;
  readonly upgrade: UpgradeRequest | undefined;
  readonly #resolveOrigin: ((req: IncomingMessage) => string) | undefined;
  #origin: string | undefined;
  /** The raw response, for an endpoint that hands the request to another HTTP handler (Results.handOff). */
  readonly rawResponse: ServerResponse | undefined;

  constructor(
    readonly raw: IncomingMessage,
    init: {
      url: string;
      body: Buffer | undefined;
      traceId: string;
      log: Logger;
      upgrade?: UpgradeRequest;
      /** The public scheme and host (Http:PublicBaseUrl, trusted X-Forwarded-*); default: socket scheme + Host. */
      resolveOrigin?: (req: IncomingMessage) => string;
      rawResponse?: ServerResponse;
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
    this.#resolveOrigin = init.resolveOrigin;
    this.rawResponse = init.rawResponse;
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
    if (this.#origin !== undefined) return this.#origin;
    if (this.#resolveOrigin !== undefined) return (this.#origin = this.#resolveOrigin(this.raw));
    const encrypted = (this.raw.socket as { encrypted?: boolean }).encrypted === true;
    return (this.#origin = `${encrypted ? 'https' : 'http'}://${this.headers.host ?? 'localhost'}`);
  }

  /** True when the client reached us over https (directly, through a trusted proxy, or per Http:PublicBaseUrl). */
  get isHttps(): boolean {
    return this.origin.startsWith('https:');
  }
}
