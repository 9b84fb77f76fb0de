import type { ServiceKey } from '../container/service-key.js';
import type { EndpointGroup } from '../pipeline/endpoint-builder.js';
import type { Endpoint, EndpointOptions } from '../pipeline/endpoint.js';
import { mergeFilters, type ControllerContext, type ControllerFilters } from './controller-filters.js';
import { invokeAction, type CompiledAction } from './controller-invoker.js';

/** One action: its route, its binding (and metadata: policies, API description), its filters, and the call. */
export interface ControllerAction<C, A = any> {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  readonly template: string;
  /** Accepted content types, metadata and the binder (e.g. `describedEndpoint(api, …)`); endpoint filters do not apply. */
  readonly options?: Omit<EndpointOptions<A>, 'filters' | 'invoke'>;
  readonly filters?: ControllerFilters;
  readonly invoke: (controller: C, args: A, ctx: ControllerContext<A>) => unknown;
}

/** A controller: the service it is resolved as (in the request scope), its filters and its actions. */
export interface ControllerDefinition<C> {
  readonly name: string;
  readonly controller: ServiceKey<C>;
  readonly filters?: ControllerFilters;
  readonly actions: readonly ControllerAction<C>[];
}

/**
 * Maps each action as an endpoint of `group`, the third endpoint kind beside handlers and hubs:
 * routing, metadata and the middleware around it are those of any endpoint; at the end of the
 * pipeline the controller filter pipeline runs instead of endpoint filters (global filters first,
 * then the controller's, then the action's, within each kind).
 */
export function mapController<C>(
  group: EndpointGroup,
  definition: ControllerDefinition<C>,
  global?: ControllerFilters,
): Endpoint[] {
  return definition.actions.map((action) => {
    const { bind, ...options } = action.options ?? {};
    const compiled: CompiledAction = {
      name: `${definition.name}.${action.name}`,
      controller: definition.controller,
      bind,
      invoke: action.invoke as CompiledAction['invoke'],
      filters: mergeFilters(global, definition.filters, action.filters),
    };
    return group.map([action.method, ...(action.method === 'GET' ? ['HEAD'] : [])], action.template, unreachable, {
      ...options,
      invoke: (http) => invokeAction(http, compiled),
    });
  });
}

function unreachable(): never {
  throw new Error('a controller action runs through invokeAction');
}
