import { BENCH } from '../harness/bench-config.js';
import type { BenchChild } from '../harness/child-process.js';
import { withChildren } from '../harness/child-process.js';
import { clockOffset } from '../harness/clock.js';
import type { HeapSample } from '../harness/heap-sampling.js';
import type { LatencySummary } from '../harness/histogram.js';
import type { Spread } from '../harness/repeat.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import { rampToFailure, type RampStep } from '../harness/ramp.js';
import { serverExecArgv, type Target } from './targets.js';

export interface Broker {
  id: 'mosquitto' | 'embedded';
  /** undefined: the server under test embeds its own broker. */
  url: string | undefined;
}

/** Devices of an embedded broker (the hub's or an anchor's) sign their tokens with the bench key. */
export function publisherCredentials(broker: Broker): { deviceKey?: string } {
  return broker.url === undefined ? { deviceKey: BENCH.deviceKey } : {};
}

export interface Step extends RampStep {
  /** Delivered msgs/s asked for (publish rate × fan-out). */
  target: number;
  /** Delivered msgs/s measured at the subscribers. */
  delivered: number;
  /** Received / (published × fan-out) in the window. */
  deliveredRatio: number;
  latency: LatencySummary;
  /** Server CPU (user + system) per delivered message, µs. */
  cpuUsPerMsg: number;
  pass: boolean;
}

export interface Allocation {
  bytesPerReading: number;
  bytesPerDelivered: number;
  fanout: number;
  totalBytes: number;
  top: HeapSample['top'];
}

export interface FanoutCase {
  target: Target;
  broker: Broker;
  n: number;
  fixed: (Step | undefined)[];
  /** The best step meeting p99 ≤ 100 ms and ≥ 97 % delivered. */
  best: Step | undefined;
  /** The ramp passed its cap (or the publisher's limit): `best` is a floor, not the server's limit; no ratio. */
  capped: boolean;
  /** Heap bytes the server allocated per reading and per delivered message at the high fixed rate. */
  alloc?: Allocation;
  /** Max rate over repeated runs (the row is the median run). */
  spread?: Spread;
  /** Why the ramp stopped. */
  stop: string;
  clock: { correctionMs: number; rttMs: number };
  error?: string;
}

const P99_LIMIT_MS = 100;
const MIN_DELIVERED = 0.97;

/**
 * One fan-out case: the server under test, N subscribers in a separate process, a publisher in a
 * third. Fixed rates first (p50/p99 and CPU per message at 10k and 20k delivered/s), optionally a
 * sampled-heap window at 20k, then the ramp to failure (harness/ramp.ts): a rate misses when it
 * fails the criteria twice (after draining); the ramp's cap or the publisher's limit marks the
 * case capped.
 */
export async function runFanoutCase(
  opts: BenchOptions,
  target: Target,
  broker: Broker,
  n: number,
): Promise<FanoutCase> {
  const result: FanoutCase = {
    target,
    broker,
    n,
    fixed: [],
    best: undefined,
    capped: false,
    stop: '',
    clock: { correctionMs: 0, rttMs: 0 },
  };
  try {
    await withChildren(async (start) => {
      const server = await start(target.process, {
        args: [JSON.stringify(target.args(broker.url))],
        execArgv: serverExecArgv(),
      });
      const url = server.ready.url as string;
      const subs = await start('subscribers', {
        args: [JSON.stringify({ kind: target.kind, url, n, groups: opts.groups })],
      });
      const c = await subs.request<{ connected: number; failed: number; error?: string; ms: number }>(
        'connect',
        { concurrency: 100 },
        180_000,
      );
      if (c.failed > 0) throw new Error(`${c.failed}/${n} subscribers failed to subscribe: ${c.error}`);
      const pub = await start('publisher', {
        args: [
          JSON.stringify({ brokerUrl: server.ready.brokerUrl, devices: opts.groups, ...publisherCredentials(broker) }),
        ],
      });
      const [s, p] = [await clockOffset(subs), await clockOffset(pub)];
      result.clock = { correctionMs: s.offsetMs - p.offsetMs, rttMs: Math.max(s.rttMs, p.rttMs) };

      const fanout = n / opts.groups;
      const run = new Runner(server, subs, pub, fanout, result.clock.correctionMs, opts);
      await run.rate(opts.fixedRates[0]);
      await sleep(opts.quick ? 300 : 1500); // warm-up: JIT, buffers

      const [low, high] = opts.fixedRates;
      const first = await run.retrying(low, false, opts.fixedWindowMs);
      result.fixed.push(first);
      if (!first.pass) {
        await run.drain();
        for (const rate of opts.lowRates) {
          const r = await run.retrying(rate);
          if (r.pass) {
            result.best = r;
            break;
          }
        }
        const second = await run.step(high, opts.fixedWindowMs);
        result.fixed.push(second);
        result.stop = `missed at ${low}/s`;
        return;
      }
      result.best = first;
      const second = await run.step(high, opts.fixedWindowMs);
      result.fixed.push(second);
      const current = second.pass ? second : await run.retrying(high, true, opts.fixedWindowMs);
      if (!second.pass) result.fixed[1] = current;
      if (opts.allocations && current.pass) result.alloc = await run.allocations(high);
      const ramp = await rampToFailure(current, (rate) => run.retrying(rate), opts.ramp, fmtRate);
      if (ramp.best !== undefined) result.best = ramp.best;
      result.stop = ramp.stop;
      result.capped = ramp.capped;
    });
  } catch (err) {
    result.error = (err as Error).message.split('\n')[0];
  }
  return result;
}

class Runner {
  constructor(
    readonly server: BenchChild,
    readonly subs: BenchChild,
    readonly pub: BenchChild,
    readonly fanout: number,
    readonly correctionMs: number,
    readonly opts: BenchOptions,
  ) {}

  rate(delivered: number): Promise<unknown> {
    return this.pub.request('rate', { perSecond: delivered / this.fanout });
  }

  /** A ramp step; a miss is retried once after the backlog drained (the machine is shared and noisy). */
  async retrying(delivered: number, drainFirst = false, windowMs = this.opts.rampWindowMs): Promise<Step> {
    if (drainFirst) await this.drain();
    const r = await this.step(delivered, windowMs);
    if (r.pass) return r;
    await this.drain();
    return this.step(delivered, windowMs);
  }

  /**
   * One measured window. Every process stamps its own answers (`at`, `seconds`), so a stalled
   * event loop delaying an IPC reply does not bend the rates: delivered/s is the subscribers'
   * count over their own window, CPU per message is the server's CPU share over its own window
   * divided by that rate.
   */
  async step(delivered: number, windowMs: number): Promise<Step> {
    type Cpu = NodeJS.CpuUsage & { at: number };
    type Count = { count: number; at: number };
    await this.rate(delivered);
    await sleep(this.opts.settleMs);
    await this.subs.request('reset', { correctionMs: this.correctionMs });
    const p0 = await this.pub.request<Count>('count');
    const cpu0 = await this.server.request<Cpu>('cpu');
    const others0 = [await this.subs.request<Cpu>('cpu'), await this.pub.request<Cpu>('cpu')] as const;
    await sleep(windowMs);
    const report = await this.subs.request<{
      received: number;
      closed: number;
      latency: LatencySummary;
      seconds: number;
    }>('report');
    const p1 = await this.pub.request<Count>('count');
    const cpu1 = await this.server.request<Cpu>('cpu');
    const others1 = [await this.subs.request<Cpu>('cpu'), await this.pub.request<Cpu>('cpu')] as const;
    const share = (a: Cpu, b: Cpu) => (b.user - a.user + b.system - a.system) / 1000 / (b.at - a.at);
    const rate = report.received / report.seconds;
    const published = ((p1.count - p0.count) / (p1.at - p0.at)) * 1000;
    const deliveredRatio = published > 0 ? rate / (published * this.fanout) : 0;
    const pass = report.latency.p99 <= P99_LIMIT_MS && deliveredRatio >= MIN_DELIVERED && report.closed === 0;
    const step: Step = {
      target: delivered,
      achieved: rate,
      why: `p99 ${fmtP99(report.latency.p99)} ms, ${(deliveredRatio * 100).toFixed(1)} % delivered${report.closed ? `, ${report.closed} closed` : ''}`,
      delivered: rate,
      deliveredRatio,
      latency: report.latency,
      cpuUsPerMsg: rate > 0 ? (share(cpu0, cpu1) * 1e6) / rate : NaN,
      pass,
    };
    if (process.env.BENCH_VERBOSE) {
      const cpu = {
        server: share(cpu0, cpu1).toFixed(2),
        subs: share(others0[0], others1[0]).toFixed(2),
        pub: share(others0[1], others1[1]).toFixed(2),
      };
      console.error(`   step ${delivered}/s → ${JSON.stringify({ ...step, closed: report.closed, cpu })}`);
    }
    return step;
  }

  /**
   * Heap bytes the server allocates at `delivered`/s, sampled over one window (after the CPU
   * measurements, since sampling costs a little): per reading published and per message delivered.
   */
  async allocations(delivered: number): Promise<Allocation> {
    type Count = { count: number; at: number };
    await this.rate(delivered);
    await sleep(this.opts.settleMs);
    await this.subs.request('reset', { correctionMs: this.correctionMs });
    const p0 = await this.pub.request<Count>('count');
    await this.server.request('heapStart');
    await sleep(this.opts.fixedWindowMs / 2);
    const heap = await this.server.request<HeapSample>('heapStop');
    const { received } = await this.subs.request<{ received: number }>('report');
    const p1 = await this.pub.request<Count>('count');
    const readings = p1.count - p0.count;
    if (process.env.BENCH_VERBOSE)
      for (const t of heap.top) console.error(`   alloc ${(t.bytes / readings).toFixed(0)} B/reading  ${t.fn}`);
    return {
      bytesPerReading: heap.bytes / readings,
      bytesPerDelivered: heap.bytes / received,
      fanout: this.fanout,
      totalBytes: heap.bytes,
      top: heap.top,
    };
  }

  /** Stops publishing and waits until nothing arrived for 400 ms (≤ 6 s), so the next step starts clean. */
  async drain(): Promise<void> {
    await this.rate(0);
    await this.subs.request('reset', { correctionMs: this.correctionMs });
    let last = -1;
    let quiet = 0;
    for (let i = 0; i < 30 && quiet < 2; i++) {
      await sleep(200);
      const { received } = await this.subs.request<{ received: number }>('report');
      quiet = received === last ? quiet + 1 : 0;
      last = received;
    }
  }
}

/** p99 crosses IPC as JSON: with nothing received it is NaN there, null here. */
function fmtP99(v: number | null): string {
  return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(0) : 'n/a';
}

function fmtRate(v: number): string {
  return v >= 1000 ? `${(v / 1000).toFixed(1)}k` : v.toFixed(0);
}
