import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnyMessage } from '../../src/wire/webpubsub/protobuf-schema.js';
import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../../src/wire/webpubsub/access-token.js';
import { eventually, startApp, type RunningApp } from '../support/app-harness.js';
import { requireService } from '../support/services.js';
import { isConnected, openProtobuf, type ProtobufClient } from '../adapters/webpubsub/protobuf-client.js';
import { openRaw, type RawClient } from '../adapters/webpubsub/raw-client.js';

const run = `${process.pid}${Date.now().toString(36)}`;
const HUB = `pbscale${run}`;
const GROUP = `chat-${run}`;

describe('protobuf data across two instances over Redis', () => {
  let available = false;
  const apps: RunningApp[] = [];
  const clients: Array<ProtobufClient | RawClient> = [];

  beforeAll(async () => {
    available = await requireService('Redis', 6379);
    if (!available) return;
    for (let i = 0; i < 2; i++)
      apps.push(await startApp(['--ConnectionStrings:redis=redis://127.0.0.1:6379', `--Hub:Name=${HUB}`]));
  });

  afterAll(async () => {
    for (const c of clients) c.ws.terminate();
    for (const app of apps) await app.stop();
  });

  async function url(
    app: RunningApp,
    claims: { userId: string; roles?: string[]; groups?: string[] },
  ): Promise<string> {
    const token = await mintClientAccessToken({
      accessKey: app.app.config.hub.accessKey,
      audience: clientAudience(app.url, HUB),
      ...claims,
    });
    return clientAccessUrl(app.url, HUB, token);
  }

  it('a protobuf client publishing on one instance reaches protobuf and JSON members on the other', async ({
    skip,
  }) => {
    if (!available) return skip();
    const [a, b] = apps as [RunningApp, RunningApp];
    const member = await openProtobuf(
      await url(b, { userId: 'm', groups: [GROUP] }),
      'protobuf.reliable.webpubsub.azure.v1',
    );
    const json = await openRaw(await url(b, { userId: 'j', groups: [GROUP] }), 'json.webpubsub.azure.v1');
    const publisher = await openProtobuf(
      await url(a, { userId: 'p', roles: ['webpubsub.sendToGroup'] }),
      'protobuf.webpubsub.azure.v1',
    );
    clients.push(member, json, publisher);
    await member.next(isConnected);
    await json.next((f) => f['event'] === 'connected');
    await publisher.next(isConnected);

    const any = { type_url: 'type.googleapis.com/azure.webpubsub.TestMessage', value: Buffer.from([0x08, 0x01]) };
    publisher.send({ sendToGroupMessage: { group: GROUP, data: { protobufData: any } } });
    publisher.send({ sendToGroupMessage: { group: GROUP, data: { binaryData: Buffer.from([1, 2, 3]) } } });
    await eventually(
      () => member.data().length === 2 && json.frames.filter((f) => f['type'] === 'message').length === 2,
      5000,
      'both messages',
    );

    const [pb, bin] = member.data().map((f) => f['dataMessage']);
    expect(pb).toMatchObject({
      from: 'group',
      group: GROUP,
      sequenceId: 1,
      data: { protobufData: { type_url: any.type_url } },
    });
    expect([...(pb.data.protobufData.value as Buffer)]).toEqual([0x08, 0x01]);
    expect(bin).toMatchObject({ sequenceId: 2 });
    expect([...(bin.data.binaryData as Buffer)]).toEqual([1, 2, 3]);
    expect(json.frames.filter((f) => f['type'] === 'message')).toEqual([
      {
        type: 'message',
        from: 'group',
        group: GROUP,
        dataType: 'protobuf',
        data: Buffer.from(AnyMessage.encode(any).finish()).toString('base64'),
      },
      { type: 'message', from: 'group', group: GROUP, dataType: 'binary', data: 'AQID' },
    ]);
  });
});
