import { describe, expect, it } from 'vitest';
import { MemorySource } from '../../../src/adapters/memory/memory-source.js';
import type { RawReading } from '../../../src/wire/raw-reading.js';
import { runIngestionSourceContract } from '../../realtime/ingestion-source.case.js';

runIngestionSourceContract('MemorySource', async () => {
  const source = new MemorySource();
  return {
    source,
    publish: async (tenantId, deviceId, payload, traceparent) =>
      source.publish({ tenantId, deviceId, payload, ...(traceparent === undefined ? {} : { traceparent }) }),
    carriesTraceparent: true,
    dispose: async () => undefined,
  };
});

describe('MemorySource', () => {
  const raw = (n: number): RawReading => ({ tenantId: 't', deviceId: 'd', payload: Buffer.from(String(n)) });

  it('keeps what is published while it is not running for the next run, and hands the rest over when aborted', async () => {
    const source = new MemorySource();
    const got: string[] = [];
    const sink = {
      offer: (r: RawReading) => (got.push(Buffer.from(r.payload).toString()), { accepted: true as const }),
    };
    source.publish(raw(1));
    const controller = new AbortController();
    const done = source.run(sink, controller.signal);
    source.publish(raw(2));
    controller.abort();
    await done;
    expect(got).toEqual(['1', '2']);

    source.publish(raw(3));
    expect(source.backlog).toBe(1);
    const again = new AbortController();
    const second = source.run(sink, again.signal);
    again.abort();
    await second;
    expect(got).toEqual(['1', '2', '3']);
  });

  it('refuses a second concurrent run', async () => {
    const source = new MemorySource();
    const controller = new AbortController();
    const done = source.run({ offer: () => ({ accepted: true }) }, controller.signal);
    await expect(source.run({ offer: () => ({ accepted: true }) }, new AbortController().signal)).rejects.toThrow(
      /already running/,
    );
    controller.abort();
    await done;
  });
});
