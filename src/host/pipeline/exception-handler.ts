import { HubError } from '../errors.js';
import type { HttpContext } from './http-context.js';
import type { Middleware } from './middleware.js';
import { writeErrorProblem } from './results.js';

/** A hook offered each exception first; true means it wrote the response. */
export type ExceptionHook = (ctx: HttpContext, error: unknown) => boolean | Promise<boolean>;

export interface ExceptionHandlerOptions {
  /** Where the rest of the pipeline is re-executed (default `/error`). */
  errorPath: string;
  hooks: readonly ExceptionHook[];
  development: boolean;
}

/**
 * Catches what the later pipeline throws, offers it to each hook, and when none handles it clears
 * the response and the endpoint and re-executes the later pipeline at the error path. Middleware
 * registered before this one runs once. A failure during re-execution still answers a 500 problem.
 */
export function exceptionHandler(options: ExceptionHandlerOptions): Middleware {
  return async (ctx, next) => {
    try {
      await next(ctx);
      return;
    } catch (error) {
      if (ctx.response.hijacked) throw error;
      for (const hook of options.hooks) {
        if (await hook(ctx, error)) return;
      }
      ctx.log.error({ err: error, path: ctx.path }, 'unhandled exception');
      const originalPath = ctx.path;
      ctx.response.clear();
      ctx.endpoint = null;
      ctx.routeValues = {};
      ctx.errorPath = ctx.originalPath;
      ctx.path = options.errorPath;
      ctx.error = error;
      let answered = false;
      let failure: unknown = error;
      try {
        await next(ctx);
        // No error endpoint answered: the client must still get the problem, not a 404.
        answered = ctx.endpoint !== null;
      } catch (second) {
        ctx.log.error({ err: second }, 'error path failed');
        // Whatever the second failure says about itself, the request failed on the server: 500.
        failure =
          second instanceof HubError ? Object.assign(new Error(second.message), { stack: second.stack }) : second;
      } finally {
        // The problem's instance is the path the client asked for, never the error path.
        ctx.path = originalPath;
      }
      if (!answered) {
        ctx.response.clear();
        writeErrorProblem(ctx, failure, options.development);
      }
    }
  };
}
