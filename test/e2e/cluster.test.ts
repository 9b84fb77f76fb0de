import { createServer, connect, type Server } from 'node:net';
import { WebPubSubServiceClient } from '@azure/web-pubsub';
import mqtt, { type MqttClient } from 'mqtt';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { removeClusterState } from '../support/cluster-state.js';
import { connectTelemetry, eventually, userToken } from '../support/app-harness.js';
import { requireService } from '../support/services.js';
import { connectClient } from '../features/serverless/serverless-harness.js';

/** A TCP load balancer of the test's own: new connections go to whichever port `target` names now. */
async function balancer(target: { port: number }): Promise<{ url: string; server: Server }> {
  const server = createServer((downstream) => {
    const upstream = connect(target.port, '127.0.0.1');
    downstream.pipe(upstream).pipe(downstream);
    upstream.on('error', () => downstream.destroy());
    downstream.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/**
 * Issue 14's done-when: three hub processes with default settings (but a short ingest lease, so
 * the failover test is quick) sharing the real Redis and Mosquitto behave as one hub.
 */
const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const run = `${process.pid}${Date.now().toString(36)}`;
const hubName = `cluster${run}`;
const LEASE_SECONDS = 3;
/** Seqs the ingester reserves per device at once: what the dying one leaves of its block is skipped. */
const SEQ_BLOCK = 50;
const ACCESS_KEY = `cluster-access-key-${run}-0123456789abcdef`;

interface WireReading {
  tenantId: string;
  deviceId: string;
  seq: number;
  data: { n: number };
}

/** A socket.io subscriber: every reading it got, in order. */
interface Subscriber {
  socket: Socket;
  got: WireReading[];
  last: WireReading | null;
}

async function subscribe(url: string, tenant: string, deviceId: string): Promise<Subscriber> {
  const socket = await connectTelemetry(url, await userToken(tenant));
  const got: WireReading[] = [];
  socket.on('reading', (r: WireReading) => got.push(r));
  const ack = (await socket.emitWithAck('subscribe', { deviceId })) as { ok: boolean; last: WireReading | null };
  expect(ack.ok).toBe(true);
  return { socket, got, last: ack.last };
}

const ns = (s: Subscriber) => s.got.map((r) => r.data.n);
const seqs = (s: Subscriber) => s.got.map((r) => r.seq);

describe('issue 14: three instances are one hub', () => {
  let available = false;
  const hubs: ChildHub[] = [];
  const sockets: Socket[] = [];
  let device: MqttClient;

  beforeAll(async () => {
    available = (await requireService('Redis', 6379)) && (await requireService('Mosquitto', 1883));
    if (!available) return;
    const args = [
      '--environment=Development',
      '--Http:Port=0',
      '--Simulator:Devices=0',
      '--ConnectionStrings:redis=redis://127.0.0.1:6379',
      `--ConnectionStrings:mqtt=${MOSQUITTO}`,
      `--Hub:Name=${hubName}`,
      `--Cluster:IngestLeaseSeconds=${LEASE_SECONDS}`,
      `--Cluster:SeqBlockSize=${SEQ_BLOCK}`,
      `--Hub:AccessKey=${ACCESS_KEY}`,
    ];
    // The first one takes the lease; the others stand by.
    // Generous start deadline: three processes start on a machine other suites may be loading.
    for (let i = 0; i < 3; i++) hubs.push(await startChildHub(args, {}, 60_000));
    await eventually(
      () => /ingest lease acquired/.test(hubs[0]!.output()) && /mqtt connected/.test(hubs[0]!.output()),
      20_000,
      'the first instance to ingest',
    );
    device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `cluster-dev-${run}` });
  }, 200_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await device?.endAsync();
    await Promise.all(hubs.map((h) => h.stop()));
    if (!available) return;
    // The cluster's persistent session and shared state.
    await removeClusterState({ mqttUrl: MOSQUITTO, clientIds: [`telemetry-hub-${hubName}`], hubName });
  }, 60_000);

  async function subscribers(tenant: string, deviceId: string, on = hubs): Promise<Subscriber[]> {
    const made = await Promise.all(on.map((h) => subscribe(h.url, tenant, deviceId)));
    sockets.push(...made.map((s) => s.socket));
    return made;
  }

  function publish(tenant: string, deviceId: string, n: number): Promise<unknown> {
    return device.publishAsync(`tenants/${tenant}/devices/${deviceId}/telemetry`, JSON.stringify({ n }), { qos: 1 });
  }

  it('every reading reaches subscribers on each instance exactly once, with the same seq everywhere', async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `once-${run}`;
    const devices = ['d1', 'd2', 'd3', 'd4'];
    const subs = new Map<string, Subscriber[]>();
    for (const d of devices) subs.set(d, await subscribers(tenant, d));
    // Each round is awaited at every subscriber before the next is published: the throttle (5/s by
    // default) then holds at most one reading a device, which it delays but never replaces. The
    // last round is the barrier: a second copy of an earlier reading would have come before it.
    for (let n = 1; n <= 5; n++) {
      await Promise.all(devices.map((d) => publish(tenant, d, n)));
      await eventually(
        () => [...subs.values()].flat().every((s) => s.got.length >= n),
        15_000,
        `round ${n} everywhere`,
      );
    }
    for (const d of devices) {
      for (const s of subs.get(d)!) {
        expect(ns(s)).toEqual([1, 2, 3, 4, 5]);
        expect(seqs(s)).toEqual([1, 2, 3, 4, 5]);
        expect(s.got.every((r) => r.tenantId === tenant && r.deviceId === d)).toBe(true);
      }
    }
  }, 60_000);

  it('the throttle holds cluster-wide: a device publishing fast reaches each group at most the limit per second, the same readings everywhere', async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `throttle-${run}`;
    const subs = await subscribers(tenant, 'fast');
    const started = Date.now();
    // 60 readings as fast as the broker takes them; the newest must arrive (the throttle conflates, never drops the latest).
    await Promise.all(Array.from({ length: 60 }, (_, i) => publish(tenant, 'fast', i + 1)));
    await eventually(() => subs.every((s) => s.got.at(-1)?.data.n === 60), 20_000, 'the newest reading everywhere');
    const seconds = (Date.now() - started) / 1000;
    for (const s of subs) {
      // 5/s by default: one at once, then one per 200 ms window; N instances each throttling would deliver N times that.
      expect(s.got.length).toBeLessThanOrEqual(Math.ceil(seconds * 5) + 1);
      expect(seqs(s)).toEqual(seqs(subs[0]!));
      expect(ns(s)).toEqual(ns(subs[0]!));
    }
    expect(subs[0]!.got.length).toBeLessThan(60);
  }, 60_000);

  it("an instance answers subscribe's last and the device list from shared state for devices it never followed", async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `shared-${run}`;
    // A follower on the ingester only, so the other instances have no reason to hear of the device.
    const [onA] = await subscribers(tenant, 'quiet', [hubs[0]!]);
    await publish(tenant, 'quiet', 7);
    await eventually(() => onA!.got.length === 1, 15_000, 'the reading on A');
    const c = hubs[2]!;
    const list = (await (
      await fetch(`${c.url}/v1/devices`, { headers: { authorization: `Bearer ${await userToken(tenant)}` } })
    ).json()) as { items: { deviceId: string; last: WireReading }[] };
    expect(list.items).toEqual([
      expect.objectContaining({ deviceId: 'quiet', last: expect.objectContaining({ seq: 1, data: { n: 7 } }) }),
    ]);
    const [onC] = await subscribers(tenant, 'quiet', [c]);
    expect(onC!.last).toMatchObject({ tenantId: tenant, deviceId: 'quiet', seq: 1, data: { n: 7 } });
  }, 60_000);

  it('the management API works whichever instance receives it: a connection on B is checked, joined to a group, listed, sent to, removed and closed through A', async ({
    skip,
  }) => {
    if (!available) return skip();
    const [a, b] = hubs as [ChildHub, ChildHub];
    const service = new WebPubSubServiceClient(`Endpoint=${a.url};AccessKey=${ACCESS_KEY};Version=1.0;`, hubName, {
      allowInsecureConnection: true,
      retryOptions: { maxRetries: 0 },
    });
    const onB = await connectClient(b.url, await userToken(`mgmt-${run}`), false);
    let disconnected = false;
    onB.client.on('disconnected', () => (disconnected = true));
    const id = onB.connectionId;

    expect(await service.connectionExists(id)).toBe(true);
    expect(await service.connectionExists('no-such-connection')).toBe(false);
    await service.group('ops').addConnection(id);
    const members: string[] = [];
    for await (const m of await service.group('ops').listConnections()) members.push(m.connectionId);
    expect(members).toEqual([id]);
    await service.group('ops').sendToAll({ to: 'group' });
    await service.sendToConnection(id, { to: 'connection' });
    await eventually(
      () => onB.group.length === 1 && onB.server.length === 1,
      15_000,
      'the group and connection sends on B',
    );
    expect(onB.group[0]!.data).toEqual({ to: 'group' });
    expect(onB.server[0]!.data).toEqual({ to: 'connection' });
    await expect(service.group('ops').addConnection('no-such-connection')).rejects.toMatchObject({ statusCode: 404 });

    await service.group('ops').removeConnection(id);
    const after: string[] = [];
    for await (const m of await service.group('ops').listConnections()) after.push(m.connectionId);
    expect(after).toEqual([]);
    await service.closeConnection(id);
    await eventually(() => disconnected, 15_000, 'the connection on B closed');
    expect(await service.connectionExists(id)).toBe(false);
    onB.client.stop();
  }, 60_000);

  it('kill -9 of the ingester under load: a standby takes over within the lease, no reading is lost, survivors get the same readings with one seq, its clients continue elsewhere with last, no other tenant sees a reading', async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `failover-${run}`;
    const [a, b, c] = hubs as [ChildHub, ChildHub, ChildHub];
    const [onA, onB, onC] = await subscribers(tenant, 'k');
    const [otherTenant] = await subscribers(`other-${run}`, 'k', [b]);
    // A Web PubSub client (the official one, reliable protocol) reaching A through a load balancer,
    // subscribing on every `connected` as the dashboard does.
    const route = { port: Number(new URL(a.url).port) };
    const lb = await balancer(route);
    const wps = await connectClient(lb.url, await userToken(tenant), true);
    const resubscribe = () => void wps.client.sendEvent('subscribe', { deviceId: 'k' }, 'json').catch(() => undefined);
    wps.client.on('connected', resubscribe);
    resubscribe();
    let n = 0;
    let publishing = true;
    // A steady device: a reading every 250 ms, under the throttle's 5/s so none is conflated, QoS 1
    // (the broker keeps them for the cluster's session while no instance ingests).
    const load = (async () => {
      while (publishing) {
        await publish(tenant, 'k', ++n);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    await eventually(() => onB!.got.length >= 3, 15_000, 'readings flowing');

    await eventually(() => wps.readings().length >= 1, 15_000, 'the Web PubSub client following k');
    const lastsBefore = wps.server.length;
    const seenBeforeKill = Math.max(...wps.readings().map((r) => r.seq));
    a.child.kill('SIGKILL');
    route.port = Number(new URL(b.url).port);
    await eventually(
      () => /ingest lease acquired/.test(b.output() + c.output()),
      LEASE_SECONDS * 1000 + 15_000,
      'a standby to take the lease',
    );
    // A's client reconnects to a survivor (as behind a load balancer) and gets last at once.
    const seenOnA = onA!.got.at(-1)!;
    const [moved] = await subscribers(tenant, 'k', [c]);
    expect(moved!.last!.seq).toBeGreaterThanOrEqual(seenOnA.seq);
    const afterKill = n;
    await eventually(() => onB!.got.some((r) => r.data.n > afterKill + 3), 20_000, 'readings published after the kill');
    publishing = false;
    await load;
    await eventually(
      () => [onB!, onC!, moved!].every((s) => s.got.at(-1)?.data.n === n),
      20_000,
      'the last reading on the survivors',
    );

    // Nothing lost in the failover: every reading published was accepted by the cluster (the newest
    // carries seq n or more). Readings the dying ingester took but had not acknowledged come again
    // from the broker with new seqs: at most Mosquitto's in-flight window (20 by default). Readings
    // the broker kept during the failover arrive in a burst, which the throttle conflates as it
    // does any burst: the same ones on every survivor. The successor's seqs start after the dying
    // ingester's block: a jump of at most a block (docs/ingestion.md), never a repeat.
    const lastSeq = onB!.got.at(-1)!.seq;
    expect(lastSeq).toBeGreaterThanOrEqual(n);
    expect(lastSeq).toBeLessThanOrEqual(n + 20 + SEQ_BLOCK - 1);
    for (const s of [onB!, onC!]) {
      // One sequence across the failover, increasing, no repeat; the readings before the kill all there.
      expect(seqs(s)).toEqual([...new Set(seqs(s))].sort((x, y) => x - y));
      expect(ns(s).slice(0, onA!.got.length)).toEqual(ns(onA!));
    }
    expect(seqs(onB!)).toEqual(seqs(onC!));
    expect(ns(onB!)).toEqual(ns(onC!));
    // Live from `last` on: a plain subscribe joins first and reads `last` after, so the reading
    // that was `last` may also arrive live once (docs/realtime-api.md: `seq` tells); none older.
    expect(moved!.got.filter((r) => r.seq < moved!.last!.seq)).toEqual([]);
    expect(new Set(seqs(moved!)).size).toBe(moved!.got.length);
    expect(otherTenant!.got).toEqual([]);

    // The Web PubSub client's recovery reached B, which does not have its session: closed with 1008,
    // it connected anew (a second `connected`), subscribed again, got last, and follows k on B.
    await eventually(() => wps.connectedEvents === 2, 15_000, 'the Web PubSub client connected anew');
    await eventually(
      () => wps.server.slice(lastsBefore).some((m) => (m.data as WireReading).seq >= seenBeforeKill),
      20_000,
      'last on the new connection',
    );
    // The newest reading reaches it live, or as `last` when it subscribed after the device went quiet.
    const newest = () =>
      Math.max(
        ...wps.readings().map((r) => r.seq),
        ...wps.server.slice(lastsBefore).map((m) => (m.data as WireReading).seq),
      );
    await eventually(() => newest() === lastSeq, 20_000, 'the newest reading on the new connection');
    wps.client.stop();
    lb.server.close();
  }, 90_000);
});
