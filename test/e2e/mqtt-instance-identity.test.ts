import mqtt from 'mqtt';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { requireService } from '../support/services.js';

const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const run = `${process.pid}-${Date.now().toString(36)}`;

describe('issue 14: each hub instance has its own identity, and its own MQTT session', () => {
  let available = false;
  const cleanup: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    available = (await requireService('Redis', 6379)) && (await requireService('Mosquitto', 1883));
  });

  afterEach(async () => {
    while (cleanup.length) await cleanup.pop()!().catch(() => undefined);
  });

  async function hub(args: string[]): Promise<RunningApp> {
    const app = await startApp([
      `--ConnectionStrings:mqtt=${MOSQUITTO}`,
      '--Throttle:MaxPerSecondPerDevice=1000',
      ...args,
    ]);
    cleanup.push(() => app.stop());
    await eventually(() => app.app.telemetry.ingestion.connected, 5000, 'connected to mosquitto');
    // Drop the persistent session afterwards, so the shared broker does not queue readings for it.
    const clientId = app.app.config.mqtt.clientId;
    cleanup.unshift(async () =>
      (
        await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId, clean: true, reconnectPeriod: 0 })
      ).endAsync(),
    );
    return app;
  }

  it('two instances on one machine sharing Redis and Mosquitto, with defaults: distinct instance ids, one cluster client id that only the ingest lease holder connects with, and a subscriber gets every reading', async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `id-${run}`;
    const hubName = `ident${run.replace(/[^A-Za-z0-9]/g, '')}`;
    const [a, b] = [
      await hub(['--ConnectionStrings:redis=redis://127.0.0.1:6379', `--Hub:Name=${hubName}`]),
      await hub(['--ConnectionStrings:redis=redis://127.0.0.1:6379', `--Hub:Name=${hubName}`]),
    ];
    expect(a.app.config.hub.instanceId).not.toBe(b.app.config.hub.instanceId);
    // One session for the cluster, so the next ingester inherits what the broker queued for it.
    expect(a.app.config.mqtt.clientId).toBe(`telemetry-hub-${hubName}`);
    expect(b.app.config.mqtt.clientId).toBe(a.app.config.mqtt.clientId);
    // Logged at start: the instance id on the ready line, the client id on the broker's, by A alone
    // (it started first and holds the lease; B stands by and never takes the session from it).
    expect(a.logs).toContainEqual(
      expect.objectContaining({ msg: 'telemetry hub ready', instanceId: a.app.config.hub.instanceId }),
    );
    expect(a.logs).toContainEqual(
      expect.objectContaining({ msg: 'mqtt connected', clientId: a.app.config.mqtt.clientId }),
    );
    expect(b.logs.filter((l) => l.msg === 'mqtt connected')).toEqual([]);

    const socket = await connectTelemetry(b.url, await userToken(tenant));
    cleanup.push(async () => socket.close());
    await socket.emitWithAck('subscribe', { deviceId: 'd1' });
    const got: { data: { n: number } }[] = [];
    socket.on('reading', (r: { data: { n: number } }) => got.push(r));
    const device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `devid-${run}` });
    cleanup.push(() => device.endAsync());
    // One at a time, each awaited at the subscriber: the readings span the time instances sharing a
    // client id need to take the session from each other, and a lost one fails here by name.
    for (let n = 1; n <= 5; n++) {
      await device.publishAsync(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ n }), { qos: 1 });
      await eventually(() => got.some((r) => r.data.n === n), 5000, `reading ${n} at the subscriber on B`);
    }
    expect(got.map((r) => r.data.n)).toEqual([1, 2, 3, 4, 5]);
    // Neither instance lost its session to the other.
    for (const app of [a, b]) expect(app.logs.filter((l) => l.msg === 'mqtt offline')).toEqual([]);
  }, 60_000);

  it('an explicit Hub:InstanceId gives the same client id across a restart, so a QoS 1 persistent session survives it', async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `ip-${run}`;
    const instanceId = `hub-${run}`;
    const first = await hub([`--Hub:InstanceId=${instanceId}`]);
    expect(first.app.config.hub.instanceId).toBe(instanceId);
    const clientId = first.app.config.mqtt.clientId;
    expect(clientId).toBe(`telemetry-hub-${instanceId}`);
    await first.stop();

    const device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `devip-${run}` });
    cleanup.push(() => device.endAsync());
    for (let n = 0; n < 3; n++)
      await device.publishAsync(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ n }), { qos: 1 });

    const second = await hub([`--Hub:InstanceId=${instanceId}`]);
    expect(second.app.config.mqtt.clientId).toBe(clientId);
    await eventually(
      () => second.app.telemetry.registry.last(tenant, 'd1')?.data.n === 2,
      5000,
      'readings published while the instance was down',
    );
    expect(second.app.telemetry.registry.last(tenant, 'd1')?.seq).toBe(3);
    expect(second.logs).toContainEqual(expect.objectContaining({ msg: 'mqtt connected', sessionPresent: true }));
  });

  it('refuses an instance id that cannot name an MQTT client', async () => {
    await expect(startApp(['--Hub:InstanceId=has space'])).rejects.toThrow(/Hub:InstanceId/);
  });
});
