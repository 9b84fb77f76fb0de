import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResourceStatus } from '../../src/dev/resource.js';
import { findBinary } from '../../src/dev/dev-plan.js';
import { eventually, userToken } from '../support/app-harness.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const rabbitmqInstalled =
  findBinary('rabbitmq-server') !== undefined &&
  findBinary('epmd') !== undefined &&
  findBinary('postgres') !== undefined;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run dev (the built orchestrator as a real process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dev-run-'));
  // PostgreSQL, run as its own account when the tests run as root, must reach its directory.
  chmodSync(dataDir, 0o755);
  const child = spawn(
    process.execPath,
    [
      'dist/src/dev/main.js',
      '--port',
      '0',
      '--dashboard-port',
      '0',
      '--devices',
      '3',
      '--data-dir',
      join(dataDir, 'dev'),
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

  afterAll(async () => {
    if (child.exitCode === null) {
      // A failed test still lets the orchestrator stop what it started (a SIGKILL alone would
      // leave its hubs, broker and database running); SIGKILL only if it does not exit in time.
      child.kill('SIGINT');
      const kill = setTimeout(() => child.kill('SIGKILL'), 45_000);
      await exited;
      clearTimeout(kill);
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('brings every resource to running, serves through the gateway, and Ctrl-C stops everything in reverse order', async () => {
    // A private RabbitMQ node boots in tens of seconds on a busy machine.
    const deadline = Date.now() + 150_000;
    let dashboard: string | undefined;
    let list: ResourceStatus[] = [];
    for (;;) {
      dashboard ??= /dev: dashboard (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1];
      if (dashboard) {
        list = (await (await fetch(`${dashboard}/api/resources`)).json()) as ResourceStatus[];
        if (list.every((r) => r.state === 'running' || r.state === 'completed')) break;
        expect(
          list.filter((r) => r.state === 'failed' || r.state === 'skipped'),
          out,
        ).toEqual([]);
      }
      if (Date.now() > deadline)
        throw new Error(`not everything running in time:\n${out}\n${JSON.stringify(list, null, 1)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const names = list.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(['hub-1', 'simulator', 'gateway']));
    if (rabbitmqInstalled) {
      // Issue 27 item 8: the message broker is started (a private node), and the standalone worker runs on it.
      expect(names).toEqual(expect.arrayContaining(['epmd', 'rabbitmq', 'worker']));
      expect(names.indexOf('rabbitmq')).toBeLessThan(names.indexOf('hub-1'));
    }
    const info = (await (await fetch(`${dashboard}/api/info`)).json()) as { notes: string[] };
    expect(info.notes.join(' ')).toMatch(
      rabbitmqInstalled ? /RabbitMQ: a private node/ : /In-process queue: each hub runs its own worker/,
    );
    // Only the gateway's endpoint is meant for the developer's browser.
    expect(list.flatMap((r) => r.endpoints.filter((e) => e.external).map(() => r.name))).toEqual(['gateway']);
    expect(await (await fetch(`${dashboard}/`)).text()).toContain('Telemetry Hub — development');

    // The system works through the gateway: the hub's dashboard, and the simulator's devices.
    const gateway = list.find((r) => r.name === 'gateway')!.endpoints[0]!.url;
    expect((await fetch(gateway)).status).toBe(200);
    const token = await userToken('demo');
    let devices: string[] = [];
    await eventually(
      async () => {
        const res = await fetch(`${gateway}v1/devices`, { headers: { authorization: `Bearer ${token}` } });
        devices = ((await res.json()) as { items: { deviceId: string }[] }).items.map((i) => i.deviceId);
        return devices.length >= 3;
      },
      Math.max(0, deadline - Date.now()),
      "the simulator's three devices through the gateway",
    );
    expect(devices).toEqual(['sim-001', 'sim-002', 'sim-003']);

    // Issue 27 item 8: the page shows the traces the processes exported: an order placed through
    // the gateway, followed to the worker's statements when the worker runs.
    const buyer = await userToken('demo', { sub: 'dev', roles: ['buyer'] });
    const put = await fetch(`${gateway}api/orders/dev-trace-1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${buyer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId: 'c-1', lines: [{ sku: 'a', quantity: 1, unitPrice: 100 }] }),
    });
    expect(put.status).toBe(200);
    type Summary = { traceId: string; name: string; services: string[]; missingParents: number };
    type Span = { name: string; kind: string; instance: string; depth: number };
    let trace: Summary | undefined;
    let spans: Span[] = [];
    // Without RabbitMQ the in-process worker of whichever hub took the order consumes it.
    const wanted = (instance: string) => (rabbitmqInstalled ? instance === 'worker' : /^hub-\d$/.test(instance));
    for (;;) {
      trace = ((await (await fetch(`${dashboard}/api/traces?q=PUT`)).json()) as Summary[]).find(
        (t) => t.name === 'PUT /{*path}',
      );
      if (trace) spans = (await (await fetch(`${dashboard}/api/traces/${trace.traceId}`)).json()) as Span[];
      if (
        trace &&
        trace.missingParents === 0 &&
        spans.some((s) => wanted(s.instance) && s.kind === (rabbitmqInstalled ? 'consumer' : 'server'))
      )
        break;
      if (Date.now() > deadline)
        throw new Error(
          `no complete trace of the order on the page: ${JSON.stringify(trace)} ${JSON.stringify(spans)}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(spans[0]).toMatchObject({ kind: 'server', depth: 0 });
    // The gateway balances the tenant over both hubs of its stamp: either serves the order.
    expect(spans.find((s) => /^hub-\d$/.test(s.instance) && s.kind === 'server')!.depth).toBe(2);
    expect(await (await fetch(`${dashboard}/`)).text()).toContain('id="traces"');

    // A live log of one resource, as the page streams it.
    const logs = await fetch(`${dashboard}/api/resources/hub-1/logs`);
    const reader = logs.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^data: /);
    await reader.cancel();

    // Restart from the page: hub-1 goes restarting, then runs again as a new process.
    const restartUrl = `${dashboard}/api/resources/hub-1/restart`;
    expect((await fetch(restartUrl, { method: 'POST' })).status).toBe(403);
    const before = list.find((r) => r.name === 'hub-1')!.pid;
    expect((await fetch(restartUrl, { method: 'POST', headers: { 'x-dev-dashboard': '1' } })).status).toBe(202);
    let hub1: ResourceStatus | undefined;
    for (;;) {
      hub1 = ((await (await fetch(`${dashboard}/api/resources`)).json()) as ResourceStatus[]).find(
        (r) => r.name === 'hub-1',
      );
      if (hub1?.state === 'running' && hub1.pid !== before) break;
      if (Date.now() > deadline) throw new Error(`hub-1 did not run again: ${JSON.stringify(hub1)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(out).toMatch(/^dev: hub-1 restarting$/m);
    expect(alive(before!)).toBe(false);
    list = (await (await fetch(`${dashboard}/api/resources`)).json()) as ResourceStatus[];

    const pids = list.map((r) => r.pid).filter((p): p is number => p !== undefined);
    // Start order as first started (hub-1's restart does not move it).
    const started = [...new Set([...out.matchAll(/^dev: (\S+) starting$/gm)].map((m) => m[1]!))];
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const stopped = [...out.slice(out.indexOf('SIGINT received')).matchAll(/^dev: (\S+) stopping$/gm)].map(
      (m) => m[1]!,
    );
    // Reverse order of start (one-shots that already exited are not stopped).
    expect(stopped).toEqual(started.filter((n) => stopped.includes(n)).reverse());
    expect(stopped).toEqual(expect.arrayContaining(['gateway', 'hub-1']));
    expect(pids.filter(alive)).toEqual([]);
  }, 200_000);
});
