/**
 * The HistoryReader contract every history store runs: what a catch-up relies on when it replays a
 * device's readings after a seq. Readings come back ascending, only the device's own tenant's, the
 * newest `max` when more are there (flagged `truncated`), with every field as accepted, and a
 * reading accepted just before the call is included. A new store is one factory.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HistoryReader } from '../../src/realtime/history-reader.js';
import { toWireReading, type Reading } from '../../src/wire/reading.js';

export interface HistoryUnderTest {
  readonly reader: HistoryReader;
  /** Accepts a reading the way the hub does (the history writer's entry), without waiting for it to be stored. */
  record(reading: Reading): void;
  dispose(): Promise<void>;
}

const T0 = 1_763_800_000_000;

export function reading(tenantId: string, deviceId: string, seq: number): Reading {
  return {
    tenantId,
    deviceId,
    seq,
    ts: T0 + seq * 1000,
    receivedAt: T0 + seq * 1000 + 4,
    data: { temperature: 20 + seq / 10, label: `r${seq}`, nested: { ok: true } },
  };
}

const seqs = (readings: readonly Reading[]): number[] => readings.map((r) => r.seq);

let unique = 0;

/** One store per suite run; each test names its own devices (`d('boiler')`), so tests never see each other's readings. */
export function runHistoryReaderContract(name: string, create: () => Promise<HistoryUnderTest>): void {
  describe(`${name} (HistoryReader contract)`, () => {
    let subject: HistoryUnderTest;
    let n = 0;
    beforeAll(async () => {
      subject = await create();
    });
    afterAll(async () => subject?.dispose());
    beforeEach(() => {
      n = ++unique;
    });
    const d = (id: string) => `${id}-${n}`;

    const recordSeqs = (tenantId: string, deviceId: string, from: number, to: number): void => {
      for (let seq = from; seq <= to; seq++) subject.record(reading(tenantId, deviceId, seq));
    };

    it('returns the readings after a seq in ascending seq order, with every field as accepted', async () => {
      recordSeqs('acme', d('dev-1'), 1, 10);
      const result = await subject.reader.readingsAfter('acme', d('dev-1'), 6, 100);
      expect(result.truncated).toBe(false);
      expect(result.readings.map(toWireReading)).toEqual(
        [7, 8, 9, 10].map((seq) => toWireReading(reading('acme', d('dev-1'), seq))),
      );
    });

    it('keeps the newest max and says truncated when more were there', async () => {
      recordSeqs('acme', d('dev-1'), 1, 10);
      const some = await subject.reader.readingsAfter('acme', d('dev-1'), 2, 3);
      expect(seqs(some.readings)).toEqual([8, 9, 10]);
      expect(some.truncated).toBe(true);
      const exact = await subject.reader.readingsAfter('acme', d('dev-1'), 7, 3);
      expect(seqs(exact.readings)).toEqual([8, 9, 10]);
      expect(exact.truncated).toBe(false);
    });

    it('returns nothing, not truncated, after the newest seq and for a device it never saw', async () => {
      recordSeqs('acme', d('dev-1'), 1, 5);
      expect(await subject.reader.readingsAfter('acme', d('dev-1'), 5, 10)).toEqual({ readings: [], truncated: false });
      expect(await subject.reader.readingsAfter('acme', d('dev-1'), 99, 10)).toEqual({
        readings: [],
        truncated: false,
      });
      expect(await subject.reader.readingsAfter('acme', d('dev-unknown'), 0, 10)).toEqual({
        readings: [],
        truncated: false,
      });
    });

    it("never returns another tenant's readings of a device with the same id", async () => {
      recordSeqs('acme', d('boiler'), 1, 3);
      recordSeqs('globex', d('boiler'), 1, 5);
      const acme = await subject.reader.readingsAfter('acme', d('boiler'), 0, 100);
      const globex = await subject.reader.readingsAfter('globex', d('boiler'), 0, 100);
      expect(acme.readings.map((r) => [r.tenantId, r.seq])).toEqual([
        ['acme', 1],
        ['acme', 2],
        ['acme', 3],
      ]);
      expect(globex.readings.map((r) => [r.tenantId, r.seq])).toEqual([1, 2, 3, 4, 5].map((s) => ['globex', s]));
      expect(await subject.reader.readingsAfter('initech', d('boiler'), 0, 100)).toEqual({
        readings: [],
        truncated: false,
      });
    });

    it('includes a reading accepted just before the call (a catch-up never misses what was just delivered live)', async () => {
      recordSeqs('acme', d('dev-1'), 1, 3);
      await subject.reader.readingsAfter('acme', d('dev-1'), 0, 10);
      subject.record(reading('acme', d('dev-1'), 4));
      const result = await subject.reader.readingsAfter('acme', d('dev-1'), 3, 10);
      expect(seqs(result.readings)).toEqual([4]);
    });

    it('keeps devices apart and follows non-consecutive seqs (e.g. Event Hubs sequence numbers)', async () => {
      for (const seq of [5, 17, 230, 231, 900]) subject.record(reading('acme', d('dev-a'), seq));
      recordSeqs('acme', d('dev-b'), 1, 2);
      expect(seqs((await subject.reader.readingsAfter('acme', d('dev-a'), 17, 10)).readings)).toEqual([230, 231, 900]);
      expect(seqs((await subject.reader.readingsAfter('acme', d('dev-a'), 16, 10)).readings)).toEqual([
        17, 230, 231, 900,
      ]);
      expect(seqs((await subject.reader.readingsAfter('acme', d('dev-b'), 0, 10)).readings)).toEqual([1, 2]);
    });
  });
}
