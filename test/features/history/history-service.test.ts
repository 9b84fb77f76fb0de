/** History's hosted service on the injected clock: retention runs at start and every hour, by the clock's time. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { HistoryService } from '../../../src/features/history/history-service.js';
import { HistoryWriter } from '../../../src/features/history/history-writer.js';
import type { Reading } from '../../../src/wire/reading.js';
import { freshDataDirectory } from '../../support/embedded-database.js';
import { eventually } from '../../support/app-harness.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';

const DAY = 86_400_000;
const log = { info: () => undefined, warn: () => undefined };

describe('history service', () => {
  const data = freshDataDirectory();
  let connector: PgliteConnector;
  let database: TenantDatabase;
  beforeAll(async () => {
    connector = await PgliteConnector.open(data.path);
    database = new TenantDatabase(connector);
  });
  afterAll(async () => {
    await connector.close();
    data.remove();
  });

  it('deletes readings older than the retention at start and again each hour as the clock moves, and restores devices', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    const writer = new HistoryWriter({ database, capacity: 1000, batchSize: 100, flushIntervalMs: 1, clock, log });
    const at = (seq: number, receivedAt: number): Reading => ({
      tenantId: 'acme',
      deviceId: 'd',
      seq,
      ts: receivedAt,
      receivedAt,
      data: { v: seq },
    });
    const now = clock.now();
    // 1: 8 days old (gone at start); 2: 7 days less 30 minutes (gone after the hour passes); 3: fresh.
    for (const r of [at(1, now - 8 * DAY), at(2, now - 7 * DAY + 30 * 60_000), at(3, now)]) writer.offer(r);
    await writer.drain();
    const seqs = () =>
      database.withTenant('acme', async (sql) =>
        (await sql.query<{ seq: number }>('select seq::float8 as seq from readings order by seq')).rows.map(
          (r) => r.seq,
        ),
      );

    const restored: Reading[] = [];
    const service = new HistoryService({
      database,
      writer,
      devices: { record: (r) => restored.push(r) > 0 },
      retentionMs: 7 * DAY,
      clock,
      log,
    });
    await service.start();
    expect(restored.map((r) => r.seq)).toEqual([3]);
    clock.advance(0);
    await eventually(async () => (await seqs()).length === 2, 10_000, 'the 8-day-old reading deleted');
    expect(await seqs()).toEqual([2, 3]);

    clock.advance(59 * 60_000);
    // Reading 2 is past the retention now, but retention runs only on the hour.
    expect(await seqs()).toEqual([2, 3]);
    clock.advance(60_000);
    await eventually(async () => (await seqs()).length === 1, 10_000, 'the reading that aged past 7 days deleted');
    expect(await seqs()).toEqual([3]);
    await service.stop(new AbortController().signal);
  });
});
