import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageOf, specifiersOf, tsFilesUnder } from './imports.js';

// The layers of docs/architecture.md, checked for every pair of folders: each folder of src/ has
// a rank, and an import goes only to a folder of lower rank (or within the folder itself). Client
// libraries stay in the one adapter that wraps them; only the composition root names an adapter.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Folders of src/ from the ground up; a folder may import only folders listed before it. */
export const RANKS: readonly (readonly string[])[] = [
  ['host'],
  ['wire'],
  ['realtime'],
  ['features/storage', 'features/cache'],
  [
    'features/outbox',
    'features/customers',
    'features/management',
    'features/history',
    'features/devices',
    'features/dashboard',
    'features/api-docs',
    'features/profile',
    'features/firmware',
    'features/gateway',
    'features/simulator',
  ],
  ['features/orders', 'features/serverless'],
  [
    'adapters/memory',
    'adapters/redis',
    'adapters/postgres',
    'adapters/pglite',
    'adapters/rabbitmq',
    'adapters/mqtt',
    'adapters/eventhubs',
    'adapters/socketio',
    'adapters/webpubsub',
    'adapters/otel',
    'adapters/disk',
    'adapters/proxy',
  ],
  ['compose'],
  ['main.ts', 'worker.ts', 'gateway.ts', 'tools', 'dev', 'simulator'],
];

/** Each client library of an outside system, and the one adapter folder that may import it. */
export const CLIENT_LIBRARIES: Readonly<Record<string, string>> = {
  ioredis: 'adapters/redis',
  pg: 'adapters/postgres',
  '@electric-sql/pglite': 'adapters/pglite',
  amqplib: 'adapters/rabbitmq',
  mqtt: 'adapters/mqtt',
  aedes: 'adapters/mqtt',
  'socket.io': 'adapters/socketio',
  'engine.io': 'adapters/socketio',
  'socket.io-parser': 'adapters/socketio',
  ws: 'adapters/webpubsub',
  '@azure/event-hubs': 'adapters/eventhubs',
  '@opentelemetry/sdk-metrics': 'adapters/otel',
  '@opentelemetry/sdk-trace-base': 'adapters/otel',
  '@opentelemetry/sdk-logs': 'adapters/otel',
  '@opentelemetry/resources': 'adapters/otel',
  '@opentelemetry/api-logs': 'adapters/otel',
  '@opentelemetry/exporter-prometheus': 'adapters/otel',
  '@opentelemetry/exporter-trace-otlp-proto': 'adapters/otel',
  '@opentelemetry/exporter-metrics-otlp-proto': 'adapters/otel',
  '@opentelemetry/exporter-logs-otlp-proto': 'adapters/otel',
  'http-proxy-3': 'adapters/proxy',
  // Not an outside system, but one container: everything else sees ServiceCollection and ServiceScope.
  awilix: 'host/container',
};

const ALL = RANKS.flat();
const rankOf = (folder: string): number => RANKS.findIndex((r) => r.includes(folder));

/** The ranked folder a path under src/ belongs to (the longest listed prefix), or undefined. */
export function folderOf(srcRelative: string): string | undefined {
  let best: string | undefined;
  for (const f of ALL) {
    if ((srcRelative === f || srcRelative.startsWith(`${f}/`)) && (best === undefined || f.length > best.length))
      best = f;
  }
  return best;
}

interface Arrow {
  from: string;
  to: string;
  file: string;
  spec: string;
}

/** Every import between two src/ folders (relative imports only), type-only ones included. */
function arrows(): Arrow[] {
  const out: Arrow[] = [];
  for (const file of tsFilesUnder(join(root, 'src'))) {
    const from = folderOf(relative(join(root, 'src'), file));
    for (const spec of specifiersOf(file)) {
      if (!spec.startsWith('.')) continue;
      const target = relative(join(root, 'src'), resolve(dirname(file), spec));
      if (target.startsWith('..')) {
        out.push({
          from: from ?? '?',
          to: `outside src: ${relative(root, resolve(dirname(file), spec))}`,
          file: relative(root, file),
          spec,
        });
        continue;
      }
      const to = folderOf(target);
      if (from !== to) out.push({ from: from ?? '?', to: to ?? '?', file: relative(root, file), spec });
    }
  }
  return out;
}

/** The rules an arrow breaks, as sentences (empty when it keeps them all). */
export function broken(arrow: Pick<Arrow, 'from' | 'to'>): string[] {
  const why: string[] = [];
  if (arrow.from === '?' || arrow.to === '?') return [`a folder with no rank (${arrow.from} → ${arrow.to})`];
  if (arrow.to.startsWith('outside src')) return [`src imports ${arrow.to.slice(13)}`];
  if (rankOf(arrow.to) >= rankOf(arrow.from)) why.push(`${arrow.from} imports ${arrow.to}, which is not below it`);
  if (arrow.to.startsWith('adapters/') && arrow.from !== 'compose' && rankOf(arrow.from) < rankOf('compose'))
    why.push(`only compose names an adapter (${arrow.from} → ${arrow.to})`);
  return why;
}

describe('layers', () => {
  it('every folder of src/ has a rank', () => {
    const unranked = tsFilesUnder(join(root, 'src'))
      .map((f) => relative(join(root, 'src'), f))
      .filter((f) => folderOf(f) === undefined);
    expect(unranked).toEqual([]);
  });

  it('imports only go down, for every pair of folders; only compose names an adapter', () => {
    const found = arrows().flatMap((a) => broken(a).map((why) => `${a.file} → ${a.spec}: ${why}`));
    expect(found).toEqual([]);
  });

  it('each client library is imported by exactly one adapter folder', () => {
    const found: string[] = [];
    for (const file of tsFilesUnder(join(root, 'src'))) {
      const path = relative(join(root, 'src'), file);
      for (const spec of specifiersOf(file)) {
        const pkg = packageOf(spec);
        const owner = pkg === undefined ? undefined : CLIENT_LIBRARIES[pkg];
        // The owner is a folder, ranked or not (host/container inside host).
        if (owner !== undefined && !path.startsWith(`${owner}/`))
          found.push(`${relative(root, file)} imports ${pkg} (only ${owner} may)`);
      }
    }
    expect(found).toEqual([]);
  });

  it('no import cycle between files of src/', () => {
    const graph = new Map<string, string[]>();
    for (const file of tsFilesUnder(join(root, 'src'))) {
      graph.set(
        file,
        specifiersOf(file)
          .filter((s) => s.startsWith('.'))
          .map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts'))),
      );
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string): void => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open')
          cycles.push(
            stack
              .slice(stack.indexOf(next))
              .map((f) => relative(root, f))
              .join(' → '),
          );
        else if (state.get(next) === undefined) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (state.get(file) === undefined) visit(file);
    expect(cycles).toEqual([]);
  });

  it('functions/ uses only src/wire and src/host; nothing in src/ imports functions/', () => {
    const found: string[] = [];
    for (const file of tsFilesUnder(join(root, 'functions/src'))) {
      for (const spec of specifiersOf(file)) {
        const target = relative(root, resolve(dirname(file), spec));
        if (spec.startsWith('.') && target.startsWith('src/') && !/^src\/(wire|host)\//.test(target))
          found.push(`${relative(root, file)} → ${target}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('refuses a planted upward import, an adapter named outside compose, an unranked folder', () => {
    expect(broken({ from: 'realtime', to: 'features/history' })).toEqual([
      'realtime imports features/history, which is not below it',
    ]);
    expect(broken({ from: 'host', to: 'wire' })).toHaveLength(1);
    expect(broken({ from: 'features/history', to: 'adapters/memory' })).toHaveLength(2);
    expect(broken({ from: 'compose', to: 'adapters/redis' })).toEqual([]);
    expect(broken({ from: 'features/orders', to: 'features/outbox' })).toEqual([]);
    expect(broken({ from: 'adapters/redis', to: 'adapters/memory' })).toHaveLength(2);
    expect(folderOf('newfolder/x.ts')).toBeUndefined();
    expect(
      readdirSync(join(root, 'src'))
        .filter((n) => statSync(join(root, 'src', n)).isDirectory())
        .sort(),
    ).toEqual(['adapters', 'compose', 'dev', 'features', 'host', 'realtime', 'simulator', 'tools', 'wire']);
  });
});
