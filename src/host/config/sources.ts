import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Raw } from './parsers.js';

/** One configuration value and where it came from (for error messages). */
export interface Entry {
  key: string;
  value: Raw;
  source: string;
}

/** Flat, case-insensitive view of one layer: lowercased key → entry. */
export type Layer = Map<string, Entry>;

function put(layer: Layer, key: string, value: Raw, source: string): void {
  layer.set(key.toLowerCase(), { key, value, source });
}

/** Nested JSON objects become `Section:Key` paths, as in appsettings.json. */
export function jsonLayer(json: unknown, source: string): Layer {
  const layer: Layer = new Map();
  const walk = (node: unknown, prefix: string): void => {
    if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
      for (const [k, v] of Object.entries(node)) walk(v, prefix ? `${prefix}:${k}` : k);
    } else if (Array.isArray(node)) {
      // Arrays are written comma separated, which is how list-valued keys are parsed.
      put(layer, prefix, node.map(String).join(','), source);
    } else if (node !== null && node !== undefined) {
      put(layer, prefix, node as Raw, source);
    }
  };
  walk(json, '');
  return layer;
}

/** Reads an optional appsettings file; a missing file is an empty layer, a broken one an error. */
export function fileLayer(dir: string, name: string): Layer {
  let text: string;
  try {
    text = readFileSync(join(dir, name), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw new Error(`${name}: cannot be read (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name}: is not valid JSON (${(err as Error).message})`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new Error(`${name}: must hold a JSON object`);
  return jsonLayer(json, name);
}

/** `Section__Key` environment variables, plus the named aliases (e.g. PORT → Http:Port). */
export function envLayer(env: NodeJS.ProcessEnv, aliases: ReadonlyMap<string, string>): Layer {
  const layer: Layer = new Map();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const alias = aliases.get(name);
    if (alias) put(layer, alias, value, `environment variable ${name}`);
  }
  // Section__Key wins over an alias: it is the explicit spelling.
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.includes('__')) continue;
    put(layer, name.split('__').join(':'), value, `environment variable ${name}`);
  }
  return layer;
}

/** `--Section:Key=value` or `--Section:Key value`; other arguments are left to the caller. */
export function argsLayer(args: readonly string[]): { layer: Layer; environment: string | undefined } {
  const layer: Layer = new Map();
  let environment: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) continue;
    const body = arg.slice(2);
    const eq = body.indexOf('=');
    const key = eq >= 0 ? body.slice(0, eq) : body;
    let value: string | undefined = eq >= 0 ? body.slice(eq + 1) : undefined;
    if (value === undefined && i + 1 < args.length && !args[i + 1]!.startsWith('--')) value = args[++i];
    if (value === undefined) continue;
    if (key.toLowerCase() === 'environment') environment = value;
    else if (key.includes(':')) put(layer, key, value, `command line --${key}`);
  }
  return { layer, environment };
}
