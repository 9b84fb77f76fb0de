/** How long an instance lives: one per host, one per scope (request, connection, message), or one per resolve. */
export type Lifetime = 'singleton' | 'scoped' | 'transient';

/**
 * A typed name of a service. Features declare the keys of what they need; only the composition root
 * says which implementation (and which lifetime) stands behind each.
 */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: carries the type only. */
  readonly __type?: T;
}

export function serviceKey<T>(name: string): ServiceKey<T> {
  return { name };
}

/** The resolved values of a list of keys, in the same order. */
export type Resolved<K extends readonly ServiceKey<unknown>[]> = {
  [I in keyof K]: K[I] extends ServiceKey<infer T> ? T : never;
};
