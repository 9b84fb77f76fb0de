import { pino } from 'pino';
import { systemClock } from '../../src/host/clock.js';
import { ApplicationLifetime } from '../../src/host/lifecycle/application-lifetime.js';
import { DeviceRegistry } from '../../src/realtime/device-registry.js';
import { Hub } from '../../src/realtime/hub.js';
import { MemoryConnection } from '../../src/adapters/memory/memory-connection.js';
import { IngestionService } from '../../src/realtime/ingestion-service.js';
import { MemorySource } from '../../src/adapters/memory/memory-source.js';
import { ReadingPipeline } from '../../src/realtime/reading-pipeline.js';
import { fmt, type Table } from '../harness/table.js';

export interface InProcessResult {
  readings: number;
  members: number;
  delivered: number;
  cpuUsPerReading: number;
  readingsPerSecond: number;
}

/**
 * The hub's own cost per reading, with no broker and no socket: readings published to an
 * in-memory ingestion source go through the ingestion service, validation, `seq`, the device
 * registry and the throttle (out of the way) to device groups with `members` in-memory
 * subscribers each. What is left is the work a reading costs the hub between the two seams.
 */
export async function runInProcess(quick: boolean): Promise<InProcessResult[]> {
  const results: InProcessResult[] = [];
  for (const members of [1, 10]) results.push(await measure(quick ? 20_000 : 200_000, members));
  return results;
}

async function measure(readings: number, members: number): Promise<InProcessResult> {
  const devices = 100;
  const hub = new Hub();
  const pipeline = new ReadingPipeline({
    registry: new DeviceRegistry(),
    publish: (reading) => hub.publishReading(reading),
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    maxPerSecond: 1000,
  });
  const source = new MemorySource('bench');
  const lifetime = new ApplicationLifetime();
  const service = new IngestionService({ sources: [source], pipeline, lifetime, log: pino({ level: 'silent' }) });
  let delivered = 0;
  for (let m = 0; m < members; m++) {
    const connection = new MemoryConnection({ id: `m${m}`, tenantId: 'bench', onMessage: () => void delivered++ });
    hub.addConnection(connection);
    for (let d = 0; d < devices; d++) hub.join(connection.id, `device:bench:dev-${d}`);
  }
  await service.start(new AbortController().signal);
  const payloads = Array.from({ length: 16 }, (_, i) =>
    Buffer.from(JSON.stringify({ temperature: 20 + i / 10, humidity: 40 })),
  );
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < readings; i++) {
    source.publish({ tenantId: 'bench', deviceId: `dev-${i % devices}`, payload: payloads[i % payloads.length]! });
    // Let the source hand over in batches, as a broker's socket would.
    if (i % 1000 === 999) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const deadline = Date.now() + 30_000;
  while (
    pipeline.stats().accepted + Object.values(pipeline.stats().dropped).reduce((a, b) => a + b, 0) < readings &&
    Date.now() < deadline
  ) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const elapsedMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await lifetime.raiseStopping();
  await service.stop(new AbortController().signal);
  return {
    readings,
    members,
    delivered,
    cpuUsPerReading: (used.user + used.system) / readings,
    readingsPerSecond: readings / (elapsedMs / 1000),
  };
}

export function inProcessTable(results: InProcessResult[]): Table {
  return {
    title:
      'In process: in-memory source → ingestion → pipeline → hub → in-memory subscribers (100 devices, throttle 1000/s)',
    columns: ['members per group', 'readings', 'delivered', 'readings/s', 'CPU µs/reading'],
    rows: results.map((r) => [
      String(r.members),
      String(r.readings),
      String(r.delivered),
      fmt.rate(r.readingsPerSecond),
      fmt.num(r.cpuUsPerReading),
    ]),
    notes: [
      "No broker, no socket: the hub's own work per reading between the IngestionSource and HubConnection seams (the bench runner's process).",
    ],
  };
}
