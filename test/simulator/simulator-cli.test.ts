import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startApp, type RunningApp } from '../support/app-harness.js';

const CLI = fileURLToPath(new URL('../../dist/src/simulator/cli.js', import.meta.url));

describe('npm run simulate (real process)', () => {
  let hub: RunningApp;
  beforeAll(async () => {
    hub = await startApp();
  });
  afterAll(async () => {
    await hub?.stop();
  });

  it('publishes devices sim-001… to the broker and exits cleanly on Ctrl-C', async () => {
    const child = spawn(
      process.execPath,
      [CLI, '--url', hub.brokerUrl!, '--tenant', 'cli', '--devices', '3', '--rate', '5'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await eventually(
        () => ['sim-001', 'sim-002', 'sim-003'].every((d) => hub.app.telemetry.registry.last('cli', d)),
        8000,
        'readings of all three devices',
      );
      const reading = hub.app.telemetry.registry.last('cli', 'sim-001')!;
      expect(Object.keys(reading.data).sort()).toEqual(['battery', 'humidity', 'temperature']);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exit).toBe(0);
    expect(out).toMatch(/sent \d+ readings/);
  });

  it('refuses bad flags with usage and exit code 64', async () => {
    const child = spawn(process.execPath, [CLI, '--url', 'mqtt://127.0.0.1:1', '--devices', 'many'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(64);
    expect(err).toMatch(/--devices must be/);
    expect(err).toMatch(/usage:/);
  });
});
