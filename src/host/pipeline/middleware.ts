import type { HttpContext } from './http-context.js';

/**
 * Code before `next(ctx)` runs on the way in (registration order); code after it on the way out
 * (reverse). `next` is the rest of the pipeline, built once with it: a middleware with nothing to do
 * for a request returns `next(ctx)` as it is (no `async`, nothing allocated), and one that throws
 * synchronously is caught like one that rejects.
 */
export type Middleware = (ctx: HttpContext, next: RequestDelegate) => Promise<void>;
export type RequestDelegate = (ctx: HttpContext) => Promise<void>;

/** What a middleware that answered by itself returns. */
export const DONE: Promise<void> = Promise.resolve();

/**
 * Chains middleware into one delegate ending in `terminal`, once: each middleware gets the delegate
 * of everything after it. `next` may be called more than once: the exception handler re-executes
 * the rest of the pipeline that way.
 */
export function compose(middleware: readonly Middleware[], terminal: RequestDelegate): RequestDelegate {
  let next = terminal;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const mw = middleware[i]!;
    const rest = next;
    next = (ctx) => mw(ctx, rest);
  }
  return next;
}
