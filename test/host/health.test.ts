import { describe, expect, it } from 'vitest';
import { HealthChecks, type HealthCheck } from '../../src/host/health/health-checks.js';
import { mapHealthEndpoints } from '../../src/host/health/health-endpoints.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';
import { devConfig } from './support/test-config.js';
import { testServer } from './support/test-server.js';

const never = () => new Promise<never>(() => undefined);

function serverWith(checks: HealthCheck[], timeoutMs = 5000, clock?: ManualClock) {
  const health = new HealthChecks({ timeoutMs, ...(clock ? { clock } : {}) });
  for (const c of checks) health.add(c);
  return testServer((web) => mapHealthEndpoints(web.routes, health)).server;
}

const self: HealthCheck = { name: 'self', tags: ['live'], check: () => ({ status: 'Healthy' }) };

describe('health endpoints', () => {
  it('/health/live runs only checks tagged live; /health/ready only those tagged ready', async () => {
    const server = serverWith([self, { name: 'database', tags: ['ready'], check: () => ({ status: 'Unhealthy' }) }]);

    const live = await server.inject('/health/live');
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({
      status: 'Healthy',
      checks: [{ name: 'self', status: 'Healthy', durationMs: expect.any(Number) }],
    });

    const ready = await server.inject('/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      status: 'Unhealthy',
      checks: [{ name: 'database', status: 'Unhealthy', durationMs: expect.any(Number) }],
    });
  });

  it('Degraded answers 200 with status Degraded; the worst check decides', async () => {
    const server = serverWith([
      { name: 'database', tags: ['ready'], check: () => ({ status: 'Healthy' }) },
      { name: 'external-api', tags: ['ready'], check: () => ({ status: 'Degraded' }) },
    ]);

    const res = await server.inject('/health/ready');

    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'Degraded' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('Unhealthy answers 503, also when a check throws', async () => {
    const server = serverWith([
      { name: 'external-api', tags: ['ready'], check: () => ({ status: 'Degraded' }) },
      {
        name: 'database',
        tags: ['ready'],
        check: () => {
          throw new Error('connection refused');
        },
      },
    ]);

    const res = await server.inject('/health/ready');

    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      status: 'Unhealthy',
      checks: expect.arrayContaining([expect.objectContaining({ name: 'database', status: 'Unhealthy' })]),
    });
  });

  it('a check that hangs times out as Unhealthy at the registry timeout, not before, and its signal is aborted', async () => {
    const clock = new ManualClock();
    let signal: AbortSignal | undefined;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const server = serverWith(
      [
        {
          name: 'database',
          tags: ['ready'],
          check: (s) => {
            signal = s;
            started();
            return never();
          },
        },
      ],
      50,
      clock,
    );

    const response = server.inject('/health/ready');
    await running;
    await clock.advanceAndSettle(49);
    expect(signal?.aborted).toBe(false);
    clock.advance(1);
    const res = await response;

    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ checks: [{ name: 'database', status: 'Unhealthy', durationMs: 50 }] });
    expect(signal?.aborted).toBe(true);
  });

  it("a check's own timeout overrides the registry's", async () => {
    const clock = new ManualClock();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const check = () => {
      started();
      return never();
    };
    const server = serverWith([{ name: 'slow-dependency', tags: ['live'], timeoutMs: 30, check }], 60_000, clock);

    const response = server.inject('/health/live');
    await running;
    clock.advance(30);
    const res = await response;

    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ checks: [{ name: 'slow-dependency', durationMs: 30 }] });
  });

  it('reports how long each check took on the injected clock', async () => {
    const clock = new ManualClock();
    const health = new HealthChecks({ timeoutMs: 5000, clock });
    health.add({
      name: 'database',
      tags: ['ready'],
      check: () => new Promise((resolve) => clock.setTimeout(() => resolve({ status: 'Healthy' }), 120)),
    });

    const report = health.run('ready');
    await clock.advanceAndSettle(0);
    clock.advance(120);

    expect(await report).toEqual({
      status: 'Healthy',
      checks: [{ name: 'database', status: 'Healthy', durationMs: 120 }],
    });
  });

  it('the check timeout defaults to 5 s and is configured by Health:CheckTimeoutSeconds', () => {
    expect(devConfig().health.checkTimeoutMs).toBe(5000);
    expect(devConfig('--Health:CheckTimeoutSeconds=0.5').health.checkTimeoutMs).toBe(500);
  });

  it('refuses two checks with one name', () => {
    const health = new HealthChecks({ timeoutMs: 100 }).add(self);
    expect(() => health.add(self)).toThrow(/self/);
  });
});
