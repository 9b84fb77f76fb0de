import type { LogLevel } from './parsers.js';
import type { EnvironmentName } from './key-definition.js';
import type { ResolvedConfig } from './load-config.js';

/** What the host itself reads of the resolved configuration (its keys are HOST_KEYS). */
export interface HostConfig {
  readonly environment: EnvironmentName;
  readonly isDevelopment: boolean;
  readonly http: { readonly port: number; readonly host: string; readonly bodyLimitBytes: number };
  readonly host: { readonly shutdownTimeoutMs: number };
  readonly health: { readonly checkTimeoutMs: number };
  readonly logging: { readonly defaultLevel: LogLevel; readonly categories: Readonly<Record<string, LogLevel>> };
  /** Keys from files or the command line that nothing reads (logged as a warning at start). */
  readonly unknownKeys: readonly string[];
  /** Non-secret keys and their values, for the start-up log. */
  describe(): Record<string, unknown>;
}

/** The host's part of a resolved configuration (not frozen: the app adds its areas, then freezes). */
export function toHostConfig(resolved: ResolvedConfig): HostConfig {
  const v = <T>(key: string) => resolved.values.get(key) as T;
  return {
    environment: resolved.environment,
    isDevelopment: resolved.environment === 'Development',
    http: { port: v('Http:Port'), host: v('Http:Host'), bodyLimitBytes: v('Http:BodyLimitBytes') },
    host: { shutdownTimeoutMs: v<number>('Host:ShutdownTimeoutSeconds') * 1000 },
    health: { checkTimeoutMs: v<number>('Health:CheckTimeoutSeconds') * 1000 },
    logging: { defaultLevel: v('Logging:LogLevel:Default'), categories: resolved.categories },
    unknownKeys: resolved.unknownKeys,
    describe: () => resolved.describe(),
  };
}
