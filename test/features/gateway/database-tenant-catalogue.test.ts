import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../../src/features/storage/connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { composeGateway, type Gateway } from '../../../src/compose/compose-gateway.js';
import { ASSIGN_TENANT_SQL, DatabaseTenantCatalogue } from '../../../src/features/gateway/database-tenant-catalogue.js';
import { loadGatewayConfig } from '../../../src/compose/gateway-config.js';
import { createRootLogger } from '../../../src/host/logging.js';
import { eventually, userToken } from '../../support/app-harness.js';
import { freshDataDirectory } from '../../support/embedded-database.js';
import { createTestDatabase, requirePostgres, type TestDatabase } from '../../support/postgres.js';
import { tenantCatalogueContract } from './tenant-catalogue.case.js';

/** The owner (an operator) assigns; the catalogue reads as the system, through the app role. */
const assignWith = (connector: Connector) => (tenant: string, stamp: string) =>
  connector.transaction((sql) => sql.query(ASSIGN_TENANT_SQL, [tenant, stamp])).then(() => undefined);
const noLog = { warn: () => undefined };

// One embedded database for the file (opening one takes seconds); each case starts from an empty table.
let embedded: { connector: PgliteConnector; remove(): void } | undefined;
afterAll(async () => {
  await embedded?.connector.close();
  embedded?.remove();
});

tenantCatalogueContract('database, embedded PGlite', async () => {
  if (embedded === undefined) {
    const data = freshDataDirectory();
    embedded = { connector: await PgliteConnector.open(data.path), remove: data.remove };
  }
  const { connector } = embedded;
  await connector.transaction((sql) => sql.query('delete from tenant_stamps'));
  return {
    catalogue: new DatabaseTenantCatalogue(new TenantDatabase(connector)),
    assign: assignWith(connector),
    dispose: async () => {},
  };
});

describe('database catalogue on PostgreSQL', () => {
  let available = false;
  let database: TestDatabase | undefined;
  let owner: PgConnector | undefined;

  beforeAll(async () => {
    available = await requirePostgres();
    if (!available) return;
    database = await createTestDatabase('gateway_catalogue');
    owner = new PgConnector({
      connectionString: database.url,
      maxConnections: 2,
      statementTimeoutMs: 5000,
      log: noLog,
    });
    await migrate(owner, loadMigrations(defaultMigrationsDirectory()));
  });

  afterAll(async () => {
    await owner?.close();
    await database?.drop();
  });

  tenantCatalogueContract('database, PostgreSQL', async () => {
    if (!available)
      return { catalogue: { stampOf: async () => undefined }, assign: async () => {}, dispose: async () => {} };
    await owner!.transaction((sql) => sql.query('delete from tenant_stamps'));
    const reader = new PgConnector({
      connectionString: database!.url,
      maxConnections: 2,
      statementTimeoutMs: 5000,
      log: noLog,
    });
    return {
      catalogue: new DatabaseTenantCatalogue(new TenantDatabase(reader)),
      assign: assignWith(owner!),
      dispose: () => reader.close(),
    };
  });

  it('the app role may read the catalogue but not change it', async ({ skip }) => {
    if (!available) return skip();
    const db = new TenantDatabase(
      new PgConnector({ connectionString: database!.url, maxConnections: 1, statementTimeoutMs: 5000, log: noLog }),
    );
    await expect(db.withSystem((sql) => sql.query(ASSIGN_TENANT_SQL, ['intruder', 'silo-x']))).rejects.toThrow(
      /permission denied/,
    );
    await db.close();
  });

  describe('the gateway routes by the database catalogue', () => {
    let gateway: Gateway;
    const instances: Server[] = [];
    const urls: string[] = [];

    beforeAll(async () => {
      if (!available) return;
      for (const name of ['pool', 'silo']) {
        const server = createServer((req, res) =>
          res.end(req.url === '/health/ready' ? '{}' : JSON.stringify({ servedBy: name })),
        );
        await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        instances.push(server);
        urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      }
      await owner!.transaction((sql) => sql.query('delete from tenant_stamps'));
      await assignWith(owner!)('mover', 'pool-1');
      const config = loadGatewayConfig({
        args: [
          '--Http:Port=0',
          `--Gateway:Stamps=pool-1=${urls[0]}; silo-mover=${urls[1]}`,
          `--ConnectionStrings:postgres=${database!.url}`,
          '--Gateway:CatalogueCacheSeconds=0.2',
        ],
        env: { HUB_ENVIRONMENT: 'Development' },
        contentRoot: mkdtempSync(join(tmpdir(), 'gw-db-')),
      });
      gateway = composeGateway(config, createRootLogger(config, new Writable({ write: (_c, _e, done) => done() })));
      await gateway.host.start();
    });

    afterAll(async () => {
      await gateway?.host.stop();
      for (const s of instances) await new Promise((r) => s.close(r));
    });

    it('a tenant moved to its own silo is routed there once the cached answer expires', async ({ skip }) => {
      if (!available) return skip();
      const base = gateway.server.url!.replace('localhost', '127.0.0.1');
      const servedBy = async () =>
        (
          (await (
            await fetch(`${base}/anything`, { headers: { authorization: `Bearer ${await userToken('mover')}` } })
          ).json()) as { servedBy: string }
        ).servedBy;
      expect(await servedBy()).toBe('pool');
      await assignWith(owner!)('mover', 'silo-mover');
      await eventually(
        async () => (await servedBy()) === 'silo',
        3000,
        "the moved tenant's requests to reach its silo",
      );
      const ready = (await (await fetch(`${base}/health/ready`)).json()) as {
        checks: { name: string; status: string }[];
      };
      expect(ready.checks).toContainEqual(expect.objectContaining({ name: 'database', status: 'Healthy' }));
    });
  });
});
