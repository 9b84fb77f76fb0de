import { Errors } from '../errors.js';
import type { BindOutcome, Endpoint, EndpointFilter, InvocationContext } from './endpoint.js';
import type { HttpContext } from './http-context.js';
import { DONE } from './middleware.js';
import { isResult, Results, type Result } from './results.js';

/**
 * Runs the selected endpoint: bind, then filters outer → inner → endpoint → handler and back,
 * then execute the result. A failed binding sets 400 (or the status of the binder's own answer);
 * filters still run, the handler does not. A binder that reads the body (a form) is awaited first,
 * so filters see what it bound. An endpoint without filters whose handler answers synchronously
 * costs no promise and no tick.
 */
export function invokeEndpoint(ctx: HttpContext, endpoint: Endpoint): Promise<void> {
  // A controller action runs its own filter pipeline, binding included.
  if (endpoint.invoke) return endpoint.invoke(ctx);
  const outcome = endpoint.bind?.(ctx);
  if (isThenable(outcome)) return Promise.resolve(outcome).then((bound) => invokeBound(ctx, endpoint, bound));
  return invokeBound(ctx, endpoint, outcome);
}

function invokeBound(ctx: HttpContext, endpoint: Endpoint, outcome: BindOutcome<unknown> | undefined): Promise<void> {
  let args: unknown;
  let bindingErrors: Record<string, string> | undefined;
  let refusal: Result | undefined;
  if (outcome?.ok) args = outcome.value;
  else if (outcome) {
    bindingErrors = outcome.errors;
    refusal = outcome.result;
    ctx.response.status = refusal?.status ?? 400;
  }
  const invocation: InvocationContext = { http: ctx, args, bindingErrors };
  const dispose = outcome?.ok ? outcome.dispose : undefined;
  if (dispose === undefined) return run(ctx, endpoint, invocation, refusal);
  let running: Promise<void>;
  try {
    running = run(ctx, endpoint, invocation, refusal);
  } catch (err) {
    running = Promise.reject(err);
  }
  return running.finally(dispose);
}

function run(
  ctx: HttpContext,
  endpoint: Endpoint,
  invocation: InvocationContext,
  refusal: Result | undefined,
): Promise<void> {
  const filters = filtersOf(endpoint);
  if (filters.length > 0)
    return runFilters(filters, invocation, () => Promise.resolve(handle(endpoint, invocation, refusal))).then(
      (result) => result.execute(ctx),
    );
  const outcome = handle(endpoint, invocation, refusal);
  if (isThenable(outcome)) return outcome.then((result) => result.execute(ctx));
  outcome.execute(ctx);
  return DONE;
}

/** The handler's answer as a Result, or a promise of one when the handler is asynchronous. */
function handle(
  endpoint: Endpoint,
  invocation: InvocationContext,
  refusal: Result | undefined,
): Result | Promise<Result> {
  if (invocation.bindingErrors) return refusal ?? bindingProblem(invocation.bindingErrors);
  const value = endpoint.handler(invocation);
  return isThenable(value) ? Promise.resolve(value).then(toResult) : toResult(value);
}

function toResult(value: unknown): Result {
  return isResult(value) ? value : Results.json(value ?? null);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/**
 * An endpoint's filters, read at its first request: endpoints and their groups are complete by then,
 * and reading them builds new arrays (a group's filters apply even when added after the endpoint).
 */
const filtersByEndpoint = new WeakMap<Endpoint, readonly EndpointFilter[]>();

function filtersOf(endpoint: Endpoint): readonly EndpointFilter[] {
  let filters = filtersByEndpoint.get(endpoint);
  if (filters === undefined) {
    filters = endpoint.filters;
    filtersByEndpoint.set(endpoint, filters);
  }
  return filters;
}

function runFilters(
  filters: readonly EndpointFilter[],
  ctx: InvocationContext,
  handler: () => Promise<Result>,
): Promise<Result> {
  const step = (i: number): Promise<Result> => {
    const filter = filters[i];
    return filter ? filter(ctx, () => step(i + 1)) : handler();
  };
  return step(0);
}

/** The 400 of a request whose values did not bind, naming each. */
export function bindingProblem(errors: Record<string, string>): Result {
  return Results.problem(Errors.HTTP_BAD_REQUEST, describe(errors), { errors });
}

function describe(errors: Record<string, string>): string {
  return Object.entries(errors)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
}
