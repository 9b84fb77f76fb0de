import { LOG_LEVEL_PREFIX } from './host-keys.js';
import { ENVIRONMENTS, type EnvironmentName, type KeyDefinition } from './key-definition.js';
import { argsLayer, envLayer, fileLayer, type Entry, type Layer } from './sources.js';
import { logLevel, type LogLevel } from './parsers.js';
import { REDACTED, redactText, secretFragments } from './redact-secrets.js';

/** Start-up stops with this; each problem names its key. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    // A value echoed in a problem may be a URL or connection string with a password in it.
    const redacted = problems.map(redactText);
    super(`invalid configuration:\n  - ${redacted.join('\n  - ')}`);
    this.problems = redacted;
    this.name = 'ConfigError';
  }
}

export interface ConfigInputs {
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Where appsettings*.json are looked for. */
  contentRoot: string;
}

/** Every key's value, parsed and validated; what an area's typed configuration is built from. */
export interface ResolvedConfig {
  readonly environment: EnvironmentName;
  /** Parsed values by canonical key; unset keys are absent. */
  readonly values: ReadonlyMap<string, unknown>;
  /** `Logging:LogLevel:<Category>` levels beyond Default. */
  readonly categories: Readonly<Record<string, LogLevel>>;
  /** Keys from files or the command line that no key definition reads (likely typos). */
  readonly unknownKeys: readonly string[];
  /** Configured secret values (and the secret parts of connection strings): scrubbed from every log line. */
  readonly secrets: readonly string[];
  /** Keys and their values for the start-up log; secrets redacted (connection strings keep their host). */
  describe(): Record<string, unknown>;
}

export interface ResolveOptions {
  /**
   * Secret values that are public knowledge (an area's development defaults): fine on a developer's
   * machine, refused for every signing secret in any other environment.
   */
  wellKnownSecrets?: readonly string[];
}

/**
 * Resolves the configuration once, for the keys the app composed from each area's list:
 * defaults < appsettings.json < appsettings.{Environment}.json < environment variables < command
 * line. Throws ConfigError naming every bad key.
 */
export function resolveConfig(
  inputs: ConfigInputs,
  keys: readonly KeyDefinition[],
  options: ResolveOptions = {},
): ResolvedConfig {
  const duplicate = keys.find((d, i) => keys.findIndex((o) => o.key.toLowerCase() === d.key.toLowerCase()) !== i);
  if (duplicate) throw new Error(`configuration key ${duplicate.key} is declared twice`);
  const problems: string[] = [];
  const cli = argsLayer(inputs.args);
  const envName = cli.environment ?? inputs.env.HUB_ENVIRONMENT ?? 'Production';
  const environment = ENVIRONMENTS.find((e) => e.toLowerCase() === envName.toLowerCase());
  if (!environment) {
    throw new ConfigError([`HUB_ENVIRONMENT: must be one of ${ENVIRONMENTS.join(', ')} (got '${envName}')`]);
  }

  const aliases = new Map<string, string>();
  for (const def of keys) for (const a of def.envAliases ?? []) aliases.set(a, def.key);

  const layers: Layer[] = [];
  for (const file of ['appsettings.json', `appsettings.${environment}.json`]) {
    try {
      layers.push(fileLayer(inputs.contentRoot, file));
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  layers.push(envLayer(inputs.env, aliases), cli.layer);

  const merged = new Map<string, Entry>();
  for (const layer of layers) for (const [k, e] of layer) merged.set(k, e);

  const values = new Map<string, unknown>();
  const ctx = { environment, get: (key: string) => values.get(key) };
  // Keys whose default or requirement depends on another key are resolved after it.
  const ordered = [...keys].sort((a, b) => Number(a.dependent === true) - Number(b.dependent === true));
  for (const def of ordered) {
    const entry = merged.get(def.key.toLowerCase());
    if (entry !== undefined && String(entry.value).trim() !== '') {
      try {
        values.set(def.key, def.parse(entry.value));
      } catch (err) {
        const shown = def.secret ? '' : ` (got '${String(entry.value)}' from ${entry.source})`;
        problems.push(`${def.key}: ${(err as Error).message}${def.secret ? ` (from ${entry.source})` : shown}`);
      }
    } else {
      const fallback = def.default?.(ctx);
      if (fallback !== undefined) values.set(def.key, fallback);
      else if (def.required?.(ctx))
        problems.push(`${def.key}: is required in ${environment}${def.requiredWhen ? ` ${def.requiredWhen}` : ''}`);
    }
    const problem = values.has(def.key) ? def.check?.(values.get(def.key), ctx) : undefined;
    if (problem !== undefined) problems.push(`${def.key}: ${problem}`);
  }

  const categoryLevels: Record<string, LogLevel> = {};
  for (const [k, entry] of merged) {
    if (!k.startsWith(LOG_LEVEL_PREFIX) || k === `${LOG_LEVEL_PREFIX}default`) continue;
    try {
      categoryLevels[entry.key.slice(LOG_LEVEL_PREFIX.length)] = logLevel(entry.value);
    } catch (err) {
      problems.push(`${entry.key}: ${(err as Error).message} (got '${String(entry.value)}' from ${entry.source})`);
    }
  }

  problems.push(...secretProblems(environment, values, keys, new Set(options.wellKnownSecrets ?? [])));
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    environment,
    values,
    categories: categoryLevels,
    unknownKeys: unknownKeys(merged, keys),
    secrets: keys
      .filter((def) => def.secret && typeof values.get(def.key) === 'string')
      .flatMap((def) => secretFragments(values.get(def.key) as string, isConnectionString(def.key))),
    describe() {
      const out: Record<string, unknown> = { environment };
      for (const def of keys) {
        if (!values.has(def.key)) continue;
        const value = values.get(def.key);
        out[def.key] = !def.secret ? value : isConnectionString(def.key) ? redactText(String(value)) : REDACTED;
      }
      return out;
    },
  };
}

function isConnectionString(key: string): boolean {
  return key.startsWith('ConnectionStrings:');
}

/** HS256 keys shorter than the hash (32 bytes) are brute-forceable (RFC 7518 §3.2). */
const MIN_SECRET_BYTES = 32;

/** Signing secrets (every secret but a connection string): never the public development one outside Development, never short. */
function secretProblems(
  environment: EnvironmentName,
  values: ReadonlyMap<string, unknown>,
  keys: readonly KeyDefinition[],
  wellKnown: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const def of keys) {
    const value = values.get(def.key);
    if (!def.secret || typeof value !== 'string' || isConnectionString(def.key)) continue;
    if (environment !== 'Development' && wellKnown.has(value)) {
      problems.push(`${def.key}: is the well-known development secret; set a secret of your own in ${environment}`);
    } else if (Buffer.byteLength(value) < MIN_SECRET_BYTES) {
      problems.push(`${def.key}: must be at least ${MIN_SECRET_BYTES} bytes`);
    }
  }
  return problems;
}

/** Keys from files and the command line that no part of the hub reads: likely typos, worth a warning. */
function unknownKeys(merged: Map<string, Entry>, keys: readonly KeyDefinition[]): string[] {
  const known = new Set(keys.map((d) => d.key.toLowerCase()));
  const out: string[] = [];
  for (const [k, e] of merged) {
    if (known.has(k) || k.startsWith(LOG_LEVEL_PREFIX) || e.source.startsWith('environment')) continue;
    out.push(`${e.key} (${e.source})`);
  }
  return out;
}

export type { EnvironmentName };
