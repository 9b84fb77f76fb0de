import type { Logger } from 'pino';
import { DatabaseService } from '../db/database-service.js';
import { categoryLogger } from '../host/logging.js';
import type { AppConfig } from './app-config.js';

/**
 * The database service from the configuration. The embedded database is migrated at start in
 * Development (only this process can open its directory); anywhere else a schema older than this
 * hub stops start-up, naming `npm run migrate`.
 */
export function createDatabaseService(config: AppConfig, log: Logger): DatabaseService {
  return new DatabaseService({
    config: config.database,
    migrateAtStart: config.isDevelopment && config.database.connectionString === undefined,
    log: categoryLogger(log, config, 'Database'),
  });
}
