import { withChildren } from '../harness/child-process.js';
import { Histogram, type LatencySummary } from '../harness/histogram.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import { fmt, ratio, type Table } from '../harness/table.js';
import { publisherCredentials, type Broker } from './fanout.js';
import { benchPostgres } from './history.js';
import { INGEST_THROTTLE } from './ingestion.js';
import { hubArgs, serverExecArgv } from './targets.js';

export interface HealthUnderIngest {
  label: string;
  /** Readings/s the hub took in during the probes. */
  taken: number;
  latency: LatencySummary;
  error?: string;
}

export interface IdleRss {
  label: string;
  rssMb?: number;
  heapMb?: number;
  error?: string;
}

const PROBES = 200;

type Stats = { accepted: number; dropped: Record<string, number>; at: number };

/**
 * `/health/live` latency while the hub takes in a burst of readings (QoS 0, the ingestion ramp's
 * first rate), history off and on (embedded PGlite: the writer full and the database busy the
 * whole window). One probe at a time over a kept-alive connection, every 10 ms, at least 200 (within 30 s): a probe waits
 * for whatever holds the hub's event loop, so its p99 shows the embedded database's turns there.
 */
export async function runHealthUnderIngest(opts: BenchOptions, broker: Broker): Promise<HealthUnderIngest[]> {
  const results: HealthUnderIngest[] = [];
  for (const history of [false, true]) {
    const label = `hub, history ${history ? 'on (PGlite)' : 'off'}`;
    try {
      await withChildren(async (start) => {
        const child = await start('hub-server', {
          args: [JSON.stringify({ ...hubArgs(INGEST_THROTTLE)(broker.url), history })],
          execArgv: serverExecArgv(),
        });
        const url = `${(child.ready as { url: string }).url}/health/live`;
        const pub = await start('publisher', {
          args: [
            JSON.stringify({
              brokerUrl: child.ready.brokerUrl,
              devices: opts.ingestDevices,
              ...publisherCredentials(broker),
            }),
          ],
        });
        await pub.request('rate', { perSecond: opts.ingestStart });
        await sleep(opts.settleMs);
        const s0 = await child.request<Stats>('stats');
        const latency = new Histogram();
        // At least the window, and on a loaded machine on to `probes` answers (at most 30 s) so p99 means something.
        const began0 = performance.now();
        const enough = () =>
          performance.now() - began0 >= opts.ingestWindowMs * 2 &&
          (latency.summary().count >= PROBES || performance.now() - began0 > 30_000);
        while (!enough()) {
          const began = performance.now();
          const res = await fetch(url);
          await res.arrayBuffer();
          latency.record(performance.now() - began);
          if (!res.ok) throw new Error(`/health/live answered ${res.status}`);
          await sleep(10);
        }
        const s1 = await child.request<Stats>('stats');
        await pub.request('rate', { perSecond: 0 });
        results.push({
          label,
          taken: ((s1.accepted - s0.accepted) / (s1.at - s0.at)) * 1000,
          latency: latency.summary(),
        });
      });
    } catch (err) {
      results.push({
        label,
        taken: NaN,
        latency: { count: 0, p50: NaN, p99: NaN, max: NaN },
        error: (err as Error).message.split('\n')[0],
      });
    }
  }
  return results;
}

/** The idle hub's RSS (after GC, 3 s after start) on the embedded database (the default) and on PostgreSQL. */
export async function runIdleRss(broker: Broker): Promise<IdleRss[]> {
  const results: IdleRss[] = [];
  const server = await benchPostgres('rss').catch(() => undefined);
  const cases: { label: string; extraArgs: string[] }[] = [
    { label: 'hub idle, embedded PGlite (default)', extraArgs: [] },
  ];
  if (server) cases.push({ label: 'hub idle, PostgreSQL', extraArgs: [`--ConnectionStrings:postgres=${server.url}`] });
  try {
    for (const c of cases) {
      try {
        await withChildren(async (start) => {
          const child = await start('hub-server', {
            args: [JSON.stringify({ ...hubArgs(INGEST_THROTTLE)(broker.url), history: true, extraArgs: c.extraArgs })],
            execArgv: ['--expose-gc', ...serverExecArgv()],
          });
          await sleep(3000);
          const m = await child.request<NodeJS.MemoryUsage>('memory');
          results.push({ label: c.label, rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20 });
        });
      } catch (err) {
        results.push({ label: c.label, error: (err as Error).message.split('\n')[0] });
      }
    }
  } finally {
    await server?.drop();
  }
  return results;
}

export function healthTables(opts: BenchOptions, health: HealthUnderIngest[], rss: IdleRss[]): Table[] {
  const off = health[0];
  return [
    {
      title: `History: /health/live latency during an ingestion burst (${fmt.rate(opts.ingestStart)}/s published, QoS 0, ${opts.ingestDevices} devices; ms)`,
      columns: ['hub', 'readings/s taken in', 'probes', 'p50', 'p99', 'max', 'p99 × history off'],
      rows: health.map((h) =>
        h.error
          ? [h.label, `ERROR ${h.error}`, '', '', '', '', '']
          : [
              h.label,
              fmt.rate(h.taken),
              String(h.latency.count),
              fmt.ms(h.latency.p50),
              fmt.ms(h.latency.p99),
              fmt.ms(h.latency.max),
              h === off ? '1.00×' : fmt.ratio(ratio(h.latency.p99, off?.latency.p99)),
            ],
      ),
      notes: [
        "Goal: p99 with history on ≤ 1.5× history off (the embedded database runs in a worker thread, never on the hub's event loop).",
      ],
    },
    {
      title:
        'History: idle hub memory by database engine (after GC; the PGlite worker thread counts in the process RSS)',
      columns: ['hub', 'RSS MB', 'heap used MB'],
      rows: rss.map((r) =>
        r.error ? [r.label, `ERROR ${r.error}`, ''] : [r.label, fmt.num(r.rssMb), fmt.num(r.heapMb)],
      ),
      notes: [
        'The embedded database holds its engine (WebAssembly PostgreSQL) and its buffers in the hub process; PostgreSQL holds them in its own server process.',
      ],
    },
  ];
}
