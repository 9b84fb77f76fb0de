import { cpus, loadavg, totalmem } from 'node:os';
import { commandLine } from '../src/host/command-line.js';
import { BENCH } from './harness/bench-config.js';
import { benchOptions } from './harness/options.js';
import { portOpen } from './harness/port-open.js';
import { renderMarkdown, renderText, type Table } from './harness/table.js';
import { runFanoutCase, type Broker, type FanoutCase } from './scenarios/fanout.js';
import { combineFanout, combineHttp, combineIngest, combineMemory } from './combine.js';
import { prepareDatabaseTemplate } from './harness/database-template.js';
import {
  allocationTable,
  densityTable,
  fanoutTable,
  goalsTable,
  httpTable,
  ingestTable,
  memoryTable,
} from './report.js';
import { runDensity, type DensityResult, type DensityTarget } from './scenarios/density.js';
import { cacheTable, runCache } from './scenarios/cache.js';
import { historyTables, runHistoryIngest, runSeriesEngines } from './scenarios/history.js';
import { healthTables, runHealthUnderIngest, runIdleRss, type HealthUnderIngest } from './scenarios/history-health.js';
import { runHttp, type HttpResult } from './scenarios/http.js';
import { runIdleMemory, type MemoryResult } from './scenarios/idle-memory.js';
import { inProcessTable, runInProcess } from './scenarios/in-process.js';
import { runIngestion, type IngestResult } from './scenarios/ingestion.js';
import { PARTITION_CONSUMERS, partitionsTable } from './scenarios/partitions.js';
import { TARGETS, type Target } from './scenarios/targets.js';
import { prepareUws } from './harness/uws-package.js';
import { CLUSTER_LAYOUTS, clusterTable, runClusterCase, type ClusterCase } from './scenarios/cluster.js';
import { writeResultsJson, type RunResults } from './results-json.js';

const BENCH_USAGE = `usage: npm run bench -- [--quick] [--only=fanout,memory,density,http,ingest,partitions,inprocess,history,history-health,cache,cluster]
                          [--targets=hub-wps,ws-frame,...] [--sizes=1000,...] [--brokers=mosquitto,embedded]
                          [--layouts=1,2,...] [--fixed-only] [--repeat=3] [--markdown] [--json=results.json]

Every scenario in one run on one machine, the hub side by side with its anchors, printed as tables
of ratios. --quick is the CI smoke run: tiny N, short windows, the same code paths and table shape;
it asserts no timing and exits 1 only when a scenario could not run at all.`;

/** `npm run bench`: see BENCH_USAGE. */
const { values: args } = commandLine({
  name: 'bench',
  usage: BENCH_USAGE,
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    targets: { type: 'string' },
    sizes: { type: 'string' },
    brokers: { type: 'string' },
    layouts: { type: 'string' },
    'fixed-only': { type: 'boolean' },
    repeat: { type: 'string' },
    markdown: { type: 'boolean' },
    json: { type: 'string' },
  },
});
const flag = (name: 'only' | 'targets' | 'sizes' | 'brokers' | 'layouts' | 'repeat' | 'json') => args[name];
const opts = benchOptions(args.quick === true);
const only = new Set(
  (flag('only') ?? 'fanout,memory,density,http,ingest,partitions,inprocess,history,cache,cluster').split(','),
);
const onlyTargets = flag('targets')?.split(',');
const onlyBrokers = flag('brokers')?.split(',');
if (flag('sizes')) opts.fanoutSizes = flag('sizes')!.split(',').map(Number);
if (args['fixed-only'] === true) [opts.ramp.cap, opts.lowRates] = [0, []]; // profiling: fixed rates only
if (flag('repeat')) opts.repeat = Math.max(1, Number(flag('repeat')));

const started = Date.now();
// Every hub under test starts on a copy of one migrated embedded database.
await prepareDatabaseTemplate();
const mosquittoUp = await portOpen(BENCH.mosquittoPort);
const mosquitto: Broker = { id: 'mosquitto', url: BENCH.mosquittoUrl };
const embedded: Broker = { id: 'embedded', url: undefined };
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
console.log(`telemetry-hub bench ${opts.quick ? '(quick: smoke run, timings not meaningful)' : ''}`);
console.log(
  `machine: ${machine}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; node ${process.version}; ${new Date().toISOString()}; runs per case: ${opts.repeat}`,
);
console.log(
  mosquittoUp
    ? `Mosquitto: up at ${BENCH.mosquittoUrl}`
    : `Mosquitto: NOT reachable at ${BENCH.mosquittoUrl}; using the embedded broker only`,
);

// The µWebSockets anchor is fetched on first use (fan-out, memory and density only), or left out with a note.
const uwsWanted =
  (only.has('fanout') || only.has('memory') || only.has('density')) &&
  (onlyTargets === undefined || onlyTargets.includes('uws'));
const uwsMissing = uwsWanted ? await prepareUws() : undefined;
if (uwsMissing) console.log(uwsMissing);
const wanted = (t: Target) =>
  (onlyTargets === undefined || onlyTargets.includes(t.id)) && !(t.id === 'uws' && uwsMissing);
const tables: Table[] = [];
let failures = 0;
const show = (t: Table) => {
  tables.push(t);
  console.log(`\n${renderText(t)}`);
};
const rounds = Array.from({ length: opts.repeat }, (_, i) => i);
const roundNote = (round: number) => (opts.repeat > 1 ? ` [run ${round + 1}/${opts.repeat}]` : '');
/**
 * After each round but the last, the tables so far (median of the rounds done), in Markdown: a
 * long repeated run that must be cut short still leaves its results.
 */
const interim = (round: number, make: (o: typeof opts) => Table[]) => {
  if (round + 1 >= opts.repeat) return;
  console.log(`\n---- after ${round + 1} of ${opts.repeat} runs ----\n`);
  for (const t of make({ ...opts, repeat: round + 1 })) console.log(`${renderMarkdown(t)}\n`);
};

// Repeats go round by round (every case once, then again), so the hub and its anchors meet the
// same stretches of the shared machine's load; each table reports the median run and the spread.
const fanout: FanoutCase[] = [];
if (only.has('fanout')) {
  const plan: { broker: Broker; n: number; target: Target }[] = [];
  const all = Object.values(TARGETS);
  // ws-send and the telemetry-on rows only at the largest N: they compare with a row there.
  const core = all.filter((t) => t.id !== 'ws-send' && !t.id.endsWith('-otel'));
  const largest = Math.max(...opts.fanoutSizes);
  if (mosquittoUp) {
    for (const n of opts.fanoutSizes)
      for (const t of n === largest ? all : core) plan.push({ broker: mosquitto, n, target: t });
    for (const id of ['hub-wps', 'hub-sio', 'ws-frame'] as const)
      plan.push({ broker: embedded, n: largest, target: TARGETS[id] });
  } else {
    for (const n of opts.fanoutSizes)
      for (const t of n === largest ? all : core) plan.push({ broker: embedded, n, target: t });
  }
  const planned = plan.filter(
    (p) => wanted(p.target) && (onlyBrokers === undefined || onlyBrokers.includes(p.broker.id)),
  );
  const runs: FanoutCase[][] = planned.map(() => []);
  for (const round of rounds) {
    for (const [i, { broker, n, target }] of planned.entries()) {
      const t0 = Date.now();
      // Heap sampling once per case (first round): it is a profile, not a rate.
      const c = await runFanoutCase({ ...opts, allocations: opts.allocations && round === 0 }, target, broker, n);
      if (c.error) failures++;
      console.log(
        `fan-out ${broker.id} N=${n} ${target.label}${roundNote(round)}: ${c.error ? `ERROR ${c.error}` : `max ${Math.round(c.best?.delivered ?? 0)}/s; ${c.stop}`} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
      );
      runs[i]!.push(c);
    }
    interim(round, (o) => {
      const cases = runs.map(combineFanout);
      return [
        fanoutTable(o, cases),
        allocationTable(cases),
        goalsTable(o, { fanout: cases, memory: [], http: [], ingest: [] }, uwsMissing),
      ];
    });
  }
  fanout.push(...runs.map(combineFanout));
  show(fanoutTable(opts, fanout));
  show(allocationTable(fanout));
}

const memory: MemoryResult[] = [];
if (only.has('memory')) {
  const ids = (['hub-wps', 'hub-sio', 'ws-frame', 'sio-rooms', 'uws'] as const).filter((id) => wanted(TARGETS[id]));
  const runs: MemoryResult[][] = ids.map(() => []);
  for (const round of rounds) {
    for (const [i, id] of ids.entries()) {
      const r = await runIdleMemory(opts, TARGETS[id]);
      if (r.error) failures++;
      console.log(
        `idle memory ${TARGETS[id].label}${roundNote(round)}: ${r.error ? `ERROR ${r.error}` : `${r.rssMbPer1000?.toFixed(1)} MB RSS / 1000`}`,
      );
      runs[i]!.push(r);
    }
    interim(round, (o) => [memoryTable(o, runs.map(combineMemory))]);
  }
  memory.push(...runs.map(combineMemory));
  show(memoryTable(opts, memory));
}

// Connection density (issue 29 item 3): once, not repeated; it is a capacity, not a rate.
const density: DensityResult[] = [];
if (only.has('density')) {
  const targets: DensityTarget[] = ['hub', 'ws-frame', 'uws'];
  for (const target of targets.filter((t) => t === 'hub' || wanted(TARGETS[t]))) {
    const t0 = Date.now();
    const r = await runDensity(opts, mosquittoUp ? mosquitto : embedded, target);
    if (r.held === 0) failures++;
    console.log(
      `density ${r.label}: held ${r.held}/${r.asked}${r.error ? `; ${r.error}` : ''} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );
    density.push(r);
  }
  show(densityTable(opts, density));
}

const http: HttpResult[] = [];
if (only.has('http')) {
  const runs: HttpResult[][] = [];
  for (const round of rounds) {
    const rows = await runHttp(opts);
    console.log(
      `http${roundNote(round)}: ${rows.map((r) => `${r.label} ${r.path} ${r.error ? 'ERROR' : Math.round(r.requestsPerSecond ?? 0)}`).join('; ')}`,
    );
    rows.forEach((r, i) => (runs[i] ??= []).push(r));
    interim(round, (o) => [httpTable(o, runs.map(combineHttp))]);
  }
  http.push(...runs.map(combineHttp));
  failures += http.filter((r) => r.error).length;
  show(httpTable(opts, http));
}

const ingest: IngestResult[] = [];
if (only.has('ingest')) {
  const runs: IngestResult[][] = [];
  for (const round of rounds) {
    const rows = await runIngestion(opts, mosquittoUp ? mosquitto : embedded);
    console.log(
      `ingestion${roundNote(round)}: ${rows.map((r) => `${r.label} ${r.error ? 'ERROR' : `${Math.round(r.max ?? 0)}/s, ${r.cpuUsPerReading?.toFixed(1)} µs`}`).join('; ')}`,
    );
    rows.forEach((r, i) => (runs[i] ??= []).push(r));
    interim(round, (o) => [ingestTable(o, runs.map(combineIngest))]);
  }
  ingest.push(...runs.map(combineIngest));
  failures += ingest.filter((r) => r.error).length;
  show(ingestTable(opts, ingest));
}

// Partitioned ingestion (issue 31): 1, 2 and 3 instances reading one Mosquitto.
const partitions: IngestResult[] = [];
if (only.has('partitions')) {
  if (!mosquittoUp) {
    console.log(`partitioned ingestion: skipped, it needs Mosquitto at ${BENCH.mosquittoUrl}`);
  } else {
    const runs: IngestResult[][] = [];
    for (const round of rounds) {
      const rows = await runIngestion(opts, mosquitto, PARTITION_CONSUMERS);
      console.log(
        `partitioned ingestion${roundNote(round)}: ${rows.map((r) => `${r.label} ${r.error ? `ERROR ${r.error}` : `${Math.round(r.max ?? 0)}/s, busiest ${r.busiestCpuUsPerReading?.toFixed(1)} µs`}`).join('; ')}`,
      );
      rows.forEach((r, i) => (runs[i] ??= []).push(r));
      interim(round, () => [partitionsTable(runs.map(combineIngest))]);
    }
    partitions.push(...runs.map(combineIngest));
    failures += partitions.filter((r) => r.error).length;
    show(partitionsTable(partitions));
  }
}

if (only.has('inprocess')) show(inProcessTable(await runInProcess(opts.quick)));

let historyRun: RunResults['history'];
if (only.has('history')) {
  const t0 = Date.now();
  const ingested = await runHistoryIngest(opts, mosquittoUp ? mosquitto : embedded);
  historyRun = ingested;
  console.log(`history ingestion and writer lag (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  const [ingestRows, lagRows] = historyTables(opts, { ...ingested, series: [] });
  show(ingestRows!);
  show(lagRows!);
  const series = await runSeriesEngines(opts);
  failures +=
    ingested.ingest.filter((r) => r.error).length +
    series.filter((s) => s.error).length +
    (ingested.lag?.error ? 1 : 0);
  show(historyTables(opts, { ...ingested, series })[2]!);
}

// The embedded database off the event loop (issue 28): health latency under ingestion, idle RSS by engine.
let healthRun: HealthUnderIngest[] | undefined;
if (only.has('history') || only.has('history-health')) {
  const broker = mosquittoUp ? mosquitto : embedded;
  const health = await runHealthUnderIngest(opts, broker);
  healthRun = health;
  const rss = await runIdleRss(broker);
  failures += health.filter((h) => h.error).length + rss.filter((r) => r.error).length;
  for (const table of healthTables(opts, health, rss)) show(table);
}

if (only.has('cache')) {
  const cache = await runCache(opts);
  failures += cache.gets.filter((g) => g.error).length + (cache.upload.error ? 1 : 0);
  show(cacheTable(opts, cache));
}

const clusterRun: ClusterCase[] = [];
if (only.has('cluster')) {
  const redisUp = await portOpen(6379);
  if (!mosquittoUp || !redisUp) {
    console.log('\nscale-out: skipped (needs Mosquitto at 1883 and Redis at 6379)');
  } else {
    const cases = clusterRun;
    for (const layout of CLUSTER_LAYOUTS.filter(
      (l) =>
        flag('layouts') === undefined ||
        flag('layouts')!
          .split(',')
          .includes(String(CLUSTER_LAYOUTS.indexOf(l) + 1)),
    )) {
      const t0 = Date.now();
      const c = await runClusterCase(opts, layout, Math.min(...opts.fanoutSizes));
      if (c.error) failures++;
      console.log(
        `scale-out ${layout.label}: ${c.error ? `ERROR ${c.error}` : `max ${Math.round(c.best?.delivered ?? 0)}/s; ${c.stop}`} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
      );
      cases.push(c);
    }
    show(clusterTable(opts, cases));
  }
}

show(
  goalsTable(
    opts,
    { fanout, memory, http, ingest, historyIngest: historyRun?.ingest, health: healthRun, density },
    uwsMissing,
  ),
);
console.log(
  `\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s${failures ? `; ${failures} scenario(s) could not run` : ''}`,
);
if (!opts.quick || args.markdown === true) {
  console.log(`\n---- Markdown for bench/README.md ----\n`);
  console.log(
    `Machine: ${machine}; load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}. Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}. Runs per case: ${opts.repeat}.\n`,
  );
  for (const t of tables) console.log(`${renderMarkdown(t)}\n`);
}
// Machine-readable rows for tools (the capacity model reads them: bench/capacity.ts).
const machineInfo = {
  description: machine,
  loadAverage: loadavg(),
  node: process.version,
  date: new Date().toISOString(),
};
if (flag('json'))
  writeResultsJson(flag('json')!, {
    machine: machineInfo,
    groups: opts.groups,
    fanout,
    memory,
    http,
    ingest,
    partitions,
    history: historyRun,
    cluster: clusterRun,
  });
process.exitCode = failures > 0 ? 1 : 0;
