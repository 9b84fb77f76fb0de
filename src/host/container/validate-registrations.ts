import type { Lifetime } from './service-key.js';

export interface RegistrationShape {
  readonly name: string;
  readonly lifetime: Lifetime;
  readonly deps: readonly string[];
}

/**
 * Every problem of a set of registrations, as sentences naming the services: a dependency that is
 * not registered, a singleton that reaches a scoped service (directly or through transients, so it
 * would keep one request's instance for ever), and dependency cycles.
 */
export function validateRegistrations(registrations: ReadonlyMap<string, RegistrationShape>): string[] {
  const problems: string[] = [];
  for (const reg of registrations.values()) {
    for (const dep of reg.deps) {
      if (!registrations.has(dep)) problems.push(`'${reg.name}' depends on '${dep}', which is not registered`);
    }
  }
  for (const reg of registrations.values()) {
    if (reg.lifetime !== 'singleton') continue;
    const path = scopedReachedFrom(reg, registrations);
    if (path)
      problems.push(`singleton '${reg.name}' depends on scoped '${path.at(-1)!}' (${[reg.name, ...path].join(' → ')})`);
  }
  problems.push(...cycles(registrations));
  return problems;
}

/** The path from a singleton to the first scoped service it reaches through transients, if any. */
function scopedReachedFrom(
  start: RegistrationShape,
  registrations: ReadonlyMap<string, RegistrationShape>,
): string[] | undefined {
  const seen = new Set<string>([start.name]);
  const walk = (reg: RegistrationShape, path: string[]): string[] | undefined => {
    for (const dep of reg.deps) {
      const next = registrations.get(dep);
      if (!next || seen.has(dep)) continue;
      seen.add(dep);
      if (next.lifetime === 'scoped') return [...path, dep];
      // A singleton dependency is checked on its own; a transient is created inside this singleton.
      if (next.lifetime === 'transient') {
        const found = walk(next, [...path, dep]);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(start, []);
}

function cycles(registrations: ReadonlyMap<string, RegistrationShape>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const found: string[] = [];
  const visit = (name: string, stack: string[]): void => {
    const s = state.get(name);
    if (s === 'done') return;
    if (s === 'open') {
      found.push(`cycle ${[...stack.slice(stack.indexOf(name)), name].map((n) => `'${n}'`).join(' → ')}`);
      return;
    }
    state.set(name, 'open');
    for (const dep of registrations.get(name)?.deps ?? []) if (registrations.has(dep)) visit(dep, [...stack, name]);
    state.set(name, 'done');
  };
  for (const name of registrations.keys()) visit(name, []);
  return found;
}
