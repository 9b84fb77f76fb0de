import { Errors } from '../errors.js';
import { problemFromError } from '../problem.js';
import type { Endpoint } from './endpoint.js';
import { EndpointGroup } from './endpoint-builder.js';
import { invokeEndpoint } from './endpoint-invoker.js';
import { exceptionHandler, type ExceptionHook } from './exception-handler.js';
import type { HttpContext } from './http-context.js';
import { compose, DONE, type Middleware, type RequestDelegate } from './middleware.js';
import { Results } from './results.js';
import { Router } from './router.js';
import { selectEndpoint } from './routing.js';

const ROUTING: unique symbol = Symbol('routing position');
type Step = Middleware | typeof ROUTING;

/** Middleware registration shared by the main pipeline and its branches. */
export class PipelineBuilder {
  protected readonly steps: Step[] = [];
  protected readonly routerRef: { current: Router | undefined };

  constructor(routerRef: { current: Router | undefined }) {
    this.routerRef = routerRef;
  }

  use(middleware: Middleware): this {
    this.steps.push(middleware);
    return this;
  }

  /** Conditional branch: when `predicate` holds, the branch runs and the request rejoins the main pipeline. */
  useWhen(predicate: (ctx: HttpContext) => boolean, configure: (branch: PipelineBuilder) => void): this {
    const branch = new PipelineBuilder(this.routerRef);
    configure(branch);
    const steps = branch.steps;
    // Compiled on first use (after build, when the router exists), for the one `next` it rejoins.
    let rejoin: RequestDelegate | undefined;
    let compiled: RequestDelegate | undefined;
    return this.use((ctx, next) => {
      if (!predicate(ctx)) return next(ctx);
      if (rejoin !== next) {
        rejoin = next;
        compiled = this.compile(steps, next);
      }
      return compiled!(ctx);
    });
  }

  /**
   * Path-map branch: when the path starts with `prefix` (whole segments), the branch runs and ends in
   * its terminal delegate, never rejoining; the prefix moves from path to pathBase while it runs.
   */
  map(prefix: string, configure: (branch: BranchBuilder) => void): this {
    const base = prefix.replace(/\/$/, '');
    const branch = new BranchBuilder(this.routerRef);
    configure(branch);
    const p = base.toLowerCase();
    let compiled: RequestDelegate | undefined;
    const runBranch = async (ctx: HttpContext): Promise<void> => {
      const path = ctx.path;
      const pathBase = ctx.pathBase;
      ctx.pathBase = pathBase + ctx.path.slice(0, base.length);
      ctx.path = ctx.path.slice(base.length) || '/';
      try {
        compiled ??= this.compile(branch.steps, branch.terminal);
        await compiled(ctx);
      } finally {
        ctx.path = path;
        ctx.pathBase = pathBase;
      }
    };
    return this.use((ctx, next) => {
      const lower = ctx.path.toLowerCase();
      return lower === p || lower.startsWith(p + '/') ? runBranch(ctx) : next(ctx);
    });
  }

  protected compile(steps: readonly Step[], terminal: RequestDelegate): RequestDelegate {
    const middleware = steps.map((s): Middleware => (s === ROUTING ? this.routingMiddleware() : s));
    return compose(middleware, terminal);
  }

  protected routingMiddleware(): Middleware {
    return (ctx, next) => {
      selectEndpoint(this.routerRef.current!, ctx);
      return next(ctx);
    };
  }
}

export class BranchBuilder extends PipelineBuilder {
  terminal: RequestDelegate = (ctx) => {
    notFound(ctx);
    return DONE;
  };

  /** The branch's terminal delegate. */
  run(terminal: RequestDelegate): this {
    this.terminal = terminal;
    return this;
  }
}

/**
 * The shared host pipeline: middleware (`use`, `useWhen`, `map`), the routing position
 * (`useRouting`), the exception handler, and endpoints with groups and filters.
 * Build it once with `build()`; the result handles every request.
 */
export class WebApplication extends PipelineBuilder {
  readonly endpoints: Endpoint[] = [];
  readonly routes: EndpointGroup = new EndpointGroup(this.endpoints);
  readonly #development: boolean;
  #routingPlaced = false;

  constructor(options: { development: boolean }) {
    super({ current: undefined });
    this.#development = options.development;
  }

  /** Where routing selects the endpoint: middleware before it sees none, middleware after it sees the endpoint. */
  useRouting(): this {
    this.#routingPlaced = true;
    this.steps.push(ROUTING);
    return this;
  }

  /**
   * Catches exceptions of the later pipeline and re-executes it at `errorPath`, whose endpoint (added
   * here) writes the problem. Register it first so that everything after it is covered.
   */
  useExceptionHandler(options: { errorPath?: string; hooks?: ExceptionHook[] } = {}): this {
    const errorPath = options.errorPath ?? '/error';
    this.routes.map(null, errorPath, ({ http }) => {
      if (http.error === undefined) return Results.problem(Errors.HTTP_NOT_FOUND, 'No endpoint matches this path.');
      const body = problemFromError(
        http.error,
        { instance: http.errorPath ?? http.originalPath, traceId: http.traceId },
        this.#development,
      );
      return Results.json(body, body.status, {
        'content-type': 'application/problem+json; charset=utf-8',
        'cache-control': 'no-store',
      });
    });
    return this.use(exceptionHandler({ errorPath, hooks: options.hooks ?? [], development: this.#development }));
  }

  build(): RequestDelegate {
    this.routerRef.current = new Router(this.endpoints);
    const steps: Step[] = this.#routingPlaced ? this.steps : [ROUTING, ...this.steps];
    return this.compile(steps, (ctx) => {
      // Routing selects only endpoints of this application (its router's, or its built-in 405/415).
      if (ctx.endpoint) return invokeEndpoint(ctx, ctx.endpoint as Endpoint);
      notFound(ctx);
      return DONE;
    });
  }
}

function notFound(ctx: HttpContext): void {
  Results.problem(Errors.HTTP_NOT_FOUND, `No endpoint matches ${ctx.method} ${ctx.originalPath}.`).execute(ctx);
}
