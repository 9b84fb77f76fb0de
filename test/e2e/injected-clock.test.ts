import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';

/**
 * The composition root hands its clock to every time-driven part; the throttle and token expiry are
 * covered by the main-job tests. Here: the HTTP rate limits and the health checks' timings.
 */
describe('the application runs on the clock it is composed with', () => {
  const clock = new ManualClock(Date.now());
  let hub: RunningApp;

  beforeAll(async () => {
    hub = await startApp([], undefined, clock);
  });
  afterAll(async () => hub?.stop());

  it('the functions rate limit refills as that clock moves, not as real time passes', async () => {
    const headers = { authorization: `Bearer ${await userToken('clock', { sub: 'clock-user' })}` };
    const negotiate = async () => (await fetch(`${hub.url}/api/negotiate`, { method: 'POST', headers })).status;
    // A burst of 20, then 10 per second of the hub's clock.
    for (let i = 0; i < 20; i++) expect(await negotiate()).toBe(200);
    const refused = await fetch(`${hub.url}/api/negotiate`, { method: 'POST', headers });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    clock.advance(1000);
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push(await negotiate());
    expect(statuses).toEqual([...Array<number>(10).fill(200), 429]);
  });

  it("health checks time themselves on that clock: a check's duration is the clock's, not the wall's", async () => {
    hub.app.health.add({
      name: 'slow-on-the-clock',
      tags: ['clock-test'],
      check: () => new Promise((resolve) => clock.setTimeout(() => resolve({ status: 'Healthy' }), 1234)),
    });
    const report = hub.app.health.run('clock-test');
    await clock.advanceAndSettle(0);
    clock.advance(1234);
    expect(await report).toEqual({
      status: 'Healthy',
      checks: [{ name: 'slow-on-the-clock', status: 'Healthy', durationMs: 1234 }],
    });
  });
});
