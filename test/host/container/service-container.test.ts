import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/host/config/load-config.js';
import { ContainerValidationError } from '../../../src/host/container/container-validation-error.js';
import { ServiceCollection } from '../../../src/host/container/service-collection.js';
import { serviceKey } from '../../../src/host/container/service-key.js';
import { scopeValue } from '../../../src/host/container/service-scope.js';

class Thing {
  static next = 0;
  readonly id = ++Thing.next;
  constructor(readonly label: string) {}
}

const SINGLE = serviceKey<Thing>('single');
const SCOPED = serviceKey<Thing>('scoped');
const TRANSIENT = serviceKey<Thing>('transient');
const REQUEST = serviceKey<{ path: string }>('request');

function collection(disposed: string[] = []): ServiceCollection {
  const dispose = (t: Thing) => void disposed.push(t.label);
  return new ServiceCollection()
    .singleton(SINGLE, [], () => new Thing('single'), { dispose })
    .scoped(SCOPED, [SINGLE], () => new Thing('scoped'), { dispose })
    .transient(TRANSIENT, [SCOPED], () => new Thing('transient'), { dispose });
}

describe('lifetimes', () => {
  it('gives one singleton everywhere, one scoped per scope and a new transient per resolve', () => {
    const root = collection().build();
    const a = root.createScope();
    const b = root.createScope();

    expect(a.resolve(SINGLE)).toBe(b.resolve(SINGLE));
    expect(a.resolve(SINGLE)).toBe(root.resolve(SINGLE));
    expect(a.resolve(SCOPED)).toBe(a.resolve(SCOPED));
    expect(a.resolve(SCOPED)).not.toBe(b.resolve(SCOPED));
    expect(a.resolve(TRANSIENT)).not.toBe(a.resolve(TRANSIENT));
  });

  it('hands each scope its own values (the request of a request scope)', () => {
    const root = new ServiceCollection()
      .perScope(REQUEST)
      .scoped(SCOPED, [REQUEST], (r) => new Thing(r.path))
      .build();

    expect(root.createScope([scopeValue(REQUEST, { path: '/a' })]).resolve(SCOPED).label).toBe('/a');
    expect(root.createScope([scopeValue(REQUEST, { path: '/b' })]).resolve(SCOPED).label).toBe('/b');
  });

  it('refuses a scoped service or a per-scope value outside a scope', () => {
    const root = collection().perScope(REQUEST).build();

    expect(() => root.resolve(SCOPED)).toThrow(/scoped 'scoped' resolved outside a scope/);
    expect(() => root.resolve(REQUEST)).toThrow(/'request' is supplied by each scope/);
  });
});

describe('disposal', () => {
  it('disposes what a scope created in reverse creation order, and leaves the singletons', async () => {
    const disposed: string[] = [];
    const root = collection(disposed).build();
    const scope = root.createScope();
    scope.resolve(TRANSIENT); // creates single, scoped, transient in that order

    await scope.dispose();

    expect(disposed).toEqual(['transient', 'scoped']);
  });

  it('disposes the singletons when the container is disposed, newest first', async () => {
    const disposed: string[] = [];
    const FIRST = serviceKey<Thing>('first');
    const SECOND = serviceKey<Thing>('second');
    const root = new ServiceCollection()
      .singleton(FIRST, [], () => new Thing('first'), { dispose: (t) => void disposed.push(t.label) })
      .singleton(SECOND, [FIRST], () => new Thing('second'), { dispose: (t) => void disposed.push(t.label) })
      .build();
    root.resolve(SECOND);

    await root.dispose();

    expect(disposed).toEqual(['second', 'first']);
  });

  it('waits for each asynchronous disposer before the next', async () => {
    const events: string[] = [];
    const A = serviceKey<string>('a');
    const B = serviceKey<string>('b');
    const slow = (label: string) => async () => {
      events.push(`${label} start`);
      await new Promise((resolve) => setImmediate(resolve));
      events.push(`${label} end`);
    };
    const root = new ServiceCollection()
      .scoped(A, [], () => 'a', { dispose: slow('a') })
      .scoped(B, [A], () => 'b', { dispose: slow('b') })
      .build();
    const scope = root.createScope();
    scope.resolve(B);

    await scope.dispose();

    expect(events).toEqual(['b start', 'b end', 'a start', 'a end']);
  });

  it('runs every disposer when one fails, then reports the failure', async () => {
    const disposed: string[] = [];
    const A = serviceKey<string>('a');
    const B = serviceKey<string>('b');
    const root = new ServiceCollection()
      .scoped(A, [], () => 'a', { dispose: (v) => void disposed.push(v) })
      .scoped(B, [A], () => 'b', {
        dispose: () => {
          throw new Error('b broke');
        },
      })
      .build();
    const scope = root.createScope();
    scope.resolve(B);

    await expect(scope.dispose()).rejects.toThrow(/1 service\(s\) failed to dispose/);
    expect(disposed).toEqual(['a']);
  });

  it('resolves nothing from a disposed scope and disposes only once', async () => {
    const disposed: string[] = [];
    const scope = collection(disposed).build().createScope();
    scope.resolve(SCOPED);

    await Promise.all([scope.dispose(), scope.dispose()]);

    expect(disposed).toEqual(['scoped']);
    expect(() => scope.resolve(SCOPED)).toThrow(/'scoped' cannot be resolved: its scope is disposed/);
  });
});

describe('validation when the container is built', () => {
  function problemsOf(services: ServiceCollection): string[] {
    try {
      services.build();
    } catch (error) {
      expect(error).toBeInstanceOf(ContainerValidationError);
      // A configuration error: start-up ends with exit 78.
      expect(error).toBeInstanceOf(ConfigError);
      return [...(error as ContainerValidationError).problems];
    }
    throw new Error('build() accepted an invalid container');
  }

  it('names a dependency nobody registered', () => {
    expect(problemsOf(new ServiceCollection().scoped(SCOPED, [SINGLE], () => new Thing('x')))).toEqual([
      "service container: 'scoped' depends on 'single', which is not registered",
    ]);
  });

  it('names a singleton that depends on a scoped service, also through a transient', () => {
    const CAPTIVE = serviceKey<Thing>('captive');
    const problems = problemsOf(collection().singleton(CAPTIVE, [TRANSIENT], () => new Thing('captive')));
    expect(problems).toEqual([
      "service container: singleton 'captive' depends on scoped 'scoped' (captive → transient → scoped)",
    ]);
  });

  it('names a singleton that depends on a per-scope value', () => {
    const problems = problemsOf(
      new ServiceCollection().perScope(REQUEST).singleton(SINGLE, [REQUEST], (r) => new Thing(r.path)),
    );
    expect(problems).toEqual(["service container: singleton 'single' depends on scoped 'request' (single → request)"]);
  });

  it('names a cycle', () => {
    const A = serviceKey<string>('a');
    const B = serviceKey<string>('b');
    const problems = problemsOf(new ServiceCollection().transient(A, [B], () => 'a').transient(B, [A], () => 'b'));
    expect(problems).toEqual(["service container: cycle 'a' → 'b' → 'a'"]);
  });
});
