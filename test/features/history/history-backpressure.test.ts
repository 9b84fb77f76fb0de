import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { MqttSource } from '../../../src/adapters/mqtt/mqtt-source.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { HistoryWriter } from '../../../src/features/history/history-writer.js';
import type { Connector } from '../../../src/features/storage/connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { systemClock } from '../../../src/host/clock.js';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import type { ReadingSink } from '../../../src/realtime/ingestion-source.js';
import { ReadingPipeline } from '../../../src/realtime/reading-pipeline.js';
import { eventually } from '../../support/app-harness.js';
import { freshDataDirectory } from '../../support/embedded-database.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { requireService } from '../../support/services.js';

const silent = pino({ level: 'silent' });
const BROKER = 'mqtt://127.0.0.1:1883';
const READINGS = 60;
const CAPACITY = 4;

/**
 * QoS 1 ingestion into a tiny history writer while the database is held up by a transaction that
 * locks `readings`: the hub acknowledges only what the writer holds, the broker keeps the rest,
 * and once the lock goes every published reading is stored and none was refused.
 */
function backpressureCase(
  engine: string,
  open: () => Promise<{ connector: Connector; dispose(): Promise<void> }>,
): void {
  it(`${engine}: nothing acknowledged is refused; the readings arrive once the writer drains`, async () => {
    const { connector, dispose } = await open();
    const id = randomUUID().slice(0, 8);
    const clientId = `backpressure-${id}`;
    const abort = new AbortController();
    let device: mqtt.MqttClient | undefined;
    let release: () => void = () => undefined;
    let running: Promise<void> | undefined;
    try {
      const database = new TenantDatabase(connector);
      const writer = new HistoryWriter({
        database,
        capacity: CAPACITY,
        batchSize: CAPACITY,
        flushIntervalMs: 10,
        retryMs: 50,
        clock: systemClock,
        log: silent,
      });
      const pipeline = new ReadingPipeline({
        registry: new DeviceRegistry(),
        publish: () => undefined,
        logger: silent,
        clock: systemClock,
        maxPerSecond: Infinity,
        accepted: (reading) => writer.offer(reading),
        room: (reserved) => writer.whenRoom(reserved),
      });
      // The paused database: a transaction holding an exclusive lock on readings until released.
      let locked: () => void = () => undefined;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const held = connector.transaction(async (sql) => {
        await sql.query('lock table readings in access exclusive mode');
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await isLocked;

      const tenant = `bp${id}`;
      // The broker is shared: only this test's tenant reaches the pipeline.
      const sink: ReadingSink = {
        offer: (raw) => (raw.tenantId === tenant ? pipeline.offer(raw) : { accepted: false, reason: 'not this test' }),
        ready: () => pipeline.ready(),
      };
      const source = new MqttSource({ url: () => BROKER, clientId, qos: 1, protocolVersion: 5, log: silent });
      running = source.run(sink, abort.signal);
      await eventually(() => source.connected, 10_000, 'the source subscribed');
      device = await mqtt.connectAsync(BROKER, { clientId: `backpressure-device-${id}`, protocolVersion: 5 });
      for (let i = 0; i < READINGS; i++) {
        await device.publishAsync(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ i }), { qos: 1 });
      }
      // The writer fills up (its queue, plus the batch waiting on the lock) and ingestion stops there.
      await eventually(() => writer.stats().pending >= 2 * CAPACITY, 10_000, 'the writer full');
      const taken = pipeline.stats().accepted;
      expect(taken).toBeLessThan(READINGS);
      expect(writer.stats().dropped).toBe(0);

      release();
      await held;
      await eventually(
        () => pipeline.stats().accepted === READINGS && writer.stats().pending === 0,
        20_000,
        'every reading taken in and stored',
      );
      expect(writer.stats()).toMatchObject({ accepted: READINGS, written: READINGS, dropped: 0 });
      const stored = await database.withTenant(tenant, (sql) =>
        sql.query<{ n: number }>(`select count(*)::int as n from readings where device_id = 'd1'`),
      );
      expect(stored.rows[0]!.n).toBe(READINGS);
    } finally {
      release();
      abort.abort();
      await running;
      await device?.endAsync();
      // The persistent session this client left on the shared broker goes with a clean connect.
      const cleanup = await mqtt.connectAsync(BROKER, {
        clientId,
        protocolVersion: 5,
        clean: true,
        properties: { sessionExpiryInterval: 0 },
      });
      await cleanup.endAsync();
      await dispose();
    }
  }, 60_000);
}

const withPostgres = (await requireService('Mosquitto', 1883)) && (await requirePostgres());

if (await requireService('Mosquitto', 1883)) {
  describe('history backpressure (QoS 1 on Mosquitto)', () => {
    backpressureCase('embedded PGlite', async () => {
      const data = freshDataDirectory();
      const connector = await PgliteConnector.open(data.path);
      return {
        connector,
        dispose: async () => {
          await connector.close();
          data.remove();
        },
      };
    });
    if (withPostgres) {
      backpressureCase('PostgreSQL', async () => {
        const test = await createTestDatabase();
        const connector = new PgConnector({
          connectionString: test.url,
          maxConnections: 4,
          statementTimeoutMs: 30_000,
          log: { warn: () => undefined },
        });
        await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
        return {
          connector,
          dispose: async () => {
            await connector.close();
            await test.drop();
          },
        };
      });
    }
  });
} else {
  describe.skip('history backpressure: no Mosquitto on 127.0.0.1:1883', () => undefined);
}
