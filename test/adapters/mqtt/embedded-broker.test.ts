import { connect, type Socket as NetSocket } from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireReading } from '../../../src/wire/reading.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { DEV_DEVICE_KEY } from '../../../src/host/security/dev-defaults.js';
import { signDeviceToken } from '../../../src/host/security/device-token.js';
import { connectDevice, deviceToken } from '../../support/mqtt-device.js';

/** Resolves with the error a refused connect ends in (never with a client). */
async function refusedConnect(url: string, options: mqtt.IClientOptions): Promise<Error & { code?: number }> {
  try {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options }, false);
    await client.endAsync(true);
  } catch (err) {
    return err as Error & { code?: number };
  }
  throw new Error('the broker accepted the connection');
}

function closed(client: MqttClient): Promise<void> {
  return new Promise((resolve) => (client.connected ? client.once('close', () => resolve()) : resolve()));
}

/** A raw TCP connection to the broker; `closed` resolves when the broker ends it. */
function rawSocket(brokerUrl: string): Promise<{ socket: NetSocket; closed: Promise<void>; isClosed: () => boolean }> {
  const { hostname, port } = new URL(brokerUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let done = false;
    const closedP = new Promise<void>((r) => socket.once('close', () => ((done = true), r())));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed: closedP, isClosed: () => done }));
    socket.once('error', reject);
  });
}

describe('embedded broker: closed by default', () => {
  let hub: RunningApp;
  const sockets: Socket[] = [];
  const devices: MqttClient[] = [];

  beforeAll(async () => {
    hub = await startApp();
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await Promise.all(devices.map((d) => d.endAsync(true)));
    await hub?.stop();
  });

  async function device(tenant: string, id: string, options: mqtt.IClientOptions = {}): Promise<MqttClient> {
    const client = await connectDevice(hub.brokerUrl!, tenant, id, options);
    client.on('error', () => undefined);
    devices.push(client);
    return client;
  }

  async function subscriber(tenant: string, deviceId: string): Promise<WireReading[]> {
    const socket = await connectTelemetry(hub.url, await userToken(tenant));
    sockets.push(socket);
    const received: WireReading[] = [];
    socket.on('reading', (r: WireReading) => received.push(r));
    expect(await socket.emitWithAck('subscribe', { deviceId })).toMatchObject({ ok: true });
    return received;
  }

  it('listens on loopback by default', () => {
    expect(hub.brokerUrl).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);
    expect(hub.app.config.mqtt.embeddedHost).toBe('127.0.0.1');
  });

  it('refuses an anonymous client with CONNACK "not authorized"', async () => {
    const err = await refusedConnect(hub.brokerUrl!, { clientId: 'anonymous-reader' });
    expect(err.code).toBe(5);
    expect(hub.app.telemetry.broker!.stats().refused.bad_credentials).toBeGreaterThan(0);
  });

  it('refuses bad credentials: another key, another audience, garbage', async () => {
    const otherKey = await deviceToken('t1', 'dev-a', 'some-other-key-that-is-long-enough-0123456789');
    for (const password of [otherKey, 'not-a-token', `${otherKey.slice(0, -4)}AAAA`]) {
      const err = await refusedConnect(hub.brokerUrl!, { clientId: 'bad-creds', username: 'dev-a', password });
      expect(err.code).toBe(5);
    }
    // A user token is no device token (wrong key and audience).
    const err = await refusedConnect(hub.brokerUrl!, {
      clientId: 'user-token',
      username: 'u',
      password: await userToken('t1'),
    });
    expect(err.code).toBe(5);
  });

  it("a good device's reading reaches a socket.io subscriber end to end", async () => {
    const received = await subscriber('t1', 'good-1');
    const dev = await device('t1', 'good-1');
    await dev.publishAsync('tenants/t1/devices/good-1/telemetry', JSON.stringify({ temperature: 21.5 }), { qos: 1 });
    await eventually(() => received.length === 1, 5000, 'reading delivered');
    expect(received[0]).toMatchObject({ tenantId: 't1', deviceId: 'good-1', seq: 1, data: { temperature: 21.5 } });
  });

  it('a device cannot publish as another device or tenant: refused, connection closed, counted, never delivered', async () => {
    const otherDevice = await subscriber('t1', 'victim');
    const otherTenant = await subscriber('t2', 'forger');
    const dropsBefore = hub.app.telemetry.pipeline.stats().dropped.topic_not_allowed;

    const forger = await device('t1', 'forger');
    const gone = closed(forger);
    forger.publish('tenants/t1/devices/victim/telemetry', JSON.stringify({ temperature: -40 }), { qos: 0 });
    await gone;
    const forger2 = await device('t1', 'forger');
    const gone2 = closed(forger2);
    forger2.publish('tenants/t2/devices/forger/telemetry', JSON.stringify({ temperature: -40 }), { qos: 0 });
    await gone2;
    await eventually(
      () => hub.app.telemetry.pipeline.stats().dropped.topic_not_allowed === dropsBefore + 2,
      3000,
      'refusals counted',
    );

    // The real devices publish afterwards; their readings are the first the subscribers see.
    await (await device('t1', 'victim')).publishAsync(
      'tenants/t1/devices/victim/telemetry',
      JSON.stringify({ temperature: 20 }),
      { qos: 1 },
    );
    await (await device('t2', 'forger')).publishAsync(
      'tenants/t2/devices/forger/telemetry',
      JSON.stringify({ temperature: 20 }),
      { qos: 1 },
    );
    await eventually(() => otherDevice.length === 1 && otherTenant.length === 1, 5000, 'genuine readings');
    expect(otherDevice).toMatchObject([{ seq: 1, data: { temperature: 20 } }]);
    expect(otherTenant).toMatchObject([{ seq: 1, data: { temperature: 20 } }]);
    expect(hub.logs.some((l) => l.msg === 'mqtt refused' && l.reason === 'topic_not_allowed')).toBe(true);
  });

  it('a refused QoS 1 publish gets no PUBACK: the connection closes with the publish unacknowledged', async () => {
    const forger = await device('t1', 'qos1-forger');
    const packets: string[] = [];
    forger.on('packetreceive', (packet) => packets.push(packet.cmd));
    const gone = closed(forger);
    const publish = forger.publishAsync('tenants/t1/devices/someone-else/telemetry', '{"temperature":1}', { qos: 1 });
    await gone;
    expect(packets).not.toContain('puback');
    // Still in mqtt.js's outgoing store (it would send it again on reconnect); ending the client fails it.
    forger.end(true);
    await expect(publish).rejects.toThrow(/closed/i);
    expect(hub.app.telemetry.registry.last('t1', 'someone-else')).toBeUndefined();
  });

  it("a device's will to another device's topic is refused too", async () => {
    const received = await subscriber('t1', 'will-victim');
    const dev = await device('t1', 'will-forger', {
      will: {
        topic: 'tenants/t1/devices/will-victim/telemetry',
        payload: Buffer.from('{"temperature":-1}'),
        qos: 0,
        retain: false,
      },
    });
    const before = hub.app.telemetry.broker!.stats().refused.topic_not_allowed;
    // An unclean end (no DISCONNECT) publishes the will.
    (dev.stream as NetSocket).destroy();
    await eventually(
      () => hub.app.telemetry.broker!.stats().refused.topic_not_allowed === before + 1,
      3000,
      'will refused',
    );
    await (await device('t1', 'will-victim')).publishAsync(
      'tenants/t1/devices/will-victim/telemetry',
      '{"temperature":5}',
      { qos: 1 },
    );
    await eventually(() => received.length === 1, 3000, 'genuine reading');
    expect(received[0]).toMatchObject({ seq: 1, data: { temperature: 5 } });
  });

  it('a device cannot subscribe (tenants/# and its own topic get SUBACK 0x80) and reads nothing', async () => {
    const reader = await device('t1', 'reader');
    const messages: string[] = [];
    reader.on('message', (topic) => messages.push(topic));
    // mqtt.js turns an all-refused SUBACK into an error carrying the packet.
    const err = (await reader
      .subscribeAsync(['tenants/#', 'tenants/t1/devices/reader/telemetry', '#'], { qos: 0 })
      .catch((e: unknown) => e)) as {
      packet?: { granted: number[] };
    };
    expect(err.packet?.granted).toEqual([128, 128, 128]);
    expect(reader.connected).toBe(true);

    const received = await subscriber('t1', 'publisher-x');
    await (await device('t1', 'publisher-x')).publishAsync(
      'tenants/t1/devices/publisher-x/telemetry',
      '{"temperature":3}',
      { qos: 1 },
    );
    await eventually(() => received.length === 1, 3000, 'reading reached the hub');
    // Delivered to the hub; a round trip on the reader's own connection orders anything in flight to it.
    await reader.publishAsync('tenants/t1/devices/reader/telemetry', '{"temperature":0}', { qos: 1 });
    expect(messages).toEqual([]);
  });

  it("a client id in use cannot be taken: not the hub's, not another device's", async () => {
    // The hub reads in-process: its configured client id is just another id here, and taking it changes nothing.
    const hubId = hub.app.config.mqtt.clientId;
    await device('t1', 'usurper', { clientId: hubId });

    const received = await subscriber('t1', 'holder');
    const holder = await device('t1', 'holder', { clientId: 'shared-client-id' });
    const err = await refusedConnect(hub.brokerUrl!, {
      clientId: 'shared-client-id',
      username: 'x',
      password: await deviceToken('t1', 'intruder'),
    });
    expect(err.code).toBe(2);
    expect(holder.connected).toBe(true);
    await holder.publishAsync('tenants/t1/devices/holder/telemetry', '{"temperature":7}', { qos: 1 });
    await eventually(() => received.length === 1, 3000, 'the hub still receives');
    expect(hub.app.telemetry.ingestion.connected).toBe(true);
  });

  it("a device's connection ends when its token expires", async () => {
    const token = await signDeviceToken({
      tenantId: 't1',
      deviceId: 'short-lived',
      key: DEV_DEVICE_KEY,
      expiresInSeconds: 1,
    });
    const dev = await mqtt.connectAsync(hub.brokerUrl!, {
      clientId: 'short-lived',
      username: 'x',
      password: token,
      reconnectPeriod: 0,
    });
    devices.push(dev);
    await closed(dev);
    // And the expired token no longer connects.
    expect(
      (await refusedConnect(hub.brokerUrl!, { clientId: 'short-lived-2', username: 'x', password: token })).code,
    ).toBe(5);
  });

  it('a packet announcing more than Ingestion:Mqtt:MaxPacketBytes closes the connection before its body arrives', async () => {
    const raw = await rawSocket(hub.brokerUrl!);
    const before = hub.app.telemetry.broker!.stats().refused.packet_too_large;
    // PUBLISH with Remaining Length 10 MiB (variable-length encoding), and no body at all.
    raw.socket.write(Buffer.from([0x30, 0x80, 0x80, 0x80, 0x05]));
    await raw.closed;
    expect(hub.app.telemetry.broker!.stats().refused.packet_too_large).toBe(before + 1);

    // Split across writes, after a good CONNECT: the header is read however it arrives.
    const dev = await device('t1', 'big-sender');
    const gone = closed(dev);
    const stream = dev.stream as NetSocket;
    stream.write(Buffer.from([0x30, 0xff]));
    await new Promise((r) => setImmediate(r));
    stream.write(Buffer.from([0xff, 0x03]));
    await gone;
    expect(hub.app.telemetry.broker!.stats().refused.packet_too_large).toBe(before + 2);
  });

  it('a reset or malformed connection does not disturb the broker', async () => {
    const reset = await rawSocket(hub.brokerUrl!);
    reset.socket.write(Buffer.from([0x10, 0x20, 0x00]));
    reset.socket.resetAndDestroy();
    const garbage = await rawSocket(hub.brokerUrl!);
    garbage.socket.write(Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0xff]));
    await garbage.closed;
    const received = await subscriber('t1', 'after-errors');
    await (await device('t1', 'after-errors')).publishAsync(
      'tenants/t1/devices/after-errors/telemetry',
      '{"temperature":8}',
      { qos: 1 },
    );
    await eventually(() => received.length === 1, 3000, 'reading after socket errors');
  });
});

describe('embedded broker: connection caps', () => {
  let hub: RunningApp;
  const raws: NetSocket[] = [];
  afterAll(async () => {
    for (const s of raws) s.destroy();
    await hub?.stop();
  });

  it('caps connections per address (Ingestion:Mqtt:MaxConnectionsPerIp) and in total (Ingestion:Mqtt:MaxConnections)', async () => {
    hub = await startApp(['--Ingestion:Mqtt:MaxConnectionsPerIp=3', '--Ingestion:Mqtt:MaxConnections=5']);
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await rawSocket(hub.brokerUrl!));
    raws.push(...open.map((o) => o.socket));
    const fourth = await rawSocket(hub.brokerUrl!);
    await fourth.closed;
    expect(hub.app.telemetry.broker!.stats().refused.max_connections_per_ip).toBe(1);
    expect(open.every((o) => !o.isClosed())).toBe(true);

    // From another loopback address: counted apart per address, but within the total.
    const { port } = new URL(hub.brokerUrl!);
    const other = (): Promise<{ closed: Promise<void>; isClosed: () => boolean; socket: NetSocket }> =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.2' });
        let done = false;
        const closedP = new Promise<void>((r) => socket.once('close', () => ((done = true), r())));
        socket.on('error', () => undefined);
        socket.once('connect', () => resolve({ socket, closed: closedP, isClosed: () => done }));
        socket.once('error', reject);
      });
    const a = await other();
    const b = await other();
    raws.push(a.socket, b.socket);
    const overTotal = await other();
    await overTotal.closed;
    expect(hub.app.telemetry.broker!.stats().refused.max_connections).toBe(1);
    expect(a.isClosed() || b.isClosed()).toBe(false);

    // A closed connection frees its place.
    open[0]!.socket.destroy();
    await open[0]!.closed;
    await eventually(() => hub.app.telemetry.broker!.stats().connections === 4, 3000, 'connection released');
    const dev = await connectDevice(hub.brokerUrl!, 't1', 'late');
    expect(dev.connected).toBe(true);
    await dev.endAsync();
  });
});
