import type { HttpContext, SelectedEndpoint } from './http-context.js';

const TARGET: unique symbol = Symbol('preflight target');

/**
 * A CORS preflight: OPTIONS with Origin and Access-Control-Request-Method. Never during re-execution
 * at the error path: the failure of a request is answered, not a question about another endpoint.
 */
export function isPreflight(ctx: HttpContext): boolean {
  return (
    ctx.method === 'OPTIONS' &&
    ctx.error === undefined &&
    ctx.headers.origin !== undefined &&
    ctx.headers['access-control-request-method'] !== undefined
  );
}

/** The method the browser asks about, upper-case. */
export function requestedMethod(ctx: HttpContext): string {
  const value = ctx.headers['access-control-request-method'];
  return String(Array.isArray(value) ? value[0] : value)
    .trim()
    .toUpperCase();
}

/**
 * The endpoint a preflight asks about: the one routing selects for the requested method on this
 * path, or null when none would. The request's own endpoint (`ctx.endpoint`) stays the OPTIONS one,
 * so a preflight CORS refuses goes on as a plain OPTIONS request and never reaches that handler.
 */
export function preflightTarget(ctx: HttpContext): SelectedEndpoint | null {
  return (ctx.items.get(TARGET) as SelectedEndpoint | undefined) ?? null;
}

export function setPreflightTarget(ctx: HttpContext, endpoint: SelectedEndpoint | null): void {
  ctx.items.set(TARGET, endpoint ?? undefined);
}
