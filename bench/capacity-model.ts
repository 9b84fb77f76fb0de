import type { BenchResults, IngestRow } from './results-json.js';
import { renderMarkdown, type Table } from './harness/table.js';

/**
 * The capacity model (docs/capacity.md): the bench's measured costs → how many hub instances,
 * Redis shards and database writers a fleet needs. Pure arithmetic on a `--json` results file, so
 * the table in the docs follows the code each time the bench is rerun.
 */

/** What the bench measured, in the units the model adds up. */
export interface Costs {
  /** Hub CPU per reading taken in, one instance without Redis (ingestion row), µs. */
  ingestUs: number;
  /** The same on a cluster's ingester, whose `seq` comes from Redis (cluster ingester row), µs. */
  clusterIngestUs: number;
  /**
   * CPU per reading a partition's ingester receives and drops (another partition's): what
   * receiving it with mqtt.js costs (bare mqtt.js consumer row), µs. Undefined: no such row, and
   * the model keeps one ingester per cell.
   */
  partitionDropUs?: number;
  /** Extra hub CPU per reading stored in PostgreSQL (history on − history off), µs. */
  storeUs: number;
  /** Readings/s one database writer was seen to keep up with. */
  writerReadingsPerSecond: number;
  /** Hub CPU per delivered message by transport, the per-reading share taken out, µs. */
  deliverUs: Record<Transport, number>;
  /** Memory per idle connection by transport: the larger of RSS and heap+external, MB. */
  connectionMb: Record<Transport, number>;
  /** CPU per backplane message (one publish, or one delivery to one instance), µs. */
  backplaneUs: number;
}

export type Transport = 'hub-wps' | 'hub-sio';
export const TRANSPORTS: Record<Transport, string> = { 'hub-wps': 'Web PubSub', 'hub-sio': 'socket.io' };

/** Stated assumptions, not measurements. */
export interface Assumptions {
  /** Share of one core an instance (or a Redis shard) may use at the planned peak. */
  cpuBudget: number;
  /** Memory an instance may give to connections, MB. */
  connectionMemoryMb: number;
}
export const DEFAULT_ASSUMPTIONS: Assumptions = { cpuBudget: 0.7, connectionMemoryMb: 2048 };

export interface Fleet {
  name: string;
  devices: number;
  /** Seconds between two readings of one device. */
  readingIntervalSeconds: number;
  subscribers: number;
}
export const FLEETS: Fleet[] = [
  {
    name: '(a) 100k devices at 1/s, 1M subscribers',
    devices: 100_000,
    readingIntervalSeconds: 1,
    subscribers: 1_000_000,
  },
  {
    name: '(b) 1M devices at 1/10 s, 1M subscribers',
    devices: 1_000_000,
    readingIntervalSeconds: 10,
    subscribers: 1_000_000,
  },
];

export interface Plan {
  fleet: Fleet;
  transport: Transport;
  readingsPerSecond: number;
  /** Subscribers per device: every reading goes to each of them. */
  fanout: number;
  deliveredPerSecond: number;
  /** Cells: independent clusters, each with its ingesters and one Redis, devices split among them. */
  cells: number;
  /** Cells the ingest needs (its partitions' ingesters within the budget), and cells one Redis per cell needs: `cells` is the larger. */
  cellsForIngest: number;
  cellsForRedis: number;
  /** Ingesters in each cell: one per partition (`Cluster:IngestPartitions`), each holding one. */
  ingestersPerCell: number;
  /** Delivery instances over all cells: the CPU need, the memory need, at least one per cell. */
  instances: number;
  instancesForCpu: number;
  instancesForMemory: number;
  /** Instances each reading reaches over the backplane (one per instance holding a subscriber of its device). */
  instancesPerReading: number;
  databaseWriters: number;
}

class MissingCost extends Error {}
const need = (v: number | null | undefined, what: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new MissingCost(`capacity: the results have no ${what}`);
  return v;
};
/** `{ [key]: v }` for a measured value, `{}` for a row the results do not have. */
const optional = <K extends string>(key: K, v: number | null | undefined): { [k in K]?: number } =>
  (typeof v === 'number' && Number.isFinite(v) ? { [key]: v } : {}) as { [k in K]?: number };
const row = (rows: IngestRow[], prefix: string) => rows.find((r) => r.label.startsWith(prefix) && !r.error);

/** The costs the model needs, from one results file; names the missing row when one is absent. */
export function costsOf(results: BenchResults): Costs {
  const fanoutRow = (server: Transport) => {
    const rows = results.fanout.filter((r) => r.server === server && !r.error && r.cpuUsPerMsg !== null);
    // The largest N: the per-reading share spread over the most members, the closest to a member's own cost.
    return rows.sort((a, b) => b.n - a.n)[0];
  };
  const ingestUs = need(row(results.ingest, 'hub ingestion')?.cpuUsPerReading, 'hub ingestion row (CPU µs/reading)');
  const deliver = (t: Transport) => {
    const r = fanoutRow(t);
    const fanout = need(r?.n, `fan-out row for ${t}`) / results.groups;
    return need(r?.cpuUsPerMsg, `fan-out CPU µs/msg for ${t}`) - ingestUs / fanout;
  };
  const memoryOf = (t: Transport) => {
    const r = results.memory.find((m) => m.server === t && !m.error);
    return Math.max(need(r?.rssMbPer1000, `idle memory row for ${t}`), r?.heapMbPer1000 ?? 0) / 1000;
  };
  // By what the row measures, not its whole label: the history rows now name their QoS too.
  const history = (suffix: string) => results.history.ingest.find((r) => r.label.endsWith(suffix) && !r.error);
  const off = history('history off');
  const pg = history('history on (PostgreSQL)');
  const storeUs =
    need(pg?.cpuUsPerReading, 'history on (PostgreSQL) row') - need(off?.cpuUsPerReading, 'history off row');
  // A writer that stored everything kept up with the row's max; one that refused readings is known
  // to keep up only at the rate its lag was measured (a lower bound).
  const lossless = pg?.stored && pg.stored.written === pg.stored.accepted && pg.stored.dropped === 0;
  const writerReadingsPerSecond = lossless
    ? need(pg?.maxReadings, 'history on (PostgreSQL) max')
    : need(results.history.lag?.rate, 'writer lag rate');
  const base = results.cluster.find((c) => c.instances === 1 && !c.redis && !c.error);
  const single = results.cluster.find((c) => c.instances === 1 && c.redis && !c.error);
  const perDelivered =
    need(single?.cpuUsPerMsg, 'cluster row "1 instance + Redis"') -
    need(base?.cpuUsPerMsg, 'cluster row "1 instance, no Redis"');
  // That layout: each reading is one publish and one delivery to the one instance (2 backplane
  // messages), spread over n ÷ groups delivered messages.
  const backplaneUs = (perDelivered * (single!.n / results.groups)) / 2;
  return {
    ingestUs,
    clusterIngestUs: need(row(results.ingest, 'cluster ingester')?.cpuUsPerReading, 'cluster ingester row'),
    ...optional('partitionDropUs', row(results.ingest, 'bare mqtt.js')?.cpuUsPerReading),
    storeUs: Math.max(0, storeUs),
    writerReadingsPerSecond,
    deliverUs: { 'hub-wps': deliver('hub-wps'), 'hub-sio': deliver('hub-sio') },
    connectionMb: { 'hub-wps': memoryOf('hub-wps'), 'hub-sio': memoryOf('hub-sio') },
    backplaneUs: Math.max(0, backplaneUs),
  };
}

/** µs of CPU one instance (or shard) may spend per second. */
const budgetUs = (a: Assumptions) => a.cpuBudget * 1_000_000;

/** The most partitions a cluster may have (`Cluster:IngestPartitions`). */
export const MAX_PARTITIONS = 64;

/**
 * Ingesters one cell taking in `readingsPerSecond` needs, each holding one partition: its broker
 * session receives every reading of the cell, takes in its 1/P at `ingestUs` and drops the rest
 * at `dropUs`. Undefined when no count of partitions fits the budget (the cell's readings cost
 * more to drop than an instance has).
 */
export function ingestersFor(
  readingsPerSecond: number,
  ingestUs: number,
  dropUs: number | undefined,
  budget: number,
): number | undefined {
  if (readingsPerSecond * ingestUs <= budget) return 1;
  if (dropUs === undefined) return undefined;
  const room = budget - readingsPerSecond * dropUs;
  if (room <= 0) return undefined;
  const partitions = Math.ceil((readingsPerSecond * (ingestUs - dropUs)) / room);
  return partitions <= MAX_PARTITIONS ? partitions : undefined;
}

export function plan(costs: Costs, fleet: Fleet, transport: Transport, a: Assumptions = DEFAULT_ASSUMPTIONS): Plan {
  const readingsPerSecond = fleet.devices / fleet.readingIntervalSeconds;
  const fanout = fleet.subscribers / fleet.devices;
  const deliveredPerSecond = readingsPerSecond * fanout;
  // A cluster's ingesters (one per partition, docs/ingestion.md) take in, store and publish every
  // reading of its cell, and each receives all of them. One Redis per cluster (a hub's keys share
  // one hash slot, so a Redis Cluster gives it one shard): a fleet larger than one cell's ingesters
  // or one Redis can carry is split into cells, independent clusters with the devices split among them.
  const ingesterUsPerReading = costs.clusterIngestUs + costs.storeUs + costs.backplaneUs;
  const ingesters = (cells: number) =>
    ingestersFor(readingsPerSecond / cells, ingesterUsPerReading, costs.partitionDropUs, budgetUs(a));
  let cellsForIngest = 1;
  while (ingesters(cellsForIngest) === undefined) cellsForIngest++;
  const instancesForMemory = Math.ceil((fleet.subscribers * costs.connectionMb[transport]) / a.connectionMemoryMb);
  // Worst case for the backplane: a device's subscribers sit on different instances, so each
  // reading reaches min(fan-out, instances in its cell) of them. Iterate to the fixed point.
  let instancesForCpu = 1;
  let cells = cellsForIngest;
  let cellsForRedis = 1;
  let instancesPerReading = 1;
  for (let i = 0; i < 50; i++) {
    const perCell = Math.max(1, Math.ceil(Math.max(instancesForCpu, instancesForMemory) / cells));
    instancesPerReading = Math.max(1, Math.min(Math.ceil(fanout), perCell));
    const cpuUs =
      deliveredPerSecond * costs.deliverUs[transport] + readingsPerSecond * instancesPerReading * costs.backplaneUs;
    const nextInstances = Math.max(1, Math.ceil(cpuUs / budgetUs(a)));
    // Redis per reading: one publish (its fenced script records the group's seq in the same call)
    // and one delivery per instance reached; `seq` comes in blocks of 100 per device, one call per
    // hundred readings, left out. Its cost per message is taken as the backplane's
    // (docs/capacity.md: a proxy, not redis-server's own CPU).
    cellsForRedis = Math.max(
      1,
      Math.ceil((readingsPerSecond * (1 + instancesPerReading) * costs.backplaneUs) / budgetUs(a)),
    );
    const nextCells = Math.max(cellsForIngest, cellsForRedis);
    if (nextInstances === instancesForCpu && nextCells === cells) break;
    [instancesForCpu, cells] = [nextInstances, nextCells];
  }
  return {
    fleet,
    transport,
    readingsPerSecond,
    fanout,
    deliveredPerSecond,
    cells,
    cellsForIngest,
    cellsForRedis,
    ingestersPerCell: ingesters(cells)!,
    // A subscriber connects to its device's cell: every cell needs an instance of its own.
    instances: Math.max(instancesForCpu, instancesForMemory, cells),
    instancesForCpu,
    instancesForMemory,
    instancesPerReading,
    databaseWriters: Math.ceil(readingsPerSecond / costs.writerReadingsPerSecond),
  };
}

const int = (v: number) => Math.round(v).toLocaleString('en-US');
const us = (v: number) => v.toFixed(1);

/** The costs and the plans as the two Markdown tables docs/capacity.md embeds. */
export function capacityMarkdown(
  results: BenchResults,
  a: Assumptions = DEFAULT_ASSUMPTIONS,
  fleets: Fleet[] = FLEETS,
): string {
  const c = costsOf(results);
  const inputs: Table = {
    title: 'Measured costs (from the bench results)',
    columns: ['cost', 'value'],
    rows: [
      ['CPU per reading ingested, one instance', `${us(c.ingestUs)} µs`],
      ['CPU per reading ingested, cluster ingester (Redis `seq`)', `${us(c.clusterIngestUs)} µs`],
      ...(c.partitionDropUs !== undefined
        ? [
            [
              'CPU per reading an ingester drops (another partition’s; mqtt.js receiving it)',
              `${us(c.partitionDropUs)} µs`,
            ],
          ]
        : []),
      ['CPU per reading stored (PostgreSQL, on the ingester)', `${us(c.storeUs)} µs`],
      ...Object.entries(TRANSPORTS).map(([t, label]) => [
        `CPU per message delivered, ${label}`,
        `${us(c.deliverUs[t as Transport])} µs`,
      ]),
      ...Object.entries(TRANSPORTS).map(([t, label]) => [
        `memory per idle connection, ${label}`,
        `${(c.connectionMb[t as Transport] * 1000).toFixed(1)} KB`,
      ]),
      ['CPU per backplane message', `${us(c.backplaneUs)} µs`],
      ['readings/s one database writer keeps up with', int(c.writerReadingsPerSecond)],
    ],
    notes: [
      `Machine: ${results.machine.description}; load average ${results.machine.loadAverage.map((l) => l.toFixed(1)).join(' ')}; ${results.machine.node}; ${results.machine.date.slice(0, 10)}.${results.machine.note ? ` ${results.machine.note}` : ''}`,
    ],
  };
  const plans = fleets.flatMap((f) => (Object.keys(TRANSPORTS) as Transport[]).map((t) => plan(c, f, t, a)));
  const fleetTable: Table = {
    title: `Fleet sizes (instance budget ${Math.round(a.cpuBudget * 100)} % of a core, ${int(a.connectionMemoryMb)} MB for connections)`,
    columns: [
      'fleet',
      'transport',
      'readings/s',
      'delivered/s',
      'cells = Redis servers (for ingest / for Redis)',
      'ingesters per cell (partitions)',
      'delivery instances (for CPU / for memory; ≥ 1 per cell)',
      'instances a reading reaches',
      'database writers',
    ],
    rows: plans.map((p) => [
      p.fleet.name,
      TRANSPORTS[p.transport],
      int(p.readingsPerSecond),
      int(p.deliveredPerSecond),
      `${int(p.cells)} (${int(p.cellsForIngest)} / ${int(p.cellsForRedis)})`,
      int(p.ingestersPerCell),
      `${int(p.instances)} (${int(p.instancesForCpu)} / ${int(p.instancesForMemory)})`,
      int(p.instancesPerReading),
      int(p.databaseWriters),
    ]),
  };
  return `${renderMarkdown(inputs)}\n\n${renderMarkdown(fleetTable)}\n`;
}
