import type { HttpContext } from './http-context.js';
import type { Result } from './results.js';
import type { RouteTemplate } from './route-template.js';

/** What a binder says about a request: its bound arguments, or why they did not bind (→ 400). */
export type BindOutcome<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };
export type Binder<T> = (ctx: HttpContext) => BindOutcome<T>;

/** Handed to filters and the handler. `args` is undefined when binding failed. */
export interface InvocationContext<T = unknown> {
  readonly http: HttpContext;
  readonly args: T;
  readonly bindingErrors: Record<string, string> | undefined;
}

/** A handler returns a Result, or any other value which is sent as JSON 200. */
export type Handler<T = unknown> = (ctx: InvocationContext<T>) => unknown;

/** Runs around the handler: code before `next()` on the way in, after it on the way out. */
export type EndpointFilter = (ctx: InvocationContext, next: () => Promise<Result>) => Promise<Result>;

/**
 * Open-ended endpoint metadata; each concern reads its own keys (authorization, rate limits, …).
 * `builtIn: true` marks the routing's own 405/415 endpoints (logged without a route template).
 */
export type Metadata = Readonly<Record<string, unknown>>;

export interface Endpoint {
  /** e.g. `GET /v1/devices`, used in logs (the route template, never the raw path). */
  readonly displayName: string;
  readonly template: RouteTemplate;
  /** Upper-case methods; null accepts any. */
  readonly methods: readonly string[] | null;
  /** Accepted request content types (e.g. `application/json`); null accepts any. */
  readonly accepts: readonly string[] | null;
  /** Host constraint (`host` or `host:port`); undefined accepts any. */
  readonly host: string | undefined;
  /** Lower runs first among equally good candidates (routing step 4). */
  readonly order: number;
  readonly metadata: Metadata;
  /** Outer group → inner group → endpoint. */
  readonly filters: readonly EndpointFilter[];
  readonly bind: Binder<unknown> | undefined;
  readonly handler: Handler<any>;
}

export interface EndpointOptions<T> {
  accepts?: readonly string[];
  host?: string;
  order?: number;
  metadata?: Metadata;
  filters?: readonly EndpointFilter[];
  bind?: Binder<T>;
  /** Overrides the display name (defaults to `METHOD template`). */
  name?: string;
}
