import { describe, expect, it } from 'vitest';
import { APP_CONFIG_KEYS } from '../../src/compose/app-config-keys.js';
import { toHostConfig } from '../../src/host/config/host-config.js';
import { HOST_KEYS } from '../../src/host/config/host-keys.js';
import type { KeyDefinition } from '../../src/host/config/key-definition.js';
import { resolveConfig } from '../../src/host/config/load-config.js';
import { str } from '../../src/host/config/parsers.js';
import { contentRoot } from './support/test-config.js';

describe('configuration keys composed per area', () => {
  it("the host's loader resolves the host's own keys alone; others are unknown to it", () => {
    const resolved = resolveConfig(
      { args: ['--Http:Port=1234', '--Hub:Name=x'], env: {}, contentRoot: contentRoot() },
      HOST_KEYS,
    );
    const host = toHostConfig(resolved);
    expect(host.http.port).toBe(1234);
    expect(host.host.shutdownTimeoutMs).toBe(30_000);
    expect(resolved.unknownKeys).toHaveLength(1);
    expect(resolved.unknownKeys[0]).toMatch(/^Hub:Name /);
  });

  it("an area's list composes with the host's: its keys are validated in the same pass", () => {
    const area: KeyDefinition[] = [{ key: 'Area:Name', parse: str({ minLength: 3 }), default: () => 'abc' }];
    const keys = [...HOST_KEYS, ...area];
    expect(
      resolveConfig({ args: ['--Area:Name=long'], env: {}, contentRoot: contentRoot() }, keys).values.get('Area:Name'),
    ).toBe('long');
    expect(() =>
      resolveConfig({ args: ['--Area:Name=x', '--Http:Port=nope'], env: {}, contentRoot: contentRoot() }, keys),
    ).toThrow(/Http:Port[\s\S]*Area:Name|Area:Name[\s\S]*Http:Port/);
  });

  it('a key declared by two areas stops start-up', () => {
    expect(() =>
      resolveConfig({ args: [], env: {}, contentRoot: contentRoot() }, [
        ...HOST_KEYS,
        { key: 'http:port', parse: str() },
      ]),
    ).toThrow(/http:port is declared twice/);
  });

  it("the app's list holds every host key once", () => {
    const names = APP_CONFIG_KEYS.map((k) => k.key.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    for (const k of HOST_KEYS) expect(names).toContain(k.key.toLowerCase());
  });

  it("in the app's list every key a default, requirement or check reads is resolved before it", () => {
    // resolveConfig's order: the keys without `dependent` first, then the dependent ones, each in list order.
    const order = [...APP_CONFIG_KEYS]
      .sort((a, b) => Number(a.dependent === true) - Number(b.dependent === true))
      .map((d) => d.key);
    const late = new Set<string>();
    let reads = 0;
    for (const def of APP_CONFIG_KEYS) {
      const code = [def.default, def.required, def.check].map((f) => (f ? String(f) : '')).join('\n');
      for (const [, read] of code.matchAll(/\.get\(\s*['"]([^'"]+)['"]\s*\)/g)) {
        reads += 1;
        const at = order.indexOf(read!);
        if (at < 0 || at >= order.indexOf(def.key)) late.add(`${def.key} reads ${read}`);
      }
    }
    expect([...late]).toEqual([]);
    expect(reads).toBeGreaterThan(5);
  });
});
