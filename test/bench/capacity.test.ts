import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  capacityMarkdown,
  costsOf,
  DEFAULT_ASSUMPTIONS,
  FLEETS,
  ingestersFor,
  plan,
  type Costs,
  type Fleet,
} from '../../bench/capacity-model.js';
import { benchResults, type BenchResults } from '../../bench/results-json.js';
import { TARGETS } from '../../bench/scenarios/targets.js';

/**
 * The capacity model in docs/capacity.md is arithmetic on the bench's `--json` results: these
 * check that arithmetic on a small fixture, and that the doc's tables are what the script prints
 * for the committed results file.
 */
const mosquitto = { id: 'mosquitto' as const, url: 'mqtt://127.0.0.1:1883' };

/** Round numbers: 100 groups, N=1000 (fan-out 10); backplane cost 2 µs per delivered message = 10 µs per backplane message. */
function fixture(): BenchResults {
  return {
    schema: 'telemetry-hub-bench/1',
    machine: { description: 'test', loadAverage: [0], node: 'v20', date: '2026-01-01T00:00:00.000Z' },
    groups: 100,
    fanout: [
      {
        broker: 'mosquitto',
        n: 1000,
        server: 'hub-wps',
        label: 'hub Web PubSub',
        maxDelivered: 1,
        capped: false,
        cpuUsPerMsg: 12,
      },
      {
        broker: 'mosquitto',
        n: 1000,
        server: 'hub-sio',
        label: 'hub socket.io',
        maxDelivered: 1,
        capped: false,
        cpuUsPerMsg: 16,
      },
    ],
    memory: [
      { server: 'hub-wps', label: 'hub Web PubSub', rssMbPer1000: 4, heapMbPer1000: 2 },
      { server: 'hub-sio', label: 'hub socket.io', rssMbPer1000: 4, heapMbPer1000: 8 },
    ],
    http: [],
    ingest: [
      {
        label: 'hub ingestion (throttle 5/s/device)',
        broker: 'mosquitto',
        maxReadings: 1,
        capped: false,
        cpuUsPerReading: 20,
      },
      {
        label: 'cluster ingester: hub with Redis seq',
        broker: 'mosquitto',
        maxReadings: 1,
        capped: false,
        cpuUsPerReading: 50,
      },
    ],
    history: {
      ingest: [
        { label: 'hub ingestion, history off', broker: 'mosquitto', maxReadings: 1, capped: false, cpuUsPerReading: 8 },
        {
          label: 'hub ingestion, history on (PostgreSQL)',
          broker: 'mosquitto',
          maxReadings: 40_000,
          capped: false,
          cpuUsPerReading: 18,
          stored: { accepted: 10, written: 10, dropped: 0 },
        },
      ],
      lag: { rate: 20_000, p50: 50, p99: 100 },
    },
    cluster: [
      { layout: '1 instance, no Redis', instances: 1, redis: false, n: 1000, maxDelivered: 1, cpuUsPerMsg: 10 },
      { layout: '1 instance + Redis', instances: 1, redis: true, n: 1000, maxDelivered: 1, cpuUsPerMsg: 12 },
    ],
  };
}

const cpuPerInstanceUs = (c: Costs, p: ReturnType<typeof plan>) =>
  (p.deliveredPerSecond * c.deliverUs[p.transport] + p.readingsPerSecond * p.instancesPerReading * c.backplaneUs) /
  p.instancesForCpu;

describe('capacity model', () => {
  it('takes each cost from its bench row', () => {
    const c = costsOf(fixture());
    expect(c.ingestUs).toBe(20);
    expect(c.clusterIngestUs).toBe(50);
    expect(c.storeUs).toBe(10); // history on − off
    expect(c.deliverUs['hub-wps']).toBe(10); // 12 − 20 µs per reading shared by 10 members
    expect(c.deliverUs['hub-sio']).toBe(14);
    expect(c.connectionMb['hub-wps']).toBeCloseTo(0.004); // the larger of RSS and heap+external
    expect(c.connectionMb['hub-sio']).toBeCloseTo(0.008);
    expect(c.backplaneUs).toBe(10); // 2 µs × 10 deliveries per reading ÷ 2 backplane messages
    expect(c.writerReadingsPerSecond).toBe(40_000); // the writer stored everything at its max
  });

  it('takes a writer that refused readings at the rate its lag was measured, not at its max', () => {
    const r = fixture();
    r.history.ingest[1]!.stored = { accepted: 10, written: 4, dropped: 6 };
    expect(costsOf(r).writerReadingsPerSecond).toBe(20_000);
  });

  it('names the missing row instead of computing with a hole', () => {
    const r = fixture();
    r.cluster = [];
    expect(() => costsOf(r)).toThrow(/cluster row/);
  });

  const fleet: Fleet = { name: 'test', devices: 100_000, readingIntervalSeconds: 1, subscribers: 1_000_000 };

  it('doubles the instances when the CPU per delivered message doubles, and the cells when the CPU per reading ingested doubles', () => {
    const c = { ...costsOf(fixture()), backplaneUs: 0 };
    const base = plan(c, fleet, 'hub-wps');
    // 1M delivered/s × 10 µs = 10 cores at 70 % → 15 instances (14.3 rounded up).
    expect(base.instancesForCpu).toBe(15);
    const dearer = plan({ ...c, deliverUs: { ...c.deliverUs, 'hub-wps': 20 } }, fleet, 'hub-wps');
    expect(dearer.instancesForCpu).toBe(29); // 28.6 rounded up: twice the unrounded need
    // 100k readings/s × (50 + 10) µs = 6 cores at 70 % → 9 cells; twice the ingest cost → 100k × 110 µs → 16.
    expect(base.cellsForIngest).toBe(9);
    expect(plan({ ...c, clusterIngestUs: 100 }, fleet, 'hub-wps').cellsForIngest).toBe(16);
  });

  it('with partitions, one cell takes in what several ingesters carry, each within the budget, until dropping the stream alone fills an ingester', () => {
    const c = { ...costsOf(fixture()), backplaneUs: 0, partitionDropUs: 5 };
    const ingestUs = c.clusterIngestUs + c.storeUs; // 60 µs per reading taken in
    const budget = DEFAULT_ASSUMPTIONS.cpuBudget * 1e6;
    // 100k/s: P ingesters each spend 100k × (60 ÷ P + 5 × (P − 1) ÷ P) ≤ 700k µs → P ≥ 5.5M ÷ 200k = 27.5.
    expect(ingestersFor(100_000, ingestUs, 5, budget)).toBe(28);
    const perIngester = (r: number, p: number) => r * (ingestUs / p + (5 * (p - 1)) / p);
    expect(perIngester(100_000, 28)).toBeLessThanOrEqual(budget);
    expect(perIngester(100_000, 27)).toBeGreaterThan(budget);
    // Dropping 140k readings/s at 5 µs fills an ingester: no partition count fits.
    expect(ingestersFor(140_000, ingestUs, 5, budget)).toBeUndefined();
    // Without partitions' drop cost known, one ingester per cell, as before.
    expect(ingestersFor(100_000, ingestUs, undefined, budget)).toBeUndefined();
    expect(ingestersFor(10_000, ingestUs, undefined, budget)).toBe(1);
    const p = plan(c, fleet, 'hub-wps');
    expect(p.cellsForIngest).toBe(1);
    expect(p.ingestersPerCell).toBe(
      Math.ceil(((100_000 / p.cells) * (ingestUs - 5)) / (budget - (100_000 / p.cells) * 5)),
    );
    // Twice the readings: the stream alone (200k × 5 µs) overfills an ingester, so the cells split it.
    const twice = plan(c, { ...fleet, devices: 200_000 }, 'hub-wps');
    expect(twice.cellsForIngest).toBe(2);
  });

  it('keeps every instance within the CPU budget, with no instance to spare', () => {
    const c = costsOf(fixture());
    for (const budget of [0.5, 0.7, 0.9]) {
      for (const transport of ['hub-wps', 'hub-sio'] as const) {
        const p = plan(c, fleet, transport, { ...DEFAULT_ASSUMPTIONS, cpuBudget: budget });
        expect(cpuPerInstanceUs(c, p)).toBeLessThanOrEqual(budget * 1e6);
        expect(cpuPerInstanceUs(c, { ...p, instancesForCpu: p.instancesForCpu - 1 })).toBeGreaterThan(budget * 1e6);
      }
    }
  });

  it('sizes by memory when connections, not CPU, fill an instance', () => {
    const c = costsOf(fixture());
    const idle: Fleet = { name: 'idle', devices: 1000, readingIntervalSeconds: 60, subscribers: 1_000_000 };
    const p = plan(c, idle, 'hub-sio', { cpuBudget: 0.7, connectionMemoryMb: 1000 });
    expect(p.instancesForMemory).toBe(8); // 1M × 8 KB ÷ 1000 MB
    expect(p.instances).toBe(8);
  });

  it('needs one database writer per writer rate, and more cells when one Redis per cell cannot carry the backplane', () => {
    const c = costsOf(fixture());
    const p = plan(c, fleet, 'hub-wps');
    expect(p.databaseWriters).toBe(3); // 100k ÷ 40k
    expect(p.cells).toBe(Math.max(p.cellsForIngest, p.cellsForRedis));
    const slowRedis = plan({ ...c, backplaneUs: 100 }, fleet, 'hub-wps');
    expect(slowRedis.cellsForRedis).toBeGreaterThan(slowRedis.cellsForIngest);
    expect(slowRedis.cells).toBe(slowRedis.cellsForRedis);
    // Subscribers connect to their device's cell: at least one delivery instance in each.
    const quiet = plan(c, { ...fleet, subscribers: 10_000 }, 'hub-wps');
    expect(quiet.instancesForCpu).toBeLessThan(quiet.cells);
    expect(quiet.instances).toBe(quiet.cells);
    // Each cell's Redis within the budget: readings × (publish + instances reached) × µs.
    expect(((fleet.devices / slowRedis.cells) * (1 + slowRedis.instancesPerReading) * 100) / 1e6).toBeLessThanOrEqual(
      0.7,
    );
  });

  it('reads what the bench writes with --json', () => {
    const r = fixture();
    const step = (cpuUsPerMsg: number) =>
      ({
        target: 20_000,
        delivered: 20_000,
        deliveredRatio: 1,
        latency: { count: 1, p50: 1, p99: 1, max: 1 },
        cpuUsPerMsg,
        pass: true,
      }) as never;
    const written = benchResults({
      machine: r.machine,
      groups: 100,
      fanout: (['hub-wps', 'hub-sio'] as const).map((id, i) => ({
        target: TARGETS[id],
        broker: mosquitto,
        n: 1000,
        fixed: [step(1), step(r.fanout[i]!.cpuUsPerMsg!)],
        best: step(1),
        capped: false,
        stop: '',
        clock: { correctionMs: 0, rttMs: 0 },
      })),
      memory: (['hub-wps', 'hub-sio'] as const).map((id, i) => ({
        target: TARGETS[id],
        n: 5000,
        rssMbPer1000: r.memory[i]!.rssMbPer1000!,
        heapMbPer1000: r.memory[i]!.heapMbPer1000!,
      })),
      http: [],
      ingest: r.ingest.map((row) => ({
        label: row.label,
        broker: mosquitto,
        stop: '',
        max: 1,
        cpuUsPerReading: row.cpuUsPerReading!,
      })),
      history: {
        ingest: r.history.ingest.map((row) => ({
          label: row.label,
          broker: mosquitto,
          stop: '',
          max: row.maxReadings!,
          cpuUsPerReading: row.cpuUsPerReading!,
          ...(row.stored ? { history: { ...row.stored, pending: 0 } } : {}),
        })),
        lag: { rate: 20_000, summary: { count: 1, p50: 50, p99: 100, max: 100 } },
      },
      cluster: r.cluster.map((row) => ({
        layout: { label: row.layout, instances: row.instances, redis: row.redis },
        n: 1000,
        best: { target: 1, delivered: 1, deliveredRatio: 1, p99: 1, cpuUsPerMsg: row.cpuUsPerMsg!, pass: true },
        stop: '',
      })),
    });
    expect(JSON.parse(JSON.stringify(written))).toMatchObject({ schema: 'telemetry-hub-bench/1' });
    expect(costsOf(written)).toEqual(costsOf(r));
  });

  it("docs/capacity.md's tables are what the script prints for the committed results", () => {
    const results = JSON.parse(readFileSync('bench/capacity-input.json', 'utf8')) as BenchResults;
    const doc = readFileSync('docs/capacity.md', 'utf8');
    expect(doc).toContain(capacityMarkdown(results).trim());
    expect(FLEETS.map((f) => f.name).every((n) => doc.includes(n))).toBe(true);
  });
});
