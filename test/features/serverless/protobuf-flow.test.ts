import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../../support/app-harness.js';
import { ackOf, isConnected, openProtobuf, type ProtobufClient } from '../../adapters/webpubsub/protobuf-client.js';
import { negotiate, startServerlessApp, subscribe, type ServerlessApp } from './serverless-harness.js';

let hub: ServerlessApp;
const clients: ProtobufClient[] = [];

beforeAll(async () => {
  hub = await startServerlessApp();
});
afterEach(() => {
  for (const c of clients.splice(0)) c.ws.terminate();
});
afterAll(async () => {
  await hub?.stop();
});

async function connect(tenant: string, protocol: string): Promise<{ client: ProtobufClient; connectionId: string }> {
  const res = await negotiate(hub.url, await userToken(tenant));
  const { url } = (await res.json()) as { url: string };
  const client = await openProtobuf(url, protocol);
  clients.push(client);
  const connectionId = (await client.next(isConnected))['systemMessage']['connectedMessage']['connectionId'] as string;
  return { client, connectionId };
}

const readings = (c: ProtobufClient) =>
  c.data().map((f) => JSON.parse(f['dataMessage']['data']['textData'] as string) as Record<string, unknown>);

describe('the whole app with a protobuf client: negotiate → connect → subscribe → MQTT readings', () => {
  it.each(['protobuf.webpubsub.azure.v1', 'protobuf.reliable.webpubsub.azure.v1'])(
    'delivers readings over %s',
    async (protocol) => {
      const device = `pb-${protocol.includes('reliable') ? 'r' : 'p'}`;
      const { client, connectionId } = await connect('t1', protocol);
      expect((await subscribe(hub.url, await userToken('t1'), { connectionId, deviceId: device })).status).toBe(204);
      await hub.publish('t1', device, { temperature: 12 });
      await hub.publish('t1', device, { temperature: 13 });
      await eventually(() => client.data().length === 2, 5000, 'readings');
      expect(readings(client)).toMatchObject([
        { tenantId: 't1', deviceId: device, seq: 1, data: { temperature: 12 } },
        { tenantId: 't1', deviceId: device, seq: 2, data: { temperature: 13 } },
      ]);
      expect(client.data().map((f) => f['dataMessage']['group'])).toEqual([
        `device:t1:${device}`,
        `device:t1:${device}`,
      ]);
      const sequenceIds = client.data().map((f) => f['dataMessage']['sequenceId']);
      expect(sequenceIds).toEqual(protocol.includes('reliable') ? [1, 2] : [0, 0]);
    },
  );

  it("refuses another tenant's device group over the same socket", async () => {
    const { client } = await connect('t1', 'protobuf.webpubsub.azure.v1');
    client.send({ joinGroupMessage: { group: 'device:t2:x', ackId: 1 } });
    expect((await client.next(ackOf(1)))['ackMessage']).toMatchObject({ success: false, error: { name: 'Forbidden' } });
  });
});
