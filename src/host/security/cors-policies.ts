import type { SelectedEndpoint } from '../pipeline/http-context.js';
import { createCorsPolicy, type CorsPolicy, type CorsPolicyOptions } from './cors-policy.js';

/**
 * The CORS policies of an application: named ones, registered in code, that endpoints choose with
 * metadata `cors: 'name'`, and a default for every endpoint that names none (`Cors:AllowedOrigins`
 * in the hub). `cors: false` leaves an endpoint without any policy: its responses carry no CORS
 * headers and its preflights are refused.
 */
export class CorsPolicies {
  readonly #named = new Map<string, CorsPolicy>();
  #default: CorsPolicy | null = null;
  /** Endpoints are immutable once built: each is resolved once, not on every request. */
  readonly #resolved = new WeakMap<SelectedEndpoint, CorsPolicy | null>();

  constructor(options: { default?: CorsPolicyOptions; named?: Readonly<Record<string, CorsPolicyOptions>> } = {}) {
    if (options.default) this.setDefault(options.default);
    for (const [name, policy] of Object.entries(options.named ?? {})) this.add(name, policy);
  }

  /** Registers a named policy; throws on a name taken twice (two areas must not share one by accident). */
  add(name: string, options: CorsPolicyOptions): this {
    if (name === '' || this.#named.has(name)) throw new TypeError(`CORS policy name "${name}" is empty or taken`);
    this.#named.set(name, createCorsPolicy(options));
    return this;
  }

  setDefault(options: CorsPolicyOptions): this {
    this.#default = createCorsPolicy(options);
    return this;
  }

  /**
   * The policy of an endpoint: the one its metadata names, none for `cors: false`, else the default.
   * No endpoint (an unmatched path) gets the default too, so a page can read the 404 problem.
   */
  resolve(endpoint: SelectedEndpoint | null): CorsPolicy | null {
    if (endpoint === null) return this.#default;
    let found = this.#resolved.get(endpoint);
    if (found === undefined) {
      found = this.#lookup(endpoint);
      this.#resolved.set(endpoint, found);
    }
    return found;
  }

  /** Throws naming the endpoint when one names a policy nobody registered (checked at start-up). */
  check(endpoints: readonly SelectedEndpoint[]): void {
    for (const endpoint of endpoints) this.resolve(endpoint);
  }

  #lookup(endpoint: SelectedEndpoint): CorsPolicy | null {
    const value = endpoint.metadata['cors'];
    if (value === undefined) return this.#default;
    if (value === false) return null;
    // A typo must not silently fall back to the default (or to no policy).
    if (typeof value !== 'string')
      throw new TypeError(`endpoint metadata "cors" of ${endpoint.displayName} must be a policy name or false`);
    const policy = this.#named.get(value);
    if (!policy) throw new TypeError(`unknown CORS policy "${value}" on ${endpoint.displayName}`);
    return policy;
  }
}
