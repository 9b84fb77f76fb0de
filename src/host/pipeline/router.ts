import type { Endpoint } from './endpoint.js';
import { comparePrecedence, matchTemplate, splitPath } from './route-template.js';

const CACHE_SIZE = 1024;

export type Selection =
  | { kind: 'endpoint'; endpoint: Endpoint; values: Record<string, string> }
  | { kind: 'none' }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'unsupported-media-type' }
  | { kind: 'ambiguous'; candidates: Endpoint[] };

export interface RouteRequest {
  method: string;
  path: string;
  host: string | undefined;
  /** Lower-case media type without parameters; undefined when the request has no body. */
  contentType: string | undefined;
}

/**
 * Endpoint selection in the spec's order: templates that fit the path; filtered by method, host
 * and content type; candidates whose constraints fail dropped; best by order, then precedence.
 */
export class Router {
  readonly #endpoints: readonly Endpoint[];
  /**
   * Selections by request shape: endpoints never change once built, so the same method, path (and
   * host and body type, where endpoints constrain them) always select the same. Bounded: cleared
   * when full, since paths carry ids.
   */
  readonly #cache = new Map<string, Map<string, Selection>>();
  #cached = 0;
  readonly #byHost: boolean;
  readonly #byType: boolean;

  constructor(endpoints: readonly Endpoint[]) {
    this.#endpoints = endpoints;
    this.#byHost = endpoints.some((e) => e.host !== undefined);
    this.#byType = endpoints.some((e) => e.accepts !== null);
  }

  select(req: RouteRequest): Selection {
    // By method (and host and body type only where endpoints constrain them), then by path: no key
    // string is built per request.
    const scope =
      this.#byHost || this.#byType
        ? `${req.method} ${this.#byHost ? req.host : ''} ${this.#byType ? req.contentType : ''}`
        : req.method;
    let byPath = this.#cache.get(scope);
    let selection = byPath?.get(req.path);
    if (selection === undefined) {
      selection = this.#select(req);
      if (this.#cached >= CACHE_SIZE) {
        this.#cache.clear();
        this.#cached = 0;
        byPath = undefined;
      }
      if (byPath === undefined) this.#cache.set(scope, (byPath = new Map()));
      byPath.set(req.path, selection);
      this.#cached++;
    }
    return selection;
  }

  #select(req: RouteRequest): Selection {
    const segments = splitPath(req.path);
    const fits: { endpoint: Endpoint; values: Record<string, string>; constraintsOk: boolean }[] = [];
    for (const endpoint of this.#endpoints) {
      const m = matchTemplate(endpoint.template, segments);
      if (m) fits.push({ endpoint, ...m });
    }
    if (fits.length === 0) return { kind: 'none' };

    const byMethod = fits.filter((c) => acceptsMethod(c.endpoint, req.method));
    if (byMethod.length === 0) {
      const allow = new Set<string>();
      for (const c of fits) for (const m of c.endpoint.methods ?? []) allow.add(m);
      return { kind: 'method-not-allowed', allow: [...allow].sort() };
    }
    const byHost = byMethod.filter((c) => !c.endpoint.host || c.endpoint.host === req.host?.toLowerCase());
    if (byHost.length === 0) return { kind: 'none' };
    const byType = byHost.filter((c) => acceptsContentType(c.endpoint, req.contentType));
    if (byType.length === 0) return { kind: 'unsupported-media-type' };
    const survivors = byType.filter((c) => c.constraintsOk);
    if (survivors.length === 0) return { kind: 'none' };

    survivors.sort(
      (a, b) =>
        a.endpoint.order - b.endpoint.order ||
        comparePrecedence(b.endpoint.template.precedence, a.endpoint.template.precedence),
    );
    const [best, second] = survivors;
    if (
      second &&
      second.endpoint.order === best!.endpoint.order &&
      comparePrecedence(second.endpoint.template.precedence, best!.endpoint.template.precedence) === 0
    ) {
      return {
        kind: 'ambiguous',
        candidates: survivors
          .filter(
            (c) =>
              c.endpoint.order === best!.endpoint.order &&
              comparePrecedence(c.endpoint.template.precedence, best!.endpoint.template.precedence) === 0,
          )
          .map((c) => c.endpoint),
      };
    }
    return { kind: 'endpoint', endpoint: best!.endpoint, values: Object.freeze(best!.values) };
  }
}

function acceptsMethod(endpoint: Endpoint, method: string): boolean {
  return endpoint.methods === null || endpoint.methods.includes(method);
}

function acceptsContentType(endpoint: Endpoint, contentType: string | undefined): boolean {
  // A request without a body has nothing to reject on.
  if (endpoint.accepts === null || contentType === undefined) return true;
  return endpoint.accepts.some(
    (a) => a === contentType || a === '*/*' || (a.endsWith('/*') && contentType.startsWith(a.slice(0, -1))),
  );
}
