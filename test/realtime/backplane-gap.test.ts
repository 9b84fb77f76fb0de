import { describe, expect, it } from 'vitest';
import { MemoryConnection } from '../../src/adapters/memory/memory-connection.js';
import { MemoryHistory } from '../../src/adapters/memory/memory-history.js';
import { backplaneGapRecovery } from '../../src/realtime/backplane-gap.js';
import { CatchUp } from '../../src/realtime/catch-up.js';
import { Hub } from '../../src/realtime/hub.js';
import type { Reading } from '../../src/wire/reading.js';
import { eventually } from '../support/app-harness.js';

const reading = (deviceId: string, seq: number): Reading => ({
  tenantId: 't',
  deviceId,
  seq,
  ts: seq,
  receivedAt: seq,
  data: { seq },
});

describe('backplane gap recovery', () => {
  it('each member of a watched device catches up, in order and once, on what other instances published while the backplane was down', async () => {
    const hub = new Hub();
    const history = new MemoryHistory();
    const catchUp = new CatchUp({ hub, history, max: 100 });
    const seen: Record<string, number[]> = { c1: [], c2: [] };
    for (const id of ['c1', 'c2']) {
      hub.addConnection(
        new MemoryConnection({
          id,
          tenantId: 't',
          userId: id,
          capacity: 64,
          onMessage: (m) => seen[id]!.push((m.data as Reading).seq),
        }),
      );
    }
    hub.join('c1', 'device:t:d1');
    hub.join('c2', 'device:t:d1');
    hub.join('c2', 'device:t:quiet');
    const last: Record<string, number> = { d1: 3 };
    const recover = backplaneGapRecovery(hub, catchUp, (_t, deviceId) => last[deviceId], { warn: () => {} });
    for (let seq = 1; seq <= 3; seq++) history.record(reading('d1', seq));

    // The subscription is being restored: what this instance has is noted before anything new arrives.
    const restored = recover(['device:t:d1', 'device:t:quiet']);
    // Published by another instance while it was down: in the shared history, never delivered here.
    for (let seq = 4; seq <= 6; seq++) history.record(reading('d1', seq));
    last.d1 = 6;
    restored();
    // Arrives live as the catch-ups run: held until the replay is out, then passed once.
    history.record(reading('d1', 7));
    hub.publishReading(reading('d1', 7));
    await eventually(() => seen.c1!.length === 4 && seen.c2!.length === 4, 2000, 'both members caught up');
    expect(seen).toEqual({ c1: [4, 5, 6, 7], c2: [4, 5, 6, 7] });
  });
});
