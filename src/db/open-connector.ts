import type { Connector } from './connector.js';
import type { DatabaseConfig } from './database-keys.js';
import { PgConnector } from './pg-connector.js';
import { PgliteConnector } from './pglite-connector.js';

/** The configured engine: PostgreSQL when a connection string is set, else the embedded PGlite. */
export async function openConnector(config: DatabaseConfig, log: { warn(fields: object, message: string): void }): Promise<Connector> {
  if (config.connectionString !== undefined) {
    return new PgConnector({
      connectionString: config.connectionString,
      maxConnections: config.maxConnections,
      statementTimeoutMs: config.statementTimeoutMs,
      log,
    });
  }
  return PgliteConnector.open(config.dataDirectory);
}
