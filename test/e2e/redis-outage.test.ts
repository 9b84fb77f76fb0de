import mqtt from 'mqtt';
import type { Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { readingMessage } from '../../src/wire/outbound-message.js';
import { waitFor } from '../adapters/eventhubs/wait-for.js';
import { startChildHub } from '../support/child-hub.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { privateRedis, redisUrl, requireCommand, type PrivateServer } from '../support/private-server.js';
import { requireService } from '../support/services.js';

/** Reconnects back off to one attempt per 5 s (bounded-redis-options): recovery within that and some. */
const RECOVERY_MS = 15_000;

interface Check {
  name: string;
  status: string;
  description?: string;
}

async function ready(app: RunningApp): Promise<{ status: number; checks: Check[] }> {
  const res = await fetch(`${app.url}/health/ready`);
  const body = (await res.json()) as { checks: Check[] };
  return { status: res.status, checks: body.checks };
}

const redisCheck = (checks: Check[]) => checks.find((c) => c.name === 'redis');

describe('issue 14: a Redis that is down or lost is survived, never amplified', () => {
  const available = requireCommand('redis-server', 'needed to stop and restart a private Redis');
  let redis: PrivateServer | undefined;
  const apps: RunningApp[] = [];
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.close();
    for (const app of apps.splice(0)) await app.stop();
    await redis?.stop();
    redis = undefined;
  });

  async function twoInstances(url: string): Promise<[RunningApp, RunningApp]> {
    const hubName = `outage${process.pid}x${Date.now().toString(36)}`;
    for (let i = 0; i < 2; i++)
      apps.push(await startApp([`--ConnectionStrings:redis=${url}`, `--Hub:Name=${hubName}`]));
    return apps as [RunningApp, RunningApp];
  }

  /** A socket.io client on `app` subscribed to device `deviceId` of tenant `t`, and what it received. */
  async function subscriber(app: RunningApp, deviceId: string): Promise<unknown[]> {
    const socket = await connectTelemetry(app.url, await userToken('t'));
    sockets.push(socket);
    await socket.emitWithAck('subscribe', { deviceId });
    const got: unknown[] = [];
    socket.on('reading', (r) => got.push(r));
    return got;
  }

  const reading = (deviceId: string, seq: number) => ({
    tenantId: 't',
    deviceId,
    seq,
    ts: seq,
    receivedAt: seq,
    data: { seq },
  });

  it('Redis down at start: the hub starts live and unready naming redis, then serves across instances once Redis is up, without a restart', async ({
    skip,
  }) => {
    if (!available) return skip();
    redis = await privateRedis();
    const [a, b] = await twoInstances(redisUrl(redis));

    expect((await fetch(`${a.url}/health/live`)).status).toBe(200);
    const before = await ready(a);
    expect(before.status).toBe(503);
    expect(redisCheck(before.checks)).toMatchObject({ status: 'Unhealthy' });
    expect(redisCheck(before.checks)?.description).toMatch(/redis/);

    await redis.start();
    for (const app of [a, b])
      await waitFor('ready 200 once Redis is up', async () => (await ready(app)).status === 200, RECOVERY_MS);

    const got = await subscriber(b, 'd1');
    a.app.telemetry.hub.sendToGroup('device:t:d1', readingMessage(reading('d1', 1)));
    await eventually(() => got.length === 1, 3000, 'the reading sent on A at the client on B');
    expect(got[0]).toEqual(reading('d1', 1));
  }, 40_000);

  it('the built hub as a process, Redis down at start: it keeps running (no exit 1), unready until Redis is up, and logs its instance id', async ({
    skip,
  }) => {
    if (!available) return skip();
    redis = await privateRedis();
    const hub = await startChildHub([
      '--environment=Development',
      '--Http:Port=0',
      '--Ingestion:Mqtt:EmbeddedPort=0',
      `--ConnectionStrings:redis=${redisUrl(redis)}`,
      '--Hub:InstanceId=proc-1',
    ]);
    try {
      expect((await fetch(`${hub.url}/health/live`)).status).toBe(200);
      expect((await fetch(`${hub.url}/health/ready`)).status).toBe(503);
      await redis.start();
      await waitFor(
        'ready 200 once Redis is up',
        async () => (await fetch(`${hub.url}/health/ready`)).status === 200,
        RECOVERY_MS,
      );
      expect(hub.child.exitCode).toBeNull();
      await waitFor(
        'the ready line with the instance id',
        () => /telemetry hub ready/.test(hub.output()) && /proc-1/.test(hub.output()),
        5000,
      );
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  }, 40_000);

  it('Redis lost while running: both unready, local delivery continues, cross-instance delivery resumes when Redis returns', async ({
    skip,
  }) => {
    if (!available) return skip();
    redis = await privateRedis();
    await redis.start();
    const [a, b] = await twoInstances(redisUrl(redis));
    for (const app of [a, b]) await waitFor('ready 200', async () => (await ready(app)).status === 200, RECOVERY_MS);
    const onA = await subscriber(a, 'd2');
    const onB = await subscriber(b, 'd2');

    a.app.telemetry.hub.sendToGroup('device:t:d2', readingMessage(reading('d2', 1)));
    await eventually(() => onA.length === 1 && onB.length === 1, 3000, 'the first reading on both instances');

    await redis.stop();
    for (const app of [a, b]) {
      await waitFor(
        'ready 503 naming redis',
        async () => {
          const r = await ready(app);
          return r.status === 503 && redisCheck(r.checks)?.status === 'Unhealthy';
        },
        RECOVERY_MS,
      );
    }
    expect((await fetch(`${a.url}/health/live`)).status).toBe(200);
    // Local delivery does not depend on Redis: a reading from an MQTT source goes to this instance's clients.
    a.app.telemetry.hub.publishReading(reading('d2', 2));
    a.app.telemetry.hub.sendToGroup('device:t:d2', readingMessage(reading('d2', 3)));
    await eventually(() => onA.length === 3, 3000, 'local readings on A while Redis is down');

    await redis.start();
    for (const app of [a, b])
      await waitFor('ready 200 once Redis is back', async () => (await ready(app)).status === 200, RECOVERY_MS);
    const seen = onB.length;
    a.app.telemetry.hub.sendToGroup('device:t:d2', readingMessage(reading('d2', 4)));
    await eventually(() => onB.length > seen, 3000, 'cross-instance delivery after Redis returned');
    expect(onB.at(-1)).toEqual(reading('d2', 4));
    expect(onA.at(-1)).toEqual(reading('d2', 4));
  }, 60_000);

  it('Redis restarted mid-run with MQTT readings flowing: the lease is taken again, cross-instance delivery resumes, and seq goes on increasing', async ({
    skip,
  }) => {
    if (!available || !(await requireService('Mosquitto', 1883))) return skip();
    redis = await privateRedis();
    await redis.start();
    const hubName = `restart${process.pid}x${Date.now().toString(36)}`;
    for (let i = 0; i < 2; i++) {
      apps.push(
        await startApp([
          `--ConnectionStrings:redis=${redisUrl(redis)}`,
          `--Hub:Name=${hubName}`,
          '--ConnectionStrings:mqtt=mqtt://127.0.0.1:1883',
          '--Cluster:IngestLeaseSeconds=1',
        ]),
      );
    }
    const [a, b] = apps as [RunningApp, RunningApp];
    await eventually(
      () => a.app.telemetry.leases!.some((l) => l.held) && a.app.telemetry.ingestion.connected,
      10_000,
      'A ingesting',
    );
    const onB: { seq: number; data: { n: number } }[] = [];
    const socket = await connectTelemetry(b.url, await userToken('t'));
    sockets.push(socket);
    await socket.emitWithAck('subscribe', { deviceId: 'r1' });
    socket.on('reading', (r: { seq: number; data: { n: number } }) => onB.push(r));
    const device = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { clientId: `restart-dev-${hubName}` });
    const publish = (n: number) =>
      device.publishAsync('tenants/t/devices/r1/telemetry', JSON.stringify({ n }), { qos: 1 });
    try {
      await publish(1);
      await eventually(() => onB.length === 1, 10_000, 'reading 1 on B');

      await redis.stop();
      await redis.start();
      // A Redis that restarted empty: the lease is free and taken again, the subscriptions come back.
      for (const app of [a, b])
        await waitFor('ready 200 once Redis is back', async () => (await ready(app)).status === 200, RECOVERY_MS);
      await eventually(
        () => apps.some((app) => app.app.telemetry.leases!.some((l) => l.held)),
        10_000,
        'an ingester again',
      );
      for (let n = 2; n <= 3; n++) {
        await publish(n);
        await eventually(() => onB.some((r) => r.data.n === n), 10_000, `reading ${n} on B after the restart`);
      }
      // Redis lost the counter; the ingester raised it to its own last seq instead of starting over.
      const seqs = onB.map((r) => r.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(seqs.length);
    } finally {
      await device.endAsync();
      // The cluster's persistent session on the shared broker.
      await (
        await mqtt.connectAsync('mqtt://127.0.0.1:1883', {
          protocolVersion: 5,
          clientId: a.app.config.mqtt.clientId,
          clean: true,
          reconnectPeriod: 0,
        })
      ).endAsync();
    }
  }, 60_000);
});
