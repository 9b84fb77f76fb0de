import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { detectEnvironment } from '../../src/dev/dev-environment.js';
import { findBinary, planResources } from '../../src/dev/dev-plan.js';
import { Orchestrator } from '../../src/dev/orchestrator.js';
import { requireCommand } from '../support/private-server.js';
import { requireService } from '../support/services.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const running: Orchestrator[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const o of running.splice(0)) await o.stop(5000);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * The real plan on this machine (local PostgreSQL, Redis, Mosquitto, the project's own `npm run
 * migrate`), one hub instance; `migrationsDirectory` swaps the project's migrations for others.
 */
async function orchestrator(migrationsDirectory?: string): Promise<{ orchestrator: Orchestrator; events: string[] }> {
  const base = mkdtempSync(join(tmpdir(), 'dev-order-'));
  chmodSync(base, 0o755);
  dirs.push(base);
  const options = {
    root: ROOT,
    port: 0,
    dashboardPort: 0,
    instances: 1,
    devices: 2,
    rate: 1,
    dataDir: join(base, 'dev'),
  };
  // The worker runs against the test RabbitMQ, on a queue of this run's own.
  const env = { ...detectEnvironment(options), rabbitMqUrl: 'amqp://guest:guest@127.0.0.1:5672' };
  const queue = `dev-order-${process.pid}-${Date.now().toString(36)}`;
  const specs = (await planResources(options, env)).map((s) =>
    s.name === 'migrations' && migrationsDirectory
      ? { ...s, env: { ...s.env, Database__MigrationsDirectory: migrationsDirectory } }
      : s.name === 'worker' || s.type === 'hub'
        ? { ...s, env: { ...s.env, Queue__Name: queue } }
        : s,
  );
  const o = new Orchestrator(specs);
  const events: string[] = [];
  for (const r of o.resources) r.onChange((x) => events.push(`${x.spec.name} ${x.state}`));
  running.push(o);
  return { orchestrator: o, events };
}

describe('development orchestrator: migrations first (real PostgreSQL, real migrations, real hub)', () => {
  const available =
    requireCommand(findBinary('postgres') ?? 'postgres', 'the orchestrator runs the local PostgreSQL binaries') &&
    findBinary('initdb') !== undefined;
  let rabbit = false;
  beforeAll(async () => {
    rabbit = await requireService('RabbitMQ', 5672);
  });

  it('starts the hub and the worker only after the migrations exited 0, then the simulator and the gateway', async ({
    skip,
  }) => {
    if (!available || !rabbit) return skip();
    const { orchestrator: o, events } = await orchestrator();
    await o.start();
    expect(o.get('migrations')!.state).toBe('completed');
    for (const name of ['postgres', 'hub-1', 'worker', 'simulator', 'gateway'])
      expect(o.get(name)!.state, name).toBe('running');
    expect(events.indexOf('migrations completed')).toBeLessThan(events.indexOf('worker starting'));
    expect(events.indexOf('postgres running')).toBeLessThan(events.indexOf('migrations starting'));
    expect(events.indexOf('migrations completed')).toBeLessThan(events.indexOf('hub-1 starting'));
    expect(events.indexOf('hub-1 running')).toBeLessThan(events.indexOf('gateway starting'));
    expect(o.get('migrations')!.log.tail().join('\n')).toMatch(/migrate: applied 0001/);
    const gateway = o.get('gateway')!.spec.endpoints[0]!.url;
    expect((await fetch(`${gateway}health/ready`)).status).toBe(200);
  }, 90_000);

  it('starts no hub and no worker at all when the migrations fail, and shows their last lines', async ({ skip }) => {
    if (!available || !rabbit) return skip();
    const broken = mkdtempSync(join(tmpdir(), 'dev-broken-migrations-'));
    dirs.push(broken);
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, '0001_broken.sql'), 'ALTER TABLE no_such_table ADD COLUMN x int;');
    const { orchestrator: o, events } = await orchestrator(broken);
    await o.start();
    const migrations = o.get('migrations')!.status();
    expect(migrations.state).toBe('failed');
    expect(migrations.exitCode).toBe(1);
    expect(migrations.lastLines.join('\n')).toMatch(/no_such_table/);
    for (const name of ['hub-1', 'worker', 'simulator', 'gateway']) {
      const r = o.get(name)!;
      expect(r.state, name).toBe('skipped');
      expect(r.pid, name).toBeUndefined();
    }
    expect(events.some((e) => e.startsWith('hub-1 starting'))).toBe(false);
  }, 90_000);
});
