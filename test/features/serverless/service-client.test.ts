import { WebPubSubServiceClient } from '@azure/web-pubsub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../../support/app-harness.js';
import { connectClient, startServerlessApp, type ServerlessApp } from './serverless-harness.js';

let hub: ServerlessApp;

beforeAll(async () => {
  hub = await startServerlessApp();
});
afterAll(async () => {
  await hub?.stop();
});

function serviceClient(accessKey: string): WebPubSubServiceClient {
  return new WebPubSubServiceClient(`Endpoint=${hub.url};AccessKey=${accessKey};Version=1.0;`, 'telemetry', {
    allowInsecureConnection: true,
    retryOptions: { maxRetries: 0 },
  });
}

describe('the official WebPubSubServiceClient against the host management API', () => {
  it('checks a connection, adds it to a group and sends to the group', async () => {
    const c = await connectClient(hub.url, await userToken('t1'), false);
    try {
      const service = serviceClient(hub.accessKey);
      expect(await service.connectionExists(c.connectionId)).toBe(true);
      expect(await service.connectionExists('no-such-connection')).toBe(false);

      await service.group('ops').addConnection(c.connectionId);
      await service.group('ops').sendToAll({ hello: 'group' });
      await service.group('ops').sendToAll('plain', { contentType: 'text/plain' });
      await eventually(() => c.group.length === 2, 5000, 'group messages');
      expect(c.group.map((m) => [m.group, m.dataType, m.data])).toEqual([
        ['ops', 'json', { hello: 'group' }],
        ['ops', 'text', 'plain'],
      ]);
      await expect(service.group('ops').addConnection('no-such-connection')).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      c.client.stop();
    }
  });

  it('gets 401 with a wrong access key', async () => {
    const wrong = serviceClient(`${hub.accessKey}-wrong`);
    await expect(wrong.group('ops').sendToAll({ x: 1 })).rejects.toMatchObject({ statusCode: 401 });
    await expect(wrong.connectionExists('anything')).rejects.toMatchObject({ statusCode: 401 });
  });

  it('answers /api/health without a token', async () => {
    expect((await fetch(`${hub.url}/api/health`)).status).toBe(200);
    expect((await fetch(`${hub.url}/api/health`, { method: 'POST' })).status).toBe(405);
  });
});
