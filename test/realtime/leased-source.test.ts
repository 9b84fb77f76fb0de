import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualLease } from '../../src/realtime/ingest-lease.js';
import { LeasedSource } from '../../src/realtime/leased-source.js';
import { MemorySource } from '../../src/adapters/memory/memory-source.js';
import type { IngestionSource, ReadingSink } from '../../src/realtime/ingestion-source.js';
import type { RawReading } from '../../src/wire/raw-reading.js';
import { eventually } from '../support/app-harness.js';
import { runIngestionSourceContract } from './ingestion-source.case.js';

const log = pino({ level: 'silent' });
const reading = (n: number): RawReading => ({
  tenantId: 't',
  deviceId: 'd',
  payload: new TextEncoder().encode(JSON.stringify({ n })),
});

function sink(): ReadingSink & { got: number[] } {
  const got: number[] = [];
  return {
    got,
    offer: (raw) => (
      got.push((JSON.parse(new TextDecoder().decode(raw.payload)) as { n: number }).n), { accepted: true }
    ),
  };
}

// Holding the lease, the wrapper is the source it wraps: the contract holds through it.
runIngestionSourceContract('LeasedSource (lease held) over MemorySource', async () => {
  const inner = new MemorySource();
  return {
    source: new LeasedSource(inner, new ManualLease(true), log),
    publish: async (tenantId, deviceId, payload, traceparent) =>
      inner.publish({ tenantId, deviceId, payload, ...(traceparent === undefined ? {} : { traceparent }) }),
    carriesTraceparent: true,
    dispose: async () => undefined,
  };
});

describe('LeasedSource', () => {
  it("hands the sink's room check to the source it wraps, so a holder's broker waits for a full history writer", async () => {
    let given: ReadingSink | undefined;
    const inner: IngestionSource = {
      name: 'mqtt',
      connected: true,
      run: async (s, signal) => {
        given = s;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
    };
    const full = new Promise<void>(() => {});
    const stop = new AbortController();
    const run = new LeasedSource(inner, new ManualLease(true), log).run(
      { offer: () => ({ accepted: true }), ready: () => full },
      stop.signal,
    );
    await eventually(() => given !== undefined, 2000, 'the wrapped source to run');
    expect(given!.ready?.()).toBe(full);
    stop.abort();
    await run;
  });

  it('two instances on one shared source: only the lease holder reads it, and readings left by one reach the next', async () => {
    // One broker session both instances could take (MemorySource refuses a second reader at once).
    const shared = new MemorySource('mqtt');
    const [leaseA, leaseB] = [new ManualLease(true), new ManualLease(false)];
    const [a, b] = [new LeasedSource(shared, leaseA, log), new LeasedSource(shared, leaseB, log)];
    const [sinkA, sinkB] = [sink(), sink()];
    const stop = new AbortController();
    const runs = [a.run(sinkA, stop.signal), b.run(sinkB, stop.signal)];

    shared.publish(reading(1));
    await eventually(() => sinkA.got.length === 1, 2000, 'A to ingest');
    expect([a.connected, b.connected]).toEqual([true, true]);

    leaseA.set(false);
    await eventually(() => !shared.connected, 2000, 'A to stop reading');
    shared.publish(reading(2));
    shared.publish(reading(3));
    leaseB.set(true);
    await eventually(() => sinkB.got.length === 2, 2000, 'B to get what was published meanwhile');

    stop.abort();
    await Promise.all(runs);
    expect(sinkA.got).toEqual([1]);
    expect(sinkB.got).toEqual([2, 3]);
  });

  it('a standby whose lease comes and goes resumes each time, and stops for good when its signal aborts', async () => {
    const source = new MemorySource();
    const lease = new ManualLease(false);
    const leased = new LeasedSource(source, lease, log);
    const got = sink();
    const stop = new AbortController();
    const run = leased.run(got, stop.signal);
    for (let n = 1; n <= 3; n++) {
      source.publish(reading(n));
      lease.set(true);
      await eventually(() => got.got.length === n, 2000, `reading ${n}`);
      lease.set(false);
      await eventually(() => !source.connected, 2000, 'stopped');
    }
    stop.abort();
    await run;
    lease.set(true);
    source.publish(reading(4));
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    expect(got.got).toEqual([1, 2, 3]);
    expect(source.connected).toBe(false);
  });
});
