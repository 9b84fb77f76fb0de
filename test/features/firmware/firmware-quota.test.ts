import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { generated, multipartStream, MULTIPART_STREAM_TYPE, send, type Answer } from './upload-client.js';

const MiB = 1024 * 1024;
const QUOTA_BYTES = 2 * MiB;
const QUOTA_FILES = 3;
/** Far more than loopback socket buffers hold, so an answer before the end shows the quota was checked while reading. */
const HUGE = 64 * MiB;

/** Per-tenant quotas on firmware (issue 25, item 5): bytes and files, on both upload paths, at once and together. */
describe('firmware quotas per tenant', () => {
  let hub: RunningApp;
  let storage: string;
  let temp: string;

  beforeAll(async () => {
    storage = mkdtempSync(join(tmpdir(), 'fw-quota-'));
    temp = mkdtempSync(join(tmpdir(), 'fw-quota-temp-'));
    // The upload limit is far above the quota: only the quota can refuse these uploads.
    hub = await startApp([
      `--Storage:Path=${storage}`,
      `--Storage:TempPath=${temp}`,
      `--Firmware:MaxUploadBytes=${256 * MiB}`,
      `--Firmware:MaxBytesPerTenant=${QUOTA_BYTES}`,
      `--Firmware:MaxFilesPerTenant=${QUOTA_FILES}`,
    ]);
  });
  afterAll(async () => {
    await hub?.stop();
    rmSync(storage, { recursive: true, force: true });
    rmSync(temp, { recursive: true, force: true });
  });

  const admin = (tenant: string) => userToken(tenant, { roles: ['admin'] });
  const put = async (
    tenant: string,
    name: string,
    body: AsyncIterable<Buffer> | Buffer,
    headers: Record<string, string> = {},
  ) =>
    send(`${hub.url}/v1/firmware/${name}`, 'PUT', { authorization: `Bearer ${await admin(tenant)}`, ...headers }, body);
  const files = (tenant: string) =>
    existsSync(join(storage, tenant)) ? readdirSync(join(storage, tenant)).sort() : [];
  const listed = async (tenant: string) =>
    (
      JSON.parse(
        (
          await send(`${hub.url}/v1/firmware`, 'GET', { authorization: `Bearer ${await admin(tenant)}` })
        ).body.toString(),
      ) as { items: { name: string; size: number }[] }
    ).items.map((i) => [i.name, i.size]);
  const expectOverQuota = (answer: Answer) => {
    expect(answer.status, answer.body.toString()).toBe(413);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer.body.toString())).toMatchObject({
      status: 413,
      code: 'HUB_ERR_FIRMWARE_QUOTA_EXCEEDED',
      quotaBytes: QUOTA_BYTES,
      quotaFiles: QUOTA_FILES,
    });
  };

  it('stops a streamed PUT at the quota, mid-upload, and keeps nothing of it', async () => {
    expect((await put('q-stream', 'small.bin', Buffer.alloc(MiB))).status).toBe(201);
    const over = await put('q-stream', 'big.bin', generated(HUGE, 64 * 1024));
    expectOverQuota(over);
    expect(over.sent).toBeLessThan(HUGE);
    expect(files('q-stream')).toEqual(['small.bin']);
    expect(await listed('q-stream')).toEqual([['small.bin', MiB]]);
    // A Content-Length that cannot fit is refused before a byte of the body is read.
    const declared = await put('q-stream', 'declared.bin', generated(HUGE, 64 * 1024), {
      'content-length': String(HUGE),
    });
    expectOverQuota(declared);
    expect(files('q-stream')).toEqual(['small.bin']);
  });

  it('stops a buffered form at the quota while it is read, leaving no temporary or stored file', async () => {
    const over = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { authorization: `Bearer ${await admin('q-form')}`, 'content-type': MULTIPART_STREAM_TYPE },
      multipartStream('form.bin', HUGE),
    );
    expectOverQuota(over);
    expect(over.sent).toBeLessThan(HUGE);
    expect(readdirSync(temp)).toEqual([]);
    expect(files('q-form')).toEqual([]);
    expect(await listed('q-form')).toEqual([]);
    // Within the quota the same path stores.
    const fits = await send(
      `${hub.url}/v1/firmware`,
      'POST',
      { authorization: `Bearer ${await admin('q-form')}`, 'content-type': MULTIPART_STREAM_TYPE },
      multipartStream('form.bin', MiB),
    );
    expect(fits.status).toBe(201);
  });

  it("counts a replaced file's old size as freed", async () => {
    expect((await put('q-replace', 'a.bin', Buffer.alloc(1536 * 1024))).status).toBe(201);
    expectOverQuota(await put('q-replace', 'b.bin', Buffer.alloc(MiB)));
    // 1900 KiB in place of 1536 KiB: within 2 MiB, as the old file goes.
    expect((await put('q-replace', 'a.bin', Buffer.alloc(1900 * 1024))).status).toBe(200);
    expect(await listed('q-replace')).toEqual([['a.bin', 1900 * 1024]]);
  });

  it('refuses a file past the number of files at once; a replacement still goes through', async () => {
    for (const name of ['1.bin', '2.bin', '3.bin'])
      expect((await put('q-files', name, Buffer.alloc(10))).status).toBe(201);
    const fourth = await put('q-files', '4.bin', generated(HUGE, 64 * 1024));
    expectOverQuota(fourth);
    expect(fourth.sent).toBeLessThan(HUGE);
    expect(JSON.parse(fourth.body.toString()).detail).toMatch(/quota of 3 files/);
    expect((await put('q-files', '2.bin', Buffer.alloc(20))).status).toBe(200);
    expect(files('q-files')).toEqual(['1.bin', '2.bin', '3.bin']);
  });

  it('two uploads of one tenant at once cannot together pass the quota, though each fits alone', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // 1.25 MiB each: half of it sent, then both wait until both are in flight, then the rest.
    async function* halted(): AsyncGenerator<Buffer> {
      yield Buffer.alloc(640 * 1024);
      await gate;
      for (let i = 0; i < 10; i++) yield Buffer.alloc(64 * 1024);
    }
    const both = Promise.all([put('q-race', 'x.bin', halted()), put('q-race', 'y.bin', halted())]);
    await eventually(
      () => files('q-race').filter((f) => f.endsWith('.part')).length === 2,
      5000,
      'both uploads to be written',
    );
    release();
    const answers = await both;
    expect(answers.map((a) => a.status).sort()).toEqual([201, 413]);
    expectOverQuota(answers.find((a) => a.status === 413)!);
    const stored = await listed('q-race');
    expect(stored).toHaveLength(1);
    expect(files('q-race')).toEqual([stored[0]![0]]);
  });
});
