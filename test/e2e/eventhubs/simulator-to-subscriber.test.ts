import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type RunningApp } from '../../support/app-harness.js';
import type { EventHubsPeer } from '../../support/eventhubs-peer/eventhubs-peer.js';
import { startHub, startPeer, subscribe, type Subscriber } from './e2e-support.js';

const CLI = fileURLToPath(new URL('../../../dist/src/simulator/cli.js', import.meta.url));
const PARTITIONS = 2;
const DEVICES = ['sim-001', 'sim-002', 'sim-003'];

describe('Event Hubs end to end: simulator CLI (real process) → Event Hubs → hub → socket.io', () => {
  let peer: EventHubsPeer;
  let hub: RunningApp;
  let subscriber: Subscriber | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    peer = await startPeer(PARTITIONS);
    // The simulator sends to a plain event hub, naming each device in `deviceId`: a sender this hub trusts.
    hub = await startHub(peer, 'ehcli', ['--Ingestion:EventHubs:TrustSenderDeviceId=true']);
  });
  afterAll(async () => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
    subscriber?.socket.close();
    await hub?.stop();
    await peer?.close();
  });

  it('a client subscribed to sim-001 receives the simulator readings; all three devices reach their groups', async () => {
    subscriber = await subscribe(hub, 'ehcli', DEVICES);
    child = spawn(
      process.execPath,
      [CLI, '--eventhubs', peer.connectionString, '--tenant', 'ehcli', '--devices', '3', '--rate', '5'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exit = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    try {
      // The SDK's balanced load balancing claims one partition per 10 s loop: allow for the second.
      await eventually(
        () => DEVICES.every((d) => subscriber!.of(d).length >= 3),
        20_000,
        'readings of all three devices',
      );
    } finally {
      process.kill(child.pid!, 'SIGINT');
    }
    expect(await exit).toBe(0);
    expect(out).toMatch(/→ Event Hubs/);
    const sent = Number(/sent (\d+) readings/.exec(out)?.[1]);
    expect(sent).toBeGreaterThan(0);
    expect(peer.sentCount).toBe(sent);

    const readings = subscriber.of('sim-001');
    expect(readings[0]).toMatchObject({ tenantId: 'ehcli', deviceId: 'sim-001' });
    expect(Object.keys(readings[0]!.data).sort()).toEqual(['battery', 'humidity', 'temperature']);
    // seq increases per device (rate 5/s is within the default throttle of 5/s).
    for (const d of DEVICES) {
      const seqs = subscriber.of(d).map((r) => r.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
    // Every published reading reached the pipeline: nothing lost between the CLI and the hub.
    await eventually(() => hub.app.telemetry.pipeline.stats().accepted === sent, 10_000, 'every sent reading accepted');
    // seq numbers a device's readings within its partition: the partition's last seq is its event count.
    const lastSeqOfPartition = new Map<string, number>();
    for (const d of DEVICES) {
      const partition = peer.partitionFor(d);
      lastSeqOfPartition.set(
        partition,
        Math.max(lastSeqOfPartition.get(partition) ?? 0, hub.app.telemetry.registry.last('ehcli', d)!.seq),
      );
    }
    expect([...lastSeqOfPartition.values()].reduce((a, b) => a + b, 0)).toBe(sent);
  }, 45_000);
});
