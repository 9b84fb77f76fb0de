import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import {
  generated,
  generatedSha256,
  multipart,
  multipartStream,
  MULTIPART_STREAM_TYPE,
  send,
} from './upload-client.js';

const LIMIT = 1024 * 1024;
/** Far more than loopback socket buffers hold (several MiB), so an answer before the end shows the limit was checked while reading. */
const OVERSIZED = 64 * LIMIT;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
function bytes(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + seed) & 0xff;
  return b;
}

describe('firmware over HTTP', () => {
  let hub: RunningApp;
  let storage: string;
  let temp: string;
  let admin: string;
  let reader: string;
  let otherAdmin: string;

  beforeAll(async () => {
    storage = mkdtempSync(join(tmpdir(), 'fw-storage-'));
    temp = mkdtempSync(join(tmpdir(), 'fw-temp-'));
    hub = await startApp([
      `--Storage:Path=${storage}`,
      `--Storage:TempPath=${temp}`,
      `--Firmware:MaxUploadBytes=${LIMIT}`,
    ]);
    admin = await userToken('acme', { roles: ['admin'] });
    reader = await userToken('acme');
    otherAdmin = await userToken('globex', { roles: ['admin'] });
  });
  afterAll(async () => {
    await hub?.stop();
    rmSync(storage, { recursive: true, force: true });
    rmSync(temp, { recursive: true, force: true });
  });

  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const get = (path: string, token: string, headers: Record<string, string> = {}) =>
    send(`${hub.url}${path}`, 'GET', { ...auth(token), ...headers });
  const tenantFiles = (tenant: string) => (existsSync(join(storage, tenant)) ? readdirSync(join(storage, tenant)) : []);

  it('stores a small multipart file (kept in memory) and serves it back with a strong ETag, 304 and ranges', async () => {
    const content = bytes(1000);
    const form = multipart('sensor-1.0.bin', content);
    const up = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { ...auth(admin), 'content-type': form.contentType },
      form.body,
    );
    expect(up.status).toBe(201);
    expect(JSON.parse(up.body.toString())).toEqual({ name: 'sensor-1.0.bin', size: 1000, sha256: sha256(content) });
    expect(up.headers.location).toBe('/v1/firmware/sensor-1.0.bin');

    const down = await get('/v1/firmware/sensor-1.0.bin', reader);
    expect(down.status).toBe(200);
    expect(down.body).toEqual(content);
    expect(down.headers.etag).toBe(`"${sha256(content)}"`);
    expect(down.headers['cache-control']).toBe('private, no-cache');
    expect(down.headers['accept-ranges']).toBe('bytes');

    const head = await send(`${hub.url}/v1/firmware/sensor-1.0.bin`, 'HEAD', auth(reader));
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('1000');
    expect(head.headers.etag).toBe(down.headers.etag);
    expect(head.body.length).toBe(0);

    const again = await get('/v1/firmware/sensor-1.0.bin', reader, { 'if-none-match': down.headers.etag as string });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);

    const part = await get('/v1/firmware/sensor-1.0.bin', reader, { range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 10-19/1000');
    expect(part.body).toEqual(content.subarray(10, 20));
    const tail = await get('/v1/firmware/sensor-1.0.bin', reader, { range: 'bytes=-5' });
    expect(tail.body).toEqual(content.subarray(995));
    const outside = await get('/v1/firmware/sensor-1.0.bin', reader, { range: 'bytes=5000-' });
    expect(outside.status).toBe(416);
    expect(outside.headers['content-range']).toBe('bytes */1000');
    // A range of an older file (If-Range names another ETag) gets the whole current file.
    const stale = await get('/v1/firmware/sensor-1.0.bin', reader, { range: 'bytes=0-9', 'if-range': '"old"' });
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(1000);
  });

  it('buffers a file over 64 KB in a temporary file, and removes it once stored', async () => {
    const content = bytes(300 * 1024, 3);
    const form = multipart('big.bin', content);
    const up = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { ...auth(admin), 'content-type': form.contentType },
      form.body,
    );
    expect(up.status).toBe(201);
    expect(JSON.parse(up.body.toString()).sha256).toBe(sha256(content));
    expect((await get('/v1/firmware/big.bin', reader)).body).toEqual(content);
    expect(readdirSync(temp)).toEqual([]);
  });

  it('refuses an oversized form with 413 problem+json during binding, leaving no temporary or stored file', async () => {
    const up = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { ...auth(admin), 'content-type': MULTIPART_STREAM_TYPE },
      multipartStream('huge.bin', OVERSIZED),
    );
    expect(up.status).toBe(413);
    expect(up.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.parse(up.body.toString())).toMatchObject({ status: 413, code: 'HUB_ERR_FIRMWARE_TOO_LARGE' });
    expect(up.sent).toBeLessThan(OVERSIZED);
    expect(readdirSync(temp)).toEqual([]);
    expect(tenantFiles('acme')).not.toContain('huge.bin');
  });

  it('streams a PUT body to storage; a second PUT replaces it (200) with a new ETag', async () => {
    const total = 700 * 1024;
    const put = await send(
      `${hub.url}/v1/firmware/stream.bin`,
      'PUT',
      { ...auth(admin), 'content-type': 'application/octet-stream' },
      generated(total, 64 * 1024),
    );
    expect(put.status).toBe(201);
    expect(JSON.parse(put.body.toString())).toEqual({
      name: 'stream.bin',
      size: total,
      sha256: await generatedSha256(total, 64 * 1024),
    });
    const first = await get('/v1/firmware/stream.bin', reader);
    expect(sha256(first.body)).toBe(await generatedSha256(total, 64 * 1024));

    const replaced = await send(`${hub.url}/v1/firmware/stream.bin`, 'PUT', auth(admin), bytes(10, 9));
    expect(replaced.status).toBe(200);
    const second = await get('/v1/firmware/stream.bin', reader);
    expect(second.body).toEqual(bytes(10, 9));
    expect(second.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers 413 mid-upload on a streamed PUT over the limit and removes the partial file', async () => {
    const put = await send(`${hub.url}/v1/firmware/too-big.bin`, 'PUT', auth(admin), generated(OVERSIZED, 64 * 1024));
    expect(put.status).toBe(413);
    expect(JSON.parse(put.body.toString())).toMatchObject({ code: 'HUB_ERR_FIRMWARE_TOO_LARGE', limitBytes: LIMIT });
    expect(put.sent).toBeLessThan(OVERSIZED);
    expect(tenantFiles('acme').filter((f) => f.includes('too-big'))).toEqual([]);
    expect((await get('/v1/firmware/too-big.bin', reader)).status).toBe(404);
  });

  it('keeps nothing of an upload the client abandons mid-way, streamed or buffered, and logs no error', async () => {
    // This request's own line: a closed connection also logs a request line (no route) of its own.
    const lines = (method: string, route: string) =>
      hub.logs.filter((l) => l.msg === 'request' && l.method === method && l.route === route);
    const abandon = async (
      path: string,
      route: string,
      method: string,
      headers: Record<string, string>,
      first: Buffer,
    ) => {
      const before = lines(method, route).length;
      const req = request(`${hub.url}${path}`, {
        method,
        headers: { ...auth(admin), 'content-length': String(LIMIT), ...headers },
      });
      req.on('error', () => undefined);
      req.write(first);
      // Once the hub has written some of it, the client goes away.
      await eventually(
        () => readdirSync(temp).length > 0 || tenantFiles('acme').some((f) => f.startsWith('.')),
        5000,
        'the upload to begin',
      );
      req.destroy();
      await eventually(() => lines(method, route).length > before, 5000, 'the request to end');
      return lines(method, route).at(-1)!;
    };
    const put = await abandon('/v1/firmware/gone.bin', '/v1/firmware/{name}', 'PUT', {}, bytes(200 * 1024));
    expect(put.status).toBe(400);
    const form = multipart('gone2.bin', bytes(200 * 1024));
    const post = await abandon(
      '/v1/firmware',
      '/v1/firmware',
      'POST',
      { 'content-type': form.contentType },
      form.body.subarray(0, 150 * 1024),
    );
    expect(post.status).toBe(400);
    expect(
      tenantFiles('acme').filter((f) => f.includes('gone')),
      'files kept in storage',
    ).toEqual([]);
    expect(readdirSync(temp), 'temporary files kept').toEqual([]);
    expect(
      hub.logs.filter((l) => (l.level as number) >= 50).map((l) => JSON.stringify(l)),
      'error log lines',
    ).toEqual([]);
  });

  it('keeps tenants apart and checks roles: another tenant or an unknown name is 404, a non-admin upload 403', async () => {
    expect((await get('/v1/firmware/sensor-1.0.bin', otherAdmin)).status).toBe(404);
    expect((await get('/v1/firmware/nothing.bin', reader)).status).toBe(404);
    const forbidden = await send(`${hub.url}/v1/firmware/x.bin`, 'PUT', auth(reader), bytes(10));
    expect(forbidden.status).toBe(403);
    const anonymous = await send(`${hub.url}/v1/firmware/x.bin`, 'PUT', {}, bytes(10));
    expect(anonymous.status).toBe(401);
    expect(tenantFiles('acme')).not.toContain('x.bin');
    // The other tenant's file of the same name is its own.
    await send(`${hub.url}/v1/firmware/sensor-1.0.bin`, 'PUT', auth(otherAdmin), bytes(5));
    expect((await get('/v1/firmware/sensor-1.0.bin', reader)).body.length).toBe(1000);
  });

  it('refuses bad names and bad forms with 400 problems', async () => {
    expect(
      JSON.parse((await send(`${hub.url}/v1/firmware/.hidden`, 'PUT', auth(admin), bytes(3))).body.toString()),
    ).toMatchObject({ code: 'HUB_ERR_FIRMWARE_BAD_NAME' });
    const badName = multipart('../etc/passwd', bytes(3));
    const bad = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { ...auth(admin), 'content-type': badName.contentType },
      badName.body,
    );
    expect(bad.status).toBe(400);
    const notForm = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { ...auth(admin), 'content-type': 'application/json' },
      Buffer.from('{}'),
    );
    expect(notForm.status).toBe(415);
    const empty = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { ...auth(admin), 'content-type': 'multipart/form-data; boundary=x' },
      Buffer.from('--x--\r\n'),
    );
    expect(JSON.parse(empty.body.toString())).toMatchObject({ status: 400, code: 'HUB_ERR_FIRMWARE_BAD_FORM' });
  });

  it('lists the tenant’s firmware from the output cache, and an upload evicts the list at once', async () => {
    const list = async () =>
      JSON.parse((await get('/v1/firmware', reader)).body.toString()) as { items: { name: string }[] };
    const before = (await list()).items.map((i) => i.name);
    expect(before).toContain('sensor-1.0.bin');
    expect(before).not.toContain('late.bin');
    await send(`${hub.url}/v1/firmware/late.bin`, 'PUT', auth(admin), bytes(4));
    expect((await list()).items.map((i) => i.name)).toContain('late.bin');
    const other = JSON.parse((await get('/v1/firmware', otherAdmin)).body.toString()) as {
      items: { name: string; size: number }[];
    };
    expect(other.items).toEqual([expect.objectContaining({ name: 'sensor-1.0.bin', size: 5 })]);
  });
});
