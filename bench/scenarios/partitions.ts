import type { BenchChild } from '../harness/child-process.js';
import { sleep } from '../harness/options.js';
import { fmt, ratio, type Table } from '../harness/table.js';
import type { Consumer, Cpu, IngestResult } from './ingestion.js';
import { INGEST_THROTTLE } from './ingestion.js';
import { hubArgs, serverExecArgv } from './targets.js';

/** Issue 31 item 1: the external broker's devices in this many partitions, spread over the instances. */
export const INGEST_PARTITIONS = 3;
const REDIS_URL = 'redis://127.0.0.1:6379';
let runs = 0;

type Stats = { accepted: number; dropped: Record<string, number>; at: number; partitions?: number };

/**
 * A cluster of `instances` hubs sharing Redis and reading one Mosquitto, its devices in
 * `INGEST_PARTITIONS` partitions. Ready once every partition has its holder and each instance
 * holds its share; counts what the instances took in together.
 */
function partitionedCluster(instances: number, partitions: number): Consumer {
  return {
    label:
      partitions === 1
        ? `1 instance, 1 partition (one ingest lease, as before partitions)`
        : `${instances} instance${instances > 1 ? 's' : ''}, ${partitions} partitions`,
    async start(start, broker) {
      const base = hubArgs(INGEST_THROTTLE)(broker.url);
      const hubName = `benchparts${process.pid}x${++runs}`;
      const children: BenchChild[] = [];
      for (let i = 0; i < instances; i++)
        children.push(
          await start('hub-server', {
            args: [
              JSON.stringify({
                ...base,
                extraArgs: [
                  `--ConnectionStrings:redis=${REDIS_URL}`,
                  `--Hub:Name=${hubName}`,
                  `--Cluster:IngestPartitions=${partitions}`,
                  '--Cluster:IngestLeaseSeconds=2',
                ],
              }),
            ],
            execArgv: serverExecArgv(),
          }),
        );
      const stats = () => Promise.all(children.map((c) => c.request<Stats>('stats')));
      const share = Math.ceil(partitions / instances);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const held = (await stats()).map((s) => s.partitions ?? 0);
        const sum = held.reduce((a, b) => a + b, 0);
        if (sum === partitions && held.every((h) => h <= share && h > 0)) break;
        if (Date.now() > deadline) throw new Error(`partitions not spread within 30 s: ${held.join(' + ')}`);
        await sleep(200);
      }
      return {
        child: children[0]!,
        count: async () => {
          const all = await stats();
          // A reading dropped for want of a seq (`backlog`) was not taken in.
          const taken = all.map(
            (s) => s.accepted + Object.entries(s.dropped).reduce((n, [why, k]) => (why === 'backlog' ? n : n + k), 0),
          );
          // Each process stamps its own count; their mean time stands for the sum's.
          return { count: taken.reduce((a, b) => a + b, 0), at: all.reduce((a, s) => a + s.at, 0) / all.length };
        },
        cpu: () => Promise.all(children.map((c) => c.request<Cpu>('cpu'))),
      };
    },
  };
}

/** The single lease first (the baseline), then one, two and three instances over the same partitions. */
export const PARTITION_CONSUMERS: readonly Consumer[] = [
  partitionedCluster(1, 1),
  ...[1, 2, 3].map((instances) => partitionedCluster(instances, INGEST_PARTITIONS)),
];

export function partitionsTable(results: IngestResult[]): Table {
  const single = results[0];
  return {
    title: `Partitioned ingestion (issue 31): one Mosquitto, ${INGEST_PARTITIONS} partitions over 1, 2 and 3 instances (throttle ${INGEST_THROTTLE}/s/device, QoS 0)`,
    columns: [
      'consumer',
      'max readings/s (all instances)',
      'CPU µs/reading, all instances',
      'busiest instance: CPU µs per reading of the cluster',
      'busiest × one lease',
      'ramp stopped',
    ],
    rows: [
      ...results.map((r) =>
        r.error
          ? [r.label, 'ERROR', '', '', '', r.error]
          : [
              r.label,
              `${r.capped ? '≥ ' : ''}${fmt.rate(r.max)}`,
              fmt.num(r.cpuUsPerReading),
              fmt.num(r.busiestCpuUsPerReading),
              fmt.ratio(ratio(r.busiestCpuUsPerReading, single?.busiestCpuUsPerReading)),
              r.stop,
            ],
      ),
    ],
    notes: [
      "Every instance, the broker and the publisher share this machine's cores, so the rate cannot grow with instances here: the busiest instance's CPU per reading of the cluster is the figure that carries (the cluster's rate on separate machines is about 1 ÷ that figure per core).",
      "An instance holding k partitions keeps k broker sessions, each receiving every reading and dropping the other partitions' unparsed: the cost of a partition's reading arriving where it is not ingested.",
    ],
  };
}
