import type { Logger } from 'pino';
import type { HealthCheck } from '../host/health/health-checks.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { Connector } from '../features/storage/connector.js';
import type { Database, Sql } from '../features/storage/database.js';
import type { DatabaseConfig } from './keys/database-keys.js';
import { loadMigrations, migrate, missingMigrations, pad } from '../features/storage/migrations.js';
import { openConnector } from './open-connector.js';
import type { SpanStarter } from '../host/hop-trace.js';
import { TenantDatabase } from '../features/storage/tenant-database.js';

export interface DatabaseServiceOptions {
  config: DatabaseConfig;
  /** Apply missing migrations at start (Development on the embedded database) instead of refusing to start. */
  migrateAtStart: boolean;
  log: Pick<Logger, 'info' | 'warn'>;
  /** Opens the engine; default from the configuration. */
  open?: () => Promise<Connector>;
  /** Client spans for PostgreSQL statements inside a sampled trace. */
  spans?: SpanStarter;
}

/**
 * The database as a hosted service: opened (and, where allowed, migrated) first at start and
 * closed last at stop, so everything that writes through it has stopped before it closes.
 * `database` is usable from start on; a unit of work before start or after stop fails.
 */
export class DatabaseService implements HostedService {
  readonly name = 'database';
  readonly database: Database;
  readonly #options: DatabaseServiceOptions;
  #inner: TenantDatabase | undefined;

  constructor(options: DatabaseServiceOptions) {
    this.#options = options;
    const engine: Database['engine'] = options.config.connectionString !== undefined ? 'postgres' : 'pglite';
    this.database = {
      engine,
      withTenant: async <T>(tenantId: string, work: (sql: Sql) => Promise<T>): Promise<T> =>
        this.#open().withTenant(tenantId, work),
      withSystem: async <T>(work: (sql: Sql) => Promise<T>): Promise<T> => this.#open().withSystem(work),
      close: () => this.stop(new AbortController().signal),
    };
  }

  async start(): Promise<void> {
    const { config, log } = this.#options;
    const migrations = loadMigrations(config.migrationsDirectory);
    const connector = await (this.#options.open ?? (() => openConnector(config, log, this.#options.spans)))();
    try {
      if (this.#options.migrateAtStart) {
        const applied = await migrate(connector, migrations);
        if (applied.length > 0) log.info({ applied: applied.map(pad) }, 'database migrated');
      } else {
        const missing = await missingMigrations(connector, migrations);
        if (missing.length > 0) {
          throw new Error(
            `the database schema is older than this hub needs (missing migrations ${missing.map((m) => pad(m.version)).join(', ')}): run \`npm run migrate\` first`,
          );
        }
      }
    } catch (err) {
      await connector.close();
      throw err;
    }
    this.#inner = new TenantDatabase(connector);
    log.info(
      { engine: connector.engine, ...(connector.engine === 'pglite' ? { dataDirectory: config.dataDirectory } : {}) },
      'database open',
    );
  }

  async stop(_signal: AbortSignal): Promise<void> {
    const inner = this.#inner;
    this.#inner = undefined;
    await inner?.close();
  }

  /** `database` tagged ready: a trivial unit of work answers. An outage fails ready, never live. */
  healthCheck(): HealthCheck {
    return {
      name: 'database',
      tags: ['ready'],
      check: async () => {
        if (this.#inner === undefined) return { status: 'Unhealthy', description: 'database not open' };
        await this.#inner.withSystem((sql) => sql.query('select 1'));
        return { status: 'Healthy' };
      },
    };
  }

  #open(): TenantDatabase {
    if (this.#inner === undefined) throw new Error('the database is not open');
    return this.#inner;
  }
}
