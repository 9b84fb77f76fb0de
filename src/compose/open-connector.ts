import type { Connector } from '../features/storage/connector.js';
import type { DatabaseConfig } from './keys/database-keys.js';
import type { SpanStarter } from '../host/hop-trace.js';
import { PgConnector } from '../adapters/postgres/pg-connector.js';
import { PgliteConnector } from '../adapters/pglite/pglite-connector.js';

/** The configured engine: PostgreSQL when a connection string is set, else the embedded PGlite. */
export async function openConnector(
  config: DatabaseConfig,
  log: { warn(fields: object, message: string): void },
  spans?: SpanStarter,
): Promise<Connector> {
  if (config.connectionString !== undefined) {
    return new PgConnector({
      connectionString: config.connectionString,
      maxConnections: config.maxConnections,
      statementTimeoutMs: config.statementTimeoutMs,
      log,
      ...(spans ? { spans } : {}),
    });
  }
  return PgliteConnector.open(config.dataDirectory);
}
