import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';

/** A "Redis" that accepts TCP connections and never answers: the failure the offline queue fed on. */
async function blackHole(): Promise<{ url: string; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `redis://127.0.0.1:${port}`, server, sockets };
}

function capturingLogger(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info', base: undefined }, stream), lines };
}

// A full collection before each measurement, so only what is still held counts.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('issue 12 item 4: a black-holed Redis cannot eat memory or flood the log', () => {
  it('publishing 150,000 readings of 1 KB through the backplane for 3 s keeps the heap flat and logs a bounded number of lines', async () => {
    const hole = await blackHole();
    const { log, lines } = capturingLogger();
    const backplane = new RedisBackplane({ url: hole.url, hubName: 'blackhole', log });
    cleanup = async () => {
      await backplane.close();
      for (const s of hole.sockets) s.destroy();
      await new Promise((resolve) => hole.server.close(resolve));
    };
    // Start gives up its first attempt against a Redis that never answers (the hub starts, unready);
    // the hub keeps publishing meanwhile.
    const started = backplane.start().then(
      () => 'started',
      () => 'failed',
    );

    const payload = { temperature: 21.5, note: 'x'.repeat(1000) };
    const before = heapMb();
    const t0 = Date.now();
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 5000; i++) {
        backplane.publish({
          kind: 'group',
          group: 'device:t:d',
          message: {
            source: { kind: 'group', group: 'device:t:d' },
            dataType: 'json',
            data: { ...payload, n: i },
            conflationKey: undefined,
          },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const grown = heapMb() - before;
    const elapsed = Date.now() - t0;

    // 150 MB of readings went in; before the fix ioredis queued every one of them (≈ 150 MB).
    expect(grown).toBeLessThan(30);
    expect(elapsed).toBeLessThan(20_000);
    // One line per state change or per interval, never one per dropped publish.
    expect(lines.length).toBeLessThan(20);
    expect(await started).toBe('started');
    expect(await backplane.healthy()).toMatch(/redis/);
  }, 30_000);

  it('the readiness ping against a Redis that never answers fails within the check instead of hanging', async () => {
    // commandTimeout bounds every command written to a connection that does not answer.
    const hole = await blackHole();
    const { log } = capturingLogger();
    const backplane = new RedisBackplane({ url: hole.url, hubName: 'blackhole', log });
    cleanup = async () => {
      await backplane.close();
      for (const s of hole.sockets) s.destroy();
      await new Promise((resolve) => hole.server.close(resolve));
    };
    const t0 = Date.now();
    expect(await backplane.healthy()).toMatch(/redis/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  }, 20_000);
});
