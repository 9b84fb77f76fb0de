import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApplicationLifetime } from '../../src/host/lifecycle/application-lifetime.js';
import { DeviceRegistry } from '../../src/realtime/device-registry.js';
import { Hub } from '../../src/realtime/hub.js';
import { MemoryConnection } from '../../src/adapters/memory/memory-connection.js';
import { IngestionService } from '../../src/realtime/ingestion-service.js';
import { MemorySource } from '../../src/adapters/memory/memory-source.js';
import { ReadingPipeline } from '../../src/realtime/reading-pipeline.js';
import { eventually } from '../support/app-harness.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';

/** The ingestion path in one process: memory sources → service → pipeline (manual clock) → hub → a subscriber. */
function setup() {
  const clock = new ManualClock();
  const hub = new Hub();
  const pipeline = new ReadingPipeline({
    registry: new DeviceRegistry(),
    publish: (reading) => hub.publishReading(reading),
    logger: { warn: () => undefined },
    clock,
    maxPerSecond: 5,
  });
  const lifetime = new ApplicationLifetime();
  const sources = [new MemorySource('first'), new MemorySource('second')];
  const service = new IngestionService({ sources, pipeline, lifetime, log: pino({ level: 'silent' }) });
  const subscriber = new MemoryConnection({ id: 'sub', tenantId: 't' });
  hub.addConnection(subscriber);
  hub.join('sub', 'device:t:d1');
  hub.join('sub', 'device:t:d2');
  const publish = (source: MemorySource, deviceId: string, n: number) =>
    source.publish({ tenantId: 't', deviceId, payload: Buffer.from(JSON.stringify({ n })) });
  const got = () =>
    subscriber.received.map(
      (m) => `${(m.data as { deviceId: string }).deviceId}:${(m.data as { data: { n: number } }).data.n}`,
    );
  return { clock, service, lifetime, sources, publish, got };
}

describe('IngestionService', () => {
  it('runs every source into the pipeline, and is ready only while all of them are connected', async () => {
    const { service, sources, publish, got } = setup();
    expect(service.connected).toBe(false);
    await service.start(new AbortController().signal);
    await eventually(() => service.connected, 5000, 'both sources running');
    publish(sources[0]!, 'd1', 1);
    publish(sources[1]!, 'd2', 1);
    await eventually(() => got().length === 2, 5000, 'a reading from each source');
    expect(got().sort()).toEqual(['d1:1', 'd2:1']);
    await service.stop(new AbortController().signal);
    expect(service.connected).toBe(false);
  });

  it('when stopping begins, takes no more readings and delivers what the throttle held, without waiting for its interval', async () => {
    const { service, lifetime, sources, publish, got } = setup();
    await service.start(new AbortController().signal);
    await eventually(() => service.connected, 5000, 'sources running');
    publish(sources[0]!, 'd1', 1);
    publish(sources[0]!, 'd1', 2); // within the throttle interval: held
    await eventually(() => got().length === 1, 5000, 'the first reading');

    await lifetime.raiseStopping();
    expect(got()).toEqual(['d1:1', 'd1:2']);
    publish(sources[0]!, 'd1', 3);
    expect(sources[0]!.backlog).toBe(1);
    await service.stop(new AbortController().signal);
    expect(got()).toEqual(['d1:1', 'd1:2']);
  });
});
