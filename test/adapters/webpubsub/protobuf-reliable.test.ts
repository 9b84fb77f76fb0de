import { afterEach, describe, expect, it } from 'vitest';
import { DownstreamMessage } from '../../../src/wire/webpubsub/protobuf-schema.js';
import { eventually, reading, startHarness, type Harness } from './harness.js';
import { ackOf, isConnected, openProtobuf, type Downstream, type ProtobufClient } from './protobuf-client.js';
import { openRaw, type RawClient } from './raw-client.js';

const RELIABLE_PROTOBUF = 'protobuf.reliable.webpubsub.azure.v1';
const GROUP = 'device:demo:d';

let h: Harness | undefined;
const clients: Array<ProtobufClient | RawClient> = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.ws.terminate();
  await h?.close();
  h = undefined;
});

async function reliableClient(url: string): Promise<ProtobufClient> {
  const client = await openProtobuf(url, RELIABLE_PROTOBUF);
  clients.push(client);
  return client;
}

function connectedOf(c: ProtobufClient): { connectionId: string; reconnectionToken: string } {
  return c.frames.find(isConnected)!['systemMessage']['connectedMessage'];
}

/** [sequenceId, reading seq] of each data message. */
const sequenced = (frames: Downstream[]) =>
  frames
    .filter((f) => f['message'] === 'dataMessage')
    .map((f) => [
      f['dataMessage']['sequenceId'],
      JSON.parse(f['dataMessage']['data']['textData'] as string).seq as number,
    ]);

function recoveryUrl(harness: Harness, connectionId: string, token: string): string {
  return `${harness.baseUrl.replace('http', 'ws')}/client/hubs/telemetry?awps_connection_id=${encodeURIComponent(connectionId)}&awps_reconnection_token=${encodeURIComponent(token)}`;
}

describe('protobuf.reliable.webpubsub.azure.v1', () => {
  it('gives a reconnection token and numbers data messages 1, 2, 3… in frames byte-identical to encoding the whole message', async () => {
    h = await startHarness();
    const c = await reliableClient(await h.clientUrl({ userId: 'u', tenantId: 'demo' }));
    await c.next(isConnected);
    expect(c.ws.protocol).toBe(RELIABLE_PROTOBUF);
    expect(connectedOf(c).reconnectionToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    c.send({ joinGroupMessage: { group: GROUP, ackId: 1 } });
    await c.next(ackOf(1));
    for (let seq = 1; seq <= 3; seq++) h.hub.publishReading(reading('d', seq));
    await eventually(() => c.data().length === 3);
    expect(sequenced(c.frames)).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);

    // The per-connection sequence id spliced onto the shared body is the canonical encoding.
    const frames = c.raw.filter((_, i) => c.frames[i]!['message'] === 'dataMessage');
    for (const [i, bytes] of frames.entries()) {
      const whole = DownstreamMessage.encode(
        DownstreamMessage.fromObject(DownstreamMessage.toObject(DownstreamMessage.decode(bytes))),
      ).finish();
      expect(Buffer.from(whole).equals(bytes), `frame ${i + 1}`).toBe(true);
    }
  });

  it('drops acknowledged messages on sequenceAck', async () => {
    h = await startHarness();
    const c = await reliableClient(await h.clientUrl({ userId: 'u', tenantId: 'demo' }));
    await c.next(isConnected);
    const id = connectedOf(c).connectionId;
    c.send({ joinGroupMessage: { group: GROUP, ackId: 1 } });
    await c.next(ackOf(1));
    for (let seq = 1; seq <= 3; seq++) h.hub.publishReading(reading('d', seq));
    await eventually(() => c.data().length === 3);
    expect(h.endpoint.connection(id)!.unacknowledged).toBe(3);
    c.send({ sequenceAckMessage: { sequenceId: 2 } });
    await eventually(() => h!.endpoint.connection(id)!.unacknowledged === 1);
  });

  it('recovers after a drop: connected again, the unacknowledged messages, then what was sent meanwhile', async () => {
    h = await startHarness();
    const first = await reliableClient(await h.clientUrl({ userId: 'u', tenantId: 'demo' }));
    await first.next(isConnected);
    const { connectionId, reconnectionToken } = connectedOf(first);
    first.send({ joinGroupMessage: { group: GROUP, ackId: 1 } });
    await first.next(ackOf(1));
    for (let seq = 1; seq <= 3; seq++) h.hub.publishReading(reading('d', seq));
    await eventually(() => first.data().length === 3);
    first.send({ sequenceAckMessage: { sequenceId: 1 } });
    await eventually(() => h!.endpoint.connection(connectionId)!.unacknowledged === 2);

    h.endpoint.terminateSocket(connectionId);
    expect((await first.closed).code).toBe(1006);
    expect(h.hub.hasConnection(connectionId)).toBe(true);
    h.hub.publishReading(reading('d', 4));

    const again = await reliableClient(recoveryUrl(h, connectionId, reconnectionToken));
    await eventually(() => again.data().length === 3);
    expect(again.frames[0]!['systemMessage']['connectedMessage']).toMatchObject({ connectionId, reconnectionToken });
    expect(sequenced(again.frames)).toEqual([
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
    expect(again.binary.every((b) => b)).toBe(true);

    // Still the same session: its groups and ackIds carried over.
    again.send({ joinGroupMessage: { group: GROUP, ackId: 1 } });
    expect((await again.next(ackOf(1)))['ackMessage']).toMatchObject({ success: false, error: { name: 'Duplicate' } });
  });

  it('refuses to recover a protobuf session with the JSON subprotocol (1008), and a wrong token', async () => {
    h = await startHarness();
    const c = await reliableClient(await h.clientUrl({ userId: 'u', tenantId: 'demo' }));
    await c.next(isConnected);
    const { connectionId, reconnectionToken } = connectedOf(c);
    h.endpoint.terminateSocket(connectionId);
    await c.closed;

    const json = await openRaw(recoveryUrl(h, connectionId, reconnectionToken), 'json.reliable.webpubsub.azure.v1');
    clients.push(json);
    expect((await json.closed).code).toBe(1008);
    expect(json.frames).toEqual([
      { type: 'system', event: 'disconnected', message: 'The session cannot be recovered.' },
    ]);

    const wrong = await reliableClient(recoveryUrl(h, connectionId, 'nope'));
    expect((await wrong.closed).code).toBe(1008);
    expect(wrong.frames.map((f) => f['systemMessage']['disconnectedMessage']['reason'])).toEqual([
      'The session cannot be recovered.',
    ]);
    // The session itself is still there for the right client.
    const right = await reliableClient(recoveryUrl(h, connectionId, reconnectionToken));
    await right.next(isConnected);
  });
});
