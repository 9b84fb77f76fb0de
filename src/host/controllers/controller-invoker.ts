import type { ServiceKey } from '../container/service-key.js';
import type { Binder } from '../pipeline/endpoint.js';
import { bindingProblem } from '../pipeline/endpoint-invoker.js';
import type { HttpContext } from '../pipeline/http-context.js';
import { isResult, Results, type Result } from '../pipeline/results.js';
import type { ControllerContext, MergedFilters } from './controller-filters.js';

/** One action of a controller, ready to run: what `mapController` builds per endpoint. */
export interface CompiledAction {
  readonly name: string;
  readonly controller: ServiceKey<unknown>;
  readonly bind: Binder<unknown> | undefined;
  readonly invoke: (controller: never, args: never, ctx: ControllerContext<never>) => unknown;
  readonly filters: MergedFilters;
}

/**
 * The controller filter pipeline (spec "Parameter binding and filters" 3):
 *
 *   authorization → resource ⟮ create controller → bind → action filters ⟮ action ⟯ → result filters ⟮ execute ⟯ ⟯
 *
 * Exception filters see what controller creation, binding, action filters and the action throw;
 * what resource filters, result filters and the execution throw goes to the exception handler.
 */
export async function invokeAction(http: HttpContext, action: CompiledAction): Promise<void> {
  const ctx: ControllerContext = {
    http,
    actionName: action.name,
    controller: undefined,
    args: undefined,
    bindingErrors: undefined,
    result: undefined,
  };
  const { filters } = action;
  for (const authorize of filters.authorization) {
    const denied = await authorize(ctx);
    if (denied !== undefined) return denied.execute(http);
  }
  let executed = false;
  await chain(filters.resource, ctx, async () => {
    executed = true;
    const { result, handled, release } = await runAction(ctx, action);
    try {
      ctx.result = result;
      if (handled) return result.execute(http);
      await chain(filters.result, ctx, async () => ctx.result!.execute(http));
    } finally {
      // What the bound value holds (a form's temporary files) lives until its result was executed.
      await release?.();
    }
  });
  if (executed) return;
  if (ctx.result === undefined)
    throw new Error(`a resource filter of ${action.name} neither called next nor set a result`);
  ctx.result.execute(http);
}

interface ActionOutcome {
  readonly result: Result;
  /** An exception filter's result: executed without result filters. */
  readonly handled: boolean;
  /** Releases what the bound value holds, once the result was executed. */
  readonly release: (() => Promise<void> | void) | undefined;
}

/** Creation, binding, action filters and the action, under the exception filters. */
async function runAction(ctx: ControllerContext, action: CompiledAction): Promise<ActionOutcome> {
  let release: (() => Promise<void> | void) | undefined;
  let refusal: Result | undefined;
  try {
    ctx.controller = ctx.http.services.resolve(action.controller);
    if (action.bind) {
      const outcome = await action.bind(ctx.http);
      if (outcome.ok) {
        ctx.args = outcome.value;
        release = outcome.dispose;
      } else {
        ctx.bindingErrors = outcome.errors;
        // The binder's own answer (a 413 for an oversized upload), else 400 naming each value.
        refusal = outcome.result;
        ctx.http.response.status = refusal?.status ?? 400;
      }
    }
    const result = await chainAction(action.filters.action, ctx, async () => {
      if (ctx.bindingErrors) return refusal ?? bindingProblem(ctx.bindingErrors);
      const value = await action.invoke(ctx.controller as never, ctx.args as never, ctx as ControllerContext<never>);
      return isResult(value) ? value : Results.json(value ?? null);
    });
    return { result, handled: false, release };
  } catch (error) {
    for (const filter of action.filters.exception) {
      const result = filter(ctx, error);
      if (result !== undefined) return { result, handled: true, release };
    }
    await release?.();
    throw error;
  }
}

function chain(
  filters: readonly ((ctx: ControllerContext, next: () => Promise<void>) => Promise<void>)[],
  ctx: ControllerContext,
  last: () => Promise<void>,
): Promise<void> {
  const step = async (i: number): Promise<void> => {
    const filter = filters[i];
    return filter ? filter(ctx, () => step(i + 1)) : last();
  };
  return step(0);
}

function chainAction(
  filters: readonly ((ctx: ControllerContext, next: () => Promise<Result>) => Promise<Result>)[],
  ctx: ControllerContext,
  last: () => Promise<Result>,
): Promise<Result> {
  const step = async (i: number): Promise<Result> => {
    const filter = filters[i];
    return filter ? filter(ctx, () => step(i + 1)) : last();
  };
  return step(0);
}
