import type { BenchChild } from '../harness/child-process.js';
import { withChildren } from '../harness/child-process.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import { rampToFailure, type RampStep } from '../harness/ramp.js';
import type { Spread } from '../harness/repeat.js';
import { publisherCredentials, type Broker } from './fanout.js';
import { hubArgs, serverExecArgv } from './targets.js';

export interface IngestResult {
  label: string;
  broker: Broker;
  /** Highest received readings/s with ≥ 97 % of the published readings taken in. */
  max?: number;
  stop: string;
  /** Consumer CPU (user + system) per reading taken in at the first rate of the ramp, µs (every process of the consumer together). */
  cpuUsPerReading?: number;
  /** A consumer of several processes (a cluster's instances): the busiest one's CPU per reading the whole consumer took in, µs. */
  busiestCpuUsPerReading?: number;
  /** The ramp passed its cap or the publisher's limit: `max` is a floor; no ratio. */
  capped?: boolean;
  /** Readings the hub dropped as invalid (must stay 0). */
  dropped?: number;
  /** max readings/s and CPU per reading over repeated runs. */
  spread?: Spread;
  cpuSpread?: Spread;
  error?: string;
  /** History: what the writer stored of what the hub accepted, once the publisher stopped. */
  history?: { accepted: number; written: number; dropped: number; pending: number };
}

interface IngestStep extends RampStep {
  received: number;
  cpuUs: number;
  busiestCpuUs: number;
}

/** Contract default Throttle:MaxPerSecondPerDevice: throttling on, as in production. */
export const INGEST_THROTTLE = 5;

/** A count stamped by the process that counted (ms), so IPC delays do not bend rates. */
type Count = { count: number; at: number };
/** A process's CPU time so far, stamped as a Count is. */
export type Cpu = NodeJS.CpuUsage & { at: number };

export interface Consumer {
  label: string;
  /** More publisher arguments (e.g. `qos: 1`). */
  publisher?: Record<string, unknown>;
  /** After the ramp, with the publisher stopped: more of the result (e.g. what history stored). */
  after?(child: BenchChild): Promise<Partial<IngestResult>>;
  start(
    start: (name: string, o?: { args?: string[]; execArgv?: string[] }) => Promise<BenchChild>,
    broker: Broker,
  ): Promise<{
    child: BenchChild;
    count(): Promise<Count>;
    /** Every process of the consumer (default: `child` alone). */
    cpu?(): Promise<Cpu[]>;
  }>;
}

const CONSUMERS: Consumer[] = [
  {
    label: 'bare mqtt.js consumer',
    async start(start, broker) {
      const child = await start('mqtt-counter', { args: [JSON.stringify({ mqttUrl: broker.url })] });
      return { child, count: () => child.request<Count>('count') };
    },
  },
  {
    // What a user would write instead (issue 29): the floor above plus JSON.parse and a compiled ajv validator.
    label: 'mqtt.js + JSON.parse + ajv consumer',
    async start(start, broker) {
      const child = await start('mqtt-validating-counter', { args: [JSON.stringify({ mqttUrl: broker.url })] });
      return { child, count: () => child.request<Count>('count') };
    },
  },
  hubConsumer(`hub ingestion (throttle ${INGEST_THROTTLE}/s/device)`, []),
  // The one ingester of a cluster: each reading's seq from Redis (issue 14), same throttle.
  hubConsumer(`cluster ingester: hub with Redis seq (throttle ${INGEST_THROTTLE}/s/device)`, () => [
    '--ConnectionStrings:redis=redis://127.0.0.1:6379',
    `--Hub:Name=benchingest${process.pid}x${Date.now().toString(36)}`,
  ]),
];

/** The hub as a consumer; `extraArgs` are more configuration (a function: a fresh hub name per run). */
function hubConsumer(label: string, extraArgs: string[] | (() => string[])): Consumer {
  return {
    label,
    async start(start, broker) {
      const args = {
        ...hubArgs(INGEST_THROTTLE)(broker.url),
        extraArgs: typeof extraArgs === 'function' ? extraArgs() : extraArgs,
      };
      const child = await start('hub-server', { args: [JSON.stringify(args)], execArgv: serverExecArgv() });
      return {
        child,
        count: async () => {
          const s = await child.request<{ accepted: number; dropped: Record<string, number>; at: number }>('stats');
          // A reading dropped for want of a seq (`backlog`) was not taken in.
          const dropped = Object.entries(s.dropped).reduce(
            (sum, [reason, n]) => (reason === 'backlog' ? sum : sum + n),
            0,
          );
          return { count: s.accepted + dropped, at: s.at };
        },
      };
    },
  };
}

/**
 * Readings/s a consumer takes in from the broker, ramping the publish rate over `ingestDevices`
 * devices to failure (harness/ramp.ts): until the consumer falls behind (< 97 % of what was
 * published in the window, twice); a publisher that cannot reach the rate marks the result capped.
 */
export async function runIngestion(
  opts: BenchOptions,
  broker: Broker,
  consumers: readonly Consumer[] = CONSUMERS,
): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  for (const consumer of consumers) {
    const result: IngestResult = { label: consumer.label, broker, stop: '' };
    try {
      await withChildren(async (start) => {
        const started = await consumer.start(start, broker);
        const { child, count } = started;
        const cpu = started.cpu ?? (async () => [await child.request<Cpu>('cpu')]);
        const pub = await start('publisher', {
          args: [
            JSON.stringify({
              brokerUrl: child.ready.brokerUrl,
              devices: opts.ingestDevices,
              ...publisherCredentials(broker),
              ...consumer.publisher,
            }),
          ],
        });
        const step = async (rate: number): Promise<IngestStep> => {
          await pub.request('rate', { perSecond: rate });
          await sleep(opts.settleMs);
          const [c0, p0, cpu0] = [await count(), await pub.request<Count>('count'), await cpu()];
          await sleep(opts.ingestWindowMs);
          const [c1, p1, cpu1] = [await count(), await pub.request<Count>('count'), await cpu()];
          const perSecond = (a: Count, b: Count) => ((b.count - a.count) / (b.at - a.at)) * 1000;
          const [received, published] = [perSecond(c0, c1), perSecond(p0, p1)];
          // Cores each process kept busy over the window.
          const shares = cpu1.map((b, i) => {
            const a = cpu0[i]!;
            return (b.user - a.user + b.system - a.system) / 1000 / (b.at - a.at);
          });
          const cpuShare = shares.reduce((sum, s) => sum + s, 0);
          const ratio = published > 0 ? received / published : 0;
          const r: IngestStep = {
            target: rate,
            // The ramp's measure is the published rate (the load generator's limit); the result, what was taken in.
            achieved: published,
            received,
            pass: ratio >= 0.97,
            why: `${(ratio * 100).toFixed(1)} % taken in at ${Math.round(published)}/s published`,
            cpuUs: received > 0 ? (cpuShare * 1e6) / received : NaN,
            busiestCpuUs: received > 0 ? (Math.max(...shares) * 1e6) / received : NaN,
          };
          if (process.env.BENCH_VERBOSE) console.error(`   ingest ${consumer.label} ${JSON.stringify(r)}`);
          return r;
        };
        const drain = async () => {
          await pub.request('rate', { perSecond: 0 });
          let last = -1;
          let quiet = 0;
          for (let i = 0; i < 30 && quiet < 2; i++) {
            await sleep(200);
            const { count: c } = await count();
            quiet = c === last ? quiet + 1 : 0;
            last = c;
          }
        };
        const fmtRate = (v: number) => `${Math.round(v)}`;
        const retrying = async (rate: number): Promise<IngestStep> => {
          const r = await step(rate);
          if (r.pass) return r;
          await drain();
          return step(rate);
        };
        await pub.request('rate', { perSecond: opts.ingestStart });
        await sleep(opts.quick ? 300 : 1000);
        const first = await retrying(opts.ingestStart);
        result.cpuUsPerReading = first.cpuUs;
        if (started.cpu) result.busiestCpuUsPerReading = first.busiestCpuUs;
        const ramp = await rampToFailure(first, retrying, opts.ingestRamp, fmtRate);
        result.max = ramp.best?.received;
        result.stop = ramp.stop;
        result.capped = ramp.capped;
        if (consumer.after) {
          await pub.request('rate', { perSecond: 0 });
          Object.assign(result, await consumer.after(child));
        }
        if (consumer.label.startsWith('hub')) {
          const s = await child.request<{ dropped: Record<string, number> }>('stats');
          result.dropped = Object.values(s.dropped).reduce((a, b) => a + b, 0);
        }
      });
    } catch (err) {
      result.error = (err as Error).message.split('\n')[0];
    }
    results.push(result);
  }
  return results;
}
