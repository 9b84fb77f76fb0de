import { describe, expect, it } from 'vitest';
import { HealthChecks, type HealthCheck } from '../../src/host/health/health-checks.js';
import { mapHealthEndpoints } from '../../src/host/health/health-endpoints.js';
import { devConfig } from './support/test-config.js';
import { testServer } from './support/test-server.js';

const never = () => new Promise<never>(() => undefined);

function serverWith(checks: HealthCheck[], timeoutMs = 5000) {
  const health = new HealthChecks({ timeoutMs });
  for (const c of checks) health.add(c);
  return testServer((web) => mapHealthEndpoints(web.routes, health)).server;
}

const self: HealthCheck = { name: 'self', tags: ['live'], check: () => ({ status: 'Healthy' }) };

describe('health endpoints', () => {
  it('/health/live runs only checks tagged live; /health/ready only those tagged ready', async () => {
    const server = serverWith([self, { name: 'database', tags: ['ready'], check: () => ({ status: 'Unhealthy' }) }]);

    const live = await server.inject('/health/live');
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'Healthy', checks: [{ name: 'self', status: 'Healthy', durationMs: expect.any(Number) }] });

    const ready = await server.inject('/health/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'Unhealthy', checks: [{ name: 'database', status: 'Unhealthy', durationMs: expect.any(Number) }] });
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
    expect(res.json()).toMatchObject({ status: 'Unhealthy', checks: expect.arrayContaining([expect.objectContaining({ name: 'database', status: 'Unhealthy' })]) });
  });

  it('a check that hangs times out as Unhealthy (registry timeout), and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const server = serverWith(
      [
        {
          name: 'database',
          tags: ['ready'],
          check: (s) => {
            signal = s;
            return never();
          },
        },
      ],
      50,
    );

    const res = await server.inject('/health/ready');

    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ checks: [{ name: 'database', status: 'Unhealthy' }] });
    expect(signal?.aborted).toBe(true);
  });

  it("a check's own timeout overrides the registry's", async () => {
    const server = serverWith([{ name: 'slow-dependency', tags: ['live'], timeoutMs: 30, check: never }], 60_000);

    const res = await server.inject('/health/live');

    expect(res.statusCode).toBe(503);
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
