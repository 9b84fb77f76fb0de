/**
 * `npm run dev`: the development orchestrator (never deployed). Starts the local services (the
 * message broker among them), the migrations, the hub instances, the worker, the simulator and the
 * gateway in order, serves its own page with their recent traces (a local OTLP receiver), and on
 * Ctrl-C stops everything it started in reverse order, by PID.
 */
import { DevDashboard } from './dev-dashboard.js';
import { commandLine, usageError } from '../host/command-line.js';
import { DEV_COMMAND, toDevOptions } from './dev-args.js';
import { detectEnvironment } from './dev-environment.js';
import { describeQueue, planResources, type DevOptions } from './dev-plan.js';
import { TraceReceiver } from './trace-receiver.js';
import { Orchestrator } from './orchestrator.js';

let options: DevOptions;
try {
  options = toDevOptions(commandLine(DEV_COMMAND).values, process.cwd());
} catch (err) {
  usageError(DEV_COMMAND, (err as Error).message);
}
// A collector the developer names keeps the spans (every resource inherits the variable); else the
// page's own receiver takes them.
const ownCollector = process.env.Telemetry__Otlp__Endpoint ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
const traces = ownCollector === undefined ? new TraceReceiver() : undefined;
const env = { ...detectEnvironment(options), otlpEndpoint: await traces?.listen() };
const specs = await planResources(options, env);
const orchestrator = new Orchestrator(specs);
const queue = describeQueue(specs);
const notes = [
  queue,
  traces
    ? 'Traces: every hub, the worker and the gateway export to this page (below).'
    : 'Traces: sent to the collector in Telemetry__Otlp__Endpoint; this page shows none.',
];
const dashboard = new DevDashboard(orchestrator, { ...(traces ? { traces } : {}), notes });
const dashboardUrl = await dashboard.listen(options.dashboardPort);
process.stdout.write(`dev: dashboard ${dashboardUrl}/\n`);
process.stdout.write(`dev: ${queue}\n`);
for (const r of orchestrator.resources) {
  r.onChange((x) =>
    process.stdout.write(`dev: ${x.spec.name} ${x.state}${x.status().detail ? ` (${x.status().detail})` : ''}\n`),
  );
}

// Whatever happens to the orchestrator, nothing it started outlives it.
process.on('exit', () => orchestrator.killAll());
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) {
    process.stdout.write(`dev: ${signal} again; killing everything now\n`);
    process.exit(1);
  }
  process.stdout.write(`dev: ${signal} received; stopping everything in reverse order\n`);
  void orchestrator
    .stop()
    .then(() => dashboard.close())
    .then(() => traces?.close())
    .then(() => process.exit(0));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

await orchestrator.start();
const failed = orchestrator.resources
  .filter((r) => r.state === 'failed' || r.state === 'skipped')
  .map((r) => r.spec.name);
const gateway = orchestrator.get('gateway')!;
process.stdout.write(
  failed.length === 0
    ? `dev: everything is running; open ${gateway.spec.endpoints[0]!.url.replace('127.0.0.1', 'localhost')} (dashboard of this orchestrator: ${dashboardUrl}/)\n`
    : `dev: not started or failed: ${failed.join(', ')}; see ${dashboardUrl}/\n`,
);
