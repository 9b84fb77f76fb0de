/**
 * The HistoryReader contract on the database store catch-up reads in the hub: DatabaseHistoryReader
 * over the writer that takes accepted readings, on the embedded PGlite and on PostgreSQL.
 */
import { describe } from 'vitest';
import type { Connector } from '../../../src/features/storage/connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { systemClock } from '../../../src/host/clock.js';
import { DatabaseHistoryReader } from '../../../src/features/history/database-history-reader.js';
import { HistoryWriter } from '../../../src/features/history/history-writer.js';
import { freshDataDirectory } from '../../support/embedded-database.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { runHistoryReaderContract, type HistoryUnderTest } from '../../realtime/history-reader.case.js';

/** The hub's reader and writer on a migrated database; readings go through the writer's queue as accepted ones do. */
function overDatabase(connector: Connector, release: () => Promise<void>): HistoryUnderTest {
  const database = new TenantDatabase(connector);
  const writer = new HistoryWriter({
    database,
    capacity: 10_000,
    batchSize: 100,
    flushIntervalMs: 5,
    clock: systemClock,
    log: { warn: () => undefined },
  });
  return {
    reader: new DatabaseHistoryReader(database, writer),
    record: (reading) => {
      if (!writer.offer(reading)) throw new Error('the history writer refused a reading');
    },
    dispose: async () => {
      await writer.drain();
      await connector.close();
      await release();
    },
  };
}

runHistoryReaderContract('DatabaseHistoryReader on embedded PGlite', async () => {
  const data = freshDataDirectory();
  return overDatabase(await PgliteConnector.open(data.path), async () => data.remove());
});

if (await requirePostgres()) {
  runHistoryReaderContract('DatabaseHistoryReader on PostgreSQL', async () => {
    const test = await createTestDatabase('hub_catchup');
    const connector = new PgConnector({
      connectionString: test.url,
      maxConnections: 4,
      statementTimeoutMs: 10_000,
      log: { warn: () => undefined },
    });
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
    return overDatabase(connector, () => test.drop());
  });
} else {
  describe.skip('DatabaseHistoryReader on PostgreSQL: no server on 127.0.0.1:5432', () => undefined);
}
