import type { HttpContext, Metadata, SelectedEndpoint } from './http-context.js';
import type { Result } from './results.js';
import type { RouteTemplate } from './route-template.js';

/**
 * What a binder says about a request: its bound arguments, or why they did not bind (→ 400, or the
 * binder's own `result`, e.g. a 413 for an oversized upload). `dispose` releases what the bound
 * value holds (a form's temporary files) once the result is executed: a result must not stream them.
 */
export type BindOutcome<T> =
  | { ok: true; value: T; dispose?: () => Promise<void> | void }
  | { ok: false; errors: Record<string, string>; result?: Result };
/** Synchronous for route, query and header values; a promise when binding reads the body (a form). */
export type Binder<T> = (ctx: HttpContext) => BindOutcome<T> | Promise<BindOutcome<T>>;

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

export interface Endpoint extends SelectedEndpoint {
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
  /** Set for a controller action: runs its own filter pipeline instead of binding, filters and handler. */
  readonly invoke?: (ctx: HttpContext) => Promise<void>;
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
  /** A controller action's own pipeline (src/host/controllers/); the handler then never runs. */
  invoke?: (ctx: HttpContext) => Promise<void>;
}
