/**
 * `npm run dev`: the development orchestrator (never deployed). Starts the local services, the
 * migrations, the hub instances, the worker, the simulator and the gateway in order, serves its
 * own page, and on Ctrl-C stops everything it started in reverse order, by PID.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DevDashboard } from './dev-dashboard.js';
import { DEV_USAGE, parseDevArgs } from './dev-args.js';
import { findBinary, planResources, type DevEnvironment, type DevOptions } from './dev-plan.js';
import { Orchestrator } from './orchestrator.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** uid/gid of the `postgres` account, from /etc/passwd (PostgreSQL will not run as root). */
function postgresAccount(): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    return uid !== undefined && gid !== undefined ? { uid: Number(uid), gid: Number(gid) } : undefined;
  } catch {
    return undefined;
  }
}

function environment(options: DevOptions): DevEnvironment {
  const binaries: DevEnvironment['binaries'] = {};
  for (const name of ['redis-server', 'mosquitto', 'postgres', 'initdb'] as const) {
    const found = findBinary(name);
    if (found) binaries[name] = found;
  }
  const asRoot = process.getuid?.() === 0;
  const postgresUser = asRoot ? postgresAccount() : undefined;
  if (asRoot && postgresUser === undefined) {
    // Root without a postgres account: PostgreSQL cannot run; the hubs use their embedded database.
    delete binaries.postgres;
    delete binaries.initdb;
  }
  mkdirSync(options.dataDir, { recursive: true });
  const pgDir = join(options.dataDir, 'postgres');
  if (binaries.postgres && postgresUser) {
    chmodSync(options.dataDir, 0o755);
    mkdirSync(pgDir, { recursive: true, mode: 0o700 });
    chownSync(pgDir, postgresUser.uid, postgresUser.gid);
  }
  const pkg = JSON.parse(readFileSync(join(options.root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return { binaries, scripts: pkg.scripts ?? {}, postgresInitialised: existsSync(join(pgDir, 'PG_VERSION')), postgresUser, freePort };
}

let options: DevOptions;
try {
  options = parseDevArgs(process.argv.slice(2), process.cwd());
} catch (err) {
  process.stderr.write(`dev: ${(err as Error).message}\n${DEV_USAGE}\n`);
  process.exit(64);
}
const env = environment(options);
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
