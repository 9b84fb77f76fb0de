import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A reading crosses at most six files from the ingestion adapter to the socket write, listed step
// by step in docs/architecture.md ("A reading's path"). This walks those files by their imports:
// whatever a step runs (its value imports, followed through) must be another step or a helper of
// src/host/ or src/wire/, which return. A type-only import runs nothing, so it may also name a
// port of src/realtime/ or a file of the importing step's own folder (a codec's frame type).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_STEPS = 6;

/** One import of a file: where it resolves (relative to the repository) and whether it is type-only. */
export interface Edge {
  readonly target: string;
  readonly typeOnly: boolean;
}

/** The relative imports and re-exports of a source file. `import type` / `export type` are type-only. */
function edgesOf(file: string): Edge[] {
  const source = readFileSync(join(root, file), 'utf8');
  const out: Edge[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s+)?[^'"]*?from\s*['"](\.[^'"]+)['"]/g)) {
    out.push({
      target: relative(root, resolve(dirname(join(root, file)), m[3]!.replace(/\.js$/, '.ts'))),
      typeOnly: m[2] !== undefined,
    });
  }
  for (const m of source.matchAll(/(?:\bimport\(\s*|(?:^|\n)\s*import\s*)['"](\.[^'"]+)['"]/g)) {
    out.push({
      target: relative(root, resolve(dirname(join(root, file)), m[1]!.replace(/\.js$/, '.ts'))),
      typeOnly: false,
    });
  }
  return out;
}

/** The steps of the path as docs/architecture.md lists them: each the file (or alternative files) named before its dash. */
export function documentedSteps(markdown: string): string[][] {
  const start = markdown.indexOf("**A reading's path**");
  if (start < 0) return [];
  const rest = markdown.slice(start);
  const end = rest.indexOf('\n## ');
  // A step is a numbered item with its indented continuation lines; its files are named before its dash.
  const items: string[] = [];
  for (const line of (end < 0 ? rest : rest.slice(0, end)).split('\n')) {
    if (/^\d+\.\s/.test(line)) items.push(line);
    else if (items.length > 0 && /^\s+\S/.test(line)) items[items.length - 1] += ` ${line.trim()}`;
  }
  return items.map((item) => [...item.split(' — ')[0]!.matchAll(/`(src\/[^`]+\.ts)`/g)].map((m) => m[1]!));
}

/**
 * Helpers return: host/ and wire/ import nothing above them (layers.test.ts), so they cannot call
 * onward. The service container is not one: a reading's delivery resolves nothing, whatever the
 * connection's scope holds.
 */
const helper = (file: string) => /^src\/(host|wire)\//.test(file) && !file.startsWith('src/host/container/');

/** Every import a path file may not make, as sentences (empty when the path keeps to itself). */
export function violations(pathFiles: readonly string[], edgesFor: (file: string) => Edge[]): string[] {
  const onPath = new Set(pathFiles);
  const found: string[] = [];
  for (const file of pathFiles) {
    for (const { target, typeOnly } of edgesFor(file)) {
      if (onPath.has(target) || helper(target)) continue;
      if (typeOnly && (target.startsWith('src/realtime/') || dirname(target) === dirname(file))) continue;
      found.push(
        `${file} imports ${target}${typeOnly ? ' (type-only)' : ''}, which is neither on the path nor a host/ or wire/ helper`,
      );
    }
  }
  return found;
}

describe("a reading's path", () => {
  const steps = documentedSteps(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));
  const files = steps.flat();

  it(`is listed in docs/architecture.md in at most ${MAX_STEPS} steps, each naming files that exist`, () => {
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.length).toBeLessThanOrEqual(MAX_STEPS);
    for (const step of steps) expect(step.length).toBeGreaterThan(0);
    expect(files.filter((f) => !existsSync(join(root, f)))).toEqual([]);
  });

  it('starts at an ingestion adapter, goes through src/realtime/ and ends at a socket adapter, out and back once', () => {
    const layer = (f: string) =>
      f.startsWith('src/adapters/') ? 'adapters' : f.startsWith('src/realtime/') ? 'realtime' : f;
    const layers = steps.map((step) => [...new Set(step.map(layer))]);
    for (const l of layers) expect(l).toHaveLength(1);
    const sequence = layers.map((l) => l[0]).filter((l, i, all) => i === 0 || all[i - 1] !== l);
    expect(sequence).toEqual(['adapters', 'realtime', 'adapters']);
  });

  it('imports nothing outside the listed files but host/ and wire/ helpers', () => {
    expect(violations(files, edgesOf)).toEqual([]);
  });

  it('refuses a planted import of another realtime file, a type from another adapter, the service container, and a seventh step', () => {
    const planted = (extra: Record<string, Edge[]>) => (file: string) => [...edgesOf(file), ...(extra[file] ?? [])];
    expect(
      violations(files, planted({ 'src/realtime/hub.ts': [{ target: 'src/realtime/catch-up.ts', typeOnly: false }] })),
    ).toHaveLength(1);
    expect(
      violations(
        files,
        planted({ 'src/realtime/hub.ts': [{ target: 'src/adapters/redis/redis-backplane.ts', typeOnly: true }] }),
      ),
    ).toHaveLength(1);
    expect(
      violations(
        files,
        planted({ 'src/realtime/hub.ts': [{ target: 'src/wire/outbound-message.ts', typeOnly: false }] }),
      ),
    ).toEqual([]);
    expect(
      violations(
        files,
        planted({
          'src/realtime/transport-connection.ts': [{ target: 'src/host/container/service-scope.ts', typeOnly: false }],
        }),
      ),
    ).toHaveLength(1);
    const seven =
      "**A reading's path**\n\n" +
      Array.from({ length: 7 }, (_, i) => `${i + 1}. \`src/realtime/hub.ts\` — step`).join('\n');
    expect(documentedSteps(seven).length).toBeGreaterThan(MAX_STEPS);
  });
});
