import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userToken } from '../../support/app-harness.js';
import { startChildHub, type ChildHub } from '../../support/child-hub.js';
import { generated, send } from './upload-client.js';

const MiB = 1024 * 1024;

/** The resident set of a process, from the kernel (what the machine pays, GC or not). */
function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/** Passes the chunks on while hashing them, so the test knows the SHA-256 of what it sent without a second pass. */
async function* hashing(chunks: AsyncIterable<Buffer>, hash: ReturnType<typeof createHash>): AsyncGenerator<Buffer> {
  for await (const c of chunks) {
    hash.update(c);
    yield c;
  }
}

describe('streamed firmware uploads against the built hub as a process', () => {
  let small: ChildHub;
  let large: ChildHub;
  let smallStorage: string;
  let largeStorage: string;
  let admin: string;

  beforeAll(async () => {
    smallStorage = mkdtempSync(join(tmpdir(), 'fw-small-'));
    largeStorage = mkdtempSync(join(tmpdir(), 'fw-large-'));
    const common = [
      '--environment=Development',
      '--Http:Port=0',
      '--Ingestion:Mqtt:EmbeddedPort=0',
      '--Simulator:Devices=0',
    ];
    // The default limit (128 MiB) on one; room for 1 GiB, with time to send it, on the other.
    // One after the other, each kept as soon as it runs, so afterAll stops whatever started.
    small = await startChildHub([...common, `--Storage:Path=${smallStorage}`], {}, 45_000);
    large = await startChildHub(
      [
        ...common,
        `--Storage:Path=${largeStorage}`,
        `--Firmware:MaxUploadBytes=${2048 * MiB}`,
        `--Firmware:MaxBytesPerTenant=${4096 * MiB}`,
        '--Http:RequestTimeoutSeconds=600',
      ],
      {},
      45_000,
    );
    admin = await userToken('demo', { roles: ['admin'] });
  }, 100_000);
  afterAll(async () => {
    await Promise.all([small?.stop(), large?.stop()]);
    rmSync(smallStorage, { recursive: true, force: true });
    rmSync(largeStorage, { recursive: true, force: true });
  });

  it('answers a 200 MB upload over the 128 MiB limit with 413 mid-upload and keeps no file', async () => {
    const answer = await send(
      `${small.url}/v1/firmware/over.bin`,
      'PUT',
      { authorization: `Bearer ${admin}` },
      generated(200 * 1000 * 1000),
    );
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.parse(answer.body.toString())).toMatchObject({
      status: 413,
      code: 'HUB_ERR_FIRMWARE_TOO_LARGE',
      limitBytes: 128 * MiB,
    });
    // Answered before the body was all sent: the limit was checked while reading.
    expect(answer.sent).toBeLessThan(200 * 1000 * 1000);
    const dir = join(smallStorage, 'demo');
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    // The hub is still fine and the name unknown.
    const after = await send(`${small.url}/v1/firmware/over.bin`, 'GET', { authorization: `Bearer ${admin}` });
    expect(after.status).toBe(404);
  });

  it('takes a 1 GiB streamed upload with flat memory, and stores exactly what was sent', async () => {
    const pid = large.child.pid!;
    // Warm the upload path first, so the baseline holds what any upload needs once.
    await send(`${large.url}/v1/firmware/warm.bin`, 'PUT', { authorization: `Bearer ${admin}` }, generated(32 * MiB));
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
    const hash = createHash('sha256');
    const total = 1024 * MiB;
    const started = performance.now();
    const answer = await send(
      `${large.url}/v1/firmware/big.bin`,
      'PUT',
      { authorization: `Bearer ${admin}` },
      hashing(generated(total), hash),
    );
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(pid));
    expect(answer.status, answer.body.toString()).toBe(201);
    expect(JSON.parse(answer.body.toString())).toEqual({ name: 'big.bin', size: total, sha256: hash.digest('hex') });
    const growth = peak - baseline;
    console.log(
      `1 GiB streamed upload: ${(total / MiB / seconds).toFixed(0)} MiB/s; hub RSS ${(baseline / MiB).toFixed(0)} MiB before, peak +${(growth / MiB).toFixed(1)} MiB`,
    );
    // Buffering would cost ~1024 MiB; streaming holds a few chunks.
    expect(growth).toBeLessThan(64 * MiB);
    rmSync(join(largeStorage, 'demo', 'big.bin'));
  }, 180_000);
});
