import type { HttpContext } from './http-context.js';

/** Code before `next()` runs on the way in (registration order); code after it on the way out (reverse). */
export type Middleware = (ctx: HttpContext, next: () => Promise<void>) => Promise<void>;
export type RequestDelegate = (ctx: HttpContext) => Promise<void>;

/**
 * Chains middleware into one delegate ending in `terminal`. `next` may be called more than once:
 * the exception handler re-executes the rest of the pipeline that way.
 */
export function compose(middleware: readonly Middleware[], terminal: RequestDelegate): RequestDelegate {
  const dispatch = (i: number, ctx: HttpContext): Promise<void> => {
    const mw = middleware[i];
    if (!mw) return terminal(ctx);
    return mw(ctx, () => dispatch(i + 1, ctx));
  };
  return (ctx) => dispatch(0, ctx);
}
