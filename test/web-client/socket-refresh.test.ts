import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Reading } from '../../src/wire/reading';
import { signUserToken } from '../../src/host/security/jwt-bearer';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../src/host/security/dev-defaults';
import { SocketConnection } from '../../web-client/src/connection/socket-connection';
import { eventually, startApp, type RunningApp } from '../support/app-harness';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';
import { DeviceFleet } from '../support/mqtt-device';

/**
 * The dashboard's socket.io connection against the real hub: before its token expires it fetches a
 * fresh one and emits `refresh` on the same socket, so the live view neither reconnects nor stops.
 * The hub and the dashboard's refresh share one manual clock; no browser is needed.
 */
describe('dashboard, Socket mode: token refresh on the live socket', () => {
  const clock = new ManualClock(Date.now());
  let hub: RunningApp;
  let device: DeviceFleet;
  let conn: SocketConnection | undefined;

  beforeAll(async () => {
    hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000', '--Auth:Jwt:ClockSkewSeconds=0'], undefined, clock);
    device = new DeviceFleet(hub.brokerUrl!);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
    // The few browser globals the connection touches.
    vi.stubGlobal('window', globalThis);
    vi.stubGlobal('addEventListener', () => undefined);
    vi.stubGlobal('removeEventListener', () => undefined);
    vi.stubGlobal('navigator', { onLine: true });
  });
  afterEach(() => conn?.close());
  afterAll(async () => {
    vi.unstubAllGlobals();
    await device?.endAsync();
    await hub?.stop();
  });

  it('keeps the same socket past the first token expiry and keeps delivering readings', async () => {
    clock.setWallTime(Date.now());
    const requests: boolean[] = [];
    const getToken = async (refresh: boolean) => {
      requests.push(refresh);
      // The first token lasts a minute; renewed ones ten.
      const expiresInSeconds = requests.length === 1 ? 60 : 600;
      return signUserToken({
        sub: 'alice',
        tenantId: 't1',
        secret: DEV_JWT_SECRET,
        issuer: DEV_JWT_ISSUER,
        audience: DEV_JWT_AUDIENCE,
        expiresInSeconds,
        now: clock.now(),
      });
    };
    // The refresh's waits, on the hub's clock.
    const waits: number[] = [];
    const refreshTimers = {
      now: () => clock.now(),
      setTimeout: (fn: () => void, ms: number) => (waits.push(ms), clock.setTimeout(fn, ms)),
      clearTimeout: (handle: unknown) => clock.clearTimeout(handle as ReturnType<ManualClock['setTimeout']>),
    };
    conn = new SocketConnection({ getToken, origin: hub.url, refreshTimers });
    const states: string[] = [];
    const readings: Reading[] = [];
    conn.on('state', (state, detail) => states.push(`${state}:${detail}`));
    conn.on('reading', (r) => readings.push(r));
    conn.start();
    await eventually(() => conn!.state === 'connected', 5000, 'connected');
    conn.subscribe('ref-dev');
    await eventually(() => hub.app.telemetry.hub.membersOf('device:t1:ref-dev').length === 1, 5000, 'subscribed');
    const [member] = hub.app.telemetry.hub.membersOf('device:t1:ref-dev');

    // A one-minute token is refreshed half-way.
    clock.advance(31_000);
    await eventually(() => requests.length === 2, 5000, 'a fresh token fetched');
    expect(requests).toEqual([false, true]);
    // The hub's ack: the next refresh is scheduled a minute before the new token's expiry.
    await eventually(() => waits.length === 2, 5000, 'refresh acked');
    expect(waits[0]).toBeGreaterThan(29_000);
    expect(waits[0]).toBeLessThanOrEqual(30_000);
    expect(waits[1]).toBeGreaterThan(600_000 - 31_000 - 60_000 - 1_000);

    clock.advance(40_000); // past the first token's expiry
    await device.publishAsync('tenants/t1/devices/ref-dev/telemetry', JSON.stringify({ n: 1 }), { qos: 1 });
    await eventually(() => readings.length === 1, 5000, 'a reading after the old expiry');
    expect(hub.app.telemetry.hub.membersOf('device:t1:ref-dev')).toEqual([member]);
    expect(states).toEqual(['connected:socket.io']);
    expect(conn.state).toBe('connected');
  });
});
