/**
 * `npm run dev`: the development orchestrator (never deployed). Starts the local services, the
 * migrations, the hub instances, the worker, the simulator and the gateway in order, serves its
 * own page, and on Ctrl-C stops everything it started in reverse order, by PID.
 */
import { DevDashboard } from './dev-dashboard.js';
import { DEV_USAGE, parseDevArgs } from './dev-args.js';
import { detectEnvironment } from './dev-environment.js';
import { planResources, type DevOptions } from './dev-plan.js';
import { Orchestrator } from './orchestrator.js';

let options: DevOptions;
try {
  options = parseDevArgs(process.argv.slice(2), process.cwd());
} catch (err) {
  process.stderr.write(`dev: ${(err as Error).message}\n${DEV_USAGE}\n`);
  process.exit(64);
}
const env = detectEnvironment(options);
const orchestrator = new Orchestrator(await planResources(options, env));
const dashboard = new DevDashboard(orchestrator);
const dashboardUrl = await dashboard.listen(options.dashboardPort);
process.stdout.write(`dev: dashboard ${dashboardUrl}/\n`);
for (const r of orchestrator.resources) {
  r.onChange((x) => process.stdout.write(`dev: ${x.spec.name} ${x.state}${x.status().detail ? ` (${x.status().detail})` : ''}\n`));
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
    .then(() => process.exit(0));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

await orchestrator.start();
const failed = orchestrator.resources.filter((r) => r.state === 'failed' || r.state === 'skipped').map((r) => r.spec.name);
const gateway = orchestrator.get('gateway')!;
process.stdout.write(
  failed.length === 0
    ? `dev: everything is running; open ${gateway.spec.endpoints[0]!.url.replace('127.0.0.1', 'localhost')} (dashboard of this orchestrator: ${dashboardUrl}/)\n`
    : `dev: not started or failed: ${failed.join(', ')}; see ${dashboardUrl}/\n`,
);
