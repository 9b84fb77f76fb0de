import type { ServiceCollection } from '../host/container/service-collection.js';
import { serviceKey, type Resolved, type ServiceKey } from '../host/container/service-key.js';
import type { ServiceProvider } from '../host/container/service-provider.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { Host } from '../host/lifecycle/host.js';

/** Every hosted service of a host, in start order (the host stops them in reverse). */
export const HOSTED_SERVICES = serviceKey<readonly HostedService[]>('hostedServices');

/**
 * The hosted services of a composition root, registered in its container in start order. Each
 * area adds its own: made by the container from the services it depends on (one service, or a list
 * that follows the configuration), or, for what the host makes before the container (OpenTelemetry,
 * the gateway's upstream health), made already and handed over. The host starts what the container resolves, so a
 * hosted service whose dependency nobody registered stops start-up (exit 78) naming both. The host
 * stops them; the container never disposes a hosted service.
 */
export class HostedServices {
  readonly #registrations: ServiceCollection;
  readonly #keys: ServiceKey<HostedService | readonly HostedService[]>[] = [];
  #sealed = false;

  constructor(registrations: ServiceCollection) {
    this.#registrations = registrations;
  }

  /** A hosted service the container makes from `deps`, started after those added before it. */
  add<T extends HostedService, const K extends readonly ServiceKey<unknown>[]>(
    key: ServiceKey<T>,
    deps: K,
    create: (...deps: Resolved<K>) => T,
  ): this {
    this.#registrations.singleton(key, deps, create);
    return this.#push(key);
  }

  /** An area's hosted services the container makes together, started in the order of the list. */
  addAll<const K extends readonly ServiceKey<unknown>[]>(
    key: ServiceKey<readonly HostedService[]>,
    deps: K,
    create: (...deps: Resolved<K>) => readonly HostedService[],
  ): this {
    this.#registrations.singleton(key, deps, create);
    return this.#push(key);
  }

  /** Hosted services an area made already, each registered under its name. */
  made(...services: readonly HostedService[]): this {
    for (const service of services) {
      const key = serviceKey<HostedService>(`hosted:${service.name}`);
      this.#registrations.instance(key, service);
      this.#push(key);
    }
    return this;
  }

  /** Registers the list once every area (and `extend`) added to it; before the container is built. */
  seal(): void {
    this.#sealed = true;
    const keys = [...this.#keys];
    this.#registrations.singleton(HOSTED_SERVICES, keys, (...services) => services.flat());
  }

  /** Adds what the built container resolves to the host, in start order. */
  addTo(host: Host, container: ServiceProvider): void {
    for (const service of container.resolve(HOSTED_SERVICES)) host.add(service);
  }

  #push(key: ServiceKey<HostedService | readonly HostedService[]>): this {
    if (this.#sealed) throw new Error(`hosted service '${key.name}' added after the container was built`);
    this.#keys.push(key);
    return this;
  }
}
