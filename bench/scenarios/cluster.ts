import { BENCH } from '../harness/bench-config.js';
import type { BenchChild } from '../harness/child-process.js';
import { withChildren } from '../harness/child-process.js';
import { clockOffset } from '../harness/clock.js';
import type { LatencySummary } from '../harness/histogram.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import { fmt, ratio, type Table } from '../harness/table.js';
import { FANOUT_THROTTLE, serverExecArgv } from './targets.js';

/** One way to run the hub for the scale-out row: instances, and whether they share Redis. */
export interface ClusterLayout {
  label: string;
  instances: number;
  redis: boolean;
}

export const CLUSTER_LAYOUTS: readonly ClusterLayout[] = [
  { label: '1 instance, no Redis', instances: 1, redis: false },
  { label: '1 instance + Redis', instances: 1, redis: true },
  { label: '2 instances + Redis', instances: 2, redis: true },
];

interface ClusterStep {
  target: number;
  delivered: number;
  deliveredRatio: number;
  p99: number;
  /** Every instance's CPU (user + system) over the window ÷ delivered messages, µs. */
  cpuUsPerMsg: number;
  pass: boolean;
}

export interface ClusterCase {
  layout: ClusterLayout;
  n: number;
  best: ClusterStep | undefined;
  stop: string;
  error?: string;
}

const REDIS_URL = 'redis://127.0.0.1:6379';
let runs = 0;

/**
 * Delivered readings/s of the hub as 1 or 2 instances with the same N socket.io subscribers split
 * evenly across them (each instance follows every device: the honest worst case for the targeted
 * backplane), through Mosquitto, one ingest lease holder reading it. The ramp asks delivered rates
 * in turn and keeps the highest step with p99 ≤ 100 ms and ≥ 97 % delivered, as the fan-out rows do.
 */
export async function runClusterCase(opts: BenchOptions, layout: ClusterLayout, n: number): Promise<ClusterCase> {
  const result: ClusterCase = { layout, n, best: undefined, stop: '' };
  const hubName = `benchcluster${process.pid}x${++runs}`;
  try {
    await withChildren(async (start) => {
      const servers: BenchChild[] = [];
      for (let i = 0; i < layout.instances; i++) {
        const extraArgs = layout.redis ? [`--ConnectionStrings:redis=${REDIS_URL}`, `--Hub:Name=${hubName}`] : [];
        servers.push(
          await start('hub-server', {
            args: [
              JSON.stringify({
                mqttUrl: BENCH.mosquittoUrl,
                throttlePerSecond: FANOUT_THROTTLE,
                clientId: `${hubName}-${i}`,
                extraArgs,
              }),
            ],
            execArgv: serverExecArgv(),
          }),
        );
      }
      const subs: BenchChild[] = [];
      for (const server of servers) {
        const child = await start('subscribers', {
          args: [
            JSON.stringify({ kind: 'hub-sio', url: server.ready.url, n: n / layout.instances, groups: opts.groups }),
          ],
        });
        const c = await child.request<{ failed: number; error?: string }>('connect', { concurrency: 100 }, 180_000);
        if (c.failed > 0) throw new Error(`${c.failed} subscribers failed to subscribe: ${c.error}`);
        subs.push(child);
      }
      const pub = await start('publisher', {
        args: [JSON.stringify({ brokerUrl: BENCH.mosquittoUrl, devices: opts.groups })],
      });
      const p = await clockOffset(pub);
      const corrections = await Promise.all(subs.map(async (s) => (await clockOffset(s)).offsetMs - p.offsetMs));
      const fanout = n / opts.groups;

      const step = async (delivered: number): Promise<ClusterStep> => {
        type Cpu = NodeJS.CpuUsage & { at: number };
        type Count = { count: number; at: number };
        await pub.request('rate', { perSecond: delivered / fanout });
        await sleep(opts.settleMs);
        await Promise.all(subs.map((s, i) => s.request('reset', { correctionMs: corrections[i] })));
        const p0 = await pub.request<Count>('count');
        const cpu0 = await Promise.all(servers.map((s) => s.request<Cpu>('cpu')));
        await sleep(opts.rampWindowMs);
        const reports = await Promise.all(
          subs.map((s) =>
            s.request<{ received: number; closed: number; latency: LatencySummary; seconds: number }>('report'),
          ),
        );
        const p1 = await pub.request<Count>('count');
        const cpu1 = await Promise.all(servers.map((s) => s.request<Cpu>('cpu')));
        const cpuShare = cpu0.reduce((sum, a, i) => {
          const b = cpu1[i]!;
          return sum + (b.user - a.user + b.system - a.system) / 1000 / (b.at - a.at);
        }, 0);
        const rate = reports.reduce((sum, r) => sum + r.received / r.seconds, 0);
        const published = ((p1.count - p0.count) / (p1.at - p0.at)) * 1000;
        const deliveredRatio = published > 0 ? rate / (published * fanout) : 0;
        const p99 = Math.max(...reports.map((r) => r.latency.p99));
        const closed = reports.reduce((sum, r) => sum + r.closed, 0);
        const result = {
          target: delivered,
          delivered: rate,
          deliveredRatio,
          p99,
          cpuUsPerMsg: rate > 0 ? (cpuShare * 1e6) / rate : NaN,
          pass: p99 <= 100 && deliveredRatio >= 0.97 && closed === 0,
        };
        if (process.env.BENCH_VERBOSE)
          console.error(
            `   ${layout.label} step ${delivered}/s → ${JSON.stringify({ ...result, closed, published, p50: reports.map((r) => r.latency.p50) })}`,
          );
        return result;
      };
      const drain = async () => {
        await pub.request('rate', { perSecond: 0 });
        await sleep(1000);
      };

      await pub.request('rate', { perSecond: opts.fixedRates[0] / fanout });
      await sleep(opts.quick ? 300 : 1500); // warm-up
      // The fixed rates, then +25 % steps up to the ramp's cap.
      const rates: number[] = [...opts.fixedRates];
      while (rates.at(-1)! * 1.25 <= opts.ramp.cap) rates.push(Math.round(rates.at(-1)! * 1.25));
      for (const rate of rates) {
        let s = await step(rate);
        if (!s.pass) {
          await drain();
          s = await step(rate);
        }
        if (!s.pass) {
          result.stop = `missed at ${fmt.rate(rate)}/s (p99 ${s.p99.toFixed(0)} ms, ${(s.deliveredRatio * 100).toFixed(1)} % delivered)`;
          return;
        }
        if (s.delivered > (result.best?.delivered ?? 0)) result.best = s;
        if (s.delivered < 0.9 * rate) {
          result.stop = `chain saturated at ${fmt.rate(s.delivered)}/s`;
          return;
        }
      }
      result.stop = 'end of ramp';
    });
  } catch (err) {
    result.error = (err as Error).message.split('\n')[0];
  }
  return result;
}

export function clusterTable(opts: BenchOptions, cases: ClusterCase[]): Table {
  const base = cases.find((c) => c.layout.instances === 1 && !c.layout.redis)?.best;
  const single = cases.find((c) => c.layout.instances === 1 && c.layout.redis)?.best;
  return {
    title: `Scale-out: hub socket.io, N=${cases[0]?.n ?? '?'} subscribers split over the instances, ${opts.groups} devices, Mosquitto`,
    columns: [
      'layout',
      'max delivered/s',
      'vs 1 instance',
      'p99 ms',
      'CPU µs/msg (all instances)',
      'backplane µs/msg',
      'stop',
    ],
    rows: cases.map((c) => [
      c.layout.label,
      c.error ? `ERROR ${c.error}` : fmt.rate(c.best?.delivered),
      fmt.ratio(ratio(c.best?.delivered, single?.delivered)),
      fmt.ms(c.best?.p99),
      fmt.num(c.best?.cpuUsPerMsg),
      c.layout.redis ? fmt.num(c.best && base ? c.best.cpuUsPerMsg - base.cpuUsPerMsg : undefined) : '–',
      c.stop,
    ]),
    notes: [
      'One ingest lease holder reads Mosquitto and publishes each reading once to its device channel; every instance with followers delivers it.',
      'backplane µs/msg: CPU per delivered message above the single instance without Redis (encoding, Redis round trips, decoding on the other instance).',
      'Two instances on one 2-core machine share its CPUs with subscribers and publisher: the ratio shows the cost of the split, not what more machines add.',
    ],
  };
}
