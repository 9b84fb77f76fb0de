import { cpus, totalmem } from 'node:os';
import { BENCH } from './harness/bench-config.js';
import { benchOptions } from './harness/options.js';
import { portOpen } from './harness/port-open.js';
import { renderMarkdown, renderText, type Table } from './harness/table.js';
import { runFanoutCase, type Broker, type FanoutCase } from './scenarios/fanout.js';
import { cacheTable, runCache } from './scenarios/cache.js';
import { runHttp } from './scenarios/http.js';
import { runIdleMemory, type MemoryResult } from './scenarios/idle-memory.js';
import { inProcessTable, runInProcess } from './scenarios/in-process.js';
import { runIngestion } from './scenarios/ingestion.js';
import { historyTables, runHistoryIngest, runSeriesEngines } from './scenarios/history.js';
import { prepareDatabaseTemplate } from './harness/database-template.js';
import { fanoutTable, goalsTable, httpTable, ingestTable, memoryTable } from './report.js';
import { TARGETS, type Target } from './scenarios/targets.js';

/**
 * `npm run bench [-- --quick] [--only=fanout,memory,http,ingest,inprocess,history,cache] [--targets=hub-wps,ws-frame]
 * [--sizes=1000] [--brokers=mosquitto] [--fixed-only]`: every scenario in one run on one machine, the hub side by side with its
 * anchors, printed as tables of ratios. `--quick` is the CI smoke run: tiny N, short windows,
 * the same code paths and table shape; it asserts no timing and exits 1 only when a scenario
 * could not run at all.
 */
const argv = process.argv.slice(2);
const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const opts = benchOptions(argv.includes('--quick'));
const only = new Set((flag('only') ?? 'fanout,memory,http,ingest,inprocess,history,cache').split(','));
const onlyTargets = flag('targets')?.split(',');
const onlyBrokers = flag('brokers')?.split(',');
if (flag('sizes')) opts.fanoutSizes = flag('sizes')!.split(',').map(Number);
if (argv.includes('--fixed-only')) [opts.rampRates, opts.lowRates] = [[], []]; // profiling: fixed rates only

const started = Date.now();
// Every hub under test starts on a copy of one migrated embedded database.
await prepareDatabaseTemplate();
const mosquittoUp = await portOpen(BENCH.mosquittoPort);
const mosquitto: Broker = { id: 'mosquitto', url: BENCH.mosquittoUrl };
const embedded: Broker = { id: 'embedded', url: undefined };
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB`;
console.log(`telemetry-hub bench ${opts.quick ? '(quick: smoke run, timings not meaningful)' : ''}`);
console.log(`machine: ${machine}; node ${process.version}; ${new Date().toISOString()}`);
console.log(
  mosquittoUp
    ? `Mosquitto: up at ${BENCH.mosquittoUrl}`
    : `Mosquitto: NOT reachable at ${BENCH.mosquittoUrl}; using the embedded broker only`,
);

const wanted = (t: Target) => onlyTargets === undefined || onlyTargets.includes(t.id);
const tables: Table[] = [];
let failures = 0;
const show = (t: Table) => {
  tables.push(t);
  console.log(`\n${renderText(t)}`);
};

const fanout: FanoutCase[] = [];
if (only.has('fanout')) {
  const plan: { broker: Broker; n: number; target: Target }[] = [];
  const all = Object.values(TARGETS);
  // ws-send and the telemetry-on rows only at the largest N: they compare with a row there.
  const core = all.filter((t) => t.id !== 'ws-send' && !t.id.endsWith('-otel'));
  const largest = Math.max(...opts.fanoutSizes);
  if (mosquittoUp) {
    for (const n of opts.fanoutSizes) for (const t of n === largest ? all : core) plan.push({ broker: mosquitto, n, target: t });
    for (const id of ['hub-wps', 'hub-sio', 'ws-frame'] as const) plan.push({ broker: embedded, n: largest, target: TARGETS[id] });
  } else {
    for (const n of opts.fanoutSizes) for (const t of n === largest ? all : core) plan.push({ broker: embedded, n, target: t });
  }
  const planned = plan.filter((p) => wanted(p.target) && (onlyBrokers === undefined || onlyBrokers.includes(p.broker.id)));
  for (const { broker, n, target } of planned) {
    const t0 = Date.now();
    const c = await runFanoutCase(opts, target, broker, n);
    if (c.error) failures++;
    console.log(
      `fan-out ${broker.id} N=${n} ${target.label}: ${c.error ? `ERROR ${c.error}` : `max ${Math.round(c.best?.delivered ?? 0)}/s; ${c.stop}`} (${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );
    fanout.push(c);
  }
  show(fanoutTable(opts, fanout));
}

const memory: MemoryResult[] = [];
if (only.has('memory')) {
  for (const id of ['hub-wps', 'hub-sio', 'ws-frame', 'sio-rooms'] as const) {
    if (!wanted(TARGETS[id])) continue;
    const r = await runIdleMemory(opts, TARGETS[id]);
    if (r.error) failures++;
    memory.push(r);
  }
  show(memoryTable(opts, memory));
}

const http = only.has('http') ? await runHttp(opts) : [];
if (only.has('http')) {
  failures += http.filter((r) => r.error).length;
  show(httpTable(opts, http));
}

const ingest = only.has('ingest') ? await runIngestion(opts, mosquittoUp ? mosquitto : embedded) : [];
if (only.has('ingest')) {
  failures += ingest.filter((r) => r.error).length;
  show(ingestTable(opts, ingest));
}

if (only.has('inprocess')) show(inProcessTable(await runInProcess(opts.quick)));

if (only.has('history')) {
  const t0 = Date.now();
  const ingested = await runHistoryIngest(opts, mosquittoUp ? mosquitto : embedded);
  console.log(`history ingestion and writer lag (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  const [ingestRows, lagRows] = historyTables(opts, { ...ingested, series: [] });
  show(ingestRows!);
  show(lagRows!);
  const series = await runSeriesEngines(opts);
  failures += ingested.ingest.filter((r) => r.error).length + series.filter((s) => s.error).length + (ingested.lag?.error ? 1 : 0);
  show(historyTables(opts, { ...ingested, series })[2]!);
}

if (only.has('cache')) {
  const cache = await runCache(opts);
  failures += cache.gets.filter((g) => g.error).length + (cache.upload.error ? 1 : 0);
  show(cacheTable(opts, cache));
}

show(goalsTable(opts, { fanout, memory, http, ingest }));
console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s${failures ? `; ${failures} scenario(s) could not run` : ''}`);
if (!opts.quick || argv.includes('--markdown')) {
  console.log(`\n---- Markdown for bench/README.md ----\n`);
  console.log(`Machine: ${machine}. Node ${process.version}. Date: ${new Date().toISOString().slice(0, 10)}.\n`);
  for (const t of tables) console.log(`${renderMarkdown(t)}\n`);
}
process.exitCode = failures > 0 ? 1 : 0;
