import { afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from './support/child-host.js';

afterEach(killChildren);

const ACCESS_KEY = 'prod-access-key-0123456789-abcdefghijklmnop';
const JWT_SECRET = 'prod-jwt-secret-0123456789-abcdefghijklmnopq';
const PRODUCTION = {
  HUB_ENVIRONMENT: 'Production',
  Hub__AccessKey: ACCESS_KEY,
  Auth__Jwt__Secret: JWT_SECRET,
  Auth__Jwt__Issuer: 'https://issuer.test',
  Auth__Jwt__Audience: 'telemetry-hub',
};

describe('logging in Production (real process)', () => {
  it('writes one JSON object per line', async () => {
    const hub = new ChildHost(MAIN, EPHEMERAL, PRODUCTION);
    const url = await hub.listeningUrl();
    await fetch(`${url}/health/live`);
    await hub.waitFor(/"msg":"request"/);

    const lines = hub.output.split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(lines.map((l) => JSON.parse(l) as { msg: string })).toContainEqual(
      expect.objectContaining({ msg: 'listening', url }),
    );
  });

  it('warns at start, naming Http:PublicBaseUrl, when it is not set; says nothing when it is', async () => {
    const without = new ChildHost(MAIN, EPHEMERAL, PRODUCTION);
    await without.listeningUrl();
    expect(without.output).toMatch(/"configKey":"Http:PublicBaseUrl".*follow the Host header/);
    const withUrl = new ChildHost(
      MAIN,
      [...EPHEMERAL, '--Http:PublicBaseUrl=https://telemetry.example.com'],
      PRODUCTION,
    );
    await withUrl.listeningUrl();
    expect(withUrl.output).not.toMatch(/follow the Host header/);
  });

  it('writes one request line with method, route template, status, duration and the incoming trace id', async () => {
    const hub = new ChildHost(MAIN, EPHEMERAL, PRODUCTION);
    const url = await hub.listeningUrl();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

    await fetch(`${url}/health/ready?probe=1`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    await hub.waitFor(/"msg":"request"/);

    const requests = hub.output
      .split('\n')
      .filter((l) => l.includes('"msg":"request"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      method: 'GET',
      route: '/health/ready',
      status: 200,
      traceId,
      durationMs: expect.any(Number),
    });
  });

  it('loses no request line on SIGTERM: the asynchronous log destination is flushed before exit', async () => {
    const hub = new ChildHost(MAIN, EPHEMERAL, PRODUCTION);
    const url = await hub.listeningUrl();
    // The signal lands while requests are still being answered and their lines written: the
    // last lines are written during the graceful stop, right before the process exits.
    const count = 400;
    const answers = Array.from({ length: count }, (_, i) =>
      fetch(`${url}/health/live?n=${i}`).then(
        (r) => r.status,
        () => 0,
      ),
    );
    await hub.waitFor(/"route":"\/health\/live"/);
    hub.signal('SIGTERM');
    const statuses = await Promise.all(answers);
    expect((await hub.exited).code).toBe(0);

    const answered = statuses.filter((s) => s === 200).length;
    expect(answered).toBeGreaterThan(0);
    const lines = hub.output
      .split('\n')
      .filter((l) => l.includes('"msg":"request"') && l.includes('"route":"/health/live"'));
    expect(lines).toHaveLength(answered);
    expect(hub.output).toMatch(/application stopped/);
  }, 30_000);

  it('never logs a secret, even at debug level with the configuration described', async () => {
    const hub = new ChildHost(MAIN, [...EPHEMERAL, '--Logging:LogLevel:Default=debug'], PRODUCTION);
    await hub.listeningUrl();
    await hub.waitFor(/"msg":"configuration"/);

    expect(hub.output).toContain('Hub:AccessKey');
    expect(hub.output).not.toContain(ACCESS_KEY);
    expect(hub.output).not.toContain(JWT_SECRET);
  });
});
