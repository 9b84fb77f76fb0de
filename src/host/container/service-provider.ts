import { asValue, type AwilixContainer } from 'awilix';
import { ServiceScope, type ScopeFactory, type ScopeValue, type SharedServices } from './service-scope.js';

/**
 * The built container: resolves singletons (disposed at host stop, in reverse creation order) and
 * creates the scopes of requests and queue messages.
 */
export class ServiceProvider extends ServiceScope implements ScopeFactory {
  readonly #shared: SharedServices;

  /** `singletons`: the names of the singleton registrations, which scopes take from here. */
  constructor(container: AwilixContainer, singletons: ReadonlySet<string> = new Set()) {
    super(container, true);
    this.#shared = { root: this, names: singletons };
  }

  createScope(values: readonly ScopeValue[] = []): ServiceScope {
    const make = () => {
      const child = this.container.createScope();
      for (const [key, value] of values) child.register(key.name, asValue(value));
      return child;
    };
    return new ServiceScope(make, false, values, this.#shared);
  }
}

/** Scopes from a container built later (the composition root builds it once every area registered). */
export function lateScopes(provider: () => ServiceProvider | undefined): ScopeFactory {
  return {
    createScope: (values) => {
      const built = provider();
      if (built === undefined) throw new Error('the service container is not built yet');
      return built.createScope(values);
    },
  };
}
