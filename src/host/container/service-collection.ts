import { asFunction, createContainer, InjectionMode, Lifetime as AwilixLifetime } from 'awilix';
import { ContainerValidationError } from './container-validation-error.js';
import { ServiceProvider } from './service-provider.js';
import { OWNER, type ServiceScope } from './service-scope.js';
import type { Lifetime, Resolved, ServiceKey } from './service-key.js';
import { validateRegistrations, type RegistrationShape } from './validate-registrations.js';

export interface RegistrationOptions<T> {
  /** Runs when the owning scope (or, for singletons, the container) is disposed. */
  dispose?: (instance: T) => unknown;
}

interface Registration extends RegistrationShape {
  readonly create: ((...deps: never[]) => unknown) | undefined;
  readonly dispose: ((instance: never) => unknown) | undefined;
}

const AWILIX_LIFETIME = {
  singleton: AwilixLifetime.SINGLETON,
  scoped: AwilixLifetime.SCOPED,
  transient: AwilixLifetime.TRANSIENT,
} as const;

/**
 * The registrations of the composition root. Each names its dependencies, so `build()` can check
 * the whole graph before anything runs; factories are synchronous and get the dependencies in order.
 */
export class ServiceCollection {
  readonly #registrations = new Map<string, Registration>();

  singleton<T, const K extends readonly ServiceKey<unknown>[]>(
    key: ServiceKey<T>,
    deps: K,
    create: (...deps: Resolved<K>) => T,
    options?: RegistrationOptions<T>,
  ): this {
    return this.#add(key, 'singleton', deps, create, options);
  }

  scoped<T, const K extends readonly ServiceKey<unknown>[]>(
    key: ServiceKey<T>,
    deps: K,
    create: (...deps: Resolved<K>) => T,
    options?: RegistrationOptions<T>,
  ): this {
    return this.#add(key, 'scoped', deps, create, options);
  }

  transient<T, const K extends readonly ServiceKey<unknown>[]>(
    key: ServiceKey<T>,
    deps: K,
    create: (...deps: Resolved<K>) => T,
    options?: RegistrationOptions<T>,
  ): this {
    return this.#add(key, 'transient', deps, create, options);
  }

  /** An object made and disposed by someone else (a hosted service): shared, never disposed here. */
  instance<T>(key: ServiceKey<T>, value: T): this {
    return this.#add(key, 'singleton', [], () => value);
  }

  /** A value every scope supplies when it is created (its HTTP context, connection or message). */
  perScope<T>(key: ServiceKey<T>): this {
    this.#put({ name: key.name, lifetime: 'scoped', deps: [], create: undefined, dispose: undefined });
    return this;
  }

  has(key: ServiceKey<unknown>): boolean {
    return this.#registrations.has(key.name);
  }

  /** Checks the graph (throws ContainerValidationError naming every problem), then builds the container. */
  build(): ServiceProvider {
    const problems = validateRegistrations(this.#registrations);
    if (problems.length > 0) throw new ContainerValidationError(problems);
    // Strict: awilix also refuses, at resolve time, a longer-lived service taking a shorter-lived one.
    const container = createContainer({ injectionMode: InjectionMode.PROXY, strict: true });
    for (const reg of this.#registrations.values())
      container.register(reg.name, asFunction(factoryOf(reg), { lifetime: AWILIX_LIFETIME[reg.lifetime] }));
    const singletons = [...this.#registrations.values()].filter((r) => r.lifetime === 'singleton').map((r) => r.name);
    return new ServiceProvider(container, new Set(singletons));
  }

  #add(
    key: ServiceKey<unknown>,
    lifetime: Lifetime,
    deps: readonly ServiceKey<unknown>[],
    create: (...deps: never[]) => unknown,
    options?: RegistrationOptions<never>,
  ): this {
    this.#put({ name: key.name, lifetime, deps: deps.map((d) => d.name), create, dispose: options?.dispose });
    return this;
  }

  #put(reg: Registration): void {
    if (this.#registrations.has(reg.name)) throw new Error(`service '${reg.name}' is registered twice`);
    this.#registrations.set(reg.name, reg);
  }
}

/** The awilix factory of a registration: resolves its dependencies, creates, and hands a disposer to the owning scope. */
function factoryOf(reg: Registration): (cradle: Record<string, unknown>) => unknown {
  const { name, lifetime, deps, create, dispose } = reg;
  return (cradle) => {
    const owner = cradle[OWNER] as ServiceScope;
    if (create === undefined)
      throw new Error(`'${name}' is supplied by each scope; resolve it from a scope, not the root`);
    if (lifetime === 'scoped' && owner.isRoot) throw new Error(`scoped '${name}' resolved outside a scope`);
    const instance = create(...(deps.map((d) => cradle[d]) as never[]));
    if (dispose) owner.track(instance, dispose);
    return instance;
  };
}
