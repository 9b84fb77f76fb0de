// Browser tests of the built dashboard against the REAL hub: in-process (startApp, embedded MQTT broker,
// Development sign-in, or Production with a pasted access token) and, for the newcomer path, the built hub as a child process with its simulator.
// Readings are real MQTT publishes. Screenshots go to test-results/web-client/.
import { spawnSync } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signUserToken } from '../../src/host/security/jwt-bearer';
import { startApp, type RunningApp } from '../support/app-harness';
import { startChildHub } from '../support/child-hub';
import {
  launchChromium,
  latestValue,
  pillHistory,
  recordPillStates,
  screenshot,
  skipBrowserTests,
} from './support/browser';
import { MqttDevices, type Stream } from './support/mqtt-devices';

const PREFS = 'telemetry-hub.dashboard.v1';

describe.skipIf(skipBrowserTests)('dashboard against the real hub', () => {
  let browser: Browser;
  let hub: RunningApp;
  let devices: MqttDevices;
  const contexts: BrowserContext[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    // The hub serves dist/web-client: make sure it is today's dashboard (a no-op when up to date).
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`dashboard build failed:\n${built.stdout}${built.stderr}`);
    [browser, hub] = await Promise.all([launchChromium(), startApp(['--Throttle:MaxPerSecondPerDevice=100'])]);
    devices = await MqttDevices.connect(hub.brokerUrl!);
  }, 60_000);

  // Each test's pages go when it ends: a page left open keeps its frame loop and subscriptions running.
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close().catch(() => {});
    // The dashboard runs under its Content-Security-Policy: nothing it does may be refused by it.
    expect(cspViolations.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await devices?.close();
    await hub?.stop();
  });

  async function newPage(prefs?: object, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (m) => {
      if (/content security policy/i.test(m.text())) cspViolations.push(m.text());
    });
    if (prefs)
      await page.addInitScript(
        ([k, v]) => localStorage.setItem(k as string, v as string),
        [PREFS, JSON.stringify(prefs)],
      );
    return page;
  }

  it("signs in on the dev sign-in page, lists the tenant's devices, follows one and charts its MQTT readings", async () => {
    // Another tenant's device must not show up: the dashboard acts as whoever signed in.
    await devices.publish('demo', 'demo-only', { temperature: 1 });
    const stream = devices.stream('acme', ['press-1', 'press-2', 'press-3'], 4);
    try {
      const page = await newPage();
      await page.goto(`${hub.url}/auth/signin?returnUrl=/`);
      await page.fill('input[name=sub]', 'operator');
      await page.fill('input[name=tenant]', 'acme');
      await Promise.all([page.waitForURL(`${hub.url}/`), page.click('button[type=submit]')]);
      await page.waitForFunction(() => window.__hub?.state() === 'connected');
      expect(await page.textContent('.tenant')).toBe('acme');
      await page.waitForFunction(() => document.querySelectorAll('li.device').length === 3);
      expect(await page.$$eval('li.device', (lis) => lis.map((li) => (li as HTMLElement).dataset.id))).toEqual([
        'press-1',
        'press-2',
        'press-3',
      ]);
      await page.click('li[data-id="press-2"] button');
      await page.waitForSelector('.chart-card .uplot');
      const first = await latestValue(page, 'press-2');
      await expect.poll(() => latestValue(page, 'press-2'), { timeout: 5000 }).not.toBe(first);
      await screenshot(page, 'signin-acme');
    } finally {
      stream.stop();
    }
  });

  it('switches to serverless mode (negotiate → Web PubSub client → /api/subscribe), keeps charting, survives a server-side close', async () => {
    const stream = devices.stream('demo', ['pump-1', 'pump-2'], 5);
    try {
      const page = await newPage({ mode: 'socket', followed: ['pump-1'], windowMs: 60_000 });
      const calls: string[] = [];
      page.on('response', (res) => {
        const path = new URL(res.url()).pathname;
        if (path.startsWith('/api/')) calls.push(`${res.request().method()} ${path} ${res.status()}`);
      });
      await page.goto(hub.url);
      await page.waitForFunction(() => window.__hub?.state() === 'connected');
      expect(await page.textContent('.pill')).toBe('Connected · Socket');
      await page.click('.segmented label:has-text("Serverless")');
      await expect.poll(() => page.textContent('.pill'), { timeout: 10_000 }).toBe('Connected · Serverless');
      await expect.poll(() => calls, { timeout: 5000 }).toContain('POST /api/subscribe 204');
      expect(calls[0]).toBe('POST /api/negotiate 200');
      const first = await latestValue(page, 'pump-1');
      await expect.poll(() => latestValue(page, 'pump-1'), { timeout: 5000 }).not.toBe(first);
      await screenshot(page, 'serverless');

      // The hub closes every connection (1012, "reconnect"): the client negotiates again and resubscribes,
      // catching up from the newest seq it has over the new socket (the subscribe event), not the function.
      await recordPillStates(page);
      const before = calls.length;
      hub.app.telemetry.hub.closeAll('shutdown');
      await expect
        .poll(() => pillHistory(page), { timeout: 10_000 })
        .toEqual(['connected', 'reconnecting', 'connected']);
      await expect.poll(() => calls.slice(before), { timeout: 5000 }).toEqual(['POST /api/negotiate 200']);
      const again = await latestValue(page, 'pump-1');
      await expect.poll(() => latestValue(page, 'pump-1'), { timeout: 5000 }).not.toBe(again);
    } finally {
      stream.stop();
    }
  });

  /**
   * The page follows a device, is cut off (offline, and the hub closes its connection) while the device
   * publishes two readings, then comes back: the catch-up (`since` = the newest seq the page has) replays
   * both, so the chart has no gap, and live updates resume.
   */
  async function reconnectsWithoutGap(mode: 'socket' | 'serverless', deviceId: string): Promise<void> {
    const stream = devices.stream('demo', [deviceId], 5);
    let resumed: Stream | undefined;
    try {
      const page = await newPage({ mode, followed: [deviceId], windowMs: 60_000 });
      // What reaches the page over its WebSockets (socket.io packets or Web PubSub frames), as text.
      const frames: string[] = [];
      page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => frames.push(String(payload))));
      await page.goto(hub.url);
      await page.waitForFunction(() => window.__hub?.state() === 'connected');
      const first = await latestValue(page, deviceId);
      await expect.poll(() => latestValue(page, deviceId), { timeout: 5000 }).not.toBe(first);
      stream.stop();
      // Readings in flight land before the cut: a last one, published after them, is shown.
      await devices.publish('demo', deviceId, { temperature: 33.33, humidity: 50 });
      await expect.poll(() => latestValue(page, deviceId), { timeout: 5000 }).toBe('33.33');
      await recordPillStates(page);

      // The page stays away until the readings it must miss are in: offline, its reconnects fail.
      await page.context().setOffline(true);
      hub.app.telemetry.hub.closeAll('shutdown');
      await page.waitForFunction(() => window.__hub!.state() !== 'connected');
      await devices.publish('demo', deviceId, { temperature: 11.11, humidity: 50 });
      await devices.publish('demo', deviceId, { temperature: 77.77, humidity: 50 });
      await expect.poll(() => hub.app.telemetry.registry.last('demo', deviceId)?.data.temperature).toBe(77.77);
      expect(
        await page.evaluate(() => window.__hub!.state()),
        'the page reconnected before the missed readings were sent',
      ).not.toBe('connected');
      // Readings only: socket.io `reading` events and Web PubSub group messages (acks and summaries quote `last`).
      const readingFrames = () => frames.filter((f) => f.includes('"reading"') || f.includes('"from":"group"'));
      expect(readingFrames().filter((f) => f.includes('11.11'))).toEqual([]);
      await page.context().setOffline(false);

      // Offline, the pill may also say so on the way; it ends connected again, once.
      await expect.poll(async () => (await pillHistory(page)).at(-1), { timeout: 15_000 }).toBe('connected');
      const history = await pillHistory(page);
      expect(history[0]).toBe('connected');
      expect(['reconnecting', 'offline']).toContain(history[1]);
      expect(history.filter((state) => state === 'connected')).toHaveLength(2);
      // Both missed readings were replayed, in order; the chart has them and no hatched gap.
      await expect.poll(() => latestValue(page, deviceId), { timeout: 5000 }).toBe('77.77');
      const replayed = readingFrames().filter((f) => f.includes('11.11') || f.includes('77.77'));
      expect(replayed.map((f) => (f.includes('11.11') ? 11.11 : 77.77))).toEqual([11.11, 77.77]);
      expect(await page.$eval('.gap-note', (el) => (el as HTMLElement).hidden)).toBe(true);
      resumed = devices.stream('demo', [deviceId], 5);
      await expect.poll(() => latestValue(page, deviceId), { timeout: 5000 }).not.toBe('77.77');
      expect(await page.$eval('.gap-note', (el) => (el as HTMLElement).hidden)).toBe(true);
      await screenshot(page, `reconnected-no-gap-${mode}`);
    } finally {
      stream.stop();
      resumed?.stop();
    }
  }

  it('socket mode: cut off while the device publishes, it reconnects and the catch-up fills the gap; updates resume', async () => {
    await reconnectsWithoutGap('socket', 'valve-1');
  });

  it('serverless mode: a new connection catches up through the subscribe event with since; no gap, updates resume', async () => {
    await reconnectsWithoutGap('serverless', 'valve-2');
  });

  it("the 24 h window draws a day of the device's stored readings from the series API, live readings appended", async () => {
    // A day of readings, one per 10 minutes, device time in the past (the history keeps them by `ts`).
    const now = Date.now();
    for (let i = 144; i >= 1; i--)
      await devices.publish('demo', 'tank-1', { ts: now - i * 600_000, level: 50 + 20 * Math.sin(i / 12) });
    await expect.poll(() => hub.app.history!.writer.stats().pending, { timeout: 10_000 }).toBe(0);
    const stream = devices.stream('demo', ['tank-1'], 2);
    try {
      const page = await newPage({ mode: 'socket', followed: ['tank-1'], windowMs: 86_400_000 });
      const series: string[] = [];
      page.on(
        'response',
        (res) =>
          res.url().includes('/series?') &&
          series.push(`${res.status()} ${new URL(res.url()).searchParams.get('bucket')}`),
      );
      await page.goto(hub.url);
      await page.waitForFunction(() => window.__hub?.state() === 'connected');
      await expect
        .poll(() => page.evaluate(() => window.__hub!.chartRows('tank-1').length), { timeout: 10_000 })
        .toBeGreaterThanOrEqual(144);
      expect(series).toEqual(['200 5m']);
      const rows = await page.evaluate(() => window.__hub!.chartRows('tank-1'));
      expect(rows[0]).toBeLessThanOrEqual(now - 143 * 600_000);
      const live = rows.filter((t) => t >= now).length;
      await expect
        .poll(() => page.evaluate((since) => window.__hub!.chartRows('tank-1').filter((t) => t >= since).length, now), {
          timeout: 5000,
        })
        .toBeGreaterThan(live);
      await page.waitForSelector('.chart-card .uplot');
      // `level` is only in the history: its read-out is its newest stored value, a number.
      expect(await page.locator('.chart-card .latest div:has(dt:text-is("level")) dd').textContent()).toMatch(
        /^\d+(\.\d+)?$/,
      );
      await screenshot(page, 'history-24h-real-hub');
    } finally {
      stream.stop();
    }
  });

  it('newcomer: the built hub as `npm start` runs it shows live simulator charts within 10 s', async () => {
    const child = await startChildHub([
      '--environment=Development',
      '--Http:Port=0',
      '--Ingestion:Mqtt:EmbeddedPort=0',
    ]);
    try {
      // The URL it prints for humans (Development logs are pretty lines), on 127.0.0.1 rather than localhost.
      const printed = /dashboard:\s*"(http:\/\/[^"]+)"/.exec(child.output())?.[1];
      expect(printed, child.output()).toMatch(/^http:\/\/localhost:\d+\/$/);
      const page = await newPage();
      const started = Date.now();
      await page.goto(printed!.replace('localhost', '127.0.0.1'));
      await page.waitForSelector('li[data-id="sim-001"]');
      await page.click('li[data-id="sim-001"] button');
      await page.waitForSelector('.chart-card .uplot');
      const first = await latestValue(page, 'sim-001');
      await expect.poll(() => latestValue(page, 'sim-001'), { timeout: 10_000 }).not.toBe(first);
      const liveAfterMs = Date.now() - started;
      expect(liveAfterMs).toBeLessThan(10_000);
      // Opened the moment the hub was up, before every simulated device had reported: the early re-read lists them all.
      await page.waitForFunction(() => document.querySelectorAll('li.device').length === 10, null, { timeout: 8000 });
      console.log(
        `newcomer: chart live after ${liveAfterMs} ms, all 10 devices listed after ${Date.now() - started} ms`,
      );
      await screenshot(page, 'newcomer');
    } finally {
      await child.stop();
    }
  }, 40_000);

  it('in Production: the sign-in panel takes a pasted access token, then lists devices and charts them live; sign-out ends the session', async () => {
    const jwt = {
      secret: 'production-secret-'.padEnd(48, 'p'),
      issuer: 'https://issuer.test',
      audience: 'telemetry-hub',
    };
    const deviceKey = 'production-device-key-'.padEnd(48, 'd');
    const prod = await startApp([
      '--environment=Production',
      '--Ingestion:Mqtt:Embedded=true',
      `--Ingestion:Mqtt:DeviceKey=${deviceKey}`,
      '--Throttle:MaxPerSecondPerDevice=100',
      `--Hub:AccessKey=${'k'.repeat(40)}`,
      `--Auth:Jwt:Secret=${jwt.secret}`,
      `--Auth:Jwt:Issuer=${jwt.issuer}`,
      `--Auth:Jwt:Audience=${jwt.audience}`,
    ]);
    const prodDevices = await MqttDevices.connect(prod.brokerUrl!, deviceKey);
    const stream = prodDevices.stream('acme', ['line-1', 'line-2'], 4);
    try {
      const page = await newPage();
      const auth: string[] = [];
      page.on('response', (res) => {
        const path = new URL(res.url()).pathname;
        if (path.startsWith('/auth/')) auth.push(`${res.request().method()} ${path} ${res.status()}`);
      });
      await page.goto(`${prod.url}/`);

      // No session, no development sign-in: the panel asks for a token, and the field has focus.
      const panel = page.locator('.signin-required');
      await panel.waitFor();
      expect(await panel.locator('h2').textContent()).toBe('Sign-in required');
      const field = page.getByLabel('Paste an access token');
      expect(await field.getAttribute('type')).toBe('password');
      expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
      expect(await page.locator('.device-list').count()).toBe(0); // no "No devices in this tenant yet."
      expect(await page.textContent('.pill')).toBe('Offline · Socket');
      expect(await page.isDisabled('.segmented input[value=serverless]')).toBe(true);
      expect(await page.isHidden('.account')).toBe(true);
      expect(auth).toEqual(['GET /auth/token 401', 'GET /auth/dev-token 404']);
      await screenshot(page, 'production-signin');

      // A token from another issuer: refused, said so next to the field, nothing else changes.
      const wrongKey = await signUserToken({
        sub: 'mallory',
        tenantId: 'acme',
        ...jwt,
        secret: 'not-this-hubs-secret-'.padEnd(40, 'x'),
      });
      await field.fill(wrongKey);
      await field.press('Enter');
      const error = page.locator('.token-error[role=alert]');
      await expect.poll(() => error.textContent()).toContain('did not accept this token');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await field.evaluate((el) => el === document.activeElement)).toBe(true);
      await screenshot(page, 'production-signin-refused');

      // The user token from the identity provider (here: signUserToken, as `npm run token` makes it); keyboard only.
      const token = await signUserToken({
        sub: 'operator',
        tenantId: 'acme',
        roles: [],
        ...jwt,
        expiresInSeconds: 3600,
      });
      await field.fill(token);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => window.__hub?.state() === 'connected');
      expect(await page.textContent('.tenant')).toBe('acme');
      expect(await page.textContent('.account .who')).toBe('operator');
      expect(auth).toEqual(expect.arrayContaining(['POST /auth/session 204', 'GET /auth/token 200']));
      const cookie = (await page.context().cookies()).find((c) => c.name === 'hub_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      // The pasted token itself is not kept: the hub mints short-lived ones from the session.
      const stored = await page.evaluate(() => ({
        session: sessionStorage.length,
        local: JSON.stringify(localStorage),
      }));
      expect(stored.session).toBe(0);
      expect(stored.local).not.toContain('eyJ');
      await page.waitForFunction(() => document.querySelectorAll('li.device').length === 2);
      await page.click('li[data-id="line-1"] button');
      await page.waitForSelector('.chart-card .uplot');
      const first = await latestValue(page, 'line-1');
      await expect.poll(() => latestValue(page, 'line-1'), { timeout: 5000 }).not.toBe(first);
      await screenshot(page, 'production-signed-in');

      // A reload keeps the session (the cookie), without the panel.
      await page.reload();
      await page.waitForFunction(() => window.__hub?.state() === 'connected');
      expect(await page.locator('.signin-required').count()).toBe(0);

      // Sign out: the cookie is gone and the panel is back.
      await page.getByRole('button', { name: /^Sign out/ }).click();
      await page.locator('.signin-required').waitFor();
      expect((await page.context().cookies()).some((c) => c.name === 'hub_session')).toBe(false);
      expect(auth).toContain('DELETE /auth/session 204');
    } finally {
      stream.stop();
      await prodDevices.close();
      await prod.stop();
    }
  }, 30_000);

  it('a refused session links to the sign-in page, which brings the dashboard back', async () => {
    const page = await newPage();
    await page.context().addCookies([{ name: 'hub_session', value: 'forged.value', url: hub.url }]);
    await page.goto(hub.url);
    await page.waitForSelector('.signin-required');
    expect(await page.textContent('.signin-required')).toContain('refused your session (HTTP 401)');
    await screenshot(page, 'session-refused');
    await page.click('.signin-required a');
    await page.waitForURL(/\/auth\/signin/);
    await Promise.all([page.waitForURL(`${hub.url}/`), page.click('button[type=submit]')]);
    await page.waitForFunction(() => window.__hub?.state() === 'connected');
    expect(await page.textContent('.tenant')).toBe('demo');
  });

  // Last in the file, so it rarely shares the CPU with the other browser suite (2 cores); one retry for a
  // starved run: a page that really cannot keep up fails both.
  /** Frame statistics are sampled over this long: a measurement window, not a wait for an event. */
  const MEASURE_MS = 5000;
  it('stays responsive with 200 followed readings/s (4 devices × 50/s)', { retry: 1 }, async () => {
    const ids = ['fast-1', 'fast-2', 'fast-3', 'fast-4'];
    // Wide enough that all four charts are on screen: charts off screen are not drawn, so this is the worst case.
    const page = await newPage({ mode: 'socket', followed: ids, windowMs: 60_000 }, { width: 1920, height: 1080 });
    let frames = 0;
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => String(payload).includes('["reading"') && frames++),
    );
    const stream = devices.stream('demo', ids, 50);
    try {
      await page.goto(hub.url);
      await page.waitForFunction(() => window.__hub?.state() === 'connected');
      await page.waitForFunction(() => document.querySelectorAll('.chart-card .uplot').length === 4);
      // Warmed up once a second's worth of readings arrived; then the measurement window.
      await expect.poll(() => frames, { timeout: 10_000 }).toBeGreaterThan(200);
      await page.evaluate(() => window.__hub!.resetFrameStats());
      const before = { frames, sent: stream.sent, at: Date.now() };
      await page.waitForTimeout(MEASURE_MS);
      const stats = await page.evaluate(() => window.__hub!.frameStats());
      const seconds = (Date.now() - before.at) / 1000;
      const received = (frames - before.frames) / seconds;
      const sent = (stream.sent - before.sent) / seconds;
      console.log(
        'frame stats under load',
        JSON.stringify({ ...stats, seconds, sentPerSecond: sent, receivedPerSecond: received }),
      );
      await screenshot(page, 'load-4x50');
      // Under CPU contention the hub may conflate (newest reading per device wins): most must still arrive.
      expect(received).toBeGreaterThan(100);
      // ~60 fps is normal (p95 16.7 ms); a page that freezes or does per-reading work fails these by far.
      expect(stats.frames).toBeGreaterThan(seconds * 20);
      expect(stats.longestFrameMs).toBeLessThan(200);
      expect(stats.p95FrameMs).toBeLessThan(100);
    } finally {
      stream.stop();
    }
  });
});
