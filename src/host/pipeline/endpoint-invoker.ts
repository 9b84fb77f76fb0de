import { Errors } from '../errors.js';
import type { Endpoint, EndpointFilter, InvocationContext } from './endpoint.js';
import type { HttpContext } from './http-context.js';
import { isResult, Results, type Result } from './results.js';

/**
 * Runs the selected endpoint: bind, then filters outer → inner → endpoint → handler and back,
 * then execute the result. A failed binding sets 400; filters still run, the handler does not.
 */
export async function invokeEndpoint(ctx: HttpContext, endpoint: Endpoint): Promise<void> {
  let args: unknown;
  let bindingErrors: Record<string, string> | undefined;
  if (endpoint.bind) {
    const outcome = endpoint.bind(ctx);
    if (outcome.ok) args = outcome.value;
    else {
      bindingErrors = outcome.errors;
      ctx.response.status = 400;
    }
  }
  const invocation: InvocationContext = { http: ctx, args, bindingErrors };
  const handler = async (): Promise<Result> => {
    if (bindingErrors) {
      return Results.problem(Errors.HTTP_BAD_REQUEST, describe(bindingErrors), { errors: bindingErrors });
    }
    const value = await endpoint.handler(invocation);
    return isResult(value) ? value : Results.json(value ?? null);
  };
  const result = await runFilters(endpoint.filters, invocation, handler);
  result.execute(ctx);
}

function runFilters(filters: readonly EndpointFilter[], ctx: InvocationContext, handler: () => Promise<Result>): Promise<Result> {
  const step = (i: number): Promise<Result> => {
    const filter = filters[i];
    return filter ? filter(ctx, () => step(i + 1)) : handler();
  };
  return step(0);
}

function describe(errors: Record<string, string>): string {
  return Object.entries(errors)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
}
