import type { BenchOptions } from './harness/options.js';
import type { Spread } from './harness/repeat.js';
import { fmt, ratio, verdict, type Table } from './harness/table.js';
import type { FanoutCase, Step } from './scenarios/fanout.js';
import type { DensityResult } from './scenarios/density.js';
import type { HttpResult } from './scenarios/http.js';
import type { MemoryResult } from './scenarios/idle-memory.js';
import type { HealthUnderIngest } from './scenarios/history-health.js';
import type { IngestResult } from './scenarios/ingestion.js';
import { FANOUT_THROTTLE, type Target } from './scenarios/targets.js';

const k = (v: number) => fmt.rate(v);
const latency = (s: Step | undefined) =>
  s ? `${fmt.ms(s.latency.p50)} / ${fmt.ms(s.latency.p99)}${s.pass ? '' : '*'}` : '–';
const spreadOf = (s: Spread | undefined, show: (v: number) => string) =>
  s && s.runs > 1 ? ` (${show(s.min)}–${show(s.max)})` : '';

/** The anchor's case beside `c` (same broker and N), when it was measured. */
function anchorCase(cases: FanoutCase[], c: FanoutCase, id: Target['id']): FanoutCase | undefined {
  return cases.find((a) => a.target.id === id && a.broker.id === c.broker.id && a.n === c.n && !a.error);
}

/** Max-rate ratio to an anchor; none when either side's ramp ended at its cap (a floor is not a limit). */
function maxRatio(cases: FanoutCase[], c: FanoutCase, id: Target['id']): number | undefined {
  const a = anchorCase(cases, c, id);
  if (a === undefined || a.capped || c.capped || c.error) return undefined;
  return ratio(c.best?.delivered, a.best?.delivered);
}

/** CPU-per-message ratio as a speed: the anchor's server CPU per message ÷ ours, at the high fixed rate. */
function cpuRatio(cases: FanoutCase[], c: FanoutCase, id: Target['id']): number | undefined {
  return ratio(anchorCase(cases, c, id)?.fixed[1]?.cpuUsPerMsg, c.fixed[1]?.cpuUsPerMsg);
}

function maxCell(opts: BenchOptions, c: FanoutCase): string {
  if (!c.best) return `< ${k(opts.lowRates.at(-1) ?? opts.fixedRates[0])}`;
  return `${c.capped ? '≥ ' : ''}${fmt.rate(c.best.delivered)}${spreadOf(c.spread, fmt.rate)}${c.capped ? ' (capped)' : ''}`;
}

export function fanoutTable(opts: BenchOptions, cases: FanoutCase[]): Table {
  const [low, high] = opts.fixedRates;
  return {
    title: 'Fan-out: publisher → MQTT → server → N WebSocket subscribers (separate process)',
    columns: [
      'broker',
      'N',
      'server',
      'max delivered/s',
      '× raw ws',
      '× µWS',
      '× sio rooms',
      `p50/p99 ms @${k(low)}/s`,
      `p50/p99 ms @${k(high)}/s`,
      `CPU µs/msg @${k(high)}/s`,
      'CPU × raw ws',
      'CPU × µWS',
      'ramp stopped',
    ],
    rows: cases.map((c) =>
      c.error
        ? [c.broker.id, String(c.n), c.target.label, 'ERROR', '', '', '', '', '', '', '', '', c.error]
        : [
            c.broker.id,
            String(c.n),
            c.target.label,
            maxCell(opts, c),
            fmt.ratio(maxRatio(cases, c, 'ws-frame')),
            fmt.ratio(maxRatio(cases, c, 'uws')),
            fmt.ratio(maxRatio(cases, c, 'sio-rooms')),
            latency(c.fixed[0]),
            latency(c.fixed[1]),
            fmt.num(c.fixed[1]?.cpuUsPerMsg, 1),
            fmt.ratio(ratio(c.fixed[1]?.cpuUsPerMsg, anchorCase(cases, c, 'ws-frame')?.fixed[1]?.cpuUsPerMsg)),
            fmt.ratio(ratio(c.fixed[1]?.cpuUsPerMsg, anchorCase(cases, c, 'uws')?.fixed[1]?.cpuUsPerMsg)),
            c.stop,
          ],
    ),
    notes: [
      `max delivered/s: highest measured rate with p99 ≤ 100 ms and ≥ 97 % delivered, ramped ×${opts.ramp.coarseFactor} then ×${opts.ramp.fineFactor} to the first rate missed twice (cap ${k(opts.ramp.cap)}/s); ${opts.groups} groups = ${opts.groups} devices, Throttle:MaxPerSecondPerDevice=${FANOUT_THROTTLE}.`,
      `${opts.repeat > 1 ? `Median of ${opts.repeat} runs (min–max in brackets; CPU µs/msg is the median too). ` : ''}A capped row reached the ramp's cap or the publisher's limit: its max is a floor and gives no ratio.`,
      `* = that fixed rate missed the criteria. Latency: publisher's benchClock in the reading vs the subscriber's, corrected by IPC-measured offsets (|correction| ≤ ${fmt.ms(Math.max(0, ...cases.map((c) => Math.abs(c.clock.correctionMs))))} ms, RTT ≤ ${fmt.ms(Math.max(0, ...cases.map((c) => c.clock.rttMs)))} ms).`,
    ],
  };
}

/** Heap bytes the server allocated (V8 sampling heap profiler, one window at the high fixed rate). */
export function allocationTable(cases: FanoutCase[]): Table {
  const measured = cases.filter((c) => c.alloc !== undefined);
  return {
    title: 'Allocations on the fan-out path (server heap, sampled)',
    columns: [
      'broker',
      'N',
      'server',
      'fan-out',
      'bytes / reading',
      'bytes / delivered msg',
      'top allocating functions (share)',
    ],
    rows: measured.map((c) => {
      const a = c.alloc!;
      const top = a.top.slice(0, 3).map((t) => `${t.fn} ${Math.round((t.bytes / a.totalBytes) * 100)} %`);
      return [
        c.broker.id,
        String(c.n),
        c.target.label,
        String(a.fanout),
        fmt.num(a.bytesPerReading, 0),
        fmt.num(a.bytesPerDelivered, 1),
        top.join('; '),
      ];
    }),
    notes: [
      'Per member: the growth of bytes / reading from the smaller to the larger fan-out, divided by the extra members (goals table).',
    ],
  };
}

export function memoryTable(opts: BenchOptions, results: MemoryResult[]): Table {
  const of = (id: Target['id']) => results.find((r) => r.target.id === id)?.rssMbPer1000;
  return {
    title: `Idle memory per 1000 connections (server RSS after GC, ${opts.idleConnections} idle subscribers in groups)`,
    columns: ['server', 'RSS MB / 1000', 'heap+external MB / 1000', '× raw ws', '× µWS', '× socket.io'],
    rows: results.map((r) =>
      r.error
        ? [r.target.label, 'ERROR', r.error, '', '', '']
        : [
            r.target.label,
            `${fmt.num(r.rssMbPer1000)}${spreadOf(r.spread, (v) => fmt.num(v))}`,
            fmt.num(r.heapMbPer1000),
            fmt.ratio(ratio(r.rssMbPer1000, of('ws-frame'))),
            fmt.ratio(ratio(r.rssMbPer1000, of('uws'))),
            fmt.ratio(ratio(r.rssMbPer1000, of('sio-rooms'))),
          ],
    ),
    notes: opts.repeat > 1 ? [`Median of ${opts.repeat} runs (min–max in brackets).`] : [],
  };
}

export function httpTable(opts: BenchOptions, results: HttpResult[]): Table {
  const fastify = results.find((r) => r.label === 'bare fastify');
  return {
    title: `HTTP GET JSON, autocannon ${opts.httpConnections} connections × ${opts.httpDurationSeconds} s`,
    columns: [
      'server',
      'path',
      'req/s',
      '× bare fastify',
      'CPU µs/request',
      'CPU: bare fastify ÷ this',
      'p50 ms',
      'p99 ms',
      'non-2xx + errors',
    ],
    rows: results.map((r) =>
      r.error
        ? [r.label, r.path, 'ERROR', r.error, '', '', '', '', '']
        : [
            r.label,
            r.path,
            `${fmt.rate(r.requestsPerSecond)}${spreadOf(r.spread, fmt.rate)}`,
            fmt.ratio(ratio(r.requestsPerSecond, fastify?.requestsPerSecond)),
            fmt.num(r.cpuUsPerRequest),
            fmt.ratio(ratio(fastify?.cpuUsPerRequest, r.cpuUsPerRequest)),
            fmt.num(r.p50, 0),
            fmt.num(r.p99, 0),
            String((r.non2xx ?? 0) + (r.errors ?? 0)),
          ],
    ),
    notes: opts.repeat > 1 ? [`Median of ${opts.repeat} runs (min–max in brackets).`] : [],
  };
}

export function ingestTable(opts: BenchOptions, results: IngestResult[]): Table {
  const bare = results.find((r) => r.label.startsWith('bare'));
  return {
    title: `Ingestion: readings/s taken in from the broker (${opts.ingestDevices} devices, ~100-byte readings, QoS 0)`,
    columns: [
      'consumer',
      'broker',
      'max readings/s',
      '× mqtt.js',
      `CPU µs/reading @${k(opts.ingestStart)}/s`,
      'CPU × mqtt.js',
      'ramp stopped',
    ],
    rows: results.map((r) =>
      r.error
        ? [r.label, r.broker.id, 'ERROR', '', '', '', r.error]
        : [
            r.label,
            r.broker.id,
            `${r.capped ? '≥ ' : ''}${fmt.rate(r.max)}${spreadOf(r.spread, fmt.rate)}${r.capped ? ' (capped)' : ''}`,
            r.capped || bare?.capped ? '–' : fmt.ratio(ratio(r.max, bare?.max)),
            `${fmt.num(r.cpuUsPerReading)}${spreadOf(r.cpuSpread, (v) => fmt.num(v))}`,
            fmt.ratio(ratio(r.cpuUsPerReading, bare?.cpuUsPerReading)),
            `${r.stop}${r.dropped ? `; ${r.dropped} dropped` : ''}`,
          ],
    ),
    notes: [
      `max readings/s: highest rate with ≥ 97 % of the published readings taken in (a miss is retried once after draining), ramped ×${opts.ingestRamp.coarseFactor} then ×${opts.ingestRamp.fineFactor}.`,
    ],
  };
}

export function goalsTable(
  opts: BenchOptions,
  all: {
    fanout: FanoutCase[];
    memory: MemoryResult[];
    http: HttpResult[];
    ingest: IngestResult[];
    /** QoS 1 ingestion with history off and on (the history scenario). */
    historyIngest?: IngestResult[];
    /** `/health/live` during an ingestion burst, history off first (the history-health scenario). */
    health?: HealthUnderIngest[];
    /** Connection density: the hub and its anchors holding opts.densityConnections. */
    density?: DensityResult[];
  },
  uwsMissing: string | undefined,
): Table {
  const rows: string[][] = [];
  // A value that crossed IPC as NaN arrives as null: not measured, never met.
  const check = (v: number | undefined, target: number, atLeast: boolean) =>
    verdict(typeof v !== 'number' || !Number.isFinite(v) ? undefined : atLeast ? v >= target : v <= target);
  /** One goal: the max-rate (or measured) value and the CPU-per-message ratio, each against the target. */
  const goal = (
    what: string,
    target: number,
    atLeast: boolean,
    value: number | undefined,
    cpu?: number,
    show = fmt.ratio,
    cpuTarget = target,
  ) =>
    rows.push([
      what,
      `${atLeast ? '≥' : '≤'} ${show(target)}${cpuTarget !== target ? ` (CPU ${atLeast ? '≥' : '≤'} ${fmt.ratio(cpuTarget)})` : ''}`,
      show(value),
      check(value, target, atLeast),
      cpu === undefined ? '–' : fmt.ratio(cpu),
      cpu === undefined ? '' : check(cpu, cpuTarget, atLeast),
    ]);
  const ok = all.fanout.filter((c) => !c.error);
  const brokerId = ok.some((c) => c.broker.id === 'mosquitto') ? 'mosquitto' : 'embedded';
  const withTelemetry = (c: FanoutCase) => c.target.id.endsWith('-otel');
  const hubCases = ok.filter((c) => !c.target.anchor && !withTelemetry(c) && c.broker.id === brokerId);
  // Issue 29's goals table: the hub against raw ws and socket.io rooms, by max rate and by CPU per message.
  for (const c of hubCases.filter((c) => c.target.id === 'hub-wps'))
    goal(
      `hub Web PubSub vs raw ws prebuilt frame, N=${c.n}`,
      1.0,
      true,
      maxRatio(ok, c, 'ws-frame'),
      cpuRatio(ok, c, 'ws-frame'),
      fmt.ratio,
      0.9,
    );
  for (const c of hubCases.filter((c) => c.target.id === 'hub-sio'))
    goal(
      `hub socket.io vs socket.io rooms, N=${c.n}`,
      1.5,
      true,
      maxRatio(ok, c, 'sio-rooms'),
      cpuRatio(ok, c, 'sio-rooms'),
    );
  const largest = Math.max(0, ...hubCases.map((c) => c.n));
  for (const c of hubCases.filter((c) => c.n === largest)) {
    const ws = anchorCase(ok, c, 'ws-frame');
    goal(
      `p99 device → subscriber at ${k(opts.fixedRates[0])} delivered/s, ${c.target.label} ÷ raw ws (N=${c.n}; ${fmt.ms(c.fixed[0]?.latency.p99)} vs ${fmt.ms(ws?.fixed[0]?.latency.p99)} ms)`,
      1,
      false,
      ratio(c.fixed[0]?.latency.p99, ws?.fixed[0]?.latency.p99),
    );
  }
  const heap = (id: Target['id']) => all.memory.find((r) => r.target.id === id && !r.error)?.heapMbPer1000;
  if (all.memory.length) {
    goal(
      'heap+external per idle connection: hub Web PubSub vs raw ws',
      1.5,
      false,
      ratio(heap('hub-wps'), heap('ws-frame')),
    );
    goal(
      'heap+external per idle connection: hub socket.io vs raw ws',
      2.5,
      false,
      ratio(heap('hub-sio'), heap('ws-frame')),
    );
  }
  const dense = (all.density ?? []).find((d) => d.target === 'hub');
  // The anchor's row counts when it held connections, whatever stopped it short.
  const denseWs = (all.density ?? []).find((d) => d.target === 'ws-frame' && d.held > 0);
  if (dense) {
    goal(
      `density: connections the hub held of ${fmt.num(dense.asked, 0)}`,
      dense.asked,
      true,
      dense.held,
      undefined,
      (v) => fmt.num(v, 0),
    );
    goal(
      'density: /health/ready polls not answered 200 while it held them',
      0,
      false,
      dense.readyPolls ? dense.notReady : undefined,
      undefined,
      (v) => fmt.num(v, 0),
    );
    // Half the connections socket.io (≤ 2.5× raw ws), half Web PubSub (≤ 1.5×): ≤ 2.0× for the mix.
    goal(
      'density: heap+external per connection, hub (half and half) vs raw ws',
      2,
      false,
      ratio(dense.heapExternalPerConnection, denseWs?.heapExternalPerConnection),
    );
  }
  const fastifyRow = all.http.find((r) => r.label === 'bare fastify');
  const hubRow = all.http.find((r) => r.label === 'hub host pipeline' && r.path === '/bench/json');
  const fastify = fastifyRow?.requestsPerSecond;
  const hub = hubRow?.requestsPerSecond;
  if (all.http.length) {
    goal(
      'HTTP GET through the full pipeline (request log on) vs bare fastify',
      0.6,
      true,
      ratio(hub, fastify),
      ratio(fastifyRow?.cpuUsPerRequest, hubRow?.cpuUsPerRequest),
    );
    // The same authenticated GET: the hub's pipeline against what a user would build on Fastify.
    const plugins = all.http.find((r) => r.label.startsWith('fastify + plugins') && !r.error);
    const hubAuth = all.http.find((r) => r.label === 'hub host pipeline, authenticated' && !r.error);
    goal(
      'HTTP authenticated GET, full pipeline vs fastify + plugins',
      1.5,
      true,
      ratio(hubAuth?.requestsPerSecond, plugins?.requestsPerSecond),
      ratio(plugins?.cpuUsPerRequest, hubAuth?.cpuUsPerRequest),
    );
  }
  // Telemetry on (metrics, traces at 1 %) vs the same hub with it off: at most 5 % dearer.
  for (const c of ok.filter(withTelemetry)) {
    const off = ok.find(
      (o) => o.target.id === c.target.id.replace(/-otel$/, '') && o.broker.id === c.broker.id && o.n === c.n,
    );
    const cpuAt = (x: FanoutCase | undefined) => x?.fixed[1]?.cpuUsPerMsg;
    goal(
      `telemetry on vs off (${c.target.label}, N=${c.n})`,
      0.95,
      true,
      off && !off.capped && !c.capped ? ratio(c.best?.delivered, off.best?.delivered) : undefined,
      ratio(cpuAt(off), cpuAt(c)),
    );
  }
  const hubTelemetry = all.http.find((r) => r.label === 'hub host pipeline, telemetry on')?.requestsPerSecond;
  if (all.http.length) goal('HTTP telemetry on vs off (hub host pipeline)', 0.95, true, ratio(hubTelemetry, hub));
  const bare = all.ingest.find((r) => r.label.startsWith('bare'));
  const ours = all.ingest.find((r) => r.label.startsWith('hub'));
  if (all.ingest.length) {
    // The target is on CPU per reading (ours ÷ bare, lower is better); the max-rate column shows bare ÷ ours on the same scale.
    const maxR = ours?.capped || bare?.capped ? undefined : ratio(bare?.max, ours?.max);
    goal(
      'ingestion CPU per reading vs bare mqtt.js consumer',
      1.25,
      false,
      maxR,
      ratio(ours?.cpuUsPerReading, bare?.cpuUsPerReading),
    );
    const validating = all.ingest.find((r) => r.label.startsWith('mqtt.js + JSON.parse') && !r.error);
    const maxV = ours?.capped || validating?.capped ? undefined : ratio(validating?.max, ours?.max);
    goal(
      'ingestion CPU per reading vs mqtt.js + JSON.parse + ajv consumer',
      1.2,
      false,
      maxV,
      ratio(ours?.cpuUsPerReading, validating?.cpuUsPerReading),
    );
  }
  // Seq in blocks (issue 28 item 7): the cluster's one ingester against a lone hub.
  const cluster = all.ingest.find((r) => r.label.startsWith('cluster ingester') && !r.error);
  if (ours && cluster) {
    goal(
      'cluster ingester (Redis seq in blocks) vs lone hub, readings/s',
      0.8,
      true,
      ours.capped || cluster.capped ? undefined : ratio(cluster.max, ours.max),
      ratio(ours.cpuUsPerReading, cluster.cpuUsPerReading),
    );
  }
  // The embedded database off the event loop (issue 28 item 5), and history at the writer's pace (item 4).
  const [healthOff, ...healthOn] = (all.health ?? []).filter((h) => !h.error);
  for (const h of healthOn)
    goal(
      `/health/live p99 during an ingestion burst: ${h.label.replace(/^hub, /, '')} vs history off`,
      1.5,
      false,
      ratio(h.latency.p99, healthOff?.latency.p99),
    );
  const historyOff = all.historyIngest?.find((r) => r.label.endsWith('history off') && !r.error);
  for (const on of all.historyIngest?.filter((r) => r !== historyOff && !r.error) ?? [])
    goal(
      `ingestion ${on.label.replace(/^hub ingestion /, '')} vs history off`,
      0.8,
      true,
      on.capped || historyOff?.capped ? undefined : ratio(on.max, historyOff?.max),
      ratio(historyOff?.cpuUsPerReading, on.cpuUsPerReading),
    );
  for (const id of ['hub-wps', 'hub-sio'] as const) {
    const sized = ok.filter((c) => c.target.id === id && c.broker.id === brokerId && c.alloc).sort((a, b) => a.n - b.n);
    const [small, large] = [sized[0], sized.at(-1)];
    if (small === undefined || large === undefined || small === large) continue;
    const perMember =
      (large.alloc!.bytesPerReading - small.alloc!.bytesPerReading) / (large.alloc!.fanout - small.alloc!.fanout);
    rows.push([
      `heap bytes per member on the fan-out path (${small.target.label}; per reading: ${fmt.num(small.alloc!.bytesPerReading, 0)} at fan-out ${small.alloc!.fanout}, ${fmt.num(large.alloc!.bytesPerReading, 0)} at ${large.alloc!.fanout})`,
      '≤ 100 B',
      `${fmt.num(perMember, 1)} B`,
      verdict(perMember <= 100),
      '–',
      '',
    ]);
  }
  return {
    title: `Goals (ratios from this run${opts.quick ? '; quick mode: NOT meaningful, nothing asserted' : ''})`,
    columns: ['goal', 'target', 'max-rate ratio (or value)', 'verdict', 'CPU-per-message ratio', 'verdict (CPU)'],
    rows,
    notes: [
      `CPU-per-message ratio: the anchor's server CPU per delivered message ÷ ours at ${k(opts.fixedRates[1])}/s (ingestion: ours ÷ bare at ${k(opts.ingestStart)}/s), less sensitive to the machine's other load than max rates. A ratio against a capped row is not given (–).`,
      ...(uwsMissing ? [uwsMissing] : []),
    ],
  };
}

export function densityTable(opts: BenchOptions, results: DensityResult[]): Table {
  const ws = results.find((r) => r.target === 'ws-frame' && r.held > 0);
  const kb = (v: number | undefined) => (v === undefined ? '–' : fmt.num(v / 1024, 1));
  return {
    title: `Connection density: up to ${fmt.num(opts.densityConnections, 0)} idle subscribers on one server (${opts.densityProcesses} client processes, one source address each; one group of up to ${fmt.num(opts.densityHot, 0)}, the rest in groups of ~100)`,
    columns: [
      'server',
      'held',
      'connects/s',
      'RSS KB / conn',
      'heap+external KB / conn',
      '× raw ws',
      'one reading → the big group: members, p50 / p99 / max ms',
      'ready polls failed',
      'stopped by',
    ],
    rows: results.map((r) => [
      r.label,
      `${fmt.num(r.held, 0)} / ${fmt.num(r.asked, 0)}`,
      r.connectPerSecond === undefined ? '–' : fmt.num(r.connectPerSecond, 0),
      kb(r.rssPerConnection),
      kb(r.heapExternalPerConnection),
      fmt.ratio(ratio(r.heapExternalPerConnection, ws?.heapExternalPerConnection)),
      r.latency
        ? `${fmt.num(r.hotMembers, 0)}: ${fmt.ms(r.latency.p50)} / ${fmt.ms(r.latency.p99)} / ${fmt.ms(r.latency.max)} (${r.readings} readings)`
        : '–',
      r.readyPolls === undefined ? '–' : `${r.notReady} of ${r.readyPolls}`,
      r.error ?? (r.held >= r.asked ? 'nothing: all held' : '–'),
    ]),
    notes: [
      "Per connection: the server's growth after GC (--expose-gc) from before the clients connected to after, divided by the connections held. The latency: from publication (the publisher's clock) to arrival at each member of the big group, one reading at a time.",
    ],
  };
}
