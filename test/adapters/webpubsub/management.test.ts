import { WebPubSubServiceClient } from '@azure/web-pubsub';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACCESS_KEY, eventually, HUB_NAME, startHarness, type Harness } from './harness.js';
import { openRaw, type RawClient } from './raw-client.js';

const RELIABLE = 'json.reliable.webpubsub.azure.v1';
let h: Harness;
const raws: RawClient[] = [];

beforeEach(async () => {
  h = await startHarness();
});

afterEach(async () => {
  for (const r of raws.splice(0)) r.ws.terminate();
  await h.close();
});

function serviceClient(key = ACCESS_KEY): WebPubSubServiceClient {
  return new WebPubSubServiceClient(
    `Endpoint=http://127.0.0.1;AccessKey=${key};Version=1.0;Port=${h.port};`,
    HUB_NAME,
    {
      allowInsecureConnection: true,
      retryOptions: { maxRetries: 0 },
    },
  );
}

async function connected(protocol = RELIABLE): Promise<{ client: RawClient; id: string }> {
  const client = await openRaw(await h.clientUrl({ userId: 'u', tenantId: 'demo' }), protocol);
  raws.push(client);
  const id = (await client.next((f) => f['event'] === 'connected'))['connectionId'] as string;
  return { client, id };
}

const messages = (c: RawClient) => c.frames.filter((f) => f['type'] === 'message');

describe('management API with the official WebPubSubServiceClient', () => {
  it('adds a connection to a group and sends json, text and binary to it', async () => {
    const { client, id } = await connected();
    const group = serviceClient().group('device:demo:dev-1');
    await group.addConnection(id);
    expect(h.hub.groupsOf(id)).toEqual(['device:demo:dev-1']);

    await group.sendToAll({ hello: 'world' });
    await group.sendToAll('plain text', { contentType: 'text/plain' });
    await group.sendToAll(new Uint8Array([1, 2, 3]).buffer);
    await eventually(() => messages(client).length === 3);
    expect(messages(client)).toEqual([
      {
        sequenceId: 1,
        type: 'message',
        from: 'group',
        group: 'device:demo:dev-1',
        dataType: 'json',
        data: { hello: 'world' },
      },
      {
        sequenceId: 2,
        type: 'message',
        from: 'group',
        group: 'device:demo:dev-1',
        dataType: 'text',
        data: 'plain text',
      },
      { sequenceId: 3, type: 'message', from: 'group', group: 'device:demo:dev-1', dataType: 'binary', data: 'AQID' },
    ]);

    await group.removeConnection(id);
    expect(h.hub.groupsOf(id)).toEqual([]);
  });

  it('sends to all as server messages', async () => {
    const { client } = await connected('json.webpubsub.azure.v1');
    await serviceClient().sendToAll({ n: 1 });
    await eventually(() => messages(client).length === 1);
    expect(messages(client)[0]).toEqual({ type: 'message', from: 'server', dataType: 'json', data: { n: 1 } });
  });

  it('answers 404 for adding an unknown connection, and HEAD/DELETE for connections', async () => {
    const svc = serviceClient();
    const error = await svc
      .group('g')
      .addConnection('nope')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RestError', statusCode: 404 });

    const { client, id } = await connected();
    expect(await svc.connectionExists(id)).toBe(true);
    expect(await svc.connectionExists('nope')).toBe(false);
    await svc.closeConnection(id);
    expect((await client.closed).code).toBe(1008);
    expect(await svc.connectionExists(id)).toBe(false);
    await svc.closeConnection(id); // idempotent: 204 again
    await svc.group('g').removeConnection('nope');
  });

  it('refuses a wrong key with 401', async () => {
    const error = await serviceClient('not-the-key')
      .sendToAll({ n: 1 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RestError', statusCode: 401 });
  });
});

describe('management API over plain HTTP', () => {
  const token = (url: string, key = ACCESS_KEY) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience(url)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(key));

  async function call(
    method: string,
    path: string,
    init: { token?: string; body?: string; contentType?: string } = {},
  ) {
    const headers: Record<string, string> = {};
    if (init.token !== undefined) headers['authorization'] = `Bearer ${init.token}`;
    if (init.contentType !== undefined) headers['content-type'] = init.contentType;
    return fetch(`${h.baseUrl}${path}`, { method, headers, body: init.body });
  }

  it('serves /api/health without a token', async () => {
    expect((await call('GET', '/api/health')).status).toBe(200);
    expect((await call('HEAD', '/api/health')).status).toBe(200);
  });

  it('answers problem+json: 400 for a missing or old api-version, 401 without a token', async () => {
    const path = `/api/hubs/${HUB_NAME}/:send`;
    const missing = await call('POST', path, {
      token: await token(`${h.baseUrl}${path}`),
      body: '{}',
      contentType: 'application/json',
    });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await missing.json()).toMatchObject({
      type: 'https://telemetry-hub.dev/problems/HUB_ERR_MGMT_BAD_API_VERSION',
      title: 'Unsupported API Version',
      status: 400,
      code: 'HUB_ERR_MGMT_BAD_API_VERSION',
      instance: path,
    });
    const old = await call('POST', `${path}?api-version=2021-10-01`, {
      token: await token(`${h.baseUrl}${path}`),
      body: '{}',
      contentType: 'application/json',
    });
    expect(old.status).toBe(400);
    const anonymous = await call('POST', `${path}?api-version=2024-01-01`, {
      body: '{}',
      contentType: 'application/json',
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'HUB_ERR_MGMT_UNAUTHENTICATED', status: 401 });
    const otherPath = await call('POST', `${path}?api-version=2024-01-01`, {
      token: await token(`${h.baseUrl}/api/hubs/${HUB_NAME}/connections/x`),
      body: '{}',
      contentType: 'application/json',
    });
    expect(otherPath.status).toBe(401);
  });

  it('rejects bad bodies, names and unsupported options', async () => {
    const send = async (path: string, body: string, contentType: string) =>
      call('POST', `${path}?api-version=2024-01-01`, { token: await token(`${h.baseUrl}${path}`), body, contentType });
    expect((await send(`/api/hubs/${HUB_NAME}/:send`, '{', 'application/json')).status).toBe(400);
    const xml = await send(`/api/hubs/${HUB_NAME}/:send`, '<a/>', 'application/xml');
    expect(xml.status).toBe(415);
    expect(((await xml.json()) as { code: string }).code).toBe('HUB_ERR_HTTP_UNSUPPORTED_MEDIA_TYPE');
    expect((await send('/api/hubs/1bad/:send', '{}', 'application/json')).status).toBe(400);
    expect((await send(`/api/hubs/${HUB_NAME}/groups/%20%20/:send`, '{}', 'application/json')).status).toBe(400);
    const path = `/api/hubs/${HUB_NAME}/:send`;
    const filtered = await call('POST', `${path}?api-version=2024-01-01&filter=userId%20eq%20'a'`, {
      token: await token(`${h.baseUrl}${path}`),
      body: '{}',
      contentType: 'application/json',
    });
    expect(filtered.status).toBe(400);
    expect((await call('GET', `/api/hubs/${HUB_NAME}/:send`)).status).toBe(405);
    expect((await call('GET', `/api/hubs/${HUB_NAME}/users/u`)).status).toBe(404);
  });
});
