import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { planResources } from '../../src/dev/dev-plan.js';
import { Orchestrator } from '../../src/dev/orchestrator.js';
import { freePort } from '../support/private-server.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The real plan on this project with a stand-in migration (a real process) and no local services. */
async function orchestratorWithMigration(exitCode: number): Promise<{ orchestrator: Orchestrator; events: string[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dev-order-'));
  dirs.push(dataDir);
  const specs = await planResources(
    { root: ROOT, port: 0, dashboardPort: 0, instances: 2, devices: 2, rate: 1, dataDir },
    { binaries: {}, scripts: { migrate: `npm run build && node dist/test/fixtures/fake-migrate.js ${exitCode}` }, postgresInitialised: false, postgresUser: undefined, freePort },
  );
  const orchestrator = new Orchestrator(specs);
  const events: string[] = [];
  for (const r of orchestrator.resources) r.onChange((x) => events.push(`${x.spec.name} ${x.state}`));
  running.push(orchestrator);
  return { orchestrator, events };
}

const running: Orchestrator[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const o of running.splice(0)) await o.stop(5000);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('development orchestrator: migrations first', () => {
  it('starts the hub only after the migrations exited 0, then the simulator and the gateway', async () => {
    const { orchestrator, events } = await orchestratorWithMigration(0);
    await orchestrator.start();
    expect(orchestrator.resources.map((r) => [r.spec.name, r.state])).toEqual([
      ['migrations', 'completed'],
      ['hub-1', 'running'],
      ['simulator', 'running'],
      ['gateway', 'running'],
    ]);
    expect(events.indexOf('migrations completed')).toBeLessThan(events.indexOf('hub-1 starting'));
    expect(events.indexOf('hub-1 running')).toBeLessThan(events.indexOf('gateway starting'));
    const gateway = orchestrator.get('gateway')!.spec.endpoints[0]!.url;
    expect((await fetch(`${gateway}health/ready`)).status).toBe(200);
  }, 60_000);

  it('starts no hub at all when the migrations fail, and shows their last lines', async () => {
    const { orchestrator, events } = await orchestratorWithMigration(3);
    await orchestrator.start();
    const migrations = orchestrator.get('migrations')!.status();
    expect(migrations.state).toBe('failed');
    expect(migrations.exitCode).toBe(3);
    expect(migrations.lastLines.join('\n')).toContain('relation "tenants" does not exist');
    for (const name of ['hub-1', 'simulator', 'gateway']) {
      const r = orchestrator.get(name)!;
      expect(r.state, name).toBe('skipped');
      expect(r.pid, name).toBeUndefined();
    }
    expect(events.some((e) => e.startsWith('hub-1 starting'))).toBe(false);
  }, 60_000);
});
