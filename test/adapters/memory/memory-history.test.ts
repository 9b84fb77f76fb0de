import { describe, expect, it } from 'vitest';
import { MemoryHistory } from '../../../src/adapters/memory/memory-history.js';
import { reading, runHistoryReaderContract } from '../../realtime/history-reader.case.js';

runHistoryReaderContract('MemoryHistory', async () => {
  const history = new MemoryHistory();
  return { reader: history, record: (r) => history.record(r), dispose: async () => undefined };
});

describe('MemoryHistory bounds', () => {
  it('keeps the newest maxPerDevice readings of a device and flags a catch-up from before them as truncated', async () => {
    const history = new MemoryHistory({ maxPerDevice: 5 });
    for (let seq = 1; seq <= 23; seq++) history.record(reading('acme', 'd', seq));
    const all = await history.readingsAfter('acme', 'd', 0, 100);
    expect(all.readings.map((r) => r.seq)).toEqual([19, 20, 21, 22, 23]);
    expect(all.truncated).toBe(true);
    // From the newest dropped seq on, nothing is missing.
    expect(await history.readingsAfter('acme', 'd', 18, 100)).toMatchObject({ truncated: false });
  });

  it('keeps no new device beyond maxDevices, and every device it had', async () => {
    const history = new MemoryHistory({ maxDevices: 2 });
    for (const id of ['a', 'b', 'c']) history.record(reading('acme', id, 1));
    history.record(reading('acme', 'a', 2));
    expect((await history.readingsAfter('acme', 'a', 0, 10)).readings.map((r) => r.seq)).toEqual([1, 2]);
    expect((await history.readingsAfter('acme', 'b', 0, 10)).readings).toHaveLength(1);
    expect((await history.readingsAfter('acme', 'c', 0, 10)).readings).toHaveLength(0);
  });

  it('ignores a reading whose seq is not above the newest kept', async () => {
    const history = new MemoryHistory();
    for (const seq of [1, 2, 2, 1, 3]) history.record(reading('acme', 'd', seq));
    expect((await history.readingsAfter('acme', 'd', 0, 10)).readings.map((r) => r.seq)).toEqual([1, 2, 3]);
  });
});
