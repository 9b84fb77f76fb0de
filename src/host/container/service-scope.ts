import { asValue, type AwilixContainer } from 'awilix';
import type { ServiceKey } from './service-key.js';

/** Who owns what a resolve creates: the scope it was resolved in (the root for singletons). */
export const OWNER = '$owner';

/** What code that needs services sees of a scope or of the root. */
export interface ServiceResolver {
  resolve<T>(key: ServiceKey<T>): T;
}

/** Creates the scopes of units of work (the container, or a late-bound reference to it). */
export interface ScopeFactory {
  createScope(values?: readonly ScopeValue[]): ServiceScope;
}

/** The root's singletons, which a scope hands out from the root without a container of its own. */
export interface SharedServices {
  readonly root: ServiceResolver;
  readonly names: ReadonlySet<string>;
}

/** A value each scope brings along when it is created (its request, connection or message). */
export type ScopeValue = readonly [ServiceKey<unknown>, unknown];

export function scopeValue<T>(key: ServiceKey<T>, value: T): ScopeValue {
  return [key, value];
}

/**
 * One unit of work's services (a request, a connection, a queue message) or the root. It disposes
 * what it created in reverse creation order, one after the other, so a service is disposed before
 * the services it was built from. After `dispose` nothing more resolves from it.
 *
 * A scope's own values (its request, its connection) and the root's singletons resolve without
 * the container: its child container is made on the first resolve of a scoped or transient
 * service, so a scope that only hands out what it was given (an idle connection's identity) or
 * what every scope shares (a store) costs a few objects, not a container.
 */
export class ServiceScope implements ServiceResolver {
  #container: AwilixContainer | undefined;
  readonly #make: (() => AwilixContainer) | undefined;
  readonly #values: readonly ScopeValue[];
  readonly #shared: SharedServices | undefined;
  readonly #created: { instance: unknown; dispose: (instance: never) => unknown }[] = [];
  #disposing: Promise<void> | undefined;

  constructor(
    container: AwilixContainer | (() => AwilixContainer),
    readonly isRoot: boolean,
    values: readonly ScopeValue[] = [],
    shared?: SharedServices,
  ) {
    this.#values = values;
    this.#shared = shared;
    if (typeof container === 'function') this.#make = container;
    else this.#adopt(container);
  }

  resolve<T>(key: ServiceKey<T>): T {
    if (this.#disposing)
      throw new Error(`'${key.name}' cannot be resolved: its ${this.isRoot ? 'container' : 'scope'} is disposed`);
    for (const [own, value] of this.#values) if (own.name === key.name) return value as T;
    // The same instance the child container would give: awilix keeps singletons in the root.
    if (this.#shared?.names.has(key.name)) return this.#shared.root.resolve(key);
    return this.container.resolve<T>(key.name);
  }

  get disposed(): boolean {
    return this.#disposing !== undefined;
  }

  /** Called by the registrations' factories; not for application code. */
  track(instance: unknown, dispose: (instance: never) => unknown): void {
    this.#created.push({ instance, dispose });
  }

  /** Idempotent. Every disposer runs even when one fails; the failures are then thrown together. */
  dispose(): Promise<void> {
    this.#disposing ??= this.#disposeAll();
    return this.#disposing;
  }

  async #disposeAll(): Promise<void> {
    const errors: unknown[] = [];
    for (let i = this.#created.length - 1; i >= 0; i--) {
      const { instance, dispose } = this.#created[i]!;
      try {
        await dispose(instance as never);
      } catch (error) {
        errors.push(error);
      }
    }
    this.#created.length = 0;
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} service(s) failed to dispose`);
  }

  protected get container(): AwilixContainer {
    return this.#container ?? this.#adopt(this.#make!());
  }

  #adopt(container: AwilixContainer): AwilixContainer {
    this.#container = container;
    container.register(OWNER, asValue(this));
    return container;
  }
}
