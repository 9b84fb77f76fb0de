import type { KeyDefinition } from './key-definition.js';
import * as p from './parsers.js';

/** The host's own configuration keys (HTTP server, lifecycle, health, logging). Units are in the names. */
export const HOST_KEYS: readonly KeyDefinition[] = [
  { key: 'Http:Port', parse: p.port, default: () => 8080, envAliases: ['PORT'] },
  { key: 'Http:Host', parse: p.str(), default: () => '0.0.0.0' },
  // bytes; the largest request body any endpoint accepts (413 beyond it)
  { key: 'Http:BodyLimitBytes', parse: p.int(1024, 64 * 1024 * 1024), default: () => 1024 * 1024 },
  // seconds; then remaining work is abandoned
  { key: 'Host:ShutdownTimeoutSeconds', parse: p.num(0, 3600), default: () => 30 },
  // seconds a health check may take before it counts as Unhealthy
  { key: 'Health:CheckTimeoutSeconds', parse: p.num(0, 300, { exclusiveMin: true }), default: () => 5 },
  { key: 'Logging:LogLevel:Default', parse: p.logLevel, default: () => 'info' },
];

/** `Logging:LogLevel:<Category>` keys beyond Default are open-ended. */
export const LOG_LEVEL_PREFIX = 'logging:loglevel:';
