import mqtt, { type MqttClient } from 'mqtt';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOfTopic } from '../../src/realtime/ingest-partitions.js';
import { telemetryTopic } from '../../src/wire/telemetry-topic.js';
import { connectTelemetry, eventually, userToken } from '../support/app-harness.js';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { removeClusterState } from '../support/cluster-state.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/postgres.js';
import { requireService } from '../support/services.js';

/**
 * Issue 31 item 1: three hub processes share the reading of one Mosquitto, a partition of the
 * devices each, and a device's readings keep their order and one `seq` while partitions move (an
 * instance added, one killed): nothing lost, nothing repeated.
 */
const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const run = `${process.pid}${Date.now().toString(36)}`;
const hubName = `partitions${run}`;
const PARTITIONS = 3;
const LEASE_SECONDS = 2;
const tenant = `parts-${run}`;
/** Nine devices, three in each partition. */
const devices = pickDevices();

interface WireReading {
  deviceId: string;
  seq: number;
  data: { n: number };
}

function pickDevices(): string[] {
  const picked: string[][] = [[], [], []];
  for (let i = 0; picked.some((p) => p.length < 3); i++) {
    const id = `d${i}`;
    const p = picked[partitionOfTopic(telemetryTopic(tenant, id), PARTITIONS)]!;
    if (p.length < 3) p.push(id);
  }
  return picked.flat();
}

/** The partitions a hub holds now, from its lease log lines (Development's pretty log: the key a line below). */
function heldBy(hub: ChildHub): number[] {
  const held = new Set<number>();
  const lines = hub.output().split('\n');
  lines.forEach((line, i) => {
    const acquired = line.includes('ingest lease acquired');
    if (!acquired && !line.includes('ingest lease lost')) return;
    const partition = lines
      .slice(i + 1, i + 6)
      .map((l) => /key: "[^"]*ingest-lease:p(\d+)of\d+"/.exec(l)?.[1])
      .find((p) => p !== undefined);
    if (partition === undefined) return;
    if (acquired) held.add(Number(partition));
    else held.delete(Number(partition));
  });
  return [...held].sort();
}

describe('issue 31: ingestion partitioned over three instances', () => {
  let available = false;
  let db: TestDatabase | undefined;
  const hubs: ChildHub[] = [];
  const sockets: Socket[] = [];
  let device: MqttClient;
  let args: string[] = [];

  beforeAll(async () => {
    available =
      (await requireService('Redis', 6379)) &&
      (await requireService('Mosquitto', 1883)) &&
      (await requireService('PostgreSQL', 5432));
    if (!available) return;
    db = await createMigratedTestDatabase('hub_partitions');
    args = [
      '--environment=Development',
      '--Http:Port=0',
      '--Simulator:Devices=0',
      '--ConnectionStrings:redis=redis://127.0.0.1:6379',
      `--ConnectionStrings:mqtt=${MOSQUITTO}`,
      `--ConnectionStrings:postgres=${db.url}`,
      '--History:Enabled=true',
      `--Hub:Name=${hubName}`,
      `--Cluster:IngestPartitions=${PARTITIONS}`,
      `--Cluster:IngestLeaseSeconds=${LEASE_SECONDS}`,
      // Readings the broker kept for a moving partition arrive back to back: none is conflated.
      '--Throttle:MaxPerSecondPerDevice=1000',
    ];
    for (let i = 0; i < 2; i++) hubs.push(await startChildHub(args, {}, 60_000));
    device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `parts-dev-${run}` });
  }, 200_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await device?.endAsync();
    await Promise.all(hubs.map((h) => h.stop()));
    if (!available) return;
    // The partitions' persistent sessions and the shared state.
    await removeClusterState({
      mqttUrl: MOSQUITTO,
      clientIds: Array.from({ length: PARTITIONS }, (_, p) => `telemetry-hub-${hubName}-p${p}of${PARTITIONS}`),
      hubName,
    });
    await db?.drop();
  }, 60_000);

  /** A socket.io client on `hub` following every device: what it got per device, in order. */
  async function follow(hub: ChildHub): Promise<Map<string, WireReading[]>> {
    const socket = await connectTelemetry(hub.url, await userToken(tenant));
    sockets.push(socket);
    const got = new Map(devices.map((d) => [d, [] as WireReading[]]));
    socket.on('reading', (r: WireReading) => got.get(r.deviceId)?.push(r));
    for (const deviceId of devices) {
      const ack = (await socket.emitWithAck('subscribe', { deviceId })) as { ok: boolean };
      expect(ack.ok).toBe(true);
    }
    return got;
  }

  it('an instance added takes its share, a killed one’s partitions move to the others; every device keeps its order and one seq, nothing lost or repeated', async ({
    skip,
  }) => {
    if (!available) return skip();
    const [a, b] = hubs as [ChildHub, ChildHub];
    await eventually(
      () => heldBy(a).length + heldBy(b).length === 3 && heldBy(a).length >= 1 && heldBy(b).length >= 1,
      30_000,
      'two instances sharing the three partitions',
    );
    const onB = await follow(b);
    const published = new Map(devices.map((d) => [d, 0]));
    let publishing = true;
    // Each device a reading every 100 ms, QoS 1: the broker keeps a moving partition's readings.
    const load = (async () => {
      while (publishing) {
        await Promise.all(
          devices.map((d) => {
            const n = published.get(d)! + 1;
            published.set(d, n);
            return device.publishAsync(telemetryTopic(tenant, d), JSON.stringify({ n }), { qos: 1 });
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await eventually(() => [...onB.values()].every((r) => r.length >= 5), 20_000, 'readings of every device on B');

    // A third instance: each ends up with one partition.
    const c = await startChildHub(args, {}, 60_000);
    hubs.push(c);
    await eventually(
      () => [a, b, c].every((h) => heldBy(h).length === 1),
      30_000,
      'one partition each once the third instance joined',
    );
    const onC = await follow(c);
    await eventually(() => [...onC.values()].every((r) => r.length >= 5), 20_000, 'readings of every device on C');

    // kill -9 of A: its partition goes to B or C once its lease runs out.
    const fromA = heldBy(a)[0]!;
    a.child.kill('SIGKILL');
    await eventually(
      () => heldBy(b).length + heldBy(c).length === 3,
      LEASE_SECONDS * 1000 * 3 + 15_000,
      "A's partition taken over",
    );
    expect([...heldBy(b), ...heldBy(c)]).toContain(fromA);
    const atTakeover = new Map(published);
    await eventually(
      () => devices.every((d) => onB.get(d)!.some((r) => r.data.n > atTakeover.get(d)! + 5)),
      20_000,
      'readings published after the takeover',
    );
    publishing = false;
    await load;
    await eventually(
      () => devices.every((d) => [onB, onC].every((on) => on.get(d)!.at(-1)?.data.n === published.get(d))),
      20_000,
      'every device’s last reading on B and C',
    );

    const history = await storedReadings(b);
    for (const d of devices) {
      const live = onB.get(d)!;
      const seqs = live.map((r) => r.seq);
      const ns = live.map((r) => r.data.n);
      // Order and one seq: both strictly increasing on B, across the join and the kill.
      expect(seqs, d).toEqual([...new Set(seqs)].sort((x, y) => x - y));
      expect(ns, d).toEqual([...new Set(ns)].sort((x, y) => x - y));
      // C got, from when it followed, exactly what B got: the same readings with the same seq.
      const fromC = onC.get(d)!;
      expect(
        fromC.map((r) => [r.seq, r.data.n]),
        d,
      ).toEqual(live.filter((r) => r.seq >= fromC[0]!.seq).map((r) => [r.seq, r.data.n]));
      // Nothing lost: every reading published reached the cluster, delivered live or stored. (A
      // killed ingester's last readings may be missing from the history it had not committed yet,
      // never from the readings it published.)
      const reached = new Set([...ns, ...history.get(d)!.map((r) => r.data.n)]);
      const first = ns[0]!;
      for (let n = first; n <= published.get(d)!; n++) expect(reached.has(n), `${d} reading ${n}`).toBe(true);
      // The history has one seq per reading, the one delivered live.
      const liveSeq = new Map(live.map((r) => [r.data.n, r.seq]));
      for (const stored of history.get(d)!)
        if (liveSeq.has(stored.data.n))
          expect(stored.seq, `${d} reading ${stored.data.n}`).toBe(liveSeq.get(stored.data.n));
    }
  }, 180_000);

  it('the last instance to stop ends every partition’s broker session, also of partitions nobody held at that moment', async ({
    skip,
  }) => {
    if (!available) return skip();
    const [, b, c] = hubs as [ChildHub, ChildHub, ChildHub];
    // B's partitions are free when C stops right after it: C never held them.
    expect(await b.stop()).toBe(0);
    expect(await c.stop()).toBe(0);
    expect(c.output()).toMatch(/mqtt partition sessions ended/);
    for (let p = 0; p < PARTITIONS; p++) {
      const probe = mqtt.connect(MOSQUITTO, {
        protocolVersion: 5,
        clientId: `telemetry-hub-${hubName}-p${p}of${PARTITIONS}`,
        clean: false,
        properties: { sessionExpiryInterval: 0 },
        reconnectPeriod: 0,
      });
      const present = await new Promise<boolean>((resolve, reject) => {
        probe.once('connect', (connack) => resolve(connack.sessionPresent));
        probe.once('error', reject);
      });
      await probe.endAsync();
      expect(present, `partition ${p}'s session`).toBe(false);
    }
  }, 60_000);

  async function storedReadings(hub: ChildHub): Promise<Map<string, WireReading[]>> {
    const token = await userToken(tenant);
    const stored = new Map<string, WireReading[]>();
    for (const d of devices) {
      const items: WireReading[] = [];
      let cursor: string | null = null;
      do {
        const url = `${hub.url}/v1/devices/${d}/readings?order=asc&limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        const page = (await res.json()) as { items: WireReading[]; nextCursor: string | null };
        items.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor !== null);
      stored.set(d, items);
    }
    return stored;
  }
});
