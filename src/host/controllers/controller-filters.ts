import type { HttpContext } from '../pipeline/http-context.js';
import type { Result } from '../pipeline/results.js';

/** What a controller action's filters see, filled in as the pipeline goes. */
export interface ControllerContext<A = unknown> {
  readonly http: HttpContext;
  /** `Controller.action`, for logs and filters. */
  readonly actionName: string;
  /** The controller instance, once created in the request scope. */
  controller: unknown;
  /** The bound arguments; undefined before model binding and when it failed. */
  args: A | undefined;
  /** Why binding failed (→ 400, the action does not run); undefined when it succeeded. */
  bindingErrors: Record<string, string> | undefined;
  /** The result about to be executed: result filters may replace it before calling next. */
  result: Result | undefined;
}

/** Runs first; a result it returns is executed at once and nothing else runs (not even result filters). */
export type AuthorizationFilter = (ctx: ControllerContext) => Result | undefined | Promise<Result | undefined>;

/**
 * Around everything after authorization: binding, action filters, the action, result filters and the
 * result's execution. Without calling next it short-circuits; it then sets `ctx.result`, which is
 * executed without result filters. Its exceptions are not offered to exception filters.
 */
export type ResourceFilter = (ctx: ControllerContext, next: () => Promise<void>) => Promise<void>;

/** Around the action, after binding; returning a result without calling next skips the action. */
export type ActionFilter = (ctx: ControllerContext, next: () => Promise<Result>) => Promise<Result>;

/** Around the execution of the action's result (`ctx.result`); not run for a result of an exception filter. */
export type ResultFilter = (ctx: ControllerContext, next: () => Promise<void>) => Promise<void>;

/**
 * Offered what controller creation, binding, action filters and the action throw, in order; the
 * first that returns a result handles it (executed without result filters). Unhandled, the
 * exception goes on to the exception handler.
 */
export type ExceptionFilter = (ctx: ControllerContext, error: unknown) => Result | undefined;

/** The filters of one level (global, controller, action); within each kind they run outer to inner. */
export interface ControllerFilters {
  readonly authorization?: readonly AuthorizationFilter[];
  readonly resource?: readonly ResourceFilter[];
  readonly action?: readonly ActionFilter[];
  readonly result?: readonly ResultFilter[];
  readonly exception?: readonly ExceptionFilter[];
}

export type MergedFilters = { readonly [K in keyof ControllerFilters]-?: NonNullable<ControllerFilters[K]> };

/** Global, then controller, then action filters of each kind. */
export function mergeFilters(...levels: readonly (ControllerFilters | undefined)[]): MergedFilters {
  const all = <K extends keyof ControllerFilters>(kind: K): NonNullable<ControllerFilters[K]> =>
    levels.flatMap((l) => (l?.[kind] ?? []) as unknown[]) as never;
  return {
    authorization: all('authorization'),
    resource: all('resource'),
    action: all('action'),
    result: all('result'),
    exception: all('exception'),
  };
}
