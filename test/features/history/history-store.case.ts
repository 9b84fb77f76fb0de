/**
 * History over the Database seam, run on both engines: the writer stores every accepted reading
 * (batched, per tenant), keeps devices, never goes back; the reader sees no gap between stored and
 * not yet committed; retention deletes by age; devices come back at start.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/features/storage/database.js';
import { systemClock } from '../../../src/host/clock.js';
import { DatabaseHistoryReader } from '../../../src/features/history/database-history-reader.js';
import { restoreDevices } from '../../../src/features/history/device-restore.js';
import { series } from '../../../src/features/history/history-queries.js';
import { HistoryWriter } from '../../../src/features/history/history-writer.js';
import { pruneReadings } from '../../../src/features/history/retention.js';
import type { Reading } from '../../../src/wire/reading.js';
import { eventually } from '../../support/app-harness.js';

export interface StoreUnderTest {
  database: Database;
  dispose(): Promise<void>;
}

const silent = { warn: () => undefined };
const T0 = 1_763_800_000_123;
let unique = 0;

function reading(tenantId: string, deviceId: string, seq: number, receivedAt = T0 + seq * 1000): Reading {
  return {
    tenantId,
    deviceId,
    seq,
    ts: receivedAt - 7,
    receivedAt,
    data: { temperature: 20 + seq / 10, label: `r${seq}` },
  };
}

async function count(database: Database, tenantId: string, deviceId: string): Promise<number> {
  return database.withTenant(tenantId, async (sql) =>
    Number(
      (await sql.query<{ n: number }>('select count(*)::int as n from readings where device_id = $1', [deviceId]))
        .rows[0]!.n,
    ),
  );
}

export function runHistoryStoreContract(name: string, create: () => Promise<StoreUnderTest>): void {
  describe(`${name} (history store)`, () => {
    let subject: StoreUnderTest;
    let device: string;
    beforeAll(async () => {
      subject = await create();
    });
    afterAll(async () => {
      await subject?.dispose();
    });
    beforeEach(() => {
      device = `dev-${++unique}`;
    });

    const writer = (options: Partial<ConstructorParameters<typeof HistoryWriter>[0]> = {}) =>
      new HistoryWriter({
        database: subject.database,
        capacity: 10_000,
        batchSize: 100,
        flushIntervalMs: 5,
        clock: systemClock,
        log: silent,
        ...options,
      });

    it('stores every accepted reading exactly as accepted, in batches, per tenant', async () => {
      const w = writer({ batchSize: 64 });
      const sent = [
        ...Array.from({ length: 300 }, (_, i) => reading('acme', device, i + 1)),
        ...Array.from({ length: 5 }, (_, i) => reading('globex', device, i + 1)),
      ];
      for (const r of sent) expect(w.offer(r)).toBe(true);
      await w.drain();
      expect(w.stats()).toMatchObject({ accepted: 305, written: 305, dropped: 0, pending: 0 });
      expect(await count(subject.database, 'acme', device)).toBe(300);
      expect(await count(subject.database, 'globex', device)).toBe(5);
      const back = await new DatabaseHistoryReader(subject.database).readingsAfter('acme', device, 0, 1000);
      expect(back).toEqual({ readings: sent.slice(0, 300).map(({ traceparent: _, ...r }) => r), truncated: false });
    });

    it('with several lanes in flight stores every accepted reading once, each device in seq order, and keeps each device at its newest', async () => {
      const w = writer({ batchSize: 50, concurrency: 4 });
      const devices = Array.from({ length: 7 }, (_, i) => `${device}-${i}`);
      // Each device's readings commit in seq order (the readings cursor relies on it).
      const committed = new Map<string, number>();
      const outOfOrder: string[] = [];
      w.observe((batch) => {
        for (const r of batch) {
          if (r.seq <= (committed.get(r.deviceId) ?? 0)) outOfOrder.push(`${r.deviceId}#${r.seq}`);
          committed.set(r.deviceId, r.seq);
        }
      });
      let accepted = 0;
      for (let seq = 1; seq <= 300; seq++) {
        for (const [i, d] of devices.entries())
          if (w.offer(reading(i % 2 === 0 ? 'acme' : 'globex', d, seq))) accepted++;
      }
      // Batches already taken by the writer are still pending until they commit.
      expect(w.pendingAfter('acme', devices[0]!, 0).map((r) => r.seq)).toEqual(
        Array.from({ length: 300 }, (_, i) => i + 1),
      );
      expect(w.stats().pending).toBe(accepted);
      await w.drain();
      expect(w.stats()).toMatchObject({ accepted: 2100, written: 2100, pending: 0 });
      expect(outOfOrder).toEqual([]);
      let stored = 0;
      for (const [i, d] of devices.entries())
        stored += await count(subject.database, i % 2 === 0 ? 'acme' : 'globex', d);
      expect(stored).toBe(accepted);
      const rows = await subject.database.withTenant(
        'acme',
        async (sql) =>
          (
            await sql.query<{ device_id: string; last_seq: number; first_seen: number }>(
              `select device_id, last_seq::float8 as last_seq, (extract(epoch from first_seen) * 1000)::float8 as first_seen from devices where device_id like $1 order by device_id`,
              [`${device}-%`],
            )
          ).rows,
      );
      expect(rows).toEqual(
        [0, 2, 4, 6].map((i) => ({ device_id: `${device}-${i}`, last_seq: 300, first_seen: T0 + 1000 })),
      );
    });

    it('series at whole-minute buckets (per-minute rollups) gives the same points as aggregating the raw readings', async () => {
      const w = writer({ batchSize: 37, concurrency: 3 });
      // Every 7 s for 2 hours from an unaligned start; values exact in binary so sums match to the bit.
      const start = Date.UTC(2026, 0, 5, 11, 59, 41, 250);
      const sent = Array.from({ length: 1030 }, (_, i): Reading => {
        const ts = start + i * 7000;
        const data: Record<string, unknown> =
          i % 5 === 0
            ? { status: 'idle' }
            : { temperature: (i % 17) - 8.5, humidity: 40 + (i % 9) * 0.25, status: 'ok' };
        if (i % 11 === 0) data.pressure = 1000 + i;
        return { tenantId: 'acme', deviceId: device, seq: i + 1, ts, receivedAt: ts + 3, data };
      });
      for (const r of sent) w.offer(r);
      await w.drain();
      // A batch stored again (a retry after a lost COMMIT reply) must not count twice.
      for (const r of sent.slice(100, 180)) w.offer(r);
      await w.drain();
      const ranges: [number, number, number][] = [
        [start, start + 7_210_000, 60_000],
        [start - 41_250, start + 7_218_750, 300_000],
        [start + 12_345, start + 3_600_000 + 999, 900_000],
        [start, start + 7_210_000, 3_600_000],
      ];
      for (const [from, to, bucketMs] of ranges) {
        const args = { deviceId: device, from, to, bucketMs };
        const [rollup, raw] = await subject.database.withTenant('acme', async (sql) => [
          await series(sql, args),
          await series(sql, args, 'raw'),
        ]);
        expect(raw.length).toBeGreaterThan(1);
        expect(rollup).toEqual(raw);
      }
      const all = await subject.database.withTenant('acme', (sql) =>
        series(sql, { deviceId: device, from: start - 60_000, to: start + 8_000_000, bucketMs: 86_400_000 }),
      );
      expect(all.map((p) => p.count)).toEqual([1030]);
    });

    it('keeps a fractional ts to the microsecond', async () => {
      const w = writer();
      const r = { ...reading('acme', device, 1), ts: 1_763_800_000_123.456 };
      w.offer(r);
      await w.drain();
      const back = await new DatabaseHistoryReader(subject.database).readingsAfter('acme', device, 0, 10);
      expect(back.readings[0]!.ts).toBe(1_763_800_000_123.456);
    });

    it('a reading the database refuses (a NUL in a string) is left out, counted and logged; the rest of its batch is stored', async () => {
      const warnings: string[] = [];
      const w = writer({ log: { warn: (_fields: object, message: string) => void warnings.push(message) } });
      for (let seq = 1; seq <= 5; seq++) {
        const r = reading('acme', device, seq);
        if (seq === 3) r.data = { note: 'nul \u0000 here' };
        w.offer(r);
      }
      await w.drain();
      expect(w.stats()).toMatchObject({ written: 4, rejected: 1, pending: 0 });
      expect(warnings).toContain('history readings refused by the database; stored the rest');
      const back = await new DatabaseHistoryReader(subject.database).readingsAfter('acme', device, 0, 10);
      expect(back.readings.map((x) => x.seq)).toEqual([1, 2, 4, 5]);
      // The writer goes on: the next reading is stored in its own batch as usual.
      w.offer(reading('acme', device, 6));
      await w.drain();
      expect(w.stats()).toMatchObject({ written: 5, rejected: 1 });
    });

    it('flushes a batch that never fills once the flush interval passes', async () => {
      const w = writer({ batchSize: 1000, flushIntervalMs: 20 });
      w.offer(reading('acme', device, 1));
      await eventually(() => w.stats().written === 1, 5000, 'the lone reading written');
      expect(await count(subject.database, 'acme', device)).toBe(1);
    });

    it('keeps the device with its newest reading; a late or repeated batch never moves it back', async () => {
      const w = writer();
      for (let seq = 1; seq <= 5; seq++) w.offer(reading('acme', device, seq));
      await w.drain();
      w.offer(reading('acme', device, 3));
      await w.drain();
      const row = await subject.database.withTenant(
        'acme',
        async (sql) =>
          (
            await sql.query<{ last_seq: number; last_reading: { seq: number } }>(
              'select last_seq::float8 as last_seq, last_reading from devices where device_id = $1',
              [device],
            )
          ).rows,
      );
      expect(row).toEqual([
        {
          last_seq: 5,
          last_reading: { seq: 5, ts: T0 + 5000 - 7, receivedAt: T0 + 5000, data: { temperature: 20.5, label: 'r5' } },
        },
      ]);
      expect(await count(subject.database, 'acme', device)).toBe(5);
    });

    it('the queue is bounded: past its capacity readings are refused and counted, never buffered', async () => {
      const w = writer({ capacity: 100, batchSize: 1000, flushIntervalMs: 60_000 });
      let refused = 0;
      for (let seq = 1; seq <= 150; seq++) if (!w.offer(reading('acme', device, seq))) refused++;
      expect(refused).toBe(50);
      expect(w.stats()).toMatchObject({ accepted: 100, dropped: 50, pending: 100 });
      await w.drain();
      expect(await count(subject.database, 'acme', device)).toBe(100);
    });

    it('the reader includes readings accepted and not yet committed: no gap at the seam', async () => {
      const w = writer({ batchSize: 1000, flushIntervalMs: 60_000 });
      for (let seq = 1; seq <= 10; seq++) w.offer(reading('acme', device, seq));
      await w.drain();
      for (let seq = 11; seq <= 15; seq++) w.offer(reading('acme', device, seq));
      const reader = new DatabaseHistoryReader(subject.database, w);
      const { readings, truncated } = await reader.readingsAfter('acme', device, 8, 100);
      expect(readings.map((r) => r.seq)).toEqual([9, 10, 11, 12, 13, 14, 15]);
      expect(truncated).toBe(false);
      expect(await count(subject.database, 'acme', device)).toBe(10);
      // Another tenant asking for the same device id gets nothing of acme's, stored or pending.
      expect((await reader.readingsAfter('globex', device, 0, 100)).readings).toEqual([]);
      await w.drain();
    });

    it('readingsAfter keeps the newest `max` and says when it left older ones out', async () => {
      const w = writer();
      for (let seq = 1; seq <= 30; seq++) w.offer(reading('acme', device, seq));
      await w.drain();
      const reader = new DatabaseHistoryReader(subject.database, w);
      expect(await reader.readingsAfter('acme', device, 0, 30)).toMatchObject({ truncated: false });
      const cut = await reader.readingsAfter('acme', device, 0, 10);
      expect(cut.readings.map((r) => r.seq)).toEqual([21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
      expect(cut.truncated).toBe(true);
    });

    it('retention deletes readings received before the cutoff, in every tenant, and nothing newer', async () => {
      const w = writer();
      const old = T0 - 10 * 86_400_000;
      for (let seq = 1; seq <= 12; seq++) w.offer(reading('acme', device, seq, seq <= 7 ? old + seq : T0 + seq));
      for (let seq = 1; seq <= 3; seq++) w.offer(reading('globex', device, seq, old + seq));
      await w.drain();
      const deleted = await pruneReadings(subject.database, T0 - 7 * 86_400_000);
      expect(deleted).toBeGreaterThanOrEqual(10);
      expect(await count(subject.database, 'acme', device)).toBe(5);
      expect(await count(subject.database, 'globex', device)).toBe(0);
      expect(await pruneReadings(subject.database, T0 - 7 * 86_400_000)).toBe(0);
      const rollups = await subject.database.withTenant(
        'acme',
        async (sql) =>
          (
            await sql.query<{ n: number }>(
              'select count(*)::int as n from reading_rollups where device_id = $1 and field is null',
              [device],
            )
          ).rows[0]!.n,
      );
      expect(rollups).toBe(1);
    });

    it('restores every tenant’s devices with their last reading', async () => {
      const w = writer();
      w.offer(reading('acme', device, 41));
      w.offer(reading('acme', device, 42));
      w.offer(reading('globex', `${device}-g`, 7));
      await w.drain();
      const restored = new Map<string, Reading>();
      await restoreDevices(subject.database, { record: (r) => (restored.set(`${r.tenantId}/${r.deviceId}`, r), true) });
      expect(restored.get(`acme/${device}`)).toEqual(reading('acme', device, 42));
      expect(restored.get(`globex/${device}-g`)).toEqual(reading('globex', `${device}-g`, 7));
    });
  });
}
