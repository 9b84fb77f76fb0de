import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../adapters/eventhubs/wait-for.js';
import { startApp, type RunningApp } from '../support/app-harness.js';
import { privateMosquitto, requireCommand, type PrivateServer } from '../support/private-server.js';

/** The MQTT source's reconnect backoff grows from 0.5 s; a few attempts fit in this. */
const RECOVERY_MS = 20_000;

interface Check {
  name: string;
  status: string;
}

async function ready(app: RunningApp): Promise<{ status: number; checks: Check[] }> {
  const res = await fetch(`${app.url}/health/ready`);
  return { status: res.status, checks: ((await res.json()) as { checks: Check[] }).checks };
}

const ingestionUnhealthy = async (app: RunningApp) => {
  const r = await ready(app);
  return r.status === 503 && r.checks.some((c) => c.name === 'ingestion' && c.status === 'Unhealthy');
};

describe('issue 14: an external MQTT broker that is down or lost is survived', () => {
  const available = requireCommand('mosquitto', 'needed to stop and restart a private broker');
  let broker: PrivateServer | undefined;
  let app: RunningApp | undefined;

  afterEach(async () => {
    await app?.stop();
    await broker?.stop();
    app = broker = undefined;
  });

  it('down at start: live and unready naming ingestion; lost while running: the same; back: ready and readings flow, without a restart', async ({
    skip,
  }) => {
    if (!available) return skip();
    broker = await privateMosquitto();
    const url = `mqtt://127.0.0.1:${broker.port}`;
    app = await startApp([`--ConnectionStrings:mqtt=${url}`, '--Throttle:MaxPerSecondPerDevice=1000']);
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
    expect(await ingestionUnhealthy(app)).toBe(true);

    await broker.start();
    await waitFor('ready 200 once the broker is up', async () => (await ready(app!)).status === 200, RECOVERY_MS);

    await broker.stop();
    await waitFor('ready 503 naming ingestion once the broker is lost', () => ingestionUnhealthy(app!), RECOVERY_MS);
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);

    await broker.start();
    await waitFor('ready 200 once the broker is back', async () => (await ready(app!)).status === 200, RECOVERY_MS);
    const device = await mqtt.connectAsync(url, { protocolVersion: 5, clientId: 'outage-device' });
    await device.publishAsync('tenants/t/devices/d1/telemetry', JSON.stringify({ back: true }), { qos: 1 });
    await device.endAsync();
    await waitFor(
      'a reading through the returned broker',
      () => app!.app.telemetry.registry.last('t', 'd1')?.data['back'] === true,
      5000,
    );
  }, 60_000);
});
