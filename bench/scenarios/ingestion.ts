import type { BenchChild } from '../harness/child-process.js';
import { withChildren } from '../harness/child-process.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import { publisherCredentials, type Broker } from './fanout.js';
import { hubArgs, serverExecArgv } from './targets.js';

export interface IngestResult {
  label: string;
  broker: Broker;
  /** Highest received readings/s with ≥ 97 % of the published readings taken in. */
  max?: number;
  stop: string;
  /** Consumer CPU (user + system) per reading taken in at the first rate of the ramp, µs. */
  cpuUsPerReading?: number;
  /** Readings the hub dropped as invalid (must stay 0). */
  dropped?: number;
  error?: string;
  /** History: what the writer stored of what the hub accepted, once the publisher stopped. */
  history?: { accepted: number; written: number; dropped: number; pending: number };
}

/** Contract default Throttle:MaxPerSecondPerDevice: throttling on, as in production. */
export const INGEST_THROTTLE = 5;

/** A count stamped by the process that counted (ms), so IPC delays do not bend rates. */
type Count = { count: number; at: number };

export interface Consumer {
  label: string;
  /** After the ramp, with the publisher stopped: more of the result (e.g. what history stored). */
  after?(child: BenchChild): Promise<Partial<IngestResult>>;
  start(start: (name: string, o?: { args?: string[]; execArgv?: string[] }) => Promise<BenchChild>, broker: Broker): Promise<{ child: BenchChild; count(): Promise<Count> }>;
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
    label: `hub ingestion (throttle ${INGEST_THROTTLE}/s/device)`,
    async start(start, broker) {
      const child = await start('hub-server', { args: [JSON.stringify(hubArgs(INGEST_THROTTLE)(broker.url))], execArgv: serverExecArgv() });
      return {
        child,
        count: async () => {
          const s = await child.request<{ accepted: number; dropped: Record<string, number>; at: number }>('stats');
          return { count: s.accepted + Object.values(s.dropped).reduce((a, b) => a + b, 0), at: s.at };
        },
      };
    },
  },
];

/**
 * Readings/s a consumer takes in from the broker, ramping the publish rate over `ingestDevices`
 * devices until the consumer falls behind (< 97 % of what was published in the window, twice)
 * or the publisher cannot reach the rate.
 */
export async function runIngestion(opts: BenchOptions, broker: Broker, consumers: readonly Consumer[] = CONSUMERS): Promise<IngestResult[]> {
  const results: IngestResult[] = [];
  for (const consumer of consumers) {
    const result: IngestResult = { label: consumer.label, broker, stop: '' };
    try {
      await withChildren(async (start) => {
        const { child, count } = await consumer.start(start, broker);
        const pub = await start('publisher', { args: [JSON.stringify({ brokerUrl: child.ready.brokerUrl, devices: opts.ingestDevices, ...publisherCredentials(broker) })] });
        const step = async (rate: number) => {
          await pub.request('rate', { perSecond: rate });
          await sleep(opts.settleMs);
          type Cpu = NodeJS.CpuUsage & { at: number };
          const [c0, p0, cpu0] = [await count(), await pub.request<Count>('count'), await child.request<Cpu>('cpu')];
          await sleep(opts.ingestWindowMs);
          const [c1, p1, cpu1] = [await count(), await pub.request<Count>('count'), await child.request<Cpu>('cpu')];
          const perSecond = (a: Count, b: Count) => ((b.count - a.count) / (b.at - a.at)) * 1000;
          const [received, published] = [perSecond(c0, c1), perSecond(p0, p1)];
          const cpuShare = (cpu1.user - cpu0.user + cpu1.system - cpu0.system) / 1000 / (cpu1.at - cpu0.at);
          const r = { rate, received, published, ratio: published > 0 ? received / published : 0, cpuUs: received > 0 ? (cpuShare * 1e6) / received : NaN };
          if (process.env.BENCH_VERBOSE) console.error(`   ingest ${consumer.label} ${JSON.stringify(r)}`);
          return { ...r, pass: r.ratio >= 0.97 };
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
        await pub.request('rate', { perSecond: opts.ingestRates[0] });
        await sleep(opts.quick ? 300 : 1000);
        for (const rate of opts.ingestRates) {
          let r = await step(rate);
          if (!r.pass) {
            await drain();
            r = await step(rate);
          }
          if (rate === opts.ingestRates[0]) result.cpuUsPerReading = r.cpuUs;
          if (!r.pass) {
            result.stop = `fell behind at ${Math.round(r.published)}/s published (${(r.ratio * 100).toFixed(1)} % taken in)`;
            break;
          }
          result.max = Math.max(result.max ?? 0, r.received);
          if (r.published < 0.9 * rate) {
            result.stop = `publisher-bound at ${Math.round(r.published)}/s`;
            break;
          }
          result.stop = 'end of ramp';
        }
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
