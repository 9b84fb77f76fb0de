import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, FIXTURE, killChildren } from './support/child-host.js';
import { KeptAliveConnection } from './support/kept-alive-connection.js';

afterEach(killChildren);

const ARGS = ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0', '--Host:ShutdownTimeoutSeconds=10'];

/** Resolves true when a new TCP connection is refused, false when it is accepted. */
function connectionRefused(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('stopping on a signal (real process)', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s lets the in-flight request finish, refuses new connections, and exits 0',
    async (signal) => {
      const hub = new ChildHost(FIXTURE, ARGS);
      const url = await hub.listeningUrl();
      let slowSettled = false;
      const slow = fetch(`${url}/test/slow?ms=2500`).finally(() => (slowSettled = true));
      await hub.waitFor(/slow request started/);

      hub.signal(signal);

      expect(await until(() => connectionRefused(url), 2000)).toBe(true);
      expect(slowSettled).toBe(false);
      const res = await slow;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ sleptMs: 2500 });
      expect((await hub.exited).code).toBe(0);
      expect(hub.output).toMatch(/application stopped/);
    },
  );

  it('answers /health/ready 503 Unhealthy as soon as stopping begins', async () => {
    const hub = new ChildHost(FIXTURE, ARGS);
    const url = await hub.listeningUrl();
    // A request begun but not finished: the server holds this connection open while it drains.
    // It follows a whole request in one write: once that one is answered, the server has read the
    // bytes behind it too, so the second request has begun before the signal.
    const conn = await KeptAliveConnection.open(url);
    conn.write('GET /health/live HTTP/1.1\r\nhost: test\r\n\r\nGET /health/ready HTTP/1.1\r\nhost: test\r\n');
    expect((await conn.response(0)).status).toBe(200);

    hub.signal('SIGTERM');
    await hub.waitFor(/application stopping/);
    conn.write('\r\n');

    const ready = await conn.response(1);
    expect(ready.status).toBe(503);
    const body = JSON.parse(ready.body) as {
      status: string;
      checks: { name: string; status: string; durationMs: number }[];
    };
    expect(body.status).toBe('Unhealthy');
    expect(body.checks).toContainEqual(
      expect.objectContaining({ name: 'host', status: 'Unhealthy', durationMs: expect.any(Number) }),
    );
    expect((await hub.exited).code).toBe(0);
    conn.destroy();
  });
});
