import type { BenchOptions } from './harness/options.js';
import { fmt, ratio, verdict, type Table } from './harness/table.js';
import type { FanoutCase, Step } from './scenarios/fanout.js';
import type { HttpResult } from './scenarios/http.js';
import type { MemoryResult } from './scenarios/idle-memory.js';
import type { IngestResult } from './scenarios/ingestion.js';
import { FANOUT_THROTTLE, type Target } from './scenarios/targets.js';

const k = (v: number) => fmt.rate(v);
const latency = (s: Step | undefined) => (s ? `${fmt.ms(s.latency.p50)} / ${fmt.ms(s.latency.p99)}${s.pass ? '' : '*'}` : '–');

function anchorMax(cases: FanoutCase[], c: FanoutCase, id: Target['id']): number | undefined {
  return cases.find((a) => a.target.id === id && a.broker.id === c.broker.id && a.n === c.n && !a.error)?.best?.delivered;
}

function anchorCpu(cases: FanoutCase[], c: FanoutCase): number | undefined {
  return cases.find((a) => a.target.id === 'ws-frame' && a.broker.id === c.broker.id && a.n === c.n && !a.error)?.fixed[1]?.cpuUsPerMsg;
}

export function fanoutTable(opts: BenchOptions, cases: FanoutCase[]): Table {
  const [low, high] = opts.fixedRates;
  return {
    title: 'Fan-out: publisher → MQTT → server → N WebSocket subscribers (separate process)',
    columns: ['broker', 'N', 'server', 'max delivered/s', '× raw ws', '× sio rooms', `p50/p99 ms @${k(low)}/s`, `p50/p99 ms @${k(high)}/s`, `CPU µs/msg @${k(high)}/s`, 'CPU × raw ws', 'ramp stopped'],
    rows: cases.map((c) =>
      c.error
        ? [c.broker.id, String(c.n), c.target.label, 'ERROR', '', '', '', '', '', '', c.error]
        : [
            c.broker.id,
            String(c.n),
            c.target.label,
            c.best ? fmt.rate(c.best.delivered) : `< ${k(opts.lowRates.at(-1) ?? low)}`,
            fmt.ratio(ratio(c.best?.delivered, anchorMax(cases, c, 'ws-frame'))),
            fmt.ratio(ratio(c.best?.delivered, anchorMax(cases, c, 'sio-rooms'))),
            latency(c.fixed[0]),
            latency(c.fixed[1]),
            fmt.num(c.fixed[1]?.cpuUsPerMsg, 1),
            fmt.ratio(ratio(c.fixed[1]?.cpuUsPerMsg, anchorCpu(cases, c))),
            c.stop,
          ],
    ),
    notes: [
      `max delivered/s: highest measured rate with p99 ≤ 100 ms and ≥ 97 % delivered; ${opts.groups} groups = ${opts.groups} devices, Throttle:MaxPerSecondPerDevice=${FANOUT_THROTTLE}.`,
      `* = that fixed rate missed the criteria. Latency: publisher's benchClock in the reading vs the subscriber's, corrected by IPC-measured offsets (|correction| ≤ ${fmt.ms(Math.max(0, ...cases.map((c) => Math.abs(c.clock.correctionMs))))} ms, RTT ≤ ${fmt.ms(Math.max(0, ...cases.map((c) => c.clock.rttMs)))} ms).`,
    ],
  };
}

export function memoryTable(opts: BenchOptions, results: MemoryResult[]): Table {
  const ws = results.find((r) => r.target.id === 'ws-frame')?.rssMbPer1000;
  const sio = results.find((r) => r.target.id === 'sio-rooms')?.rssMbPer1000;
  return {
    title: `Idle memory per 1000 connections (server RSS after GC, ${opts.idleConnections} idle subscribers in groups)`,
    columns: ['server', 'RSS MB / 1000', 'heap+external MB / 1000', '× raw ws', '× socket.io'],
    rows: results.map((r) =>
      r.error
        ? [r.target.label, 'ERROR', r.error, '', '']
        : [r.target.label, fmt.num(r.rssMbPer1000), fmt.num(r.heapMbPer1000), fmt.ratio(ratio(r.rssMbPer1000, ws)), fmt.ratio(ratio(r.rssMbPer1000, sio))],
    ),
  };
}

export function httpTable(opts: BenchOptions, results: HttpResult[]): Table {
  const fastify = results.find((r) => r.label === 'bare fastify')?.requestsPerSecond;
  return {
    title: `HTTP GET JSON, autocannon ${opts.httpConnections} connections × ${opts.httpDurationSeconds} s`,
    columns: ['server', 'path', 'req/s', '× bare fastify', 'p50 ms', 'p99 ms', 'non-2xx + errors'],
    rows: results.map((r) =>
      r.error
        ? [r.label, r.path, 'ERROR', r.error, '', '', '']
        : [r.label, r.path, fmt.rate(r.requestsPerSecond), fmt.ratio(ratio(r.requestsPerSecond, fastify)), fmt.num(r.p50, 0), fmt.num(r.p99, 0), String((r.non2xx ?? 0) + (r.errors ?? 0))],
    ),
  };
}

export function ingestTable(opts: BenchOptions, results: IngestResult[]): Table {
  const bare = results.find((r) => r.label.startsWith('bare'));
  return {
    title: `Ingestion: readings/s taken in from the broker (${opts.ingestDevices} devices, ~100-byte readings, QoS 0)`,
    columns: ['consumer', 'broker', 'max readings/s', '× mqtt.js ceiling', `CPU µs/reading @${k(opts.ingestRates[0]!)}/s`, 'CPU × mqtt.js', 'ramp stopped'],
    rows: results.map((r) =>
      r.error
        ? [r.label, r.broker.id, 'ERROR', '', '', '', r.error]
        : [
            r.label,
            r.broker.id,
            fmt.rate(r.max),
            fmt.ratio(ratio(r.max, bare?.max)),
            fmt.num(r.cpuUsPerReading),
            fmt.ratio(ratio(r.cpuUsPerReading, bare?.cpuUsPerReading)),
            `${r.stop}${r.dropped ? `; ${r.dropped} dropped` : ''}`,
          ],
    ),
    notes: ['max readings/s: highest rate with ≥ 97 % of the published readings taken in (a miss is retried once after draining).'],
  };
}

export function goalsTable(
  opts: BenchOptions,
  all: { fanout: FanoutCase[]; memory: MemoryResult[]; http: HttpResult[]; ingest: IngestResult[] },
): Table {
  const rows: string[][] = [];
  /** `estimate`: the same ratio from CPU per message (anchor ÷ ours): what it would be if the server were the bottleneck. */
  const goal = (what: string, value: number | undefined, target: number, atLeast: boolean, show = fmt.ratio, estimate?: number) =>
    rows.push([
      what,
      show(value),
      `${atLeast ? '≥' : '≤'} ${show(target)}`,
      verdict(value === undefined ? undefined : atLeast ? value >= target : value <= target),
      estimate === undefined ? '' : `${fmt.ratio(estimate)} (${verdict(estimate >= target)})`,
    ]);
  const ok = all.fanout.filter((c) => !c.error);
  const brokerId = ok.some((c) => c.broker.id === 'mosquitto') ? 'mosquitto' : 'embedded';
  const cpuAt = (c: FanoutCase | undefined) => c?.fixed[1]?.cpuUsPerMsg;
  const anchorCase = (c: FanoutCase, id: Target['id']) => ok.find((a) => a.target.id === id && a.broker.id === c.broker.id && a.n === c.n);
  const withTelemetry = (c: FanoutCase) => c.target.id.endsWith('-otel');
  for (const c of ok.filter((c) => !c.target.anchor && !withTelemetry(c) && c.broker.id === brokerId)) {
    const where = `${c.target.label}, N=${c.n}`;
    goal(`delivered vs raw ws (${where})`, ratio(c.best?.delivered, anchorMax(ok, c, 'ws-frame')), 0.8, true, fmt.ratio, ratio(cpuAt(anchorCase(c, 'ws-frame')), cpuAt(c)));
    goal(`delivered vs socket.io rooms (${where})`, ratio(c.best?.delivered, anchorMax(ok, c, 'sio-rooms')), 1.5, true, fmt.ratio, ratio(cpuAt(anchorCase(c, 'sio-rooms')), cpuAt(c)));
    goal(`p99 ms at ${k(opts.fixedRates[0])} delivered/s (${where})`, c.fixed[0]?.latency.p99, 15, false, fmt.ms);
  }
  // Telemetry on (metrics, traces at 1 %) vs the same hub with it off: at most 5 % dearer.
  for (const c of ok.filter(withTelemetry)) {
    const off = ok.find((o) => o.target.id === c.target.id.replace(/-otel$/, '') && o.broker.id === c.broker.id && o.n === c.n);
    goal(`telemetry on vs off (${c.target.label}, N=${c.n})`, ratio(c.best?.delivered, off?.best?.delivered), 0.95, true, fmt.ratio, ratio(cpuAt(off), cpuAt(c)));
  }
  const ws = all.memory.find((r) => r.target.id === 'ws-frame')?.rssMbPer1000;
  for (const r of all.memory.filter((r) => !r.target.anchor && !r.error)) goal(`idle memory vs raw ws (${r.target.label})`, ratio(r.rssMbPer1000, ws), 1.1, false);
  const fastify = all.http.find((r) => r.label === 'bare fastify')?.requestsPerSecond;
  const hub = all.http.find((r) => r.label === 'hub host pipeline' && r.path === '/bench/json')?.requestsPerSecond;
  if (all.http.length) goal('HTTP full pipeline vs bare fastify', ratio(hub, fastify), 0.8, true);
  const hubTelemetry = all.http.find((r) => r.label === 'hub host pipeline, telemetry on')?.requestsPerSecond;
  if (all.http.length) goal('HTTP telemetry on vs off (hub host pipeline)', ratio(hubTelemetry, hub), 0.95, true);
  const bare = all.ingest.find((r) => r.label.startsWith('bare'));
  const ours = all.ingest.find((r) => r.label.startsWith('hub'));
  if (all.ingest.length) goal('ingestion vs mqtt.js ceiling', ratio(ours?.max, bare?.max), 0.8, true, fmt.ratio, ratio(bare?.cpuUsPerReading, ours?.cpuUsPerReading));
  return {
    title: `Goals (ratios from this run${opts.quick ? '; quick mode: NOT meaningful, nothing asserted' : ''})`,
    columns: ['goal', 'measured', 'target', 'verdict', 'CPU-based estimate'],
    rows,
    notes: [`CPU-based estimate: anchor's server CPU per message ÷ ours (fan-out at ${k(opts.fixedRates[1])}/s, ingestion at ${k(opts.ingestRates[0]!)}/s); less sensitive to other load on the machine than the max rates.`],
  };
}
