import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/compose/load-app-config.js';
import { APP_CONFIG_KEYS } from '../../src/compose/app-config-keys.js';
import { DATABASE_KEYS } from '../../src/compose/keys/database-keys.js';
import { loadGatewayConfig } from '../../src/compose/gateway-config.js';
import { GATEWAY_KEYS } from '../../src/compose/keys/gateway-keys.js';
import { TELEMETRY_KEYS } from '../../src/compose/keys/telemetry-keys.js';
import { HOST_KEYS, LOG_LEVEL_PREFIX } from '../../src/host/config/host-keys.js';
import type { KeyDefinition } from '../../src/host/config/key-definition.js';
import { resolveConfig } from '../../src/host/config/load-config.js';

/**
 * What a deployment file (compose.yaml, the Kubernetes manifests) runs, checked offline: the
 * entry a container's command names, the configuration keys that entry reads, and the entry's
 * own loader run on the container's environment.
 */
export interface DeployedEntry {
  keys: readonly KeyDefinition[];
  /** The entry's configuration loader: throws ConfigError naming every bad key. */
  load(env: NodeJS.ProcessEnv): void;
}

/** An empty content root: no appsettings*.json, as in the image's working directory. */
const contentRoot = mkdtempSync(join(tmpdir(), 'deployed-config-'));

export const DEPLOYED_ENTRIES: Record<string, DeployedEntry> = {
  'dist/src/main.js': { keys: APP_CONFIG_KEYS, load: (env) => void loadConfig({ args: [], env, contentRoot }) },
  'dist/src/worker.js': { keys: APP_CONFIG_KEYS, load: (env) => void loadConfig({ args: [], env, contentRoot }) },
  'dist/src/gateway.js': {
    keys: [...HOST_KEYS, ...GATEWAY_KEYS, ...TELEMETRY_KEYS],
    load: (env) => void loadGatewayConfig({ args: [], env, contentRoot }),
  },
  'dist/src/tools/migrate-cli.js': {
    keys: DATABASE_KEYS,
    load: (env) => void resolveConfig({ args: [], env, contentRoot }, DATABASE_KEYS),
  },
};

/** The entry `node <script>` runs, or throws naming the command. */
export function deployedEntry(command: readonly string[]): DeployedEntry {
  const entry = command[0] === 'node' ? DEPLOYED_ENTRIES[command[1] ?? ''] : undefined;
  if (!entry) throw new Error(`not a Telemetry Hub entry: ${command.join(' ')}`);
  return entry;
}

/**
 * Environment variable names that configure nothing: not `HUB_ENVIRONMENT` (the environment's
 * name), not `Section__Key` for a key the entry reads (case-insensitive, as the loader), not an alias.
 */
export function unknownVariables(names: readonly string[], keys: readonly KeyDefinition[]): string[] {
  const known = new Set(keys.map((k) => k.key.toLowerCase()));
  const aliases = new Set(keys.flatMap((k) => k.envAliases ?? []));
  return names.filter((name) => {
    if (name === 'HUB_ENVIRONMENT' || aliases.has(name)) return false;
    const key = name.split('__').join(':').toLowerCase();
    return !(name.includes('__') && (known.has(key) || key.startsWith(LOG_LEVEL_PREFIX)));
  });
}
