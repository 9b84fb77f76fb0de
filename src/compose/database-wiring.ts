import type { Logger } from 'pino';
import { DatabaseService } from './database-service.js';
import { categoryLogger } from '../host/logging.js';
import type { AppConfig } from './app-config.js';
import type { SpanStarter } from '../host/hop-trace.js';
import { Sources } from '../adapters/otel/source-names.js';
import { DATABASE } from '../features/storage/database.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import { APP_CONFIG, DATABASE_SERVICE, LOGGER, OTEL } from './app-service-keys.js';
import type { HostedServices } from './hosted-services.js';

/**
 * The database service from the configuration. The embedded database is migrated at start in
 * Development (only this process can open its directory); anywhere else a schema older than this
 * hub stops start-up, naming `npm run migrate`.
 */
export function createDatabaseService(config: AppConfig, log: Logger, spans?: SpanStarter): DatabaseService {
  return new DatabaseService({
    config: config.database,
    migrateAtStart: config.isDevelopment && config.database.connectionString === undefined,
    log: categoryLogger(log, config, 'Database'),
    ...(spans ? { spans } : {}),
  });
}

/** The database service (a hosted service: it opens at start) and the database every area writes through. */
export function registerDatabase(registrations: ServiceCollection, hosted: HostedServices): void {
  hosted.add(DATABASE_SERVICE, [APP_CONFIG, LOGGER, OTEL], (config, log, otel) =>
    createDatabaseService(config, log, otel.source(Sources.postgres)?.startSpan),
  );
  registrations.singleton(DATABASE, [DATABASE_SERVICE], (service) => service.database);
}
