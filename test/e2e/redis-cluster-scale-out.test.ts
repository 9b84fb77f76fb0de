import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readingMessage } from '../../src/wire/outbound-message.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import {
  clusterCommandsPresent,
  privateRedisCluster,
  type PrivateRedisCluster,
} from '../support/private-redis-cluster.js';

describe('scale-out across two instances over a Redis Cluster (Redis:Cluster=true)', () => {
  let cluster: PrivateRedisCluster | undefined;
  const apps: RunningApp[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    if (!clusterCommandsPresent()) return;
    cluster = await privateRedisCluster();
    for (let i = 0; i < 2; i++)
      apps.push(
        await startApp([`--ConnectionStrings:redis=${cluster.url}`, '--Redis:Cluster=true', '--Hub:Name=sharded']),
      );
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const app of apps) await app.stop();
    await cluster?.stop();
  });

  it('both instances turn ready, and a group send on one reaches a subscriber on the other', async ({ skip }) => {
    if (cluster === undefined) return skip();
    const [a, b] = apps as [RunningApp, RunningApp];
    for (const app of apps)
      await eventually(async () => (await fetch(`${app.url}/health/ready`)).status === 200, 10_000, 'ready');
    const socket = await connectTelemetry(b.url, await userToken('sharded'));
    sockets.push(socket);
    await socket.emitWithAck('subscribe', { deviceId: 'x1' });
    const got: unknown[] = [];
    socket.on('reading', (r) => got.push(r));
    const data = { tenantId: 'sharded', deviceId: 'x1', seq: 1, ts: 1, receivedAt: 1, data: { via: 'a' } };
    a.app.telemetry.hub.sendToGroup('device:sharded:x1', readingMessage(data));
    await eventually(() => got.length === 1, 5000, 'the send from the other instance');
    expect(got[0]).toEqual(data);
  });
});
