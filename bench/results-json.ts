import { writeFileSync } from 'node:fs';
import type { ClusterCase } from './scenarios/cluster.js';
import type { FanoutCase } from './scenarios/fanout.js';
import type { HistoryBench } from './scenarios/history.js';
import type { HttpResult } from './scenarios/http.js';
import type { MemoryResult } from './scenarios/idle-memory.js';
import type { IngestResult } from './scenarios/ingestion.js';

/**
 * The bench's result rows as plain JSON (`npm run bench -- --json=<file>`), so tools such as the
 * capacity model (`bench/capacity.ts`) read measured costs instead of numbers copied by hand.
 * Only what a later reader needs: rates, CPU per unit, memory per connection; no latency histograms.
 * A value that was not measured is `null`.
 */
export interface BenchResults {
  schema: 'telemetry-hub-bench/1';
  /** CPU model and memory, load average, Node version, ISO date: how far to trust the absolute numbers. */
  machine: { description: string; loadAverage: number[]; node: string; date: string; note?: string };
  /** Devices (groups) the fan-out and cluster scenarios publish to: fan-out per reading = n ÷ groups. */
  groups: number;
  fanout: {
    broker: string;
    n: number;
    server: string;
    label: string;
    maxDelivered: number | null;
    capped: boolean;
    cpuUsPerMsg: number | null;
    error?: string;
  }[];
  memory: {
    server: string;
    label: string;
    rssMbPer1000: number | null;
    heapMbPer1000: number | null;
    error?: string;
  }[];
  http: {
    label: string;
    path: string;
    requestsPerSecond: number | null;
    cpuUsPerRequest: number | null;
    error?: string;
  }[];
  ingest: IngestRow[];
  /** Partitioned ingestion: one lease, then 1, 2 and 3 instances over the same partitions (absent in older runs). */
  partitions?: IngestRow[];
  history: { ingest: IngestRow[]; lag: { rate: number; p50: number | null; p99: number | null } | null };
  cluster: {
    layout: string;
    instances: number;
    redis: boolean;
    n: number;
    maxDelivered: number | null;
    cpuUsPerMsg: number | null;
    error?: string;
  }[];
}

export interface IngestRow {
  label: string;
  broker: string;
  maxReadings: number | null;
  capped: boolean;
  cpuUsPerReading: number | null;
  /** A consumer of several processes: the busiest one's CPU per reading the whole consumer took in. */
  busiestCpuUsPerReading?: number | null;
  stored?: { accepted: number; written: number; dropped: number };
  error?: string;
}

const num = (v: number | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const err = (e: string | undefined) => (e ? { error: e } : {});

const ingestRow = (r: IngestResult): IngestRow => ({
  label: r.label,
  broker: r.broker.id,
  maxReadings: num(r.max),
  capped: r.capped ?? false,
  cpuUsPerReading: num(r.cpuUsPerReading),
  ...(r.busiestCpuUsPerReading !== undefined ? { busiestCpuUsPerReading: num(r.busiestCpuUsPerReading) } : {}),
  ...(r.history
    ? { stored: { accepted: r.history.accepted, written: r.history.written, dropped: r.history.dropped } }
    : {}),
  ...err(r.error),
});

export interface RunResults {
  machine: BenchResults['machine'];
  groups: number;
  fanout: FanoutCase[];
  memory: MemoryResult[];
  http: HttpResult[];
  ingest: IngestResult[];
  partitions?: IngestResult[];
  history?: Omit<HistoryBench, 'series'>;
  cluster: ClusterCase[];
}

export function benchResults(run: RunResults): BenchResults {
  return {
    schema: 'telemetry-hub-bench/1',
    machine: run.machine,
    groups: run.groups,
    fanout: run.fanout.map((c) => ({
      broker: c.broker.id,
      n: c.n,
      server: c.target.id,
      label: c.target.label,
      maxDelivered: num(c.best?.delivered),
      capped: c.capped,
      // The high fixed rate's CPU: the figure the goals table compares (steadier than max rates).
      cpuUsPerMsg: num(c.fixed[1]?.cpuUsPerMsg),
      ...err(c.error),
    })),
    memory: run.memory.map((r) => ({
      server: r.target.id,
      label: r.target.label,
      rssMbPer1000: num(r.rssMbPer1000),
      heapMbPer1000: num(r.heapMbPer1000),
      ...err(r.error),
    })),
    http: run.http.map((r) => ({
      label: r.label,
      path: r.path,
      requestsPerSecond: num(r.requestsPerSecond),
      cpuUsPerRequest: num(r.cpuUsPerRequest),
      ...err(r.error),
    })),
    ingest: run.ingest.map(ingestRow),
    ...(run.partitions?.length ? { partitions: run.partitions.map(ingestRow) } : {}),
    history: {
      ingest: (run.history?.ingest ?? []).map(ingestRow),
      lag:
        run.history?.lag && !run.history.lag.error
          ? { rate: run.history.lag.rate, p50: num(run.history.lag.summary.p50), p99: num(run.history.lag.summary.p99) }
          : null,
    },
    cluster: run.cluster.map((c) => ({
      layout: c.layout.label,
      instances: c.layout.instances,
      redis: c.layout.redis,
      n: c.n,
      maxDelivered: num(c.best?.delivered),
      cpuUsPerMsg: num(c.best?.cpuUsPerMsg),
      ...err(c.error),
    })),
  };
}

export function writeResultsJson(file: string, run: RunResults): void {
  writeFileSync(file, `${JSON.stringify(benchResults(run), null, 2)}\n`);
}
